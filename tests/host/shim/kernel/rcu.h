/*
 * rcu.h (host shim) - quiescent-state-based RCU for user-space tests
 * (McKenney's QSBR flavour), written with __atomic builtins so that
 * ThreadSanitizer sees every ordering it relies on.
 *
 * As in the kernel's classic RCU, a read-side section costs nothing; what
 * ends a grace period is each reader thread saying, between sections, "I
 * hold no RCU-protected pointer now": rcu_quiescent_state(). A thread that
 * reads must register first and call rcu_quiescent_state() often; a thread
 * that only writes need not register. The protocol:
 *
 *  1. A registered thread's counter holds the grace-period number it last
 *     saw at a quiescent state, or 0 while it is offline.
 *  2. rcu_quiescent_state() loads the global grace-period number and stores
 *     it into the thread's counter (both sequentially consistent: the
 *     store orders every earlier read before it, the load makes every
 *     pointer unpublished before the number was bumped visible after).
 *  3. synchronize_rcu() bumps the global number to g, then waits until
 *     every registered thread's counter is 0 or at least g: each has passed
 *     a quiescent state since the bump, so no read-side section that began
 *     before it is still running. Its acquire loads make the readers'
 *     earlier reads happen before whatever the caller frees next.
 *
 * call_rcu queues the callback; once RCU_HOST_BATCH are queued (or at
 * rcu_barrier) the caller runs synchronize_rcu and then every queued
 * callback, in its own thread.
 */
#ifndef KERNEL_RCU_H
#define KERNEL_RCU_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/preempt.h"

#define RCU_HOST_BATCH 256

/* Read-side sections: no code, only a per-thread nesting count for checks,
 * inline as the kernel's preemption count is. */
extern __thread int host_rcu_nesting;	/* [P] read-side depth */
void host_rcu_unbalanced(void);		/* panics */

static inline void rcu_read_lock(void)
{
	host_rcu_nesting++;
}

static inline void rcu_read_unlock(void)
{
	if (__builtin_expect(host_rcu_nesting <= 0, 0))
		host_rcu_unbalanced();
	host_rcu_nesting--;
}

/* Host only: the calling thread's read-side nesting (0 outside any section). */
static inline int rcu_read_depth(void)
{
	return host_rcu_nesting;
}

/* The same publication primitives as the kernel's rcu.h; the checked
 * forms check nothing here (no lockdep on the host: shim lockdep.h), and
 * evaluate and ignore their condition. */
#define rcu_dereference_raw(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference(p) rcu_dereference_raw(p)
#define rcu_dereference_check(p, cond) ({ (void)(cond); rcu_dereference_raw(p); })
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
/* Not inside a read-side section (aborts); a registered caller counts as quiescent. */
void synchronize_rcu(void);
void rcu_barrier(void);

/* Host only: reader threads register, report quiescent states, and go offline. */
void rcu_register_thread(void);
void rcu_unregister_thread(void);
/* Outside any read-side section (aborts otherwise). */
void rcu_quiescent_state(void);

#endif
