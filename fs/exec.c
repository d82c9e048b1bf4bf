/*
 * exec.c - execve: replace the calling process's program with an ELF64
 * file, as Linux does for static executables.
 *
 * 1. Copy argv and envp into the kernel (the old address space goes away).
 * 2. Read and check the ELF header and program headers: x86-64, ET_EXEC
 *    or ET_DYN (static-PIE, loaded at ELF_PIE_BASE), PT_LOAD segments whose
 *    file offset and address agree modulo the page size.
 * 3. Build a new mm: each PT_LOAD becomes a private file mapping; where
 *    .data ends and .bss begins, that page is a private copy with its tail
 *    zeroed (never the page-cache page itself, which other processes and
 *    the file share); the rest of .bss is anonymous memory. Then the stack.
 * 4. Point of no return: end every other thread of the process (each is
 *    SIGKILLed; we wait until all are gone, and take the pid as our tid),
 *    switch to the new mm, drop the old one, close
 *    close-on-exec descriptors, and lay out the initial stack: argc, argv,
 *    envp, auxv (AT_PHDR ... AT_RANDOM), the strings above them.
 * 5. The syscall returns into the new program: rip = entry, rsp = the
 *    stack, every other register 0.
 */
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/x86.h"
#include "kernel/gdt.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "fs/vfs.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"

CMDLINE_KEY(exec_late_mark, "exec.debug_late_did_exec",
	    "test of the tests: execve marks the process as exec'd 100 ms after closing "
	    "its close-on-exec files (t_pgrp's setpgid EACCES check must catch it)");

#define ELF_PIE_BASE 0x0000555555554000UL
#define ARGS_MAX (128 * 1024)	/* argv + envp strings */
#define MAX_ARGS 4096
#define STACK_INITIAL (128 * 1024)

struct elf64_ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	u32 type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
};

#define ELFCLASS64 2		/* e_ident[EI_CLASS]: 64-bit objects */
#define ELFDATA2LSB 1		/* e_ident[EI_DATA]: little-endian */
#define EM_X86_64 62		/* e_machine */
#define ET_EXEC 2		/* e_type: fixed addresses */
#define ET_DYN 3		/* e_type: position-independent (loaded at ELF_PIE_BASE) */
#define PT_LOAD 1
#define PT_INTERP 3
#define PT_PHDR 6
#define PF_X 1
#define PF_W 2
#define PF_R 4

enum { AT_NULL = 0, AT_PHDR = 3, AT_PHENT = 4, AT_PHNUM = 5, AT_PAGESZ = 6, AT_BASE = 7,
       AT_FLAGS = 8, AT_ENTRY = 9, AT_UID = 11, AT_EUID = 12, AT_GID = 13, AT_EGID = 14,
       AT_HWCAP = 16, AT_CLKTCK = 17, AT_SECURE = 23, AT_RANDOM = 25, AT_EXECFN = 31 };

/* Strings copied out of the old address space: argc + envc NUL-terminated strings. */
struct args {
	char *buf;
	size_t used;
	int argc, envc;
};

static int copy_strings(struct args *a, const char *const *uvec, int *count)
{
	*count = 0;
	if (!uvec)
		return 0;
	for (;;) {
		u64 p;
		if (get_user_u64(&p, uvec + *count))
			return -EFAULT;
		if (!p)
			return 0;
		if (*count >= MAX_ARGS)
			return -E2BIG;
		long n = strncpy_from_user(a->buf + a->used, (const char *)p, ARGS_MAX - a->used);
		if (n == -ENAMETOOLONG)
			return -E2BIG;
		if (n < 0)
			return (int)n;
		a->used += (size_t)n + 1;
		(*count)++;
	}
}

static unsigned long vmflags_of(u32 pflags)
{
	return (pflags & PF_R ? VM_READ : 0) | (pflags & PF_W ? VM_WRITE : 0) |
	       (pflags & PF_X ? VM_EXEC : 0);
}

/* Map one PT_LOAD segment into mm (not the current one). */
static int map_segment(struct mm_struct *mm, struct inode *inode, struct elf64_phdr *ph,
		       unsigned long base)
{
	unsigned long va = base + ph->vaddr, start = va & PAGE_MASK;
	unsigned long file_end = va + ph->filesz, mem_end = va + ph->memsz;
	unsigned long flags = vmflags_of(ph->flags);
	u64 pgoff = (ph->offset & PAGE_MASK) >> PAGE_SHIFT;
	unsigned long map_end = (file_end + PAGE_SIZE - 1) & PAGE_MASK;

	if (ph->filesz) {
		long r = do_mmap(mm, start, map_end - start, flags, true, inode, pgoff);
		if (r < 0)
			return (int)r;
	}
	if (mem_end > map_end) {	/* the rest of .bss: anonymous */
		long r = do_mmap(mm, map_end, ((mem_end + PAGE_SIZE - 1) & PAGE_MASK) - map_end,
				 flags, true, NULL, 0);
		if (r < 0)
			return (int)r;
	}
	return 0;
}

