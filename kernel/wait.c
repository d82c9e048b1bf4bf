/*
 * wait.c - wait queues, completions, and sleeping until a deadline. The
 * no-lost-wake-up protocol they implement is written once, as numbered
 * steps, in kernel/wait.h.
 *
 * Deadlines: each CPU keeps a list of sleep timers sorted by deadline;
 * its tick wakes the sleepers whose time has come (sleep_timers_run). A
 * timer lives on its sleeper's stack and stays on the list of the CPU that
 * armed it, even if the sleeper wakes up elsewhere.
 *
 * Lock order: 'waitqueue' -> 'rq' and 'sleep_timers' -> 'rq' (lockdep
 * classes: wake_up, sleep_timers_run -> wake_up_process takes rq->lock
 * while holding them); a completion's lock is its wait queue's.
 * Wait-queue locks never nest, nor do timer-list locks (lockdep would
 * report either as a nested lock of one class).
 *
 * The command-line word debug.broken_sched=wakeup (a test of the tests)
 * breaks the protocol on purpose: the sleeper checks its condition first
 * and announces itself afterwards, with a yield() widening the window in
 * between - the textbook lost wake-up that sched_wait_event_loses_no_wakeup
 * must catch.
 */
#include "kernel/wait.h"
#include "kernel/sched.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/cmdline.h"
#include "kernel/task.h"
#include "kernel/user.h"

static bool broken_wakeup(void)
{
	return sched_debug_broken("wakeup");
}

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock, "waitqueue");
	list_init(&wq->waiters);
}

void wait_entry_init(struct wait_entry *e)
{
	e->task = current_task();
	e->wq = NULL;
	e->link.next = e->link.prev = NULL;
	e->woken = false;
}

static bool entry_linked(const struct wait_entry *e)
{
	return e->link.next != NULL;
}

/* Step 1 proper; the caller holds wq->lock. */
static void __announce(struct wait_queue_head *wq, struct wait_entry *e)
{
	if (!entry_linked(e))
		list_add_tail(&e->link, &wq->waiters);
	e->woken = false;
	set_current_state(TASK_SLEEPING);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_entry *e)
{
	e->wq = wq;
	if (broken_wakeup())
		return;		/* announced too late, in wait_sleep */
	unsigned long f = spin_lock_irqsave(&wq->lock);
	__announce(wq, e);
	spin_unlock_irqrestore(&wq->lock, f);
}

bool wait_sleep(struct wait_entry *e, u64 deadline_ns)
{
	if (broken_wakeup()) {
		yield();	/* the window between the check and the sleep */
		unsigned long f = spin_lock_irqsave(&e->wq->lock);
		__announce(e->wq, e);
		spin_unlock_irqrestore(&e->wq->lock, f);
	}
	if (deadline_ns)
		return schedule_until(deadline_ns);
	schedule();
	return true;
}

void finish_wait(struct wait_queue_head *wq, struct wait_entry *e)
{
	__set_current_state(TASK_RUNNING);
	/* Always under the lock: a waker may be unlinking e right now. */
	unsigned long f = spin_lock_irqsave(&wq->lock);
	if (entry_linked(e))
		list_del(&e->link);
	spin_unlock_irqrestore(&wq->lock, f);
}

void wait_abandon(struct wait_queue_head *wq, struct wait_entry *e)
{
	/* e is unlinked (finish_wait), so no waker writes e->woken any more. */
	if (e->woken)
		wake_up(wq);
}

/*
 * Unlink and wake up to nr sleepers, oldest first; the caller holds
 * wq->lock. Each sleeper is alive while we hold the lock: it cannot get
 * past finish_wait (step 4), which takes the same lock.
 */
static void __wake_up_locked(struct wait_queue_head *wq, int nr)
{
	while (nr-- > 0 && !list_empty(&wq->waiters)) {
		struct wait_entry *e = list_first_entry(&wq->waiters, struct wait_entry, link);
		list_del(&e->link);
		e->woken = true;
		wake_up_process(e->task);
	}
}

void wake_up(struct wait_queue_head *wq)
{
	unsigned long f = spin_lock_irqsave(&wq->lock);
	__wake_up_locked(wq, 1);
	spin_unlock_irqrestore(&wq->lock, f);
}

void wake_up_all(struct wait_queue_head *wq)
{
	unsigned long f = spin_lock_irqsave(&wq->lock);
	__wake_up_locked(wq, 1 << 30);
	spin_unlock_irqrestore(&wq->lock, f);
}

