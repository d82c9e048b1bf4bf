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


/* ------------------------------------------------------------ ids and the rest of a thread */

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

