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

static void cmd_mem(const char *arg)
{
	printk("usable %llu KiB, free %lu KiB, reserved ranges:",
	       (unsigned long long)(mm_boot.usable_bytes >> 10), nr_free_pages() * 4);
	for (int i = 0; i < mm_boot.nreserved; i++)
		printk("  %#012llx-%#012llx %s", (unsigned long long)mm_boot.reserved[i].start,
		       (unsigned long long)mm_boot.reserved[i].end, mm_boot.reserved[i].what);
}

static void cmd_help(const char *arg);
static void cmd_cmdline(const char *arg) { printk("'%s'", cmdline_raw()); }
static void cmd_keys(const char *arg) { cmdline_print_keys(); }
static void cmd_bt(const char *arg) { dump_stack(); }
static void cmd_ktest(const char *arg) { ktest_run_from_cmdline(arg && *arg ? arg : "list"); }
static void cmd_poweroff(const char *arg) { kernel_exit(0); }

static void cmd_exit(const char *arg)
{
	u64 n = 0;
	kernel_exit(arg && parse_u64(arg, &n) ? (int)n : 0);
}

/* The commands, in the order help lists them. */
static const struct command {
	const char *name, *usage;
	void (*run)(const char *arg);	/* arg: the rest of the line, or NULL */
} commands[] = {
	{ "help", "help", cmd_help },
	{ "mem", "mem", cmd_mem },
	{ "cmdline", "cmdline", cmd_cmdline },
	{ "keys", "keys", cmd_keys },
	{ "bt", "bt", cmd_bt },
	{ "ktest", "ktest GLOBS", cmd_ktest },
	{ "exit", "exit [N]", cmd_exit },
	{ "poweroff", "poweroff", cmd_poweroff },
};

static void cmd_help(const char *arg)
{
	char list[160];
	size_t used = 0;
	for (size_t i = 0; i < ARRAY_SIZE(commands) && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
					 commands[i].usage);
	printk("commands: %s", list);
}

static void run_command(char *line)
{
	char *arg = strchr(line, ' ');

	if (arg)
		*arg++ = 0;
	if (!line[0])
		return;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(line, commands[i].name)) {
			commands[i].run(arg);
			return;
		}
	}
	printk("unknown command '%s' (try help)", line);
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
