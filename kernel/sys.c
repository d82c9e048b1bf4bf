/*
 * sys_proc.c - system calls for processes, threads, memory, signals and
 * time (the Linux ABI over kernel/process.c and mm/).
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/wait.h"
#include "kernel/mutex.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "fs/vfs.h"
#include "drivers/rtc.h"

long do_clone(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls);
void do_exit_thread(int code) __noreturn;
long do_wait4(int pid, u64 ustatus, int options);
long do_kill(int pid, int sig);
int proc_getppid(void);
int do_execve(const char *upath, const char *const *uargv, const char *const *uenvp);

#define SIGCHLD_FLAG 17

/* ------------------------------------------------------------ processes */

SYSCALL(fork) { return do_clone(SIGCHLD_FLAG, 0, 0, 0, 0); }
SYSCALL(clone) { return do_clone(a0, a1, a2, a3, a4); }
SYSCALL(execve) { return do_execve((const char *)a0, (const char *const *)a1, (const char *const *)a2); }
SYSCALL(exit) { do_exit_thread((int)a0); }
SYSCALL(exit_group) { do_exit_group(((int)a0 & 0xff) << 8); }

SYSCALL(wait4)
{
	if (a2 & ~(u64)(1 | 2 | 0x40000000 | 0x80000000))
		return -EINVAL;
	long r = do_wait4((int)a0, a1, (int)a2);
	/* struct rusage (all zero) only for a child reaped: like Linux, a bad
	 * pointer fails the call after the child is gone, never before */
	if (r > 0 && a3 && clear_user((void *)a3, 144))
		return -EFAULT;
	return r;
}

SYSCALL(kill) { return do_kill((int)a0, (int)a1); }

SYSCALL(tkill)
{
	return (int)a0 == current_task()->tid || (int)a0 == current_proc()->pid
		       ? send_signal(current_proc(), (int)a1) : do_kill((int)a0, (int)a1);
}

SYSCALL(tgkill) { return do_kill((int)a0, (int)a2); }
SYSCALL(getpid) { return current_proc()->pid; }
SYSCALL(gettid) { return current_task()->tid; }
SYSCALL(getppid) { return proc_getppid(); }
SYSCALL(getuid) { return 0; }
SYSCALL(setuid) { return a0 == 0 ? 0 : -EPERM; }
SYSCALL(setpgid) { return 0; }

SYSCALL(set_tid_address)
{
	current_task()->clear_child_tid = a0;
	return current_task()->tid;
}

SYSCALL(set_robust_list) { return a1 == 24 ? 0 : -EINVAL; }

SYSCALL(arch_prctl)
{
	switch (a0) {
	case 0x1002:		/* ARCH_SET_FS */
		if (a1 >= USER_TOP)
			return -EPERM;
		current_task()->fs_base = a1;
		wrmsr(0xc0000100, a1);
		return 0;
	case 0x1003:		/* ARCH_GET_FS */
		return put_user_u64((void *)a1, rdmsr(0xc0000100));
	}
	return -EINVAL;
}

SYSCALL(sched_yield)
{
	yield();
	return 0;
}

/* ------------------------------------------------------------ signals */

SYSCALL(rt_sigaction)
{
	int sig = (int)a0;
	if (sig < 1 || sig >= NSIG || a3 != 8)
		return -EINVAL;
	struct process *p = current_proc();
	struct k_sigaction act, old = p->sigaction[sig];
	if (a1) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copy_from_user(&act, (void *)a1, sizeof(act)))
			return -EFAULT;
	}
	if (a2 && copy_to_user((void *)a2, &old, sizeof(old)))
		return -EFAULT;
	if (a1)
		p->sigaction[sig] = act;
	return 0;
}

long do_rt_sigreturn(void);

SYSCALL(rt_sigreturn) { return do_rt_sigreturn(); }

SYSCALL(rt_sigprocmask)
{
	if (a3 != 8 || a0 > 2)
		return -EINVAL;
	if (a2 && clear_user((void *)a2, 8))	/* nothing is ever blocked */
		return -EFAULT;
	if (a1) {
		u64 set;
		if (copy_from_user(&set, (void *)a1, 8))
			return -EFAULT;
	}
	return 0;
}

