/*
 * shutdown.c - how the kernel leaves QEMU.
 *
 * isa-debug-exit (port 0xf4) makes QEMU exit with status (v << 1) | 1, so it
 * can never say 0 and keeps only 8 bits: the line "roundabout: exit N" is the
 * real status, and tools/qemu-run reads it. Without that device (a user's own
 * QEMU line) we power off through ACPI (the FADT's PM1a control port with
 * the DSDT's S5 sleep type), and failing that try the ports QEMU's chipsets
 * use: 0x604 (PIIX4/ICH9 PM base 0x600) and 0xb004 (older Bochs/QEMU).
 */
#include "kernel/shutdown.h"
#include "kernel/printk.h"
#include "kernel/x86.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "drivers/acpi.h"
#include "drivers/ramdisk.h"
#include "fs/vfs.h"

CMDLINE_KEY(dumpdisk, "dumpdisk",
	    "at exit: sync, print the ramdisk's place and halt for qemu-run --dump-disk");

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

/*
 * The --dump-disk protocol (tools/qemu-run): sync every file system, say
 * where the ramdisk lies in physical memory, then halt every CPU without
 * touching isa-debug-exit, so that QEMU stays up while qemu-run saves the
 * image through its monitor (pmemsave) and quits it.
 */
static void __noreturn exit_for_dump(int status)
{
	u64 phys, bytes;
	bool have = ramdisk_extent(&phys, &bytes);

	vfs_sync_all();
	cli();
	smp_halt_others();
	/* A CPU the NMI stopped may have held the console lock: print without it. */
	printk_panic_mode();
	if (have)
		printk_raw("roundabout: ramdisk %#llx %llu", (unsigned long long)phys,
			   (unsigned long long)bytes);
	else
		printk_raw("roundabout: ramdisk none");
	printk_raw("roundabout: exit %d", status & 255);
	for (;;)
		hlt();
}

void kernel_exit(int status)
{
	if (cmdline_get("dumpdisk"))
		exit_for_dump(status);
	printk_raw("roundabout: exit %d", status & 255);
	machine_halt_exit(status & 255);
}