/* ---------------------------------------------------------------- completions */

void init_completion(struct completion *c)
{
	init_waitqueue_head(&c->wait);
	c->done = 0;
}

void complete(struct completion *c)
{
	unsigned long f = spin_lock_irqsave(&c->wait.lock);
	if (c->done != COMPLETION_ALL)
		c->done++;
	__wake_up_locked(&c->wait, 1);
	spin_unlock_irqrestore(&c->wait.lock, f);
}

void complete_all(struct completion *c)
{
	unsigned long f = spin_lock_irqsave(&c->wait.lock);
	c->done = COMPLETION_ALL;
	__wake_up_locked(&c->wait, 1 << 30);
	spin_unlock_irqrestore(&c->wait.lock, f);
}

/* The condition of a completion wait: consume one complete() if there is one. */
static bool completion_take(struct completion *c)
{
	unsigned long f = spin_lock_irqsave(&c->wait.lock);
	bool ok = c->done > 0;
	if (ok && c->done != COMPLETION_ALL)
		c->done--;
	spin_unlock_irqrestore(&c->wait.lock, f);
	return ok;
}

void wait_for_completion(struct completion *c)
{
	wait_event(c->wait, completion_take(c));
}

bool wait_for_completion_timeout(struct completion *c, unsigned ms)
{
	return wait_event_timeout(c->wait, completion_take(c), ms);
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) > 0;
}

/* ---------------------------------------------------------------- deadlines */

/* A sleeper's alarm; lives on the sleeper's stack (schedule_until). */
struct sleep_timer {
	u64 deadline_ns;		/* [I] */
	struct task *task;		/* [I] */
	int cpu;			/* [I] whose list it is on */
	struct list_head link;		/* [L:timer_bases[cpu].lock] next == NULL: not linked */
};

struct timer_base {
	spinlock_t lock;		/* irqsave: the tick takes it */
	struct list_head timers;	/* [L:lock] sleep_timers, earliest first */
} __aligned(64);

static struct timer_base timer_bases[MAX_CPUS];

void sleep_timers_init(void)
{
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		spin_lock_init(&timer_bases[cpu].lock, "sleep_timers");
		list_init(&timer_bases[cpu].timers);
	}
}

static void timer_arm(struct sleep_timer *tm)
{
	unsigned long f = irq_save();	/* stay on this CPU while we pick its list */
	struct timer_base *b = &timer_bases[this_cpu()->id];
	struct list_head *p;

	tm->cpu = this_cpu()->id;
	spin_lock(&b->lock);
	list_for_each(p, &b->timers)	/* keep the list sorted by deadline */
		if (list_entry(p, struct sleep_timer, link)->deadline_ns > tm->deadline_ns)
			break;
	list_add_tail(&tm->link, p);	/* before p: after every earlier deadline */
	spin_unlock(&b->lock);
	irq_restore(f);
}

static void timer_cancel(struct sleep_timer *tm)
{
	struct timer_base *b = &timer_bases[tm->cpu];
	unsigned long f = spin_lock_irqsave(&b->lock);
	if (tm->link.next)
		list_del(&tm->link);
	spin_unlock_irqrestore(&b->lock, f);
}

/*
 * The tick: wake every sleeper of this CPU whose deadline has passed. The
 * wake-up happens under the list's lock, so the sleeper - which must take
 * that lock in timer_cancel before it can return - and its timer are alive.
 */
void sleep_timers_run(void)
{
	struct timer_base *b = &timer_bases[this_cpu()->id];
	u64 now = ktime_ns();

	spin_lock(&b->lock);
	while (!list_empty(&b->timers)) {
		struct sleep_timer *tm = list_first_entry(&b->timers, struct sleep_timer, link);
		if (tm->deadline_ns > now)
			break;
		list_del(&tm->link);
		wake_up_process(tm->task);
	}
	spin_unlock(&b->lock);
}

bool schedule_until(u64 deadline_ns)
{
	struct sleep_timer tm = { deadline_ns, current_task(), -1, { NULL, NULL } };

	might_sleep();
	if (ktime_ns() >= deadline_ns) {
		__set_current_state(TASK_RUNNING);
		return false;
	}
	timer_arm(&tm);
	schedule();
	timer_cancel(&tm);
	return ktime_ns() < deadline_ns;
}

