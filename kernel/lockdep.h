/*
 * lockdep.h - the kernel checks its own locking rules (docs/locks.md,
 * "Checking the rules"). The idea is Ingo Molnar's lock validator (Linux
 * 2.6.18): reason about classes of locks, not single locks, so one run
 * that takes A then B, and another that takes B then A, is reported even
 * if the two never race.
 *
 * Classes. Every lock is named when it is initialised
 * (spin_lock_init(&l, "rq")); locks with the same name are one class. The
 * page lock (PG_locked) of every page is the one class "page_lock". A lock
 * taken with a subclass (spin_lock_nested, mutex_lock_nested,
 * lock_page_nested) belongs to the class "NAME/SUBCLASS" instead: that is
 * how code says "I nest two locks of one class, and this is the inner one"
 * (rename holds two i_mutex locks). A lock caches its class the first time
 * it is taken.
 *
 * What is recorded, with no allocation on any lock path:
 *   - held locks, each with the address that took it: a stack per CPU for
 *     spinlocks and rwlocks (they keep preemption off, so the CPU cannot
 *     change under them; run-queue locks are even handed from one task to
 *     the next across a switch), and a stack per task for mutexes,
 *     rw-semaphores and page locks, which are held across sleeps. Locks may
 *     be released in any order;
 *   - the order graph: an edge A -> B the first time a B is taken while an
 *     A is held, with both acquisition sites, in a fixed table of
 *     LOCKDEP_MAX_EDGES edges between LOCKDEP_MAX_CLASSES classes;
 *   - per class, the first site that took it in an interrupt handler and
 *     the first that took it with interrupts enabled.
 *
 * What is reported (each a panic whose message starts "lockdep:", after the
 * details and the held locks are printed):
 *   "lock order inversion"       a new edge closes a cycle in the graph
 *                                 (both sites of every edge in it);
 *   "nested lock of class"        a lock taken while another lock of its
 *                                 own class is held, without a subclass;
 *   "recursive lock"              a lock taken again by its holder;
 *   "irq-unsafe class"            a class taken in an interrupt handler and
 *                                 elsewhere with interrupts enabled (the
 *                                 interrupt can arrive on the holder's CPU);
 *   "assertion failed"            lockdep_assert(), lockdep_assert_held(),
 *                                 and rcu_dereference_check() (kernel/rcu.h)
 *                                 when the condition they name is false.
 * A trylock cannot wait, so it adds no edge and is not checked; it is
 * recorded as held, and locks taken under it are ordered after it.
 *
 * When a table fills (classes, edges), lockdep says so once and stops
 * learning new classes or edges; held-lock tracking, the assertions and the
 * edges already known keep working. Held-lock stacks do not fill in a
 * correct kernel: overflowing one is reported as a bug.
 *
 * Off switch: the command-line word lockdep=off (for benchmarks). Then
 * every hook in the lock paths is one load and one predictable branch, and
 * every assertion passes. The first report also turns lockdep off, so the
 * report's own printing is not checked.
 */
#ifndef KERNEL_LOCKDEP_H
#define KERNEL_LOCKDEP_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"

#define LOCKDEP_MAX_CLASSES 256		/* class 0 means "not looked up yet" */
#define LOCKDEP_MAX_EDGES 1024
#define LOCKDEP_MAX_SUBCLASSES 4	/* subclasses 0..3 */
#define LOCKDEP_DEPTH 16		/* held locks per CPU, and per task */

/* How a lock is being taken (lockdep_acquire's flags). */
#define LOCKDEP_SLEEPING 1	/* a sleeping lock: the task's stack, not the CPU's */
#define LOCKDEP_READ 2		/* the shared side of an rwlock or rwsem */
#define LOCKDEP_TRY 4		/* a trylock that succeeded: recorded, not checked */

/* One held lock. [P] its stack's owner, with interrupts off. */
struct lockdep_held {
	const void *lock;	/* the lock itself */
	unsigned long site;	/* the return address of the call that took it */
	u16 cls;		/* its class (subclass included) */
	u8 flags;		/* LOCKDEP_* */
};

/* A stack of held locks: one per CPU, and one in every struct task. */
struct lockdep_stack {
	int depth;
	struct lockdep_held held[LOCKDEP_DEPTH];
};

