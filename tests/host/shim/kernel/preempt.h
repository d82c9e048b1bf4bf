/*
 * preempt.h (host shim) - a per-thread preemption count. Threads are never
 * actually kept from being preempted; the count only lets code and tests
 * check that disable and enable pair up.
 */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "kernel/types.h"

void preempt_disable(void);
/* Aborts on underflow, as the kernel's panics. */
void preempt_enable(void);
int preempt_count(void);

#endif
