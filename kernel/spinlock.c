/*
 * spinlock.c - test-and-test-and-set locks with exponential backoff.
 *
 * Waiters spin on a plain read (the line stays shared in their caches) and
 * only try the atomic exchange when the lock looks free; after each failed
 * try they back off a little longer, capped, so a crowd of vCPUs does not
 * keep the line bouncing.
 */
#include "kernel/spinlock.h"
#include "kernel/percpu.h"
#include "kernel/panic.h"

void preempt_count_underflow(void)
{
	panic("preempt_enable: preempt_count underflow on cpu%d", smp_processor_id());
}

void spin_lock_init(spinlock_t *l, const char *name)
{
	l->locked = 0;
	l->owner = -1;
	l->name = name;
}

bool spin_trylock(spinlock_t *l)
{
	preempt_disable();
	/* Acquire: the critical section cannot move above this. x86-64: xchg. */
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0) {
		l->owner = smp_processor_id();
		return true;
	}
	preempt_enable();
	return false;
}

void spin_lock(spinlock_t *l)
{
	unsigned delay = 1;

	if (l->owner == smp_processor_id() && READ_ONCE(l->locked))
		panic("spinlock '%s': recursive lock on cpu%d", l->name ? l->name : "?",
		      smp_processor_id());
	while (!spin_trylock(l)) {
		while (READ_ONCE(l->locked)) {
			for (unsigned i = 0; i < delay; i++)
				cpu_relax();
			if (delay < 256)
				delay <<= 1;
		}
	}
}

void spin_unlock(spinlock_t *l)
{
	if (l->owner != smp_processor_id())
		panic("spinlock '%s': unlock by cpu%d, owner cpu%d", l->name ? l->name : "?",
		      smp_processor_id(), l->owner);
	l->owner = -1;
	/* Release: the critical section's stores are visible first. x86-64: mov. */
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	preempt_enable();
}

bool spin_is_held(const spinlock_t *l)
{
	return READ_ONCE(l->locked) && l->owner == smp_processor_id();
}