/* [A] on after lockdep_init unless lockdep=off; off for good after a report. */
extern bool lockdep_on;

/* The one branch every hook pays: plain mov and jump. */
static inline bool lockdep_enabled(void)
{
	return READ_ONCE(lockdep_on);
}

/*
 * lockdep_init: read lockdep=off. Boot CPU, once, while it holds no lock
 * (spinlock_init_from_cmdline calls it).
 */
void lockdep_init(void);

/*
 * lockdep_acquire: lock is about to be taken (or, with LOCKDEP_TRY, was
 * just taken) by the caller at site. name is the lock's name and *cls its
 * cached class (0 at first). Checks the order and the interrupt rules and
 * records the lock as held. Call only when lockdep_enabled(). Never sleeps.
 */
void lockdep_acquire(const void *lock, const char *name, u16 *cls, unsigned subclass,
		     unsigned flags, unsigned long site);
/* lockdep_release: lock (LOCKDEP_SLEEPING: a sleeping lock) is no longer held. */
void lockdep_release(const void *lock, unsigned flags);
/*
 * lockdep_is_held: does the caller (this CPU, or the running task for a
 * sleeping lock) hold lock, either side? True when lockdep is off, so an
 * assertion built on it passes.
 */
bool lockdep_is_held(const void *lock);
/* As lockdep_is_held, but only the exclusive side (a writer) counts. */
bool lockdep_is_held_exclusive(const void *lock);
/* Print this CPU's and this task's held locks, with sites (for reports). */
void lockdep_print_held(void);
/*
 * lockdep_show: every class and edge learnt so far, as text for
 * /proc/lockdep, one item a line:
 * "class NAME[ in-irq][ irqs-on]", "edge FROM -> TO FROM_SITE TO_SITE".
 * Returns the length written to buf (at most size - 1, NUL-terminated).
 */
int lockdep_show(char *buf, int size);
/* Classes and edges so far (tests). */
int lockdep_nr_classes(void);
int lockdep_nr_edges(void);

/*
 * The page lock, one class "page_lock" (mm/filemap.c calls these): before
 * lock_page waits (flags 0) or after a trylock succeeded (LOCKDEP_TRY), and
 * when the page is unlocked. A page is held on its locker's task stack; an
 * unlock by another task finds nothing to release and is not an error (the
 * page lock has no owner).
 */
void __lockdep_page_acquire(const void *page, unsigned subclass, unsigned flags,
			    unsigned long site);
void __lockdep_page_release(const void *page);

static inline void lockdep_page_acquire(const void *page, unsigned subclass, unsigned flags,
					unsigned long site)
{
	if (lockdep_enabled())
		__lockdep_page_acquire(page, subclass, flags, site);
}

static inline void lockdep_page_release(const void *page)
{
	if (lockdep_enabled())
		__lockdep_page_release(page);
}

/*
 * Interrupt-handler context, for the irq-unsafe check: trap_dispatch
 * brackets every interrupt handler with these (interrupts off).
 */
static inline void lockdep_hardirq_enter(void)
{
	this_cpu()->irq_depth++;
}

static inline void lockdep_hardirq_exit(void)
{
	this_cpu()->irq_depth--;
}

/* True inside an interrupt handler. */
static inline bool in_hardirq(void)
{
	return this_cpu()->irq_depth != 0;
}

/* The report behind lockdep_assert: panics. */
void lockdep_assert_failed(const char *file, int line, const char *func, const char *cond)
	__noreturn;

/*
 * lockdep_assert(cond): when lockdep is on, cond must hold (STYLE.md rule
 * 14: the comment "caller holds X" said in code). cond is evaluated only
 * when lockdep is on.
 */
#define lockdep_assert(cond)                                                   \
	do {                                                                   \
		if (lockdep_enabled() && unlikely(!(cond)))                    \
			lockdep_assert_failed(__FILE__, __LINE__, __func__,    \
					      #cond);                          \
	} while (0)

#define lockdep_assert_held(l) lockdep_assert(lockdep_is_held(l))

/* The caller's return address: the site a lock function records. */
#define LOCKDEP_SITE() ((unsigned long)__builtin_return_address(0))

#endif
