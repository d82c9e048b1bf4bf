/* sched.h (host shim) - threads are tasks; only might_sleep is kept. */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "kernel/types.h"
#include "kernel/time.h"
#include "kernel/percpu.h"

/* Aborts with the kernel's message if preemption is off or RCU is held. */
void __might_sleep(const char *file, int line, const char *func);
#define might_sleep() __might_sleep(__FILE__, __LINE__, __func__)

#endif
