/*
 * percpu.h - per-CPU data reached through the GS base.
 *
 * Each CPU's GS base points at its own struct cpu, whose first field points
 * at itself, so this_cpu() is one `mov %gs:0`. Fields are [P] private to
 * that CPU unless tagged otherwise.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "kernel/types.h"

#define MAX_CPUS 16

struct task;
struct mm_struct;

struct cpu {
	struct cpu *self;	/* [I] this struct, for %gs:0 */
	int id;			/* [I] logical CPU number, 0 = boot CPU */
	int preempt_count;	/* [P] >0: preemption off */
	struct task *current;	/* [P] the running task (kernel/sched.h) */
	int need_resched;	/* [A] set by anyone, cleared by this CPU's scheduler */
	u32 apic_id;		/* [I] local APIC id */
	u64 ticks;		/* [P] timer interrupts taken */
	int in_panic;		/* [P] nonzero while this CPU reports a panic */
	unsigned long irq_depth;	/* [P] interrupt handlers running (kernel/lockdep.h) */
	void *kstack_top;	/* [I] top of this CPU's boot kernel stack */
	void *ist_top[3];	/* [I] tops of the double-fault, NMI, MC stacks */
	u64 user_rsp;		/* [P] syscall entry: the user rsp, until it is saved */
	u64 syscall_rsp;	/* [P] syscall entry: the running task's kernel stack top */
	int rcu_read_depth;	/* [P] rcu_read_lock nesting (counted while lockdep is on) */
	struct mm_struct *loaded_mm;	/* [P] the user address space in cr3, or NULL
					 * (kernel tables); changed by mm_activate only */
};

extern struct cpu cpus[MAX_CPUS];

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ __volatile__("mov %%gs:0, %0" : "=r"(c));
	return c;
}

/* The struct cpu of another CPU. */
static inline struct cpu *per_cpu(int cpu) { return &cpus[cpu]; }

/* Logical number of the calling CPU; before percpu_init_boot() runs, 0. */
int smp_processor_id(void);

/* Point the boot CPU's GS base at cpus[0]. Called once, first thing in kmain. */
void percpu_init_boot(void);

#endif
