/*
 * signal_stop.c - stopping and continuing a process (the default action
 * of SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU; SIGCONT), and what a parent
 * hears of its children: SIGCHLD, and the reports wait4 gives.
 *
 * A group stop, in steps (all under proc_lock but the sleep):
 *   1. A thread takes a stop signal whose action is the default, on its
 *      way to user mode (kernel/signal.c): group_stop_begin sets
 *      p->stopped and stop_sig and wakes every interruptible sleeper of p.
 *   2. Every thread of p comes to the same point: signal_pending() is true
 *      while p->stopped, so its sleeps end with a restart code; a thread
 *      running in user mode comes at the next tick. There group_stop_wait
 *      counts it in nr_stopped and puts it to sleep on stop_wq, killably,
 *      holding no lock - a stopped thread never holds a kernel lock.
 *   3. Whichever makes nr_stopped reach nr_threads (a thread stopping, or
 *      one exiting: __group_stop_check) completes the stop: wait_report
 *      becomes (sig << 8) | 0x7f for wait4(WUNTRACED), and the parent gets
 *      SIGCHLD unless its action has SA_NOCLDSTOP.
 *   4. SIGCONT, when it is sent (whatever its action), clears p->stopped;
 *      if the stop had completed, wait_report becomes 0xffff for
 *      wait4(WCONTINUED) and the parent is told as in 3; then stop_wq is
 *      woken. SIGKILL wakes the stopped threads too (killable sleeps), and
 *      they die. The threads then restart the calls the stop interrupted.
 * Sending a stop signal drops a pending SIGCONT and SIGCONT drops pending
 * stop signals (kernel/signal.c, __send), so the last one sent wins.
 *
 * A child's end: SIGCHLD (its exit_signal) to the parent, and if the
 * parent's SIGCHLD action is SIG_IGN or has SA_NOCLDWAIT, no zombie: the
 * child is reaped at once, and the parent's wait4 ends with ECHILD once
 * it has no other children.
 */
#include "kernel/process.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/wait.h"
#include "kernel/lockdep.h"
#include "kernel/cmdline.h"
#include "kernel/sched.h"

#define SA_NOCLDSTOP 1
#define SA_NOCLDWAIT 2
#define WUNTRACED 2
#define WCONTINUED 8
#define REPORT_CONTINUED 0xffff

/* signal.debug_stop_one_thread: only the thread that takes the stop signal
 * stops (and the stop is reported at once), as a kernel without step 2
 * would do. A test of t_sigstop. */
static bool stop_one_thread(void)
{
	static int on = -1;		/* [A] -1: not read from the command line yet */
	int v = READ_ONCE(on);
	if (v < 0)
		WRITE_ONCE(on, v = cmdline_get("signal.debug_stop_one_thread") != NULL);
	return v;
}
CMDLINE_KEY(stop_one_key, "signal.debug_stop_one_thread",
	    "test of the tests: a stop signal stops only the thread that takes it");

bool group_stop_applies(struct process *p)
{
	if (!__atomic_load_n(&p->stopped, __ATOMIC_ACQUIRE))
		return false;
	return !stop_one_thread() || READ_ONCE(p->stopper) == current_task();
}

/* What the parent's SIGCHLD tells of child p: code CLD_* and status. */
static struct ksiginfo child_info(struct process *p, int code, int status)
{
	return (struct ksiginfo){ .code = code, .pid = p->pid, .status = status };
}

/* p stopped or continued: the parent's SIGCHLD and wait4. proc_lock held. */
static void __tell_parent(struct process *p)
{
	struct process *parent = p->parent;
	if (!parent)
		return;
	struct ksiginfo info = p->wait_report == REPORT_CONTINUED ?
		child_info(p, CLD_CONTINUED, SIGCONT) : child_info(p, CLD_STOPPED, p->stop_sig);
	if (!(parent->sigaction[SIGCHLD].flags & SA_NOCLDSTOP))
		__send_signal_info(parent, SIGCHLD, &info);
	wake_up_all(&parent->child_exit);
}

void __group_stop_check(struct process *p)
{
	lockdep_assert(spin_is_held(&proc_lock));
	int needed = stop_one_thread() ? 1 : p->nr_threads;	/* deliberately broken */
	if (!p->stopped || p->stop_done || p->nr_stopped < needed)
		return;
	p->stop_done = true;
	p->wait_report = (p->stop_sig << 8) | 0x7f;
	__tell_parent(p);
}

void group_stop_begin(struct process *p, int sig)
{
	spin_lock(&proc_lock);
	if (!p->exiting && !p->stopped) {	/* step 1 */
		__atomic_store_n(&p->stopped, true, __ATOMIC_SEQ_CST);
		p->stop_sig = sig;
		p->stop_done = false;
		WRITE_ONCE(p->stopper, current_task());
		__signal_wake_threads(p, SIGSTOP);
	}
	spin_unlock(&proc_lock);
}

void group_stop_wait(struct process *p)
{
	spin_lock(&proc_lock);			/* steps 2 and 3 */
	p->nr_stopped++;
	__group_stop_check(p);
	spin_unlock(&proc_lock);
	wait_event_killable(p->stop_wq, !__atomic_load_n(&p->stopped, __ATOMIC_ACQUIRE));
	spin_lock(&proc_lock);
	p->nr_stopped--;
	spin_unlock(&proc_lock);
}

void __group_continue(struct process *p)
{
	if (!p->stopped)
		return;
	__atomic_store_n(&p->stopped, false, __ATOMIC_SEQ_CST);	/* step 4 */
	if (p->stop_done) {
		p->wait_report = REPORT_CONTINUED;
		__tell_parent(p);
	}
	p->stop_done = false;
	wake_up_all(&p->stop_wq);
}

int __wait_report(struct process *c, int options, bool take)
{
	int r = c->wait_report;
	bool stopped = (r & 0xff) == 0x7f && (options & WUNTRACED);
	bool continued = r == REPORT_CONTINUED && (options & WCONTINUED);
	if (!stopped && !continued)
		return 0;
	if (take)
		c->wait_report = 0;	/* each is reported once */
	return r;
}

bool __child_exit_notify(struct process *p)
{
	struct process *parent = p->parent;
	const struct k_sigaction *a = &parent->sigaction[SIGCHLD];
	bool autoreap = p->exit_signal == SIGCHLD &&
			(a->handler == SIG_IGN || (a->flags & SA_NOCLDWAIT));
	int ws = p->exit_status;	/* a wait status: a signal in the low 7 bits, or the code */
	struct ksiginfo info = ws & 0x7f ? child_info(p, CLD_KILLED, ws & 0x7f) :
					   child_info(p, CLD_EXITED, (ws >> 8) & 0xff);
	if (p->exit_signal)
		__send_signal_info(parent, p->exit_signal, &info);
	if (autoreap) {
		list_del(&p->sibling);
		proc_unregister(p);
	}
	wake_up_all(&parent->child_exit);
	return autoreap;
}
