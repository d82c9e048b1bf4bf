/*
 * sys.c - the small system calls: ids (getpid, gettid, getppid, getuid),
 * set_tid_address, arch_prctl, sched_yield, the clocks and sleeps, uname,
 * rlimits and getrandom. Processes are in kernel/fork.c and exit.c,
 * signals in kernel/signal.c, futexes in kernel/futex.c, memory in
 * mm/syscalls.c.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/random.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/wait.h"
#include "kernel/mutex.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "fs/vfs.h"
#include "drivers/rtc.h"


/* ------------------------------------------------------------ ids and the rest of a thread */

SYSCALL_DEFINE0(getpid) { return current_proc()->pid; }
SYSCALL_DEFINE0(gettid) { return current_task()->tid; }
SYSCALL_DEFINE0(getppid) { return proc_getppid(); }
SYSCALL_DEFINE0(getuid) { return 0; }
SYSCALL_DEFINE1(setuid, u64, uid) { return uid == 0 ? 0 : -EPERM; }

SYSCALL_DEFINE1(set_tid_address, uaddr_t, utidptr)
{
	current_task()->clear_child_tid = utidptr;
	return current_task()->tid;
}

SYSCALL_DEFINE2(set_robust_list, uaddr_t, uhead, u64, len) { return len == 24 ? 0 : -EINVAL; }

/* Everyone is root, with no supplementary groups: none to copy, whatever
 * the list; a negative size is EINVAL, as Linux's. */
SYSCALL_DEFINE2(getgroups, u64, size, uaddr_t, ulist) { return (int)size < 0 ? -EINVAL : 0; }

SYSCALL_DEFINE2(arch_prctl, u64, code, u64, addr)
{
	switch (code) {
	case 0x1002:		/* ARCH_SET_FS */
		if (addr >= USER_TOP)
			return -EPERM;
		current_task()->fs_base = addr;
		wrmsr(MSR_FS_BASE, addr);
		return 0;
	case 0x1003:		/* ARCH_GET_FS */
		return put_user_u64((void *)addr, rdmsr(MSR_FS_BASE));
	}
	return -EINVAL;
}