SYSCALL(alarm)
{
	u64 left = alarm_set((u64)(unsigned)a0 * 1000000000ULL);
	/* As Linux: rounded to the nearest second, and never 0 while armed. */
	return left ? MAX((long)((left + 500000000ULL) / 1000000000ULL), 1L) : 0;
}

/* setitimer and getitimer: ITIMER_REAL, one shot (a repeating interval is
 * refused rather than ignored). struct itimerval: interval, then value. */
struct itimerval { s64 isec, iusec, sec, usec; };

static void itimer_of_ns(u64 ns, struct itimerval *v)
{
	*v = (struct itimerval){ 0, 0, (s64)(ns / 1000000000ULL), (s64)(ns % 1000000000ULL + 999) / 1000 };
}

SYSCALL(setitimer)
{
	struct itimerval v, old;
	if (a0 != 0)
		return -EINVAL;		/* ITIMER_VIRTUAL, ITIMER_PROF: not supported */
	if (copy_from_user(&v, (void *)a1, sizeof(v)))
		return -EFAULT;
	if (v.usec < 0 || v.usec >= 1000000 || v.sec < 0 || v.iusec < 0 || v.iusec >= 1000000 ||
	    v.isec < 0)
		return -EINVAL;
	if (v.isec || v.iusec)
		return -EINVAL;		/* repeating timers: not supported */
	u64 ns = (u64)v.sec * 1000000000ULL + (u64)v.usec * 1000ULL;
	itimer_of_ns(alarm_set(ns), &old);
	return a2 ? copy_to_user((void *)a2, &old, sizeof(old)) : 0;
}

SYSCALL(getitimer)
{
	struct itimerval v;
	if (a0 != 0)
		return -EINVAL;
	u64 left = alarm_set(0);	/* read it by taking it ... */
	if (left)
		alarm_set(left);	/* ... and putting it back */
	itimer_of_ns(left, &v);
	return copy_to_user((void *)a1, &v, sizeof(v));
}

/* pause: sleep until a signal comes (wait.h: interruptible). */
SYSCALL(pause)
{
	struct wait_queue_head nobody;
	init_waitqueue_head(&nobody);
	wait_event_interruptible(nobody, false);
	return -ERESTARTNOHAND;
}

SYSCALL(sigaltstack)
{
	u8 ss[24];	/* stack_t: read as Linux does, then ignored (no alternate stacks) */
	if (a0 && copy_from_user(ss, (void *)a0, sizeof(ss)))
		return -EFAULT;
	if (a1 && clear_user((void *)a1, 24))
		return -EFAULT;
	return 0;
}

/* ------------------------------------------------------------ memory */

