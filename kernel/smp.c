/*
 * smp.c - bringing up the other CPUs, and making them do things.
 *
 * Bring-up (docs/smp.md walks through it in gdb): for each CPU the MADT
 * lists, the boot CPU gives it a kernel stack with a guard page and three
 * IST stacks, fills in the trampoline's data block, and sends INIT, waits
 * 10 ms, sends a start-up IPI, waits 200 us, and sends a second one if the
 * CPU has not yet checked in (the sequence Intel's MultiProcessor
 * Specification prescribes). The AP runs boot/trampoline.asm, then
 * ap_entry() below, and marks itself online. One AP starts at a time
 * because they share the trampoline's data block.
 *
 * Cross-CPU calls: every CPU has a mailbox with one slot per sender. A
 * caller (preemption off, so one call per CPU at a time) puts a pointer to
 * its request, on its own stack, into the slot for itself in each target's
 * mailbox, sends the IPI, and waits for the targets' bits to clear: from
 * `unstarted` (each target has read fn and arg) and, if asked to wait,
 * from `unfinished`. A target's handler empties every slot of its mailbox,
 * so IPIs that the local APIC merged lose no request. Calls from different
 * CPUs are in flight at once: 8 threads unmapping memory on 8 CPUs do not
 * queue behind one lock. Two CPUs that call each other both wait with
 * interrupts on, so each answers the other.
 *
 * Lock order: no lock is taken (each slot has one writer, its sender, and
 * one reader, its target, which swaps it back to NULL).
 */
#include "kernel/entry.h"
#include "kernel/smp.h"
#include "kernel/user.h"
#include "kernel/irq.h"
#include "kernel/gdt.h"
#include "kernel/trap.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/ksyms.h"
#include "kernel/string.h"
#include "kernel/spinlock.h"
#include "kernel/sched.h"
#include "kernel/rcu.h"
#include "kernel/x86.h"
#include "drivers/lapic.h"
#include "mm/mm.h"
#include "mm/paging.h"

#define TRAMP_BASE 0x8000	/* boot/trampoline.asm runs here (SIPI page 8) */
#define STARTUP_PML4 0x7000	/* start-up page tables, below the trampoline */
#define STARTUP_PDPT 0x6000
#define STARTUP_PD 0x5000
#define AP_TIMEOUT_MS 2000

extern const char trampoline_start[], trampoline_end[], trampoline_data[];

struct trampoline_data {
	u64 cr3, stack, entry, arg;
};

static int ncpus = 1;			/* [A] CPUs online, grows during smp_init */
static u64 boot_cr4;			/* [I] the boot CPU's CR4, copied by each AP */

struct call_request {
	void (*fn)(void *);
	void *arg;
	u64 unstarted;			/* [A] targets that have not read fn/arg */
	u64 unfinished;			/* [A] targets still running fn */
};
/* call_inbox[target][sender]: [A] stored (release) by the sender, swapped to NULL by the target */
static struct call_request *call_inbox[MAX_CPUS][MAX_CPUS];

int num_online_cpus(void)
{
	return smp_load_acquire(&ncpus);
}

u32 cpu_apic_id(int cpu)
{
	return per_cpu(cpu)->apic_id;
}

/* ---------------------------------------------------------------- bring-up */

static void build_startup_tables(void)
{
	u64 *pml4 = __va(STARTUP_PML4), *pdpt = __va(STARTUP_PDPT), *pd = __va(STARTUP_PD);

	/* The kernel half as in the kernel's own tables; plus the first 2 MiB
	 * identity-mapped and executable, so the trampoline survives paging on. */
	memcpy(pml4, kernel_pml4, PAGE_SIZE);
	memset(pdpt, 0, PAGE_SIZE);
	memset(pd, 0, PAGE_SIZE);
	pd[0] = 0 | PTE_P | PTE_W | PTE_PS;
	pdpt[0] = STARTUP_PD | PTE_P | PTE_W;
	pml4[0] = STARTUP_PDPT | PTE_P | PTE_W;
}

