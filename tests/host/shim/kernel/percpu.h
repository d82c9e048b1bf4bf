/*
 * percpu.h (host shim) - "CPUs" are threads. Each thread that asks for its
 * number gets the next free one, so per-CPU arrays indexed by
 * smp_processor_id() become per-thread arrays. Numbers are never reused.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "kernel/types.h"

#define MAX_CPUS 16

/* The calling thread's number, 0 .. MAX_CPUS - 1 (aborts past that). */
int smp_processor_id(void);

#endif
