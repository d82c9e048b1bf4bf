/* time.h (host shim) - CLOCK_MONOTONIC for the TSC; udelay spins on it. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "kernel/types.h"

#define HZ 100

/* Nanoseconds of CLOCK_MONOTONIC. */
u64 ktime_ns(void);
/* Busy-wait for at least us microseconds. */
void udelay(u64 us);

#endif