/* The online CPUs as a mask. */
static u64 online_mask(void)
{
	int n = num_online_cpus();
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/*
 * The thread with id tid (0: the caller), with a reference (task_put), or
 * NULL: ESRCH.
 */
static struct task *get_thread(int tid)
{
	struct task *me = current_task(), *found = NULL;
	if (tid == 0 || tid == me->tid)
		tid = me->tid;
	if (tid < 0)
		return NULL;
	spin_lock(&proc_lock);
	for (int i = 0; i < MAX_PROCS && !found; i++) {
		struct process *p = procs[i];
		for (struct list_head *l = p ? p->threads.next : NULL; p && l != &p->threads; l = l->next) {
			struct task *t = list_entry(l, struct task, thread_link);
			if (t->tid == tid) {
				found = t;
				task_get(t);
				break;
			}
		}
	}
	spin_unlock(&proc_lock);
	return found;
}

/*
 * sched_getaffinity: the CPUs a thread may run on (those online), as a mask
 * of one 64-bit word: the size Linux returns when it is built for at most
 * 64 CPUs. nproc and sysconf(_SC_NPROCESSORS_ONLN) count its bits.
 */
SYSCALL_DEFINE3(sched_getaffinity, int, pid, u64, len, uaddr_t, umask)
{
	if (len < sizeof(u64) || (len & (sizeof(u64) - 1)))
		return -EINVAL;
	struct task *t = get_thread(pid);
	if (!t)
		return -ESRCH;
	u64 mask = __atomic_load_n(&t->cpus_allowed, __ATOMIC_RELAXED) & online_mask();
	task_put(t);
	if (copy_to_user((void *)umask, &mask, sizeof(mask)))
		return -EFAULT;
	return sizeof(mask);
}

#define AFFINITY_BYTES 128	/* a C library's cpu_set_t: read whole, as Linux */

/*
 * sched_setaffinity: the CPUs thread pid may run on from now. The mask is
 * read up to AFFINITY_BYTES (EFAULT); bits for CPUs that are not online
 * are dropped, and none left is EINVAL. The scheduler honours it at each
 * wake-up (kernel/sched.c, select_cpu); the caller, if it is on a CPU now
 * barred, sleeps a moment to move before returning, so it returns on an
 * allowed CPU; another thread moves at its next wake-up.
 */
SYSCALL_DEFINE3(sched_setaffinity, int, pid, u64, len, uaddr_t, umask)
{
	u64 buf[AFFINITY_BYTES / 8] = { 0 };
	size_t n = len < AFFINITY_BYTES ? (size_t)len : AFFINITY_BYTES;
	if (copy_from_user(buf, (void *)umask, n))
		return -EFAULT;
	u64 mask = buf[0] & online_mask();
	struct task *t = get_thread(pid);
	if (!t)
		return -ESRCH;
	if (!mask) {
		task_put(t);
		return -EINVAL;
	}
	__atomic_store_n(&t->cpus_allowed, mask, __ATOMIC_RELAXED);
	bool self = t == current_task();
	task_put(t);
	while (self && !((mask >> smp_processor_id()) & 1))
		msleep(1);		/* the wake-up picks an allowed CPU */
	return 0;
}

/*
 * getcpu: the CPU the caller was running on during the call, and NUMA node
 * 0 (the machine is one node). It may have moved by the time it reads the
 * answer, as on Linux. Either pointer may be NULL; the third, a cache that
 * Linux too ignores, is not used.
 */
SYSCALL_DEFINE3(getcpu, uaddr_t, ucpu, uaddr_t, unode, uaddr_t, ucache)
{
	unsigned cpu = (unsigned)smp_processor_id(), node = 0;
	if (ucpu && copy_to_user((void *)ucpu, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (unode && copy_to_user((void *)unode, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}

#define PR_SET_NAME 15
#define PR_GET_NAME 16
#define COMM_LEN 16

/* PR_SET_NAME: up to 15 bytes of the user's string (stopping at a NUL, as
 * Linux reads it, so a fault past the NUL does not matter). */
static long set_name(u64 uname)
{
	char comm[COMM_LEN] = { 0 };
	for (int i = 0; i < COMM_LEN - 1; i++) {
		if (copy_from_user(&comm[i], (const void *)(uname + i), 1))
			return -EFAULT;
		if (!comm[i])
			break;
	}
	struct process *p = current_proc();
	spin_lock(&proc_lock);
	memcpy(p->comm, comm, COMM_LEN);
	spin_unlock(&proc_lock);
	return 0;
}

/*
 * prctl: PR_SET_NAME and PR_GET_NAME, the name ps and /proc show (16
 * bytes with the NUL). It is the process's here (Linux keeps one per
 * thread); exec sets it to the program's name. Other options: EINVAL.
 */
SYSCALL_DEFINE5(prctl, int, option, u64, arg2, u64, arg3, u64, arg4, u64, arg5)
{
	if (option == PR_SET_NAME)
		return set_name(arg2);
	if (option != PR_GET_NAME)
		return -EINVAL;
	char comm[COMM_LEN];
	struct process *p = current_proc();
	spin_lock(&proc_lock);
	memcpy(comm, p->comm, COMM_LEN);
	spin_unlock(&proc_lock);
	comm[COMM_LEN - 1] = 0;
	return copy_to_user((void *)arg2, comm, COMM_LEN) ? -EFAULT : 0;
}

SYSCALL_DEFINE0(sched_yield)
{
	yield();
	return 0;
}

/* ------------------------------------------------------------ time */


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

SYSCALL_DEFINE2(clock_gettime, u64, clock, uaddr_t, uts)
{
	if (clock > 11)
		return -EINVAL;
	struct timespec ts;
	now((int)clock, &ts);
	return copy_to_user((void *)uts, &ts, sizeof(ts));
}

SYSCALL_DEFINE2(clock_getres, u64, clock, uaddr_t, uts)
{
	if (clock > 11)
		return -EINVAL;
	struct timespec ts = { 0, 1 };
	return uts ? copy_to_user((void *)uts, &ts, sizeof(ts)) : 0;
}

SYSCALL_DEFINE2(gettimeofday, uaddr_t, utv, uaddr_t, utz)
{
	if (utv) {
		struct timespec ts;
		now(0, &ts);
		s64 tv[2] = { ts.sec, ts.nsec / 1000 };
		if (copy_to_user((void *)utv, tv, sizeof(tv)))
			return -EFAULT;
	}
	return utz ? clear_user((void *)utz, 8) : 0;
}

SYSCALL_DEFINE1(time, uaddr_t, utloc)
{
	s64 t = (s64)wall_seconds();
	if (utloc && copy_to_user((void *)utloc, &t, 8))
		return -EFAULT;
	return t;
}

/* Sleep until end (ktime_ns), or until a signal (wait.h: interruptible):
 * then the time left goes to urem, if given, and the call returns EINTR if
 * a handler runs, or goes on through restart_syscall with only the time
 * that was left, as Linux's restart block (kernel/signal.c). */
static long sleep_until(u64 end, u64 urem)
{
	int err = 0;
	u64 start = ktime_ns();
	if (end > start && end - start >= 1000000)	/* whole ticks asleep, the rest yielding */
		err = sleep_interruptible_until(start + (end - start) / 1000000 * 1000000);
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
	struct task *me = current_task();
	me->restart_deadline = end;
	me->restart_urem = urem;
	return -ERESTART_RESTARTBLOCK;
}

static long sleep_ns(u64 ns, u64 urem)
{
	return sleep_until(ktime_ns() + ns, urem);
}

/* The kernel's own way back into an interrupted sleep (restart_fixup sets
 * it up); a program that calls it with nothing to go on with gets EINTR. */
SYSCALL_DEFINE0(restart_syscall)
{
	struct task *me = current_task();
	u64 end = me->restart_deadline;
	me->restart_deadline = 0;
	return end ? sleep_until(end, me->restart_urem) : -EINTR;
}

SYSCALL_DEFINE2(nanosleep, uaddr_t, ureq, uaddr_t, urem)
{
	struct timespec ts;
	if (copy_from_user(&ts, (void *)ureq, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	/* The remainder (urem) is written only when a signal interrupts the sleep. */
	return sleep_ns((u64)ts.sec * 1000000000ULL + (u64)ts.nsec, urem);
}

SYSCALL_DEFINE4(clock_nanosleep, int, clock, u64, flags, uaddr_t, ureq, uaddr_t, urem)
{
	struct timespec ts, cur;
	if (copy_from_user(&ts, (void *)ureq, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
		return -EINVAL;
	u64 ns = (u64)ts.sec * 1000000000ULL + (u64)ts.nsec;
	if (flags & 1) {		/* TIMER_ABSTIME */
		now(clock, &cur);
		u64 c = (u64)cur.sec * 1000000000ULL + (u64)cur.nsec;
		ns = ns > c ? ns - c : 0;
	}
	return sleep_ns(ns, (flags & 1) ? 0 : urem);	/* TIMER_ABSTIME: no remainder */
}

/* ------------------------------------------------------------ the rest */

SYSCALL_DEFINE1(uname, uaddr_t, ubuf)
{
	/* LAB 1 BEGIN uname: fill struct utsname, copy it out (docs/labs/lab1.md) */
	char u[6][65];
	memset(u, 0, sizeof(u));
	static const char *const field[5] = { "Roundabout", "roundabout", "0.1", "#1 SMP", "x86_64" };
	for (int i = 0; i < 5; i++)
		memcpy(u[i], field[i], strlen(field[i]));
	return copy_to_user((void *)ubuf, u, sizeof(u));
	/* LAB 1 END uname */
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

SYSCALL_DEFINE2(getrlimit, int, resource, uaddr_t, urlim)
{
	long r = get_limit(resource, 0);
	return r ? r : urlim ? get_limit(resource, urlim) : -EFAULT;
}

SYSCALL_DEFINE4(prlimit64, u64, pid, int, resource, uaddr_t, unew, uaddr_t, uold)
{
	struct rlimit new;	/* read as Linux does, then ignored: limits are fixed */
	if (pid && (int)pid != current_proc()->pid)
		return -ESRCH;
	if (unew && copy_from_user(&new, (void *)unew, sizeof(new)))
		return -EFAULT;
	return get_limit(resource, uold);
}

SYSCALL_DEFINE3(getrandom, uaddr_t, ubuf, u64, count, u64, flags)
{
	if (flags & ~7UL)
		return -EINVAL;
	u8 buf[256];
	size_t done = 0;
	while (done < count) {
		size_t n = MIN((size_t)count - done, sizeof(buf));
		random_fill(buf, n);	/* kernel/random.h: not for cryptography */
		size_t copied = copy_to_user_partial((void *)(ubuf + done), buf, n);
		done += copied;
		if (copied < n)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}

