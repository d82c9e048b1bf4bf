/*
 * syscalls.c - the memory system calls: mmap, munmap, mprotect, madvise,
 * mremap, msync and brk; the Linux ABI over mm/vm.h.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/printk.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "fs/vfs.h"

static unsigned long vmflags_of_prot(u64 prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

SYSCALL_DEFINE6(mmap, u64, addr, u64, len, u64, prot, u64, flags, int, fd, u64, off)
{
	struct mm_struct *mm = current_task()->mm;
	if (!len || (off & (PAGE_SIZE - 1)) || (prot & ~7UL))
		return -EINVAL;
	if (((flags & 3) != MAP_SHARED && (flags & 3) != MAP_PRIVATE))
		return -EINVAL;
	if (len > USER_TOP)
		return -ENOMEM;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	if (fixed && (addr & (PAGE_SIZE - 1)))
		return -EINVAL;
	unsigned long vmflags = vmflags_of_prot(prot);
	struct inode *inode = NULL;
	struct file *f = NULL;
	if (!(flags & MAP_ANONYMOUS)) {
		f = fd_get(current_proc()->files, fd);
		if (!f)
			return -EBADF;
		if (!f->inode || !S_ISREG(f->inode->mode)) {
			file_put(f);
			return -ENODEV;
		}
		unsigned acc = f->flags & O_ACCMODE;
		if (acc == O_WRONLY || ((flags & MAP_SHARED) && (prot & PROT_WRITE) && acc != O_RDWR)) {
			file_put(f);
			return -EACCES;
		}
		inode = f->inode;
	}
	if (flags & MAP_SHARED)
		vmflags |= VM_SHARED;
	struct inode *shm = NULL;
	if ((flags & MAP_SHARED) && (flags & MAP_ANONYMOUS)) {
		/* Its pages are made at first touch, in a nameless file that
		 * fork's copies of the mapping share (fs/shmem.c). */
		inode = shm = shmem_create((len + PAGE_SIZE - 1) & PAGE_MASK);
		off = 0;
		if (!shm)
			return -ENOMEM;
	}
	down_write(&mm->mmap_lock);
	long r;
	if ((flags & MAP_FIXED_NOREPLACE) && find_vma(mm, addr) &&
	    find_vma(mm, addr)->start < addr + len)
		r = -EEXIST;
	else
		r = do_mmap(mm, addr, len, vmflags, fixed, inode, off >> PAGE_SHIFT);
	up_write(&mm->mmap_lock);
	file_put(f);
	iput(shm);		/* the VMA holds its own reference */
	return r;
}

SYSCALL_DEFINE2(munmap, u64, addr, u64, len)
{
	struct mm_struct *mm = current_task()->mm;
	down_write(&mm->mmap_lock);
	long r = do_munmap(mm, addr, len);
	up_write(&mm->mmap_lock);
	return r;
}

SYSCALL_DEFINE3(mprotect, u64, start, u64, len, u64, prot)
{
	struct mm_struct *mm = current_task()->mm;
	if (prot & ~7UL)
		return -EINVAL;
	if (!len)
		return (start & (PAGE_SIZE - 1)) ? -EINVAL : 0;
	down_write(&mm->mmap_lock);
	long r = do_mprotect(mm, start, len, vmflags_of_prot(prot));
	up_write(&mm->mmap_lock);
	return r;
}

SYSCALL_DEFINE3(madvise, u64, start, u64, len, u64, advice)
{
	struct mm_struct *mm = current_task()->mm;
	if (start & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!len)
		return 0;
	down_read(&mm->mmap_lock);
	long r = advice == 4 || advice == 8	/* MADV_DONTNEED, MADV_FREE; others are hints */
			 ? do_zap(mm, start, len) : vma_check_range(mm, start, len);
	up_read(&mm->mmap_lock);
	return r;
}

SYSCALL_DEFINE5(mremap, u64, old_addr, u64, old_len, u64, new_len, u64, flags, u64, new_addr)
{
	struct mm_struct *mm = current_task()->mm;
	u64 old = old_addr, oldlen = (old_len + PAGE_SIZE - 1) & PAGE_MASK, newlen = (new_len + PAGE_SIZE - 1) & PAGE_MASK;
	if ((old & (PAGE_SIZE - 1)) || !newlen)
		return -EINVAL;
	if (flags & ~3UL)
		return -EINVAL;		/* MREMAP_FIXED and the rest: not supported */
	if (!old_len)
		return -EINVAL;		/* Linux: old_len 0 duplicates a shared mapping; not here */
	down_write(&mm->mmap_lock);
	long r;
	struct vm_area *v = find_vma(mm, old);
	if (!v || v->start > old)
		r = -EFAULT;		/* Linux: EFAULT when nothing is mapped at old */
	else if (newlen <= oldlen)	/* shrinking: unmap the tail */
		r = newlen < oldlen ? do_munmap(mm, old + newlen, oldlen - newlen) : 0;
	else
		r = do_mremap_grow(mm, old, oldlen, newlen, flags & 1 /* MREMAP_MAYMOVE */);
	up_write(&mm->mmap_lock);
	return r < 0 ? r : (newlen <= oldlen ? (long)old : r);
}

SYSCALL_DEFINE3(msync, u64, start, u64, len, int, flags) { return do_msync(current_task()->mm, start, len, flags); }

SYSCALL_DEFINE1(brk, u64, brk)
{
	struct mm_struct *mm = current_task()->mm;
	down_write(&mm->mmap_lock);
	unsigned long want = brk, cur = mm->brk;
	if (want >= mm->brk_start && want < USER_MMAP_TOP) {
		unsigned long old_end = (cur + PAGE_SIZE - 1) & PAGE_MASK;
		unsigned long new_end = (want + PAGE_SIZE - 1) & PAGE_MASK;
		long r = 0;
		if (new_end > old_end) {
			struct vm_area *v = find_vma(mm, old_end);
			if (v && v->start < new_end)
				r = -ENOMEM;	/* would run into another mapping */
			else
				r = do_mmap(mm, old_end, new_end - old_end, VM_READ | VM_WRITE, true,
					    NULL, 0);
		} else if (new_end < old_end) {
			r = do_munmap(mm, new_end, old_end - new_end);
		}
		if (r >= 0)
			mm->brk = want;
	}
	long ret = (long)mm->brk;
	up_write(&mm->mmap_lock);
	return ret;
}

