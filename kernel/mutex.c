/*
 * mutex.c - sleeping mutexes with FIFO hand-off (see kernel/mutex.h).
 *
 * A sleeper waits for one thing: m->owner becoming itself. The unlocker
 * sets owner to the first waiter and wakes it, both under wait_lock, and
 * the sleeper checks owner only under wait_lock, so a wake-up cannot be
 * lost and the waiter (whose entry lives on its stack) cannot leave while
 * the unlocker still looks at it. wait.h's protocol in miniature: state
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

CMDLINE_KEY(broken_mutex, "debug.broken_mutex",
	    "tests of tests: 1 makes mutex_lock skip the exclusion");

struct mutex_waiter {
	struct task *task;		/* [I] */
	struct list_head link;		/* [L:wait_lock] on m->waiters */
};

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
	struct mutex_waiter w = { me, { NULL, NULL } };

	if (broken())
		return;
	if (lockdep_enabled())	/* before sleeping: an inversion is reported, not slept on */
		lockdep_acquire(m, m->name, &m->dep_class, subclass, LOCKDEP_SLEEPING, site);
	spin_lock(&m->wait_lock);
	if (m->owner == me)
		panic("BUG: mutex '%s': recursive lock by '%s' (tid %d)", m->name, me->name, me->tid);
	if (!m->owner) {
		m->owner = me;
		spin_unlock(&m->wait_lock);
		return;
	}
	list_add_tail(&w.link, &m->waiters);
	while (m->owner != me) {
		set_current_state(TASK_SLEEPING);
		spin_unlock(&m->wait_lock);
		schedule();
		spin_lock(&m->wait_lock);
	}
	spin_unlock(&m->wait_lock);	/* the unlocker unlinked w */
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
	bool got = !m->owner && list_empty(&m->waiters);
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
	if (list_empty(&m->waiters)) {
		m->owner = NULL;
	} else {
		struct mutex_waiter *w = list_first_entry(&m->waiters, struct mutex_waiter, link);
		list_del(&w->link);
		m->owner = w->task;	/* hand-off: w's loop sees it under wait_lock */
		wake_up_process(w->task);
	}
	spin_unlock(&m->wait_lock);
}

bool mutex_held_by_me(struct mutex *m)
{
	return READ_ONCE(m->owner) == current_task();
}
