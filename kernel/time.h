/* time.h - monotonic time from the TSC, calibrated against the PIT. */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "kernel/types.h"

/* The local APIC timer interrupts every CPU HZ times a second (the tick). */
#define HZ 100

/* Measure the TSC frequency with PIT channel 2 (about 10 ms). Boot CPU, once. */
void tsc_calibrate(void);
/* Nanoseconds since tsc_calibrate (0 before it). Monotonic on one CPU. */
u64 ktime_ns(void);
/* TSC ticks per microsecond, 0 before calibration. */
u64 tsc_khz(void);
/* Busy-wait for at least us microseconds. */
void udelay(u64 us);

/* Linux's struct timespec, as system calls read and write it. */
struct timespec { s64 sec, nsec; };

#endif
