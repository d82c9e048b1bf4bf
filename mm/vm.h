/*
 * vm.h - user address spaces: mm_struct, VMAs, page faults.
 *
 * An mm_struct is a process's address space: its own PML4 whose upper half
 * is the kernel's (the same PDPT pages, so a kernel mapping made later is
 * seen by every process), a list of VMAs sorted by address, the mmap_lock,
 * and the set of CPUs that may hold its translations in their TLBs.
 *
 * Pages: every present user PTE holds one reference on its page and one
 * mapcount. Anonymous pages are the process's own (copied on write after a
 * fork); a MAP_PRIVATE file page is the page-cache page itself until the
 * first write copies it; a MAP_SHARED one stays the page-cache page.
 *
 * Locks: mmap_lock (rw-semaphore) - readers fault pages in, writers change
 * VMAs (mmap, munmap, mprotect, brk, exec, exit); pt_lock (spinlock) -
 * installing or changing one PTE, so two threads faulting the same page
 * agree. Order: mmap_lock -> page lock -> pt_lock.
 *
 * Unmapping frees a page only after every CPU in cpumask has flushed the
 * translation (TLB shootdown), never before: a CPU that still caches it
 * could otherwise write to a page that has been given to someone else.
 * cpumask holds the CPUs whose cr3 is this mm now (mm_activate): a CPU
 * that switched away holds none of its translations.
 */
#ifndef MM_VM_H
#define MM_VM_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"
#include "kernel/atomic.h"

struct inode;
struct page;

#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define VM_SHARED 0x8
#define VM_GROWSDOWN 0x100

/* Linux's mmap protections and flags. */
#define PROT_NONE 0x0
#define PROT_READ 0x1
#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_GROWSDOWN 0x0100
#define MAP_NORESERVE 0x4000
#define MAP_POPULATE 0x8000
#define MAP_FIXED_NOREPLACE 0x100000

#define USER_STACK_TOP 0x00007ffffffde000UL
#define USER_STACK_MAX (8UL << 20)	/* the stack grows down to 8 MiB */
#define USER_MMAP_TOP 0x00007f0000000000UL

/* Lock legend: [M] mmap_lock for writing to change (and, for a file VMA,
 * its file's i_mmap_lock too, which the reverse map reads it under). */
struct vm_area {
	unsigned long start, end;	/* [M] [start, end), page-aligned */
	unsigned long flags;		/* [M] VM_* */
	struct inode *file;		/* [I] held; NULL: anonymous */
	u64 pgoff;			/* [M] file page at start */
	struct list_head link;		/* [M] in mm->vmas, by address */
	struct mm_struct *mm;		/* [I] the address space it belongs to */
	struct list_head mapping_link;	/* [i_mmap_lock] in file->mapping.vmas */
};

struct mm_struct {
	u64 *pml4;			/* [I] kernel virtual address */
	struct rw_semaphore mmap_lock;
	spinlock_t pt_lock;
	struct list_head vmas;		/* [mmap_lock] sorted, never overlapping */
	atomic_t users;			/* [A] threads using it */
	u64 cpumask;			/* [A] CPUs whose cr3 holds it (mm_activate) */
	unsigned long fork_seq;		/* [A] odd while fork write-protects the
					 * private pages (gup.c, "fork and the
					 * fast path"); written under mmap_lock */
	atomic_t tlb_flush_pending;	/* [A] zaps whose PTEs are cleared but
					 * whose shootdown may not be done
					 * (mmap.c, zap_range; rmap.c) */
	unsigned long brk_start, brk;	/* [mmap_lock] the heap */
};

struct mm_struct *mm_create(void);
/* fork: a copy, with private pages shared copy-on-write. NULL: no memory. */
struct mm_struct *mm_fork(struct mm_struct *old);
void mm_get(struct mm_struct *mm);
/* Drop a user; the last frees every page, table and VMA. */
void mm_put(struct mm_struct *mm);
/* Make mm (NULL: the kernel's tables) this CPU's address space (cr3), move
 * this CPU's bit from the old mm's cpumask to mm's. Interrupts off. */
void mm_activate(struct mm_struct *mm);
/* The CPUs a shootdown for mm must reach, read after the caller's PTE changes
 * (a full barrier first). */
u64 mm_flush_mask(struct mm_struct *mm);