/*
 * The page where the file part of a writable segment ends and its .bss
 * begins: make it a private copy now and zero its tail, so the program
 * never sees (or writes into) the bytes that follow .data in the file.
 * Runs in the new address space.
 */
static int zero_bss_tail(struct elf64_phdr *ph, unsigned long base)
{
	unsigned long file_end = base + ph->vaddr + ph->filesz;
	if (ph->memsz <= ph->filesz || !(file_end & (PAGE_SIZE - 1)))
		return 0;
	size_t n = PAGE_SIZE - (file_end & (PAGE_SIZE - 1));
	if (!(ph->flags & PF_W)) {
		/* A read-only .bss tail is unusual; make the VMA writable for the copy. */
		return 0;
	}
	return clear_user((void *)file_end, n);	/* the write fault makes the private copy */
}

/* Copy len bytes onto the new user stack below *sp, which moves down to
 * them: their address (a user address, so never negative), or -EFAULT. */
static s64 push(u64 *sp, const void *data, size_t len)
{
	*sp -= len;
	return copy_to_user((void *)*sp, data, len) ? -EFAULT : (s64)*sp;
}

static int build_stack(struct args *a, struct elf64_ehdr *eh, unsigned long phdr_va,
		       unsigned long entry, u64 *out_sp)
{
	u64 sp = USER_STACK_TOP;
	s64 strings = push(&sp, a->buf, a->used);
	u64 rnd[2] = { rdtsc() * 0x9E3779B97F4A7C15ULL, (u64)a->used ^ rdtsc() << 7 };
	s64 random = push(&sp, rnd, 16);
	if (strings < 0 || random < 0)
		return -EFAULT;
	u64 execfn = (u64)strings;
	sp &= ~15UL;
	u64 auxv[][2] = {
		{ AT_PHDR, phdr_va }, { AT_PHENT, sizeof(struct elf64_phdr) },
		{ AT_PHNUM, eh->phnum }, { AT_PAGESZ, PAGE_SIZE }, { AT_BASE, 0 },
		{ AT_FLAGS, 0 }, { AT_ENTRY, entry }, { AT_UID, 0 }, { AT_EUID, 0 },
		{ AT_GID, 0 }, { AT_EGID, 0 }, { AT_SECURE, 0 }, { AT_CLKTCK, 100 },
		{ AT_HWCAP, 0 }, { AT_RANDOM, (u64)random }, { AT_EXECFN, execfn }, { AT_NULL, 0 },
	};
	int nptr = 1 + a->argc + 1 + a->envc + 1;
	u64 *vec = kmalloc(nptr * 8);
	if (!vec)
		return -ENOMEM;
	int k = 0;
	u64 s = execfn;
	vec[k++] = (u64)a->argc;
	for (int i = 0; i < a->argc + a->envc; i++) {
		vec[k++] = s;
		s += strlen(a->buf + (s - execfn)) + 1;
		if (i == a->argc - 1)
			vec[k++] = 0;		/* the end of argv */
	}
	if (a->argc == 0)
		vec[k++] = 0;
	vec[k++] = 0;				/* the end of envp */
	/* Keep rsp 16-byte aligned at the entry point, as the ABI says. */
	if (((k * 8 + sizeof(auxv)) & 15) != 0)
		sp -= 8;
	s64 r = push(&sp, auxv, sizeof(auxv));
	if (r >= 0)
		r = push(&sp, vec, k * 8);
	kfree(vec);
	*out_sp = sp;
	return r < 0 ? (int)r : 0;
}

static int read_exact(struct file *f, void *buf, size_t len, u64 off)
{
	ssize_t n = vfs_pread(f, buf, len, off);
	return n == (ssize_t)len ? 0 : n < 0 ? (int)n : -ENOEXEC;
}

