/*
 * mutex.h - sleeping mutual exclusion, owned by a task.
 *
 * A mutex is held by a task, not a CPU: the holder may sleep, and a task
 * that finds it taken sleeps. Before it sleeps it may spin a little (a few
 * tries of at most MUTEX_SPIN_NS, and only while the holder is running on
 * a CPU), because a holder that runs will likely unlock within
 * microseconds, and a sleep and a wake-up cost far more (optimistic
 * spinning, as Linux's mutex). mutex_unlock frees the mutex and wakes the
 * longest sleeper; a running task may take the mutex before it wakes, but
 * only once: a sleeper that was woken and lost is handed the mutex by the
 * next unlock, and nobody may overtake it, so nobody starves. Locking a
 * mutex you already hold, or unlocking one you do not hold, is a BUG
 * naming the mutex and the tasks. There is no killable or interruptible
 * lock: a sleeper waits for the mutex whatever signals arrive.
 * lockdep (kernel/lockdep.h) keeps a held mutex on its task's stack of held
 * locks, so it is tracked across sleeps and CPUs.
 *
 * The command-line word debug.broken_mutex=MODE (a test of the tests)
 * breaks it on purpose: `1` makes mutex_lock and mutex_unlock do nothing
 * at all (lock_mutex_mutual_exclusion must fail), `nohandoff` lets running
 * tasks take the mutex past a woken sleeper for ever
 * (lock_mutex_sleeper_gets_it_from_a_task_that_retakes_it must fail), and
 * `fifo` makes every unlock hand the mutex to the first sleeper, the convoy
 * (lock_mutex_task_retakes_it_past_a_woken_sleeper must fail).
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
	struct task *owner;		/* [L:wait_lock] holder, NULL when free; read
					 * without the lock by spinners and
					 * mutex_held_by_me */
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
/* mutex_trylock: take m if it is free and no sleeper holds the hand-off; true
 * if taken. Never sleeps. */
bool mutex_trylock(struct mutex *m);
/* mutex_unlock: the caller must hold m; frees it (or hands it to the first
 * sleeper, if that one holds the hand-off) and wakes that sleeper. Never sleeps. */
void mutex_unlock(struct mutex *m);
/* True if the calling task holds m (for assertions). */
bool mutex_held_by_me(struct mutex *m);

#endif
