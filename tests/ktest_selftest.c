/*
 * ktest_selftest.c - tests of the test harness itself.
 * Each must end its boot in a particular way, and tools/run-tests checks
 * that tools/qemu-run reports the matching status: a panic is 125, a triple
 * fault (QEMU exits with no protocol line) is 126, a hang is 124.
 */
#include "kernel/ktest.h"
#include "kernel/panic.h"
#include "kernel/x86.h"

KTEST_HARNESS(selftest_panic, 125)
{
	panic("selftest: deliberate panic");
}

KTEST_HARNESS(selftest_triple_fault, 126)
{
	/* An empty IDT: the breakpoint cannot be delivered, nor can the #GP
	 * that follows, nor the double fault: the CPU shuts down, and QEMU
	 * (with -no-reboot) exits without printing anything. */
	struct {
		u16 limit;
		u64 base;
	} __packed empty = { 0, 0 };
	__asm__ __volatile__("lidt %0; int3" :: "m"(empty));
}

KTEST_HARNESS(selftest_hang, 124)
{
	cli();
	for (;;)
		hlt();
}

KTEST(selftest_assertions_report_values)
{
	/* A passing test of the assertion macros themselves. */
	int a = 3, b = 3;
	KT_EQ(a, b);
	KT_LE(a, b);
	KT_ASSERT(!ktest_failed());
}
