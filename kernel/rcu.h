/*
 * rcu.h - read-copy update (McKenney and Slingwine; "classic",
 * non-preemptible RCU as in Linux 2.6).
 *
 * The guarantee: a grace period that starts after a pointer was unpublished
 * ends only after every CPU has passed through a quiescent state, so every
 * read-side critical section that could have seen the old pointer has
 * ended. Readers pay nothing but a preemption-count increment (and, while
 * lockdep checks, a second count).
 *
 * Read side: rcu_read_lock() ... rcu_dereference(p) ... rcu_read_unlock().
 * A reader must not sleep. Interrupts-off regions are read-side sections
 * too (a CPU with interrupts off cannot pass a quiescent state); code that
 * relies on that says so in its rcu_dereference_check condition
 * (irqs_disabled()). rcu_dereference checks, while lockdep is on, that it
 * is called inside rcu_read_lock(); rcu_dereference_check(p, cond) also
 * accepts cond, such as the lock that otherwise keeps p's object alive.
 * Update side: publish with rcu_assign_pointer, then either wait
 * (synchronize_rcu, may sleep) or defer (call_rcu) before freeing.
 *
 * A quiescent state (QS) is a moment at which this CPU cannot be inside a
 * read-side critical section:
 *   - a context switch (readers do not sleep and run with preemption off);
 *   - a timer tick that interrupted code with preempt_count() == 0;
 *   - being idle (tracked by the extended-QS counter, below).
 *
 * The grace-period algorithm, step by step:
 *   1. call_rcu puts the callback on this CPU's `next` list (interrupts off).
 *   2. At its next tick the CPU gives its `next` callbacks a target: the
 *      grace period numbered gp_started + 1, the first one that will begin
 *      after they were queued. They move to `wait`. If no grace period is
 *      in progress, the CPU starts one (step 3).
 *   3. Starting grace period G (under gp_lock): gp_started = G, and every
 *      online CPU's bit is set in qs_needed, except CPUs that are idle right
 *      now (their extended-QS counter is odd): an idle CPU is in no reader.
 *   4. Each CPU, at its next QS after it sees G started, clears its bit.
 *      The CPU that clears the last bit ends G: gp_completed = G.
 *   5. At a tick, a CPU whose `wait` target is <= gp_completed moves those
 *      callbacks to `done` and wakes its callback thread, which runs them.
 *   6. A grace period that is slow gets help: after FORCE_MS the CPUs still
 *      owing a QS are checked for having been idle since the start (their
 *      counter moved) and the rest are sent a reschedule IPI; after STALL_MS
 *      a stall warning names them.
 *
 * Why it is safe: a reader that could see the old pointer began before the
 * updater's call_rcu, hence before G started; its CPU cannot clear its bit
 * for G until the reader ends (no QS inside a reader), so G cannot end, and
 * the callback cannot run, while the reader runs. (kernel/rcu.c cites
 * these steps; docs/rcu.md shows them in gdb.)
 */
#ifndef KERNEL_RCU_H
#define KERNEL_RCU_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"
#include "kernel/lockdep.h"

/*
 * Enter/leave a read-side critical section: preemption off (nestable).
 * While lockdep is on, this CPU's rcu_read_depth counts the sections too,
 * so that the checks below can tell a reader from code that merely runs
 * with preemption off (holding a spinlock happens to keep a grace period
 * from ending, but says nothing about which data it means to protect).
 * Each count is one gs-relative instruction, so it always lands on the
 * count of the CPU the reader runs on (preempt.h explains why).
 */
#define RCU_DEPTH_OFFSET __builtin_offsetof(struct cpu, rcu_read_depth)

static inline void rcu_read_lock(void)
{
	preempt_disable();
	if (lockdep_enabled())
		__asm__ __volatile__("incl %%gs:%c0" :: "i"(RCU_DEPTH_OFFSET) : "memory");
}

static inline int rcu_read_depth(void)
{
	int n;
	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(n) : "i"(RCU_DEPTH_OFFSET) : "memory");
	return n;
}

void rcu_read_unlock_underflow(void) __noreturn;

static inline void rcu_read_unlock(void)
{
	if (lockdep_enabled()) {
		if (unlikely(rcu_read_depth() <= 0))
			rcu_read_unlock_underflow();
		__asm__ __volatile__("decl %%gs:%c0" :: "i"(RCU_DEPTH_OFFSET) : "memory");
	}
	preempt_enable();
}

/* rcu_read_lock_held: is the caller inside rcu_read_lock()? (True with lockdep off.) */
static inline bool rcu_read_lock_held(void)
{
	return !lockdep_enabled() || rcu_read_depth() > 0;
}

/* The report behind rcu_dereference_check: panics. */
void rcu_dereference_failed(const char *file, int line, const char *func, const char *ptr,
			    const char *cond) __noreturn;

/*
 * rcu_dereference_raw: load an RCU-protected pointer. Acquire, so the
 * fields of the object are read after the pointer (x86-64: a plain mov;
 * the order is what matters to the compiler and to weaker machines).
 * Unchecked: for loads whose protection was checked once already (a walk
 * that checked its first step).
 */
#define rcu_dereference_raw(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)

/*
 * rcu_dereference_check(p, cond): rcu_dereference_raw, after checking
 * (lockdep on) that the caller is an RCU reader or that cond holds - cond
 * names the other thing that keeps p's object alive, usually the lock its
 * updaters take: lockdep_is_held(&m->tree_lock). The idea is Linux's
 * rcu_dereference_check (Paul McKenney, 2.6.34). rcu_dereference(p) is
 * the check with no alternative: rcu_read_lock() or nothing.
 */
#define rcu_dereference_check(p, cond)                                         \
	({                                                                     \
		if (lockdep_enabled() && unlikely(!rcu_read_lock_held() && !(cond))) \
			rcu_dereference_failed(__FILE__, __LINE__, __func__, #p, #cond); \
		rcu_dereference_raw(p);                                        \
	})

#define rcu_dereference(p) rcu_dereference_check(p, false)

/*
 * rcu_assign_pointer: publish p = v. Release, so the object's
 * initialisation is visible before the pointer (x86-64: a plain mov).
 */
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/* call_rcu: run func(head) after a grace period, in a context that may not sleep. */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
/* synchronize_rcu: return after a full grace period. Sleeps; not in a reader. */
void synchronize_rcu(void);
/* rcu_barrier: return after every callback queued before the call has run. */
void rcu_barrier(void);

/* Counters for tests, benchmarks and gdb. */
struct rcu_stats {
	u64 gp_completed;	/* grace periods ended since boot */
	u64 gp_avg_ns;		/* their average length */
	u64 cbs_queued, cbs_invoked;
};
void rcu_get_stats(struct rcu_stats *st);
/* Number of the last grace period that ended (acquire). */
u64 rcu_gp_completed(void);

/* Hooks: the scheduler, the idle loop and the tick call these. */
void rcu_note_context_switch(void);	/* in schedule(), before switching */
void rcu_idle_enter(void);		/* before hlt in the idle loop */
void rcu_idle_exit(void);		/* after it */
void rcu_tick(void);			/* from the timer interrupt */
void rcu_irq_enter(void);		/* around every interrupt handler */
void rcu_irq_exit(void);

/* rcu_init: after the scheduler; rcu_start_threads: after smp_init. */
void rcu_init(void);
void rcu_start_threads(void);

#endif
