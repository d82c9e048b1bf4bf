/* rtc.h - wall-clock time from the CMOS real-time clock, read once at boot. */
#ifndef DRIVERS_RTC_H
#define DRIVERS_RTC_H

#include "kernel/types.h"

/* Read the CMOS clock (UTC, as QEMU keeps it) and remember the boot time. */
void rtc_init(void);
/* Seconds since 1970-01-01 UTC: the boot time plus the TSC's uptime. */
u64 wall_seconds(void);

#endif