static void *alloc_stack_or_panic(void)
{
	void *top = vmap_alloc_stack(KSTACK_PAGES);
	if (!top)
		panic("smp: no memory for a CPU's stacks");
	return top;
}


static bool start_ap(int cpu, u32 apic_id)
{
	struct cpu *c = per_cpu(cpu);
	struct trampoline_data *td = __va(TRAMP_BASE + (trampoline_data - trampoline_start));

	c->self = c;
	c->id = cpu;
	c->apic_id = apic_id;
	c->kstack_top = alloc_stack_or_panic();
	for (int i = 0; i < 3; i++)
		c->ist_top[i] = alloc_stack_or_panic();
	td->cr3 = STARTUP_PML4;
	td->stack = (u64)c->kstack_top;
	td->entry = (u64)ap_entry;
	td->arg = cpu;
	smp_mb();	/* the data block is written before the AP can run */

	lapic_send_init(apic_id);
	udelay(10000);
	lapic_send_sipi(apic_id, TRAMP_BASE >> 12);
	udelay(200);
	if (num_online_cpus() <= cpu)
		lapic_send_sipi(apic_id, TRAMP_BASE >> 12);
	u64 deadline = ktime_ns() + AP_TIMEOUT_MS * 1000000ULL;
	while (num_online_cpus() <= cpu) {
		if (ktime_ns() > deadline)
			return false;
		cpu_relax();
	}
	return true;
}

void smp_init(const u32 *apic_ids, int n)
{
	u32 self = this_cpu()->apic_id;
	int next = 1;

	boot_cr4 = read_cr4();
	memcpy(__va(TRAMP_BASE), trampoline_start, trampoline_end - trampoline_start);
	build_startup_tables();
	for (int i = 0; i < n && next < MAX_CPUS; i++) {
		if (apic_ids[i] == self)
			continue;
		if (start_ap(next, apic_ids[i]))
			next++;
		else
			pr_err("smp: CPU with APIC id %u did not come up within %d ms",
			       apic_ids[i], AP_TIMEOUT_MS);
	}
	if (n > MAX_CPUS)
		pr_warn("smp: %d CPUs listed, only %d supported", n, MAX_CPUS);
	printk("smp: %d CPUs online", num_online_cpus());
}

/* The AP's first C code: on its own kernel stack, still on start-up tables. */
void ap_entry(int cpu)
{
	struct cpu *c = per_cpu(cpu);

	wrmsr(MSR_GS_BASE, (u64)c);
	gdt_init_cpu(cpu, c->ist_top);
	idt_load();
	write_cr4(boot_cr4);
	write_cr3(__pa(kernel_pml4));	/* drop the identity mapping */
	user_cpu_init();		/* SYSCALL MSRs, SSE for user programs */
	lapic_init_ap();
	smp_cpu_started(cpu);
}

void smp_cpu_started(int cpu)
{
	lapic_timer_start_periodic(HZ);
	sched_init_ap();			/* this context becomes the idle task */
	smp_store_release(&ncpus, cpu + 1);	/* the boot CPU may start the next one */
	sched_start_ap();
}

/* ---------------------------------------------------------------- calls */

static u64 target_mask(int target)
{
	int n = num_online_cpus();
	u64 all = n == 64 ? ~0ULL : (1ULL << n) - 1;

	if (target == CALL_ALL)
		return all;
	if (target == CALL_OTHERS)
		return all & ~(1ULL << smp_processor_id());
	BUG_ON(target < 0 || target >= n, "smp_call_function: no such CPU");
	return 1ULL << target;
}

static void run_request(struct call_request *r, int cpu)
{
	void (*fn)(void *) = r->fn;
	void *arg = r->arg;
	u64 bit = 1ULL << cpu;

	/* Release: fn/arg were read before the caller may reuse the request. */
	__atomic_fetch_and(&r->unstarted, ~bit, __ATOMIC_RELEASE);
	fn(arg);
	/* Release: fn's effects are visible before the caller sees us done. */
	__atomic_fetch_and(&r->unfinished, ~bit, __ATOMIC_RELEASE);
}

