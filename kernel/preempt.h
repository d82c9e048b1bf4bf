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

/*
 * Each access is ONE instruction relative to %gs, so it always touches the
 * count of the CPU it runs on: with "load this_cpu(), then add" a tick
 * between the two could move the task to another CPU, and the add would
 * land on the old CPU's count. An interrupt cannot split one instruction.
 * The "memory" clobbers are compiler barriers: they keep the protected
 * accesses inside the window.
 */
#define PREEMPT_COUNT_OFFSET __builtin_offsetof(struct cpu, preempt_count)

static inline void preempt_disable(void)
{
	__asm__ __volatile__("incl %%gs:%c0" :: "i"(PREEMPT_COUNT_OFFSET) : "memory");
}

static inline int preempt_count(void)
{
	int n;
	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(n) : "i"(PREEMPT_COUNT_OFFSET) : "memory");
	return n;
}

void preempt_count_underflow(void) __noreturn;

static inline void preempt_enable(void)
{
	/* Underflow check and decrement need not be one instruction: at
	 * count >= 1 the task cannot be preempted between them. */
	if (unlikely(preempt_count() <= 0))
		preempt_count_underflow();
	__asm__ __volatile__("decl %%gs:%c0" :: "i"(PREEMPT_COUNT_OFFSET) : "memory");
}

#endif
