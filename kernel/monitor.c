/*
 * monitor.c - "roundabout>" prompt on the serial console.
 * Input arrives by interrupt (drivers/console.c); while waiting for a line
 * the CPU sleeps in hlt. Commands are one word with an optional argument;
 * see `help`.
 */
#include "kernel/monitor.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/ksyms.h"
#include "kernel/ktest.h"
#include "kernel/shutdown.h"
#include "kernel/string.h"
#include "kernel/x86.h"
#include "drivers/console.h"
#include "mm/mm.h"
#include "mm/page.h"

static void cmd_mem(void)
{
	printk("usable %llu KiB, free %lu KiB, reserved ranges:",
	       (unsigned long long)(mm_boot.usable_bytes >> 10), nr_free_pages() * 4);
	for (int i = 0; i < mm_boot.nreserved; i++)
		printk("  %#012llx-%#012llx %s", (unsigned long long)mm_boot.reserved[i].start,
		       (unsigned long long)mm_boot.reserved[i].end, mm_boot.reserved[i].what);
}

static void run_command(char *line)
{
	char *arg = strchr(line, ' ');

	if (arg)
		*arg++ = 0;
	if (!strcmp(line, "help")) {
		printk("commands: help, mem, cmdline, keys, bt, ktest GLOBS, exit [N], poweroff");
	} else if (!strcmp(line, "mem")) {
		cmd_mem();
	} else if (!strcmp(line, "cmdline")) {
		printk("'%s'", cmdline_raw());
	} else if (!strcmp(line, "keys")) {
		cmdline_print_keys();
	} else if (!strcmp(line, "bt")) {
		dump_stack();
	} else if (!strcmp(line, "ktest")) {
		ktest_run_from_cmdline(arg && *arg ? arg : "list");
	} else if (!strcmp(line, "exit")) {
		u64 n = 0;
		kernel_exit(arg && parse_u64(arg, &n) ? (int)n : 0);
	} else if (!strcmp(line, "poweroff")) {
		kernel_exit(0);
	} else if (line[0]) {
		printk("unknown command '%s' (try help)", line);
	}
}

void monitor_run(void)
{
	char line[128];

	printk("monitor ready: type 'help' (Ctrl-A X leaves QEMU)");
	for (;;) {
		printk_raw("roundabout> ");
		console_read_line(line, sizeof(line));
		run_command(line);
	}
}