static void call_function_ipi(struct trap_frame *tf)
{
	int cpu = smp_processor_id();

	for (int from = 0; from < MAX_CPUS; from++) {
		/* Acquire pairs with the sender's release: fn, arg, masks. */
		struct call_request *r = __atomic_exchange_n(&call_inbox[cpu][from], NULL,
							     __ATOMIC_ACQUIRE);
		if (r)
			run_request(r, cpu);
	}
}

void smp_call_function_mask(u64 mask, void (*fn)(void *), void *arg, bool wait)
{
	struct call_request r = { fn, arg, 0, 0 };

	BUG_ON(irqs_disabled(), "smp_call_function with interrupts disabled");
	preempt_disable();	/* "self" must stay this CPU until we are done */
	int self = smp_processor_id();
	u64 others = mask & ~(1ULL << self);
	r.unstarted = r.unfinished = others;
	for (int cpu = 0; cpu < num_online_cpus(); cpu++)
		if (others & (1ULL << cpu)) {
			/* Release: the target sees fn, arg and the masks. x86-64: a plain mov. */
			smp_store_release(&call_inbox[cpu][self], &r);
			lapic_send_ipi(cpu_apic_id(cpu), VEC_CALL_FUNC);
		}
	if (mask & (1ULL << self)) {	/* our share, as the others see it: irqs off */
		unsigned long f = irq_save();
		fn(arg);
		irq_restore(f);
	}
	/* Every target must have read fn/arg before the request leaves our stack. */
	u64 *until = wait ? &r.unfinished : &r.unstarted;
	while (__atomic_load_n(until, __ATOMIC_ACQUIRE))
		cpu_relax();
	while (__atomic_load_n(&r.unstarted, __ATOMIC_ACQUIRE))
		cpu_relax();
	preempt_enable();
}

void smp_call_function(int target, void (*fn)(void *), void *arg, bool wait)
{
	smp_call_function_mask(target_mask(target), fn, arg, wait);
}

void smp_send_reschedule(int cpu)
{
	if (cpu != smp_processor_id())
		lapic_send_ipi(cpu_apic_id(cpu), VEC_RESCHED);
}

static void resched_ipi(struct trap_frame *tf)
{
	/* Nothing to do here: the interrupt return path sees need_resched. */
}

static void timer_interrupt(struct trap_frame *tf)
{
	this_cpu()->ticks++;
	sched_account_tick((tf->cs & 3) == 3);
	rcu_tick();
	sched_tick();
}

static void lapic_error(struct trap_frame *tf)
{
	pr_err("lapic: error interrupt on cpu%d", smp_processor_id());
}

/* ---------------------------------------------------------------- NMIs */

static int panic_cpu = -1;		/* [A] the CPU that is panicking, or -1 */
static int nmi_print_lock;		/* [A] one CPU prints an NMI report at a time */
static int stopped_cpus;		/* [A] CPUs that have reported and halted */
static u64 backtrace_requests;		/* [A] CPUs asked for an NMI backtrace */
static bool stop_quietly;		/* [A] smp_halt_others: no backtraces */

