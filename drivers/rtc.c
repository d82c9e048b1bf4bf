/*
 * rtc.c - the CMOS real-time clock (MC146818), read once at boot.
 *
 * The clock is read through ports 0x70 (index) and 0x71 (data). It may be
 * mid-update when we look, so we wait for "update in progress" to clear
 * and read twice until two reads agree. Its fields are BCD unless status
 * register B says binary. After boot, time advances with the TSC; the RTC
 * is never read again (file timestamps need seconds, nothing finer).
 */
#include "drivers/rtc.h"
#include "kernel/x86.h"
#include "kernel/atomic.h"
#include "kernel/time.h"
#include "kernel/printk.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71

static u64 boot_epoch;		/* [I] wall seconds at rtc_init */
static u64 boot_ns;		/* [I] ktime_ns at rtc_init */

static u8 cmos_read(u8 reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

struct rtc_time { u8 sec, min, hour, day, mon, year, century; };

static void read_raw(struct rtc_time *t)
{
	while (cmos_read(0x0a) & 0x80)
		cpu_relax();		/* update in progress */
	t->sec = cmos_read(0x00);
	t->min = cmos_read(0x02);
	t->hour = cmos_read(0x04);
	t->day = cmos_read(0x07);
	t->mon = cmos_read(0x08);
	t->year = cmos_read(0x09);
	t->century = cmos_read(0x32);
}

static u8 bcd(u8 v)
{
	return (v & 15) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (civil calendar, proleptic Gregorian). */
static u64 days_from_civil(u64 y, unsigned m, unsigned d)
{
	y -= m <= 2;
	u64 era = y / 400, yoe = y - era * 400;
	u64 doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	u64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void rtc_init(void)
{
	struct rtc_time a, b;

	do {
		read_raw(&a);
		read_raw(&b);
	} while (a.sec != b.sec || a.min != b.min || a.hour != b.hour || a.day != b.day ||
		 a.mon != b.mon || a.year != b.year);
	u8 regb = cmos_read(0x0b);
	if (!(regb & 0x04)) {		/* BCD */
		a.sec = bcd(a.sec);
		a.min = bcd(a.min);
		a.hour = bcd(a.hour & 0x7f) | (a.hour & 0x80);
		a.day = bcd(a.day);
		a.mon = bcd(a.mon);
		a.year = bcd(a.year);
		a.century = bcd(a.century);
	}
	if (!(regb & 0x02) && (a.hour & 0x80))	/* 12-hour clock, PM */
		a.hour = ((a.hour & 0x7f) % 12) + 12;
	unsigned century = a.century >= 19 && a.century <= 30 ? a.century : 20;
	u64 year = century * 100 + a.year;
	if (a.mon < 1 || a.mon > 12 || a.day < 1 || a.day > 31) {
		pr_warn("rtc: nonsense date; the clock starts at 2000-01-01");
		year = 2000, a.mon = 1, a.day = 1;
	}
	boot_epoch = days_from_civil(year, a.mon, a.day) * 86400 + a.hour * 3600 +
		     a.min * 60 + a.sec;
	boot_ns = ktime_ns();
	printk("rtc: %04llu-%02u-%02u %02u:%02u:%02u UTC", (unsigned long long)year, a.mon,
	       a.day, a.hour, a.min, a.sec);
}

u64 wall_seconds(void)
{
	return boot_epoch + (ktime_ns() - boot_ns) / 1000000000ULL;
}
