/*
 * preempt.h - the per-CPU preemption count.
 *
 * While this CPU's preempt_count is above zero the scheduler will not
 * switch it to another task (spinlocks, RCU read-side sections and
 * interrupt handlers raise it). preempt_enable does not itself reschedule:
 * a pending need_resched is acted on at the next interrupt return or
 * explicit schedule(), which keeps this header free of the scheduler.
 */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "kernel/percpu.h"
#include "kernel/atomic.h"

/* The compiler barriers keep the protected accesses inside the window. */
static inline void preempt_disable(void)
{
	this_cpu()->preempt_count++;
	barrier();
}

void preempt_count_underflow(void) __noreturn;

static inline void preempt_enable(void)
{
	barrier();
	if (unlikely(this_cpu()->preempt_count <= 0))
		preempt_count_underflow();
	this_cpu()->preempt_count--;
}

static inline int preempt_count(void)
{
	return this_cpu()->preempt_count;
}

#endif