static unsigned long vmflags_of_prot(u64 prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

SYSCALL(mmap)
{
	u64 addr = a0, len = a1, prot = a2, flags = a3, off = a5;
	int fd = (int)a4;
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

SYSCALL(munmap)
{
	struct mm_struct *mm = current_task()->mm;
	down_write(&mm->mmap_lock);
	long r = do_munmap(mm, a0, a1);
	up_write(&mm->mmap_lock);
	return r;
}

SYSCALL(mprotect)
{
	struct mm_struct *mm = current_task()->mm;
	if (a2 & ~7UL)
		return -EINVAL;
	if (!a1)
		return (a0 & (PAGE_SIZE - 1)) ? -EINVAL : 0;
	down_write(&mm->mmap_lock);
	long r = do_mprotect(mm, a0, a1, vmflags_of_prot(a2));
	up_write(&mm->mmap_lock);
	return r;
}

SYSCALL(madvise)
{
	struct mm_struct *mm = current_task()->mm;
	if (a0 & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!a1)
		return 0;
	down_read(&mm->mmap_lock);
	long r = a2 == 4 || a2 == 8	/* MADV_DONTNEED, MADV_FREE; others are hints */
			 ? do_zap(mm, a0, a1) : vma_check_range(mm, a0, a1);
	up_read(&mm->mmap_lock);
	return r;
}

SYSCALL(mremap)
{
	struct mm_struct *mm = current_task()->mm;
	u64 old = a0, oldlen = (a1 + PAGE_SIZE - 1) & PAGE_MASK, newlen = (a2 + PAGE_SIZE - 1) & PAGE_MASK;
	if ((old & (PAGE_SIZE - 1)) || !newlen)
		return -EINVAL;
	if (a3 & ~3UL)
		return -EINVAL;		/* MREMAP_FIXED and the rest: not supported */
	if (!a1)
		return -EINVAL;		/* Linux: old_len 0 duplicates a shared mapping; not here */
	down_write(&mm->mmap_lock);
	long r;
	struct vm_area *v = find_vma(mm, old);
	if (!v || v->start > old)
		r = -EFAULT;		/* Linux: EFAULT when nothing is mapped at old */
	else if (newlen <= oldlen)	/* shrinking: unmap the tail */
		r = newlen < oldlen ? do_munmap(mm, old + newlen, oldlen - newlen) : 0;
	else
		r = do_mremap_grow(mm, old, oldlen, newlen, a3 & 1 /* MREMAP_MAYMOVE */);
	up_write(&mm->mmap_lock);
	return r < 0 ? r : (newlen <= oldlen ? (long)old : r);
}

SYSCALL(msync) { return do_msync(current_task()->mm, a0, a1, (int)a2); }

SYSCALL(brk)
{
	struct mm_struct *mm = current_task()->mm;
	down_write(&mm->mmap_lock);
	unsigned long want = a0, cur = mm->brk;
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

/* ------------------------------------------------------------ time */

struct timespec { s64 sec, nsec; };

static void now(int clock, struct timespec *ts)
{
	u64 ns = ktime_ns();
	if (clock == 0 || clock == 5 || clock == 8) {	/* REALTIME (and _COARSE, _ALARM) */
		ts->sec = (s64)wall_seconds();
		ts->nsec = (s64)(ns % 1000000000ULL);
	} else {
		ts->sec = (s64)(ns / 1000000000ULL);
		ts->nsec = (s64)(ns % 1000000000ULL);
	}
}

SYSCALL(clock_gettime)
{
	if (a0 > 11)
		return -EINVAL;
	struct timespec ts;
	now((int)a0, &ts);
	return copy_to_user((void *)a1, &ts, sizeof(ts));
}

SYSCALL(clock_getres)
{
	if (a0 > 11)
		return -EINVAL;
	struct timespec ts = { 0, 1 };
	return a1 ? copy_to_user((void *)a1, &ts, sizeof(ts)) : 0;
}

SYSCALL(gettimeofday)
{
	if (a0) {
		struct timespec ts;
		now(0, &ts);
		s64 tv[2] = { ts.sec, ts.nsec / 1000 };
		if (copy_to_user((void *)a0, tv, sizeof(tv)))
			return -EFAULT;
	}
	return a1 ? clear_user((void *)a1, 8) : 0;
}

SYSCALL(time)
{
	s64 t = (s64)wall_seconds();
	if (a0 && copy_to_user((void *)a0, &t, 8))
		return -EFAULT;
	return t;
}

/* Sleep ns nanoseconds, or until a signal (wait.h: interruptible): then
 * the time left goes to urem, if given, and the call is restarted or
 * returns EINTR (kernel/signal.c). */
static long sleep_ns(u64 ns, u64 urem)
{
	u64 start = ktime_ns(), end = start + ns;
	int err = 0;
	if (ns >= 1000000)	/* whole ticks asleep, the rest yielding */
		err = sleep_interruptible_until(start + ns / 1000000 * 1000000);
	while (!err && ktime_ns() < end) {
		if (signal_pending())
			err = -ERESTARTSYS;
		else
			yield();
	}
	if (!err)
		return 0;
	u64 now = ktime_ns(), left = end > now ? end - now : 0;
	struct timespec rem = { (s64)(left / 1000000000ULL), (s64)(left % 1000000000ULL) };
	if (urem && copy_to_user((void *)urem, &rem, sizeof(rem)))
		return -EFAULT;
	return -ERESTARTNOHAND;
}

SYSCALL(nanosleep)
{
	struct timespec ts;
	if (copy_from_user(&ts, (void *)a0, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	/* The remainder (a1) is written only when a signal interrupts the sleep. */
	return sleep_ns((u64)ts.sec * 1000000000ULL + (u64)ts.nsec, a1);
}

SYSCALL(clock_nanosleep)
{
	struct timespec ts, cur;
	if (copy_from_user(&ts, (void *)a2, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	u64 ns = (u64)ts.sec * 1000000000ULL + (u64)ts.nsec;
	if (a1 & 1) {		/* TIMER_ABSTIME */
		now((int)a0, &cur);
		u64 c = (u64)cur.sec * 1000000000ULL + (u64)cur.nsec;
		ns = ns > c ? ns - c : 0;
	}
	return sleep_ns(ns, (a1 & 1) ? 0 : a3);	/* TIMER_ABSTIME: no remainder */
}

/* ------------------------------------------------------------ the rest */

SYSCALL(uname)
{
	char u[6][65];
	memset(u, 0, sizeof(u));
	static const char *const field[5] = { "Roundabout", "roundabout", "0.1", "#1 SMP", "x86_64" };
	for (int i = 0; i < 5; i++)
		memcpy(u[i], field[i], strlen(field[i]));
	return copy_to_user((void *)a0, u, sizeof(u));
}

struct rlimit { u64 cur, max; };

/* A resource's limit stored at uptr (0: only check resource). 0 or -errno. */
static long get_limit(int resource, u64 uptr)
{
	struct rlimit r = { ~0ULL, ~0ULL };
	if (resource < 0 || resource > 15)
		return -EINVAL;
	if (resource == 3)	/* RLIMIT_STACK */
		r.cur = USER_STACK_MAX;
	if (resource == 7)	/* RLIMIT_NOFILE */
		r.cur = r.max = FD_MAX;
	return uptr ? copy_to_user((void *)uptr, &r, sizeof(r)) : 0;
}

SYSCALL(getrlimit)
{
	long r = get_limit((int)a0, 0);
	return r ? r : a1 ? get_limit((int)a0, a1) : -EFAULT;
}

SYSCALL(prlimit64)
{
	struct rlimit new;	/* read as Linux does, then ignored: limits are fixed */
	if (a0 && (int)a0 != current_proc()->pid)
		return -ESRCH;
	if (a2 && copy_from_user(&new, (void *)a2, sizeof(new)))
		return -EFAULT;
	return get_limit((int)a1, a3);
}

SYSCALL(getrandom)
{
	static u64 state;	/* xorshift, seeded from the TSC: not for cryptography */
	if (a2 & ~7UL)
		return -EINVAL;
	u8 buf[256];
	size_t done = 0;
	while (done < a1) {
		size_t n = MIN((size_t)a1 - done, sizeof(buf));
		for (size_t i = 0; i < n; i++) {
			u64 x = __atomic_add_fetch(&state, rdtsc() | 1, __ATOMIC_RELAXED);
			x ^= x >> 33;
			x *= 0xff51afd7ed558ccdULL;
			x ^= x >> 29;
			buf[i] = (u8)x;
		}
		size_t left = copy_to_user_partial((void *)(a0 + done), buf, n);
		done += n - left;
		if (left)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}

/* ------------------------------------------------------------ futex */

/*
 * futex(WAIT/WAKE): threads sleep on a user word. A waiter is keyed by
 * the word's physical address, so private (one process) and shared
 * (MAP_SHARED memory between processes) futexes work the same way.
 * WAIT checks the word and queues itself with the bucket mutex held, and
 * WAKE takes the same mutex, so a wake between the check and the sleep is
 * never lost.
 */
#define FUTEX_BUCKETS 64

struct futex_waiter {
	u64 key;
	bool woken;
	struct list_head link;
};

static struct futex_bucket {
	struct mutex lock;
	struct list_head waiters;
	struct wait_queue_head wq;
} buckets[FUTEX_BUCKETS];
static bool futex_ready;

void futex_init(void)
{
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		mutex_init(&buckets[i].lock, "futex");
		list_init(&buckets[i].waiters);
		init_waitqueue_head(&buckets[i].wq);
	}
	futex_ready = true;
}

/* The word's physical address, faulting its page in if need be. */
static int futex_key(u64 uaddr, u64 *key)
{
	u32 v;
	if (uaddr & 3)
		return -EINVAL;
	if (get_user_u32(&v, (void *)uaddr))
		return -EFAULT;
	phys_addr_t pa;
	u64 flags;
	if (!pt_translate(current_task()->mm->pml4, uaddr, &pa, &flags))
		return -EFAULT;
	*key = pa;
	return 0;
}

static struct futex_bucket *bucket_of(u64 key)
{
	return &buckets[(key >> 2) * 0x9e3779b97f4a7c15ULL >> 58];
}

int futex_wake(u64 uaddr, int n)
{
	u64 key;
	if (!futex_ready || futex_key(uaddr, &key))
		return 0;
	struct futex_bucket *b = bucket_of(key);
	int woken = 0;
	mutex_lock(&b->lock);
	for (struct list_head *l = b->waiters.next; l != &b->waiters && woken < n;) {
		struct futex_waiter *w = list_entry(l, struct futex_waiter, link);
		l = l->next;
		if (w->key != key)
			continue;
		list_del(&w->link);
		WRITE_ONCE(w->woken, true);
		woken++;
	}
	mutex_unlock(&b->lock);
	if (woken)
		wake_up_all(&b->wq);
	return woken;
}

static long futex_wait(u64 uaddr, u32 val, u64 utimeout)
{
	u64 key;
	int err = futex_key(uaddr, &key);
	if (err)
		return err;
	u64 timeout_ms = 0;
	if (utimeout) {
		struct timespec ts;
		if (copy_from_user(&ts, (void *)utimeout, sizeof(ts)))
			return -EFAULT;
		if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
			return -EINVAL;
		timeout_ms = (u64)ts.sec * 1000 + (u64)(ts.nsec + 999999) / 1000000;
		if (!timeout_ms)
			timeout_ms = 1;
	}
	struct futex_bucket *b = bucket_of(key);
	struct futex_waiter w = { key, false, LIST_HEAD_INIT(w.link) };
	mutex_lock(&b->lock);
	u32 cur;
	if (get_user_u32(&cur, (void *)uaddr)) {
		mutex_unlock(&b->lock);
		return -EFAULT;
	}
	if (cur != val) {
		mutex_unlock(&b->lock);
		return -EAGAIN;
	}
	list_add_tail(&w.link, &b->waiters);
	mutex_unlock(&b->lock);
	/* Interruptible (wait.h): a signal ends the wait. */
	u64 deadline = timeout_ms ? ktime_ns() + timeout_ms * 1000000ULL : 0;
	err = wait_event_interruptible_deadline(b->wq, READ_ONCE(w.woken), deadline);
	if (err) {
		mutex_lock(&b->lock);
		bool woken = w.woken;	/* a FUTEX_WAKE may have come meanwhile */
		if (!woken)
			list_del(&w.link);
		mutex_unlock(&b->lock);
		if (woken)
			return 0;
		if (err == -ERESTARTSYS && timeout_ms)
			return -ERESTARTNOHAND;	/* as Linux: EINTR when a handler runs */
		return err;
	}
	return 0;
}

SYSCALL(futex)
{
	int op = (int)a1 & 127;		/* FUTEX_PRIVATE_FLAG (128) changes nothing here */
	switch (op) {
	case 0:		/* FUTEX_WAIT */
	case 9:		/* FUTEX_WAIT_BITSET */
		return futex_wait(a0, (u32)a2, a3);
	case 1:		/* FUTEX_WAKE */
	case 10:	/* FUTEX_WAKE_BITSET */
		if (!access_ok((void *)a0, 4))
			return -EFAULT;		/* futex_wake is silent: exit uses it too */
		if (a0 & 3)
			return -EINVAL;
		return futex_wake(a0, (int)a2);
	}
	return -ENOSYS;
}