/*
 * A PTE of mm found empty (or holding another page) under pt_lock may
 * still be cached by a CPU whose shootdown a zap has not finished: make
 * sure none does before the caller lets the page go (mm/mmap.c, zap_range).
 * May send IPIs: no spinlock held, interrupts on.
 */
void mm_flush_if_pending(struct mm_struct *mm, unsigned long va);

/* mm_rss: pages mapped in mm now (present PTEs; the OOM killer's measure). Takes pt_lock. */
unsigned long mm_rss(struct mm_struct *mm);
struct vm_area *find_vma(struct mm_struct *mm, unsigned long addr);
/* Map [addr, addr+len): with MAP_FIXED exactly there, else anywhere free.
 * Returns the address or -errno. mmap_lock held for writing. */
long do_mmap(struct mm_struct *mm, unsigned long addr, size_t len, unsigned long vmflags,
	     bool fixed, struct inode *file, u64 pgoff);
int do_munmap(struct mm_struct *mm, unsigned long addr, size_t len);
int do_mprotect(struct mm_struct *mm, unsigned long addr, size_t len, unsigned long vmflags);
/* Drop the pages of [addr, addr+len) (madvise DONTNEED): they read back as zeros / the file. */
int do_zap(struct mm_struct *mm, unsigned long addr, size_t len);
/* madvise's range check: 0, -EINVAL (unaligned, empty or wrapping) or
 * -ENOMEM (a page of it is not mapped). mmap_lock held. */
int vma_check_range(struct mm_struct *mm, unsigned long addr, size_t len);
/* Grow [old, old+oldlen) to newlen: in place if there is room, else moved
 * (its pages go with it) when may_move. The new address or -errno. */
long do_mremap_grow(struct mm_struct *mm, unsigned long old, size_t oldlen, size_t newlen,
		    bool may_move);

#define MS_ASYNC 1
#define MS_INVALIDATE 2
#define MS_SYNC 4
/*
 * do_msync: Linux's msync. EINVAL for bad flags or an unaligned addr,
 * ENOMEM when part of the range is not mapped (the mapped parts are still
 * synced); with MS_SYNC the shared file mappings in the range are written
 * back (their PTEs' dirty bits first). Takes mmap_lock for reading. May sleep.
 */
int do_msync(struct mm_struct *mm, unsigned long addr, size_t len, int flags);

/*
 * handle_mm_fault: make the access (PF_* error bits) at addr succeed, or
 * say why not: 0, -EFAULT (no VMA or not allowed: SIGSEGV), -ENXIO (a file
 * page wholly past the end of the file), -ENOMEM, -EIO, -ENOSPC (no block for
 * a shared page about to be written): every error but -EFAULT is SIGBUS.
 * Takes mmap_lock for reading. May sleep.
 */
int handle_mm_fault(struct mm_struct *mm, unsigned long addr, u64 error);
/* Boot: read the vm.debug_fault_* switches (mm_user_init calls it). */
void vm_fault_init(void);

/*
 * try_to_unmap: take a locked page-cache page out of every user page table
 * that maps it (reverse mapping through page->mapping->vmas), after each
 * mm's TLB shootdown; a dirty PTE makes the page dirty. Returns how many
 * mappings remain (0: none; a racing fault may add one back later, which
 * the eviction's refcount freeze then refuses).
 */
int try_to_unmap(struct page *page);
/*
 * page_mkclean: write-protect a locked page-cache page in every shared
 * mapping of it (reverse mapping, then each mm's TLB shootdown), before
 * writeback cleans it: the next store through a mapping then faults and
 * dirties the page again. True if some PTE had been written through (its
 * Dirty bit was set). vm.debug_no_mkclean skips it. May not sleep.
 */
bool page_mkclean(struct page *page);

/* Statistics for /proc and tests. */
struct vm_stats {
	u64 faults, cow_copies, cow_reuses, file_faults, anon_faults;
	u64 rmap_unmaps;	/* user mappings removed by reclaim or truncation */
};
void vm_get_stats(struct vm_stats *st);

/* mm_free_unmapped_vmas: free the file VMAs the running task unmapped
 * (their inode references dropped); with no mmap_lock held. */
void mm_free_unmapped_vmas(void);
/* mm_user_init: at boot, before the first process. */
void mm_user_init(void);
/* rmap_unmap_count (mm/rmap.c): PTEs reclaim and truncation took out, for /proc/vm. [A] */
extern u64 rmap_unmap_count;

#endif
