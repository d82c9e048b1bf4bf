/*
 * spinlock.h - busy-wait locks (DESIGN.md section 4).
 *
 * The default is test-and-test-and-set with exponential backoff: with more
 * vCPUs than host cores a FIFO ticket lock can hand the lock to a vCPU that
 * is not running and stall everyone behind it.
 * Acquire is a lock xchg (acquire + full barrier on x86-64); release is a
 * store-release (plain mov under TSO).
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/x86.h"
#include "kernel/preempt.h"

typedef struct {
	int locked;		/* [A] 0 free, 1 held */
	int owner;		/* [L:self] CPU holding it, -1 if none (debug) */
	const char *name;	/* [I] for reports */
} spinlock_t;

#define SPINLOCK_INIT(n) { 0, -1, n }

void spin_lock_init(spinlock_t *l, const char *name);
/* spin_lock: returns with l held and preemption off. Never sleeps. */
void spin_lock(spinlock_t *l);
bool spin_trylock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
/* True if the calling CPU holds l (for assertions). */
bool spin_is_held(const spinlock_t *l);

/* Interrupt-safe variants: save and disable interrupts, then lock. */
static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long f = irq_save();
	spin_lock(l);
	return f;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long f)
{
	spin_unlock(l);
	irq_restore(f);
}


#endif
