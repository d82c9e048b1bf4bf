/*
 * ktest_smp.c - every CPU is up, takes interrupts, runs what it is asked to,
 * and keeps its TLB in step.
 */
#include "kernel/ktest.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/x86.h"
#include "kernel/string.h"
#include "drivers/lapic.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/tlb.h"


static u32 seen_apic[MAX_CPUS];
static int seen_cpu[MAX_CPUS];

static void record_apic_id(void *arg)
{
	int cpu = smp_processor_id();
	seen_apic[cpu] = lapic_id();
	seen_cpu[cpu] = cpu + 1;
}

KTEST(smp_every_cpu_reports_its_apic_id)
{
	int n = num_online_cpus();

	memset(seen_cpu, 0, sizeof(seen_cpu));
	smp_call_function(CALL_ALL, record_apic_id, NULL, true);
	for (int cpu = 0; cpu < n; cpu++) {
		KT_EQ(seen_cpu[cpu], cpu + 1);
		KT_EQ(seen_apic[cpu], cpu_apic_id(cpu));
		for (int other = 0; other < cpu; other++)
			KT_NE(seen_apic[cpu], seen_apic[other]);
	}
	u64 want = cmdline_get_u64("test.smp", 0);
	if (want)
		KT_EQ(n, want);
}

static int hits[MAX_CPUS];

static void count_hit(void *arg)
{
	__atomic_add_fetch(&hits[smp_processor_id()], 1, __ATOMIC_RELAXED);
}

KTEST(smp_call_function_reaches_exactly_its_targets)
{
	int n = num_online_cpus(), self = smp_processor_id();

	memset(hits, 0, sizeof(hits));
	smp_call_function(CALL_OTHERS, count_hit, NULL, true);
	smp_call_function(n - 1, count_hit, NULL, true);
	for (int i = 0; i < 100; i++)
		smp_call_function(CALL_ALL, count_hit, NULL, i & 1);
	/* Without wait, the last calls may still be running: wait for them. */
	smp_call_function(CALL_ALL, count_hit, NULL, true);
	for (int cpu = 0; cpu < n; cpu++) {
		int want = 101 + (cpu != self) + (cpu == n - 1);
		KT_EQ(READ_ONCE(hits[cpu]), want);
	}
}

static u64 last_ns;
static int went_backwards;

static void read_clock(void *arg)
{
	u64 now = ktime_ns();
	if (now < last_ns)
		went_backwards++;
	last_ns = now;
}

KTEST(smp_ktime_is_monotonic_across_cpus)
{
	last_ns = 0;
	went_backwards = 0;
	for (int round = 0; round < 20; round++)
		for (int cpu = 0; cpu < num_online_cpus(); cpu++)
			smp_call_function(cpu, read_clock, NULL, true);
	KT_EQ(went_backwards, 0);
	KT_GT(last_ns, 0);
}

static u64 ticks_at[MAX_CPUS];

static void read_ticks(void *arg)
{
	ticks_at[smp_processor_id()] = this_cpu()->ticks;
}

KTEST(smp_timer_ticks_on_every_cpu)
{
	u64 before[MAX_CPUS];
	int n = num_online_cpus();

	smp_call_function(CALL_ALL, read_ticks, NULL, true);
	memcpy(before, ticks_at, sizeof(before));
	u64 t0 = ktime_ns();
	udelay(200000);	/* 0.2 s: about 20 ticks at HZ=100 */
	smp_call_function(CALL_ALL, read_ticks, NULL, true);
	u64 ms = (ktime_ns() - t0) / 1000000;
	for (int cpu = 0; cpu < n; cpu++) {
		u64 got = ticks_at[cpu] - before[cpu];
		/* Loose lower bound: on an overcommitted host a vCPU that is not
		 * scheduled loses ticks (the periodic timer does not catch up). */
		KT_GE(got, 1);
		KT_LE(got * 1000, ms * HZ * 2 + 2000);
	}
}

/* TLB shootdown: a kernel mapping changed on this CPU must never be read
 * through a stale translation on another after flush_tlb_kernel_range. */
#define SHOOT_VA (VMAP_BASE + (129UL << 30))
static u8 seen_value[MAX_CPUS];

static void read_shoot_va(void *arg)
{
	seen_value[smp_processor_id()] = *(volatile u8 *)SHOOT_VA;
}

KTEST(smp_tlb_shootdown_leaves_no_stale_translation)
{
	struct page *a = alloc_page_zeroed(), *b = alloc_page_zeroed();
	int n = num_online_cpus(), stale = 0;

	KT_NOT_NULL(a);
	KT_NOT_NULL(b);
	*(u8 *)page_address(a) = 0xaa;
	*(u8 *)page_address(b) = 0xbb;
	KT_EQ(pt_map_range(kernel_pml4, SHOOT_VA, page_to_phys(a), PAGE_SIZE, PROT_KERNEL_RW), 0);
	pte_t *pte = pt_walk(kernel_pml4, SHOOT_VA, false);
	for (int round = 0; round < 10; round++) {
		struct page *to = round & 1 ? a : b;
		u8 want = round & 1 ? 0xaa : 0xbb;
		u8 before = round & 1 ? 0xbb : 0xaa;
		smp_call_function(CALL_ALL, read_shoot_va, NULL, true);	/* cache it everywhere */
		for (int cpu = 0; cpu < n; cpu++)
			stale += seen_value[cpu] != before;
		WRITE_ONCE(*pte, page_to_phys(to) | PTE_P | PROT_KERNEL_RW);
		flush_tlb_kernel_range(SHOOT_VA, SHOOT_VA + PAGE_SIZE);
		smp_call_function(CALL_ALL, read_shoot_va, NULL, true);
		for (int cpu = 0; cpu < n; cpu++)
			stale += seen_value[cpu] != want;
	}
	pt_unmap_range(kernel_pml4, SHOOT_VA, PAGE_SIZE);
	flush_tlb_kernel_range(SHOOT_VA, SHOOT_VA + PAGE_SIZE);
	put_page(a);
	put_page(b);
	KT_EQ(stale, 0);
}

static void panic_here(void *arg)
{
	panic("smp test: deliberate panic on cpu%d", smp_processor_id());
}

/* Run at -smp 8 from tests/boots.txt, which also checks that every other CPU
 * reported its backtrace ("7 of 7 other CPUs stopped"). */
KTEST_EXPECT_PANIC(smp_panic_stops_every_cpu, "smp test: deliberate panic on cpu")
{
	smp_call_function(num_online_cpus() - 1, panic_here, NULL, true);
}
