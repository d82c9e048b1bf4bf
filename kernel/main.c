/*
 * main.c - kmain, where C begins on the boot CPU.
 *
 * Order matters: the per-CPU area (printk names the CPU), the console, the
 * IDT and GDT (so a fault reports instead of triple-faulting), the clock,
 * then the boot information, the command line and memory. Last, we move
 * onto a kernel stack with a guard page and run the tests or the monitor.
 */
#include "kernel/types.h"
#include "kernel/entry.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/trap.h"
#include "kernel/gdt.h"
#include "kernel/time.h"
#include "kernel/multiboot.h"
#include "kernel/cmdline.h"
#include "kernel/ktest.h"
#include "kernel/bench.h"
#include "kernel/shutdown.h"
#include "kernel/monitor.h"
#include "kernel/smp.h"
#include "kernel/sched.h"
#include "kernel/rcu.h"
#include "kernel/spinlock.h"
#include "kernel/x86.h"
#include "drivers/uart.h"
#include "drivers/lapic.h"
#include "drivers/acpi.h"
#include "drivers/console.h"
#include "drivers/ramdisk.h"
#include "drivers/rtc.h"
#include "fs/vfs.h"
#include "fs/blockdev.h"
#include "kernel/user.h"
#include "mm/gup.h"
#include "kernel/uaccess.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/paging.h"
#include "mm/slab.h"
#include "mm/radix-tree.h"
#include "mm/pagecache.h"
#include "mm/vmscan.h"
#include "mm/vm.h"

#define IST_STACK_SIZE 8192
static u8 boot_ist_stacks[3][IST_STACK_SIZE] __aligned(16);

/* Defined in kernel/stack.asm: switch rsp to top and call fn (never returns). */

static void print_banner(void)
{
	printk("Roundabout: a teaching kernel for the lockless page cache");
	printk("boot loader: %s", boot_info.loader[0] ? boot_info.loader : "(unnamed)");
	printk("command line: '%s'", cmdline_raw());
	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		printk("  mem %#014llx-%#014llx type %u", (unsigned long long)e->addr,
		       (unsigned long long)(e->addr + e->len - 1), e->type);
	}
	for (int i = 0; i < boot_info.nmods; i++)
		printk("  module '%s' at %#llx, %llu KiB", boot_info.mods[i].name,
		       (unsigned long long)boot_info.mods[i].start,
		       (unsigned long long)(boot_info.mods[i].end - boot_info.mods[i].start) / 1024);
}

static void print_memory(void)
{
	printk("memory: %llu MiB usable, %lu MiB free, mem_map %llu KiB, %lu page-table pages",
	       (unsigned long long)(mm_boot.usable_bytes >> 20), nr_free_pages() >> 8,
	       (unsigned long long)(mm_boot.memmap_bytes >> 10), paging_features.tables);
	printk("paging: direct map %llu MiB (%s pages), NX on, WP on, PGE on, SMEP %s, SMAP %s",
	       (unsigned long long)(paging_features.direct_map_bytes >> 20),
	       paging_features.gb_pages ? "1 GiB" : "2 MiB",
	       paging_features.smep ? "on" : "absent", paging_features.smap ? "on" : "absent");
}


CMDLINE_KEY(monitor_key, "monitor", "boot to the kernel monitor instead of /sbin/init");

/* User space starts when the root file system has an init, unless asked not to. */
CMDLINE_KEY(dumpdisk, "dumpdisk",
	    "at exit: sync, print the ramdisk's place and halt for qemu-run --dump-disk");

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

static bool user_space_wanted(void)
{
	struct kstat st;
	if (cmdline_get("monitor") || !vfs_root_sb())
		return false;
	const char *init = cmdline_get("init");
	return vfs_stat(NULL, init ? init : "/sbin/init", &st) == 0;
}

/* The root image, if GRUB loaded one, as the block device ram0: the driver
 * hands it over, the block layer takes it (drivers sit below fs/). */
static void register_root_device(void)
{
	struct blockdev *rd = ramdisk_probe();
	if (rd)
		bdev_register(rd);
}

static __noreturn void kmain_late(void)
{
	print_memory();
	smp_init(acpi.cpu_apic_id, acpi.ncpus);
	rcu_start_threads();
	pagecache_init();
	vmscan_init();
	register_root_device();
	lapic_timer_start_periodic(HZ);
	console_input_init();
	sti();
	vfs_boot();		/* mounts the root ramdisk: sleeps, so after sti */
	proc_pid_init();
	futex_init();
	gup_init();
	const char *tests = cmdline_get("ktest");
	if (tests)
		ktest_run_from_cmdline(tests);
	const char *benches = cmdline_get("bench");
	if (benches)
		bench_run_from_cmdline(benches);
	smp_report_tick_rates(200);
	if (user_space_wanted()) {
		int err = spawn_init();
		if (!err)
			sched_idle_forever();	/* init and its children run; CPU 0 idles */
		pr_err("init: could not start (error %d); the monitor instead", err);
	}
	monitor_run();
}

void kmain(u32 magic, u32 info)
{
	void *ist[3] = { boot_ist_stacks[0] + IST_STACK_SIZE, boot_ist_stacks[1] + IST_STACK_SIZE,
			 boot_ist_stacks[2] + IST_STACK_SIZE };

	percpu_init_boot();
	uart_init();
	gdt_init_cpu(0, ist);
	idt_init();
	tsc_calibrate();
	multiboot_init(magic, info);
	cmdline_init(boot_info.cmdline);
	if (cmdline_get("dumpdisk"))
		kernel_set_exit_hook(exit_for_dump);
	rtc_init();
	spinlock_init_from_cmdline();
	print_banner();
	mm_init();
	slab_init();
	uaccess_init();
	mm_user_init();
	user_cpu_init();
	sched_init();
	rcu_init();
	radix_tree_init();
	acpi_platform_init();
	lapic_init_boot();
	this_cpu()->apic_id = lapic_id();
	lapic_timer_calibrate();
	smp_setup_vectors();
	void *stack = vmap_alloc_stack(KSTACK_PAGES);
	this_cpu()->kstack_top = stack;
	for (int i = 0; i < 3; i++)
		this_cpu()->ist_top[i] = ist[i];
	call_on_stack(stack, kmain_late);
}
