/*
 * smp.h - the CPUs: bring-up, numbering, and running code on other CPUs.
 *
 * CPUs are numbered 0..num_online_cpus()-1 in the order they came up;
 * cpu 0 is the boot CPU. Per-CPU data is either a field of struct cpu
 * (kernel/percpu.h; this_cpu(), per_cpu(cpu)) or an array [MAX_CPUS]
 * indexed by smp_processor_id() in the subsystem that owns it.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/types.h"
#include "kernel/percpu.h"

/* Number of CPUs online (they never go offline). */
int num_online_cpus(void);
/* APIC id of a CPU. */
u32 cpu_apic_id(int cpu);

/* Targets for smp_call_function besides a CPU number. */
#define CALL_ALL (-1)		/* every online CPU, the caller included */
#define CALL_OTHERS (-2)	/* every online CPU but the caller */

/*
 * smp_call_function: run fn(arg) on the target CPU(s) in interrupt context
 * (interrupts off, must not sleep). With wait, return after every target
 * has finished fn; without it, after every target has taken the request.
 * The caller must have interrupts enabled (a CPU that waits with them off
 * can deadlock against one calling it). May be called from any CPU.
 */
void smp_call_function(int target, void (*fn)(void *), void *arg, bool wait);

/* Ask cpu to reschedule (its scheduler's need_resched is set by the caller). */
void smp_send_reschedule(int cpu);

/*
 * smp_send_nmi_backtrace: make cpu print its registers and backtrace from
 * an NMI (works even if it spins with interrupts off). Returns at once.
 */
void smp_send_nmi_backtrace(int cpu);

/*
 * smp_claim_panic: called first thing by panic, interrupts off. True when
 * this CPU is now (or already was) the one whose report counts; false when
 * another CPU panicked first, and then the caller must not print a word:
 * two reports at once interleave on the serial line, and a test that reads
 * the first 'panic:' line would read the wrong one. It calls
 * smp_panic_stop_self, which waits for the first CPU's NMI.
 */
bool smp_claim_panic(void);
void __noreturn smp_panic_stop_self(void);

/* Called by panic: NMI every other CPU; each prints its backtrace and halts. */
void smp_stop_others(void);
/* The same without the reports: an orderly halt (the --dump-disk exit). */
void smp_halt_others(void);

/* smp_call_function for a bitmask of CPU numbers (bit n = cpu n). */
void smp_call_function_mask(u64 mask, void (*fn)(void *), void *arg, bool wait);

/* Register the IPI, timer and error vectors. Boot CPU, once, before smp_init. */
void smp_setup_vectors(void);
/*
 * smp_init: bring up the CPUs whose APIC ids are listed (the boot CPU's own
 * id is skipped). Returns when each is online or has timed out (reported).
 */
void smp_init(const u32 *apic_ids, int n);
/* Last step of an AP's bring-up: mark it online and idle. Never returns. */
void smp_cpu_started(int cpu) __noreturn;
/* Measure each CPU's tick rate over ms milliseconds and print it. */
void smp_report_tick_rates(unsigned ms);
/* The NMI handler (kernel/trap.c calls it for vector 2). */
struct trap_frame;
void smp_nmi(struct trap_frame *tf);

#endif
