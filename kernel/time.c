/*
 * time.c - TSC-based clock. The PIT (1.193182 MHz) is the reference: we
 * gate channel 2 for a fixed count and see how far the TSC moved.
 */
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/atomic.h"

#define PIT_HZ 1193182
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61
#define CAL_MS 10

static u64 tsc_base;		/* [I] TSC at calibration */
static u64 tsc_per_khz;		/* [I] TSC ticks per millisecond */

void tsc_calibrate(void)
{
	u16 count = PIT_HZ / (1000 / CAL_MS);

	/* Gate high, speaker off; channel 2, lobyte/hibyte, mode 0. */
	outb(PIT_GATE, (inb(PIT_GATE) & ~0x02) | 0x01);
	outb(PIT_CMD, 0xb0);
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	u64 t0 = rdtsc();
	while (!(inb(PIT_GATE) & 0x20))	/* OUT2 goes high at terminal count */
		;
	u64 t1 = rdtsc();
	u64 khz = (t1 - t0) / CAL_MS;
	WRITE_ONCE(tsc_base, t0);
	WRITE_ONCE(tsc_per_khz, khz ? khz : 1);
}

u64 tsc_khz(void)
{
	return READ_ONCE(tsc_per_khz);
}

u64 ktime_ns(void)
{
	u64 khz = READ_ONCE(tsc_per_khz);

	if (!khz)
		return 0;
	u64 d = rdtsc() - READ_ONCE(tsc_base);
	/* d * 1e6 / khz without overflowing for d up to ~2^63/1e6 ticks. */
	return (d / khz) * 1000000 + (d % khz) * 1000000 / khz;
}

void udelay(u64 us)
{
	u64 khz = READ_ONCE(tsc_per_khz);
	u64 end = rdtsc() + (khz ? khz : 3000000) * us / 1000;

	while ((s64)(rdtsc() - end) < 0)
		cpu_relax();
}
