/*
 * shutdown.c - how the kernel leaves QEMU.
 *
 * isa-debug-exit (port 0xf4) makes QEMU exit with status (v << 1) | 1, so it
 * can never say 0 and keeps only 8 bits: the line "roundabout: exit N" is the
 * real status, and tools/qemu-run reads it. Without that device (a user's own
 * QEMU line) we power off through ACPI (the FADT's PM1a control port with
 * the DSDT's S5 sleep type), and failing that try the ports QEMU's chipsets
 * use: 0x604 (PIIX4/ICH9 PM base 0x600) and 0xb004 (older Bochs/QEMU).
 *
 * This file is core: panic, the ktest runner and the last process all end
 * the machine through it, so it calls nothing above the core. What must
 * happen first on a higher floor (qemu-run --dump-disk syncs the file
 * systems) is an exit hook that boot-time init installs.
 */
#include "kernel/shutdown.h"
#include "kernel/printk.h"
#include "kernel/x86.h"
#include "drivers/acpi.h"

#define DEBUG_EXIT_PORT 0xf4
#define SLP_EN_S5 0x2000

void machine_halt_exit(int code)
{
	cli();
	outl(DEBUG_EXIT_PORT, (u32)code);
	acpi_poweroff();	/* the FADT's PM1a port and the DSDT's S5 type */
	outw(0x604, SLP_EN_S5);
	outw(0xb004, SLP_EN_S5);
	for (;;)
		hlt();
}

static void (*exit_hook)(int status) __noreturn;	/* [W:boot] */

void kernel_set_exit_hook(void (*hook)(int status) __noreturn)
{
	exit_hook = hook;
}

void kernel_exit(int status)
{
	if (exit_hook)
		exit_hook(status);
	printk_raw("roundabout: exit %d", status & 255);
	machine_halt_exit(status & 255);
}