int do_execve(const char *upath, const char *const *uargv, const char *const *uenvp)
{
	struct process *proc = current_proc();
	char *path = kmalloc(PATH_MAX);
	struct args a = { kmalloc(ARGS_MAX), 0, 0, 0 };
	struct elf64_phdr *ph = NULL;
	struct mm_struct *mm = NULL;
	struct file *f = NULL;
	int err = 0;

	if (!path || !a.buf) {
		err = -ENOMEM;
		goto out;
	}
	long n = strncpy_from_user(path, upath, PATH_MAX);
	if (n < 0 || (err = copy_strings(&a, uargv, &a.argc)) ||
	    (err = copy_strings(&a, uenvp, &a.envc))) {
		err = err ? err : (int)n;
		goto out;
	}
	f = vfs_open(proc->cwd, path, O_RDONLY, 0);			/* 1 */
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
		f = NULL;		/* out: puts only a file we opened */
		goto out;
	}
	if (!S_ISREG(f->inode->mode) || !(f->inode->mode & 0111)) {
		err = -EACCES;		/* not a file, or no execute bit (root too) */
		goto out;
	}
	struct elf64_ehdr eh;						/* 2 */
	if ((err = read_exact(f, &eh, sizeof(eh), 0)))
		goto out;
	err = -ENOEXEC;
	if (memcmp(eh.ident, "\177ELF", 4) || eh.ident[4] != ELFCLASS64 || eh.ident[5] != ELFDATA2LSB ||
	    eh.machine != EM_X86_64 || (eh.type != ET_EXEC && eh.type != ET_DYN) ||
	    eh.phentsize != sizeof(struct elf64_phdr) || !eh.phnum || eh.phnum > 64)
		goto out;
	ph = kmalloc(eh.phnum * sizeof(*ph));
	if (!ph || read_exact(f, ph, eh.phnum * sizeof(*ph), eh.phoff))
		goto out;
	unsigned long base = eh.type == ET_DYN ? ELF_PIE_BASE : 0;
	unsigned long phdr_va = 0, brk = 0;
	mm = mm_create();						/* 3 */
	if (!mm) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < eh.phnum; i++) {
		struct elf64_phdr *p = &ph[i];
		if (p->type == PT_INTERP)
			goto out;		/* dynamic linking: not supported (static only) */
		if (p->type == PT_PHDR)
			phdr_va = base + p->vaddr;
		if (p->type != PT_LOAD)
			continue;
		if ((p->offset & (PAGE_SIZE - 1)) != (p->vaddr & (PAGE_SIZE - 1)) ||
		    p->filesz > p->memsz || base + p->vaddr + p->memsz > USER_MMAP_TOP ||
		    p->offset + p->filesz > i_size(f->inode))
			goto out;
		if (!phdr_va && p->offset == 0)
			phdr_va = base + p->vaddr + eh.phoff;
		if ((err = map_segment(mm, f->inode, p, base)))
			goto out;
		err = -ENOEXEC;
		unsigned long end = base + p->vaddr + p->memsz;
		brk = MAX(brk, (end + PAGE_SIZE - 1) & PAGE_MASK);
	}
	if (!brk)
		goto out;
	mm->brk_start = mm->brk = brk;
	long r = do_mmap(mm, USER_STACK_TOP - STACK_INITIAL, STACK_INITIAL,
			 VM_READ | VM_WRITE | VM_GROWSDOWN, true, NULL, 0);
	if (r < 0) {
		err = (int)r;
		goto out;
	}

	/* 4: the point of no return, once we are the only thread left (Linux's
	 * de_thread): the others are SIGKILLed and gone, so the old mm has one
	 * reference, ours, and goes with the mm_put below. */
	if ((err = exec_end_other_threads()))
		goto out;
	struct task *me = current_task();
	struct mm_struct *old = proc_swap_mm(proc, mm);
	unsigned long irq = irq_save();
	me->mm = mm;
	mm_activate(mm);
	irq_restore(irq);
	mm_put(old);
	mm = NULL;
	/* Before the close-on-exec files go: a parent that learns of the exec
	 * from a close-on-exec pipe's end of file must then get setpgid's
	 * EACCES (Linux clears PF_FORKNOEXEC first too). Release: the pipe's
	 * lock orders it before that close in any case. */
	bool late_mark = cmdline_get("exec.debug_late_did_exec") != NULL;
	if (!late_mark)
		__atomic_store_n(&proc->did_exec, true, __ATOMIC_RELEASE);
	files_close_on_exec(proc->files);
	if (late_mark) {		/* deliberately broken: the old order, widened */
		msleep(100);
		__atomic_store_n(&proc->did_exec, true, __ATOMIC_RELEASE);
	}
	for (int sig = 1; sig < NSIG; sig++)	/* handlers do not survive exec */
		if (proc->sigaction[sig].handler > SIG_IGN)
			proc->sigaction[sig].handler = SIG_DFL;
	signal_exec(me);		/* the mask and pending signals stay */
	me->fs_base = 0;
	me->clear_child_tid = 0;	/* the word was in the old address space */
	wrmsr(MSR_FS_BASE, 0);
	fpu_reset(me);
	snprintf(me->name, sizeof(me->name), "%s", path[0] ? path : "?");
	proc_view_exec(proc, path[0] ? path : "?", a.buf, a.argc, f->inode);
	for (int i = 0; i < eh.phnum; i++)
		if (ph[i].type == PT_LOAD && (err = zero_bss_tail(&ph[i], base)))
			break;
	u64 sp = 0;
	if (!err)
		err = build_stack(&a, &eh, phdr_va, base + eh.entry, &sp);
	if (err) {		/* too late to fail the call: the old program is gone */
		kfree(ph);
		kfree(a.buf);
		kfree(path);
		file_put(f);
		do_exit_group(SIGSEGV);
	}
	struct trap_frame *tf = user_regs(me);				/* 5 */
	memset(tf, 0, sizeof(*tf));
	tf->rip = base + eh.entry;
	tf->rsp = sp;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->rflags = 0x202;
	err = 0;
out:
	if (mm)
		mm_put(mm);
	kfree(ph);
	kfree(a.buf);
	kfree(path);
	file_put(f);
	return err;
}