static void nmi_report(struct trap_frame *tf, const char *why)
{
	while (__atomic_exchange_n(&nmi_print_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	printk("%s", why);
	dump_registers(tf);
	backtrace_print_trap(tf->rip, tf->rsp, tf->rbp);
	__atomic_store_n(&nmi_print_lock, 0, __ATOMIC_RELEASE);
}

/* NMI handler, on its own IST stack, from kernel/trap.c. */
void smp_nmi(struct trap_frame *tf)
{
	u64 bit = 1ULL << smp_processor_id();

	if (__atomic_load_n(&panic_cpu, __ATOMIC_ACQUIRE) >= 0) {
		/* A CPU that lost the race to panic has nothing more to say. */
		if (!__atomic_load_n(&stop_quietly, __ATOMIC_ACQUIRE) && !this_cpu()->in_panic)
			nmi_report(tf, "stopped by NMI: another CPU panicked");
		__atomic_add_fetch(&stopped_cpus, 1, __ATOMIC_RELEASE);
		for (;;)
			hlt();	/* interrupts stay off: NMIs are blocked until iret */
	}
	if (__atomic_fetch_and(&backtrace_requests, ~bit, __ATOMIC_ACQ_REL) & bit) {
		nmi_report(tf, "NMI backtrace (requested):");
		return;
	}
	pr_warn("nmi: unexpected NMI on cpu%d", smp_processor_id());
}

void smp_send_nmi_backtrace(int cpu)
{
	__atomic_fetch_or(&backtrace_requests, 1ULL << cpu, __ATOMIC_RELEASE);
	lapic_send_nmi(cpu_apic_id(cpu));
}

bool smp_claim_panic(void)
{
	int self = smp_processor_id(), owner = -1;

	if (__atomic_compare_exchange_n(&panic_cpu, &owner, self, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	return owner == self;	/* a panic inside this CPU's own report */
}

void smp_panic_stop_self(void)
{
	cli();
	for (;;)
		hlt();	/* the owner's NMI counts this CPU in stopped_cpus */
}

static void stop_others(bool quiet)
{
	int self = smp_processor_id(), expected = num_online_cpus() - 1;

	/* Only the CPU that owns the panic (or the halt) stops the others. */
	if (!smp_claim_panic())
		return;
	for (int cpu = 0; cpu < num_online_cpus(); cpu++)
		if (cpu != self)
			lapic_send_nmi(cpu_apic_id(cpu));
	u64 deadline = rdtsc() + tsc_khz() * 1000;	/* about a second */
	while (__atomic_load_n(&stopped_cpus, __ATOMIC_ACQUIRE) < expected &&
	       (s64)(rdtsc() - deadline) < 0)
		cpu_relax();
	if (!quiet)
		printk("smp: %d of %d other CPUs stopped", READ_ONCE(stopped_cpus), expected);
}

void smp_stop_others(void)
{
	stop_others(false);
}

void smp_halt_others(void)
{
	__atomic_store_n(&stop_quietly, true, __ATOMIC_RELEASE);
	stop_others(true);
}

/* Register the IPI and timer vectors (boot CPU, before any AP starts). */
void smp_setup_vectors(void)
{
	trap_set_handler(VEC_CALL_FUNC, call_function_ipi);
	trap_set_handler(VEC_RESCHED, resched_ipi);
	trap_set_handler(VEC_TIMER, timer_interrupt);
	trap_set_handler(VEC_LAPIC_ERROR, lapic_error);
}

static u64 tick_snapshot[MAX_CPUS];

static void snapshot_ticks(void *arg)
{
	tick_snapshot[smp_processor_id()] = this_cpu()->ticks;
}

void smp_report_tick_rates(unsigned ms)
{
	u64 before[MAX_CPUS];
	char line[200];
	int n = num_online_cpus(), len = 0;

	smp_call_function(CALL_ALL, snapshot_ticks, NULL, true);
	memcpy(before, tick_snapshot, sizeof(before));
	u64 t0 = ktime_ns();
	udelay(ms * 1000);
	smp_call_function(CALL_ALL, snapshot_ticks, NULL, true);
	u64 elapsed_us = (ktime_ns() - t0) / 1000;
	for (int cpu = 0; cpu < n && len < (int)sizeof(line) - 16; cpu++)
		len += snprintf(line + len, sizeof(line) - len, " %llu",
				(unsigned long long)((tick_snapshot[cpu] - before[cpu]) * 1000000 /
						     (elapsed_us ? elapsed_us : 1)));
	printk("timer: HZ=%d, local APIC timer %llu kHz; measured ticks/s per CPU:%s", HZ,
	       (unsigned long long)lapic_timer_hz() / 1000, line);
}
