/*
 * signal_wait.c - waiting for signals: rt_sigsuspend (a temporary mask
 * and a sleep until a handler runs), rt_sigtimedwait (a blocked signal
 * taken without its handler) and rt_sigpending. Both sleeps are
 * interruptible (kernel/wait.h). What the signals do once taken is
 * kernel/signal.c's.
 *
 * The masks and sets touched here are the calling thread's own (the
 * blocked mask is written only by its thread, kernel/task.h) or are
 * changed atomically (the pending sets): no locks.
 */
#include "kernel/process.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/wait.h"
#include "kernel/time.h"

/* The pending signals the caller blocks: its own and its process's. As
 * Linux, a smaller set size gets the first bytes. */
SYSCALL_DEFINE2(rt_sigpending, uaddr_t, uset, u64, sigsetsize)
{
	struct task *me = current_task();
	if (sigsetsize > 8)
		return -EINVAL;
	u64 set = (__atomic_load_n(&me->sigpending, __ATOMIC_ACQUIRE) |
		   __atomic_load_n(&me->proc->pending, __ATOMIC_ACQUIRE)) & me->blocked;
	return copy_to_user((void *)uset, &set, sigsetsize) ? -EFAULT : 0;
}

/* Sleep until a signal is pending, interruptibly (wait.h). */
static void sleep_until_signal(void)
{
	struct wait_queue_head nobody;
	init_waitqueue_head(&nobody);
	wait_event_interruptible(nobody, false);
}

/* rt_sigsuspend: wait with a temporary mask. The handler runs with it; its
 * frame holds the caller's, which rt_sigreturn puts back (user.h,
 * signal_mask_temporary). Always EINTR. */
SYSCALL_DEFINE2(rt_sigsuspend, uaddr_t, uset, u64, sigsetsize)
{
	u64 set;
	if (sigsetsize != 8)
		return -EINVAL;
	if (copy_from_user(&set, (void *)uset, 8))
		return -EFAULT;
	signal_mask_temporary(set);
	sleep_until_signal();
	return -ERESTARTNOHAND;
}

/* A timeout this long (some 300 years) is taken as none: its deadline in
 * nanoseconds would not fit in 64 bits. */
#define FOREVER_S (10LL * 1000 * 1000 * 1000)


/* Wait for one of `these` (the caller blocks them) to be pending, until
 * deadline_ns (0: none); 0 at the deadline, -EINTR if another signal came. */
static int sigwait_sleep(u64 these, u64 deadline_ns)
{
	struct task *me = current_task();
	u64 old = me->blocked;
	/* Waited for, a signal whose action is to be ignored is kept and
	 * wakes us all the same (as Linux's real_blocked). */
	__atomic_store_n(&me->sigwait_set, these, __ATOMIC_SEQ_CST);
	signal_set_blocked(old & ~these);	/* so that they end the sleep */
	int err = 0;
	if (deadline_ns)
		err = sleep_interruptible_until(deadline_ns);
	else
		sleep_until_signal();
	signal_set_blocked(old);		/* before the dequeue: no handler for them */
	__atomic_store_n(&me->sigwait_set, 0, __ATOMIC_SEQ_CST);
	return deadline_ns && !err ? 0 : -EINTR;
}

SYSCALL_DEFINE4(rt_sigtimedwait, uaddr_t, uthese, uaddr_t, uinfo, uaddr_t, uts, u64, sigsetsize)
{
	struct task *me = current_task();
	u64 these, deadline = 0;
	struct timespec ts;
	if (sigsetsize != 8)
		return -EINVAL;
	if (copy_from_user(&these, (void *)uthese, 8))
		return -EFAULT;
	if (uts) {
		if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
			return -EFAULT;
		if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
			return -EINVAL;
		if (ts.sec < FOREVER_S)		/* beyond: no deadline at all */
			deadline = ktime_ns() + (u64)ts.sec * 1000000000ULL + (u64)ts.nsec;
	}
	these &= ~SIG_UNBLOCKABLE;
	struct ksiginfo k;
	int sig = signal_dequeue(me, me->proc, these, &k);
	if (!sig) {
		if (uts && !ts.sec && !ts.nsec)
			return -EAGAIN;		/* a poll */
		int err = sigwait_sleep(these, deadline);
		sig = signal_dequeue(me, me->proc, these, &k);
		if (!sig)
			return err ? err : -EAGAIN;
	}
	struct user_siginfo info;
	siginfo_fill(&info, sig, &k);
	if (uinfo && copy_to_user((void *)uinfo, &info, sizeof(info)))
		return -EFAULT;
	return sig;
}