void msleep(unsigned ms)
{
	u64 deadline = ktime_ns() + (u64)ms * 1000000ULL;

	might_sleep();
	while (ktime_ns() < deadline) {	/* a spurious wake-up just loops */
		set_current_state(TASK_SLEEPING);
		schedule_until(deadline);
	}
	__set_current_state(TASK_RUNNING);
}

/* ---------------------------------------------------------------- signals */

void set_current_interruptible(int on)
{
	/* Relaxed: the full barrier of the set_current_state that follows
	 * (wait.h, the rule for sleeps) orders it before the signal check. */
	__atomic_store_n(&current_task()->interruptible, on, __ATOMIC_RELAXED);
}

int sleep_interruptible_until(u64 deadline_ns)
{
	int ret = 0;

	might_sleep();
	set_current_interruptible(1);
	while (ktime_ns() < deadline_ns) {	/* a spurious wake-up just loops */
		set_current_state(TASK_SLEEPING);
		if (signal_pending()) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule_until(deadline_ns);
	}
	__set_current_state(TASK_RUNNING);
	set_current_interruptible(0);
	return ret;
}

/*
 * Whether a signal waits for the running thread: the test every
 * interruptible sleep makes (wait.h). It lives here, beside the sleeps, and
 * not with signal delivery (kernel/signal.c, the floor above): a sleep
 * only needs to know that it must stop, never what the signal does.
 */
CMDLINE_KEY(signal_no_wake, "sched.debug_signal_no_wake",
	    "broken on purpose: signals neither wake nor end interruptible sleeps");

/* 1: sched.debug_signal_no_wake is on; -1: not looked up yet. [A] */
static int no_wake = -1;

bool signal_debug_no_wake(void)
{
	int v = __atomic_load_n(&no_wake, __ATOMIC_RELAXED);
	if (v < 0) {
		v = cmdline_get("sched.debug_signal_no_wake") != NULL;
		__atomic_store_n(&no_wake, v, __ATOMIC_RELAXED);
	}
	return v;
}

bool fatal_signal_pending(void)
{
	struct task *me = current_task();
	if (!me->proc || signal_debug_no_wake())
		return false;
	u64 kill = sigmask_of(SIGKILL);
	return (__atomic_load_n(&me->sigpending, __ATOMIC_SEQ_CST) & kill) ||
	       (__atomic_load_n(&me->proc->pending, __ATOMIC_SEQ_CST) & kill);
}

bool signal_pending(void)
{
	struct task *me = current_task();
	if (!me->proc || signal_debug_no_wake())
		return false;
	/* Seq-cst loads: the second half of wait.h's store-buffer pairing.
	 * A blocked signal is no reason to stop sleeping; a group stop is
	 * (the thread must reach the return to user mode to stop there). */
	u64 pending = __atomic_load_n(&me->sigpending, __ATOMIC_SEQ_CST) |
		      __atomic_load_n(&me->proc->pending, __ATOMIC_SEQ_CST);
	u64 blocked = __atomic_load_n(&me->blocked, __ATOMIC_RELAXED);	/* our own */
	return (pending & ~blocked) || __atomic_load_n(&me->proc->stopped, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------ the blocked mask */

/*
 * The running thread's blocked mask, and the temporary mask of a call
 * (rt_sigsuspend, ppoll, pselect6): here, beside signal_pending, because
 * both decide which signals end a sleep, and because the file system's
 * calls (fs/select.c) set them from a floor below the signal code.
 */
void signal_set_blocked(u64 mask)
{
	/* Seq-cst (an xchg on x86-64): a sender that sees this thread asleep
	 * (task->interruptible, stored after this) must see the mask it
	 * sleeps with (wait.h, the rule for sleeps). */
	__atomic_store_n(&current_task()->blocked, mask & ~SIG_UNBLOCKABLE, __ATOMIC_SEQ_CST);
}

void signal_mask_temporary(u64 mask)
{
	struct task *me = current_task();
	if (!me->restore_mask) {	/* a call made again keeps the first saved mask */
		me->saved_mask = me->blocked;
		me->restore_mask = true;
	}
	signal_set_blocked(mask);
}

void signal_mask_restore(void)
{
	struct task *me = current_task();
	if (me->restore_mask) {
		me->restore_mask = false;
		signal_set_blocked(me->saved_mask);
	}
}
