/*
 * percpu.h (host shim) - "CPUs" are threads. Each thread that asks for its
 * number gets the next free one, so per-CPU arrays indexed by
 * smp_processor_id() become per-thread arrays. Numbers are never reused.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "kernel/types.h"

#define MAX_CPUS 16

/* The calling thread's number once it has one, else -1 ([P] per thread). */
extern __thread int host_cpu;
/* Give the calling thread its number (aborts past MAX_CPUS). */
int host_take_cpu(void);

/* The calling thread's number, 0 .. MAX_CPUS - 1. Inline, a thread-local
 * load, as the kernel's is one %gs-relative load: the host build's
 * instruction counts stay close to the kernel's. */
static inline int smp_processor_id(void)
{
	int cpu = host_cpu;
	return __builtin_expect(cpu >= 0, 1) ? cpu : host_take_cpu();
}

#endif
