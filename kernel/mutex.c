/*
 * mutex.c - sleeping mutexes with FIFO hand-off (see kernel/mutex.h).
 *
 * An unlock frees the mutex and wakes the oldest sleeper, which takes it
 * if nobody running took it first (a spinner, or a new locker: stealing
 * keeps two threads that take a mutex in turn from paying a sleep and a
 * wake-up each time). A sleeper that was woken and lost once is marked
 * `handoff`: the next unlock sets owner to it directly, and nobody may
 * take the mutex past it, so nobody starves. Every field is read and
 * written under wait_lock, so a wake-up cannot be lost and the waiter
 * (whose entry lives on its stack) cannot leave while the unlocker still
 * looks at it. wait.h's protocol in miniature: state
 * SLEEPING is set before wait_lock is dropped, so a hand-off between the
 * unlock and schedule() just makes schedule() return.
 *
 * Lock order: 'mutex.wait_lock' -> 'rq' (mutex_unlock -> wake_up_process).
 * lockdep sees the mutex itself as taken (and ordered after everything the
 * task holds) before the locker sleeps for it.
 * Memory order: the previous holder's critical section happens before the
 * next holder's through wait_lock (release by one, acquire by the other).
 */
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "kernel/x86.h"

CMDLINE_KEY(broken_mutex, "debug.broken_mutex",
	    "tests of tests: 1 makes mutex_lock skip the exclusion");

struct mutex_waiter {
	struct task *task;		/* [I] */
	struct list_head link;		/* [L:wait_lock] on m->waiters */
	bool woken;			/* [L:wait_lock] an unlock woke it to try */
	bool handoff;			/* [L:wait_lock] it tried and lost: the next
					 * unlock gives it the mutex outright */
};

/* The oldest sleeper, or NULL; wait_lock held. */
static struct mutex_waiter *first_waiter(struct mutex *m)
{
	return list_empty(&m->waiters) ? NULL
				       : list_first_entry(&m->waiters, struct mutex_waiter, link);
}

/* May a running task take a free mutex past the sleepers? wait_lock held. */
static bool may_steal(struct mutex *m)
{
	struct mutex_waiter *w = first_waiter(m);
	return !m->owner && !(w && w->handoff);
}

static bool broken(void)
{
	static int cached = -1;		/* [A] -1 until first use; races write the same value */
	int v = READ_ONCE(cached);
	if (v < 0) {
		v = cmdline_get_u64("debug.broken_mutex", 0) != 0;
		WRITE_ONCE(cached, v);
	}
	return v;
}

/*
 * Optimistic spinning: wait with this CPU while the owner runs, for at
 * most MUTEX_SPIN_NS. True if the mutex was seen free (the caller tries to
 * take it under wait_lock; another spinner may win). False as soon as the
 * owner is switched out (it may sleep for long), this CPU has other work,
 * or time is up. Without it, every hand-off between two threads that take one
 * mutex in turn costs a sleep and a wake-up: two threads doing O_DIRECT on
 * one file ran at 0.4x one thread.
 * The owner is read without wait_lock: it may unlock, exit and be freed
 * while we look; its task struct stays mapped (slab), and a stale on_cpu
 * only ends the spin early or late, within the time limit.
 */
#define MUTEX_SPIN_NS 50000

static bool spin_on_owner(struct mutex *m)
{
	u64 end = ktime_ns() + MUTEX_SPIN_NS;
	for (;;) {
		struct task *o = READ_ONCE(m->owner);
		if (!o)
			return true;
		if (!READ_ONCE(o->on_cpu) || READ_ONCE(this_cpu()->need_resched) ||
		    ktime_ns() > end)
			return false;
		cpu_relax();
	}
}

static const char *owner_name(const struct mutex *m)
{
	return m->owner ? m->owner->name : "(none)";
}

void mutex_init(struct mutex *m, const char *name)
{
	spin_lock_init(&m->wait_lock, "mutex.wait_lock");
	m->owner = NULL;
	list_init(&m->waiters);
	m->name = name;
	m->dep_class = 0;
}

static void lock_common(struct mutex *m, unsigned subclass, unsigned long site)
{
	struct task *me = current_task();
	struct mutex_waiter w = { me, { NULL, NULL }, false, false };

	if (broken())
		return;
	if (lockdep_enabled())	/* before sleeping: an inversion is reported, not slept on */
		lockdep_acquire(m, m->name, &m->dep_class, subclass, LOCKDEP_SLEEPING, site);
	spin_lock(&m->wait_lock);
	if (m->owner == me)
		panic("BUG: mutex '%s': recursive lock by '%s' (tid %d)", m->name, me->name, me->tid);
	for (int tries = 0; m->owner && tries < 4; tries++) {
		spin_unlock(&m->wait_lock);
		bool freed = spin_on_owner(m);
		spin_lock(&m->wait_lock);
		if (!freed)
			break;
	}
	if (may_steal(m)) {
		m->owner = me;
		spin_unlock(&m->wait_lock);
		return;
	}
	list_add_tail(&w.link, &m->waiters);
	for (;;) {
		if (m->owner == me)
			break;			/* handed off: the unlocker unlinked w */
		if (!m->owner && first_waiter(m) == &w) {
			m->owner = me;		/* woken to try, and nobody stole it */
			list_del(&w.link);
			break;
		}
		if (w.woken)
			w.handoff = true;	/* a running task stole it: not twice */
		set_current_state(TASK_SLEEPING);
		spin_unlock(&m->wait_lock);
		schedule();
		spin_lock(&m->wait_lock);
	}
	spin_unlock(&m->wait_lock);
}

void mutex_lock(struct mutex *m)
{
	might_sleep();
	lock_common(m, 0, LOCKDEP_SITE());
}

void mutex_lock_nested(struct mutex *m, unsigned subclass)
{
	might_sleep();
	lock_common(m, subclass, LOCKDEP_SITE());
}

bool mutex_trylock(struct mutex *m)
{
	struct task *me = current_task();

	if (broken())
		return true;
	spin_lock(&m->wait_lock);
	bool got = may_steal(m);
	if (got)
		m->owner = me;
	spin_unlock(&m->wait_lock);
	if (got && lockdep_enabled())
		lockdep_acquire(m, m->name, &m->dep_class, 0, LOCKDEP_SLEEPING | LOCKDEP_TRY,
				LOCKDEP_SITE());
	return got;
}

void mutex_unlock(struct mutex *m)
{
	struct task *me = current_task();

	if (broken())
		return;
	spin_lock(&m->wait_lock);
	if (m->owner != me)
		panic("BUG: mutex '%s': unlocked by '%s' (tid %d), owner '%s'", m->name,
		      me->name, me->tid, owner_name(m));
	if (lockdep_enabled())
		lockdep_release(m, LOCKDEP_SLEEPING);
	struct mutex_waiter *w = first_waiter(m);
	if (w && w->handoff) {
		list_del(&w->link);
		m->owner = w->task;	/* hand-off: w's loop sees it under wait_lock */
	} else {
		m->owner = NULL;	/* free: w, woken, or a running task takes it */
	}
	if (w) {
		w->woken = true;
		wake_up_process(w->task);
	}
	spin_unlock(&m->wait_lock);
}

bool mutex_held_by_me(struct mutex *m)
{
	return READ_ONCE(m->owner) == current_task();
}
