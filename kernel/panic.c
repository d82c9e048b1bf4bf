/*
 * panic.c - the end of the line: report and leave.
 *
 * The report is: the message, the registers (for a trap), a symbolized
 * backtrace, then the unprefixed protocol line "roundabout: panic: MESSAGE"
 * that tools/qemu-run turns into status 125. A second panic on a CPU that is
 * already panicking (a fault inside the report) skips straight to the line.
 * Only the first CPU to panic reports: one that panics while another is
 * already reporting stops in silence (smp_claim_panic), since two reports
 * printed at once would interleave and the first 'panic:' line could be
 * the later, secondary failure instead of the cause. The message comes
 * first, then the other CPUs are stopped, so nothing they print can break
 * into the registers and backtrace that follow.
 */
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/shutdown.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "kernel/smp.h"

#define PANIC_EXIT_CODE 125

static void vpanic(struct trap_frame *tf, unsigned long rbp, const char *fmt, va_list ap)
{
	char msg[256];
	struct cpu *c = this_cpu();

	cli();
	c->in_panic++;
	if (!smp_claim_panic())
		smp_panic_stop_self();
	vsnprintf(msg, sizeof(msg), fmt, ap);
	printk_panic_mode();
	if (c->in_panic == 1) {
		pr_err("panic: %s", msg);
		smp_stop_others();
		if (tf) {
			dump_registers(tf);
			backtrace_print_trap(tf->rip, tf->rsp, tf->rbp);
		} else {
			backtrace_print(0, rbp);
		}
	}
	printk_raw("roundabout: panic: %s", msg);
	machine_halt_exit(PANIC_EXIT_CODE);
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic(NULL, (unsigned long)__builtin_frame_address(0), fmt, ap);
	va_end(ap);
	for (;;)
		hlt();
}

void panic_frame(struct trap_frame *tf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic(tf, 0, fmt, ap);
	va_end(ap);
	for (;;)
		hlt();
}
