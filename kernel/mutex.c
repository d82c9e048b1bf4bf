/*
 * mutex.c - sleeping mutexes: stealing, spinning, and a hand-off so that
 * nobody starves (see kernel/mutex.h).
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
#include "kernel/string.h"

CMDLINE_KEY(broken_mutex, "debug.broken_mutex",
	    "tests of tests: 1 makes mutex_lock skip the exclusion, nohandoff lets a "
	    "sleeper lose to running lockers for ever, fifo forbids stealing");

enum broken_mode { BROKEN_UNKNOWN = -1, BROKEN_NONE, BROKEN_EXCLUSION, BROKEN_NOHANDOFF,
		   BROKEN_FIFO };

/* The debug.broken_mutex mode, parsed once (racing first users agree). */
static bool broken(enum broken_mode mode)
{
	static int cached = BROKEN_UNKNOWN;	/* [A] */
	int m = READ_ONCE(cached);
	if (m == BROKEN_UNKNOWN) {
		const char *v = cmdline_get("debug.broken_mutex");
		m = !v ? BROKEN_NONE : !strcmp(v, "1") ? BROKEN_EXCLUSION :
		    !strcmp(v, "nohandoff") ? BROKEN_NOHANDOFF :
		    !strcmp(v, "fifo") ? BROKEN_FIFO : BROKEN_NONE;
		WRITE_ONCE(cached, m);
	}
	return m == mode;
}

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

/*
 * Does the first sleeper hold the hand-off? (Under debug.broken_mutex=fifo,
 * every sleeper does: strict FIFO, the convoy.) wait_lock held.
 */
static bool handoff_due(struct mutex_waiter *w)
{
	return w && (w->handoff || broken(BROKEN_FIFO));
}

/* May a running task take a free mutex past the sleepers? wait_lock held. */
static bool may_steal(struct mutex *m)
{
	return !m->owner && !handoff_due(first_waiter(m));
}

/*
 * Optimistic spinning (sched_spin_on_owner): a locker that finds the mutex
 * held by a running task waits with its CPU, at most MUTEX_SPIN_NS a try,
 * before it queues. Without it, every pass of a mutex between two threads
 * that take it in turn cost a sleep and a wake-up: two threads doing
 * O_DIRECT on one file ran at 0.4x one thread.
 */
#define MUTEX_SPIN_NS 50000

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

	if (broken(BROKEN_EXCLUSION))
		return;
	if (lockdep_enabled())	/* before sleeping: an inversion is reported, not slept on */
		lockdep_acquire(m, m->name, &m->dep_class, subclass, LOCKDEP_SLEEPING, site);
	spin_lock(&m->wait_lock);
	if (m->owner == me)
		panic("BUG: mutex '%s': recursive lock by '%s' (tid %d)", m->name, me->name, me->tid);
	for (int tries = 0; m->owner && tries < 4; tries++) {
		spin_unlock(&m->wait_lock);
		bool moved = sched_spin_on_owner(&m->owner, MUTEX_SPIN_NS);
		spin_lock(&m->wait_lock);
		if (!moved)
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
		if (w.woken && !broken(BROKEN_NOHANDOFF))
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

	if (broken(BROKEN_EXCLUSION))
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

	if (broken(BROKEN_EXCLUSION))
		return;
	spin_lock(&m->wait_lock);
	if (m->owner != me)
		panic("BUG: mutex '%s': unlocked by '%s' (tid %d), owner '%s'", m->name,
		      me->name, me->tid, owner_name(m));
	if (lockdep_enabled())
		lockdep_release(m, LOCKDEP_SLEEPING);
	struct mutex_waiter *w = first_waiter(m);
	if (handoff_due(w)) {
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
