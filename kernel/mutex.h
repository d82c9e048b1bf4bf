/*
 * mutex.h - sleeping mutual exclusion, owned by a task.
 *
 * A mutex is held by a task, not a CPU: the holder may sleep, and a task
 * that finds it taken sleeps. Before it sleeps it may spin a little (at
 * most MUTEX_SPIN_NS, and only while the holder is running on a CPU and
 * nobody sleeps in the queue), because a holder that runs will likely
 * unlock within microseconds, and a sleep and a wake-up cost far more
 * (optimistic spinning, as Linux's mutex). mutex_unlock wakes the longest
 * sleeper; a running task may take the mutex before it wakes, but only
 * once: a sleeper that lost is then handed the mutex by the next unlock,
 * and nobody may overtake it, so nobody starves. Locking a mutex you already hold, or
 * unlocking one you do not hold, is a BUG naming the mutex and the tasks.
 * lockdep (kernel/lockdep.h) keeps a held mutex on its task's stack of held
 * locks, so it is tracked across sleeps and CPUs.
 *
 * The command-line word debug.broken_mutex=1 (a test of the tests) makes
 * mutex_lock and mutex_unlock do nothing at all; lock_mutex_mutual_exclusion
 * must then fail.
 *
 * Lock legend: [L:wait_lock] the mutex's internal spinlock, [I] immutable.
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct task;

struct mutex {
	spinlock_t wait_lock;		/* guards owner and waiters */
	struct task *owner;		/* [L:wait_lock] holder, NULL when free */
	struct list_head waiters;	/* [L:wait_lock] sleeping lockers, oldest first */
	const char *name;		/* [I] for reports; its lockdep class */
	u16 dep_class;			/* [A] lockdep's class, cached at first use */
};

#define MUTEX_INIT(m, n) \
	{ SPINLOCK_INIT("mutex.wait_lock"), NULL, LIST_HEAD_INIT((m).waiters), n, 0 }
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m, #m)

void mutex_init(struct mutex *m, const char *name);
/* mutex_lock: return holding m. May sleep (might_sleep checks the caller). */
void mutex_lock(struct mutex *m);
/*
 * mutex_lock_nested: mutex_lock, for the inner of two mutexes of one class
 * held together (rename's two i_mutex); subclass names its place in their
 * order for lockdep (kernel/lockdep.h). May sleep.
 */
void mutex_lock_nested(struct mutex *m, unsigned subclass);
/* mutex_trylock: take m if it is free and nobody waits; true if taken. Never sleeps. */
bool mutex_trylock(struct mutex *m);
/* mutex_unlock: the caller must hold m; hands it to the first waiter. Never sleeps. */
void mutex_unlock(struct mutex *m);
/* True if the calling task holds m (for assertions). */
bool mutex_held_by_me(struct mutex *m);

#endif
