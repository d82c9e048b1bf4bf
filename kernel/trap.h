/* trap.h - the IDT, the trap frame, and exception handling. */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include "kernel/types.h"

/* The stack at trap_dispatch, built by kernel/entry.asm (lowest address first). */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error;
	u64 rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

#define T_DE 0
#define T_NMI 2
#define T_BP 3
#define T_UD 6
#define T_DF 8
#define T_GP 13
#define T_PF 14
#define T_MF 16		/* x87 floating-point error */
#define T_MC 18
#define T_XM 19		/* SIMD floating-point exception */

/* Page-fault error code bits. */
#define PF_PRESENT (1 << 0)
#define PF_WRITE (1 << 1)
#define PF_USER (1 << 2)
#define PF_RSVD (1 << 3)
#define PF_INSTR (1 << 4)

/* IST slots in each CPU's TSS. */
#define IST_DF 1
#define IST_NMI 2
#define IST_MC 3

/* Build the IDT (all 256 vectors) and load it on this CPU. */
void idt_init(void);
void idt_load(void);

/* Handler for an interrupt vector >= 32 (IRQs, IPIs). */
typedef void (*irq_handler_t)(struct trap_frame *tf);
void trap_set_handler(int vector, irq_handler_t h);

/* Record of the last exception fixed up through the exception table (tests). */
struct fault_record {
	u64 vector, error, addr, rip;
};
/* Written by whichever CPU fixed the fault up; tests that probe read it
 * right after (they may migrate between CPUs, so it is not per-CPU). */
extern struct fault_record last_fixed_fault;	/* [A] last writer wins */

void dump_registers(const struct trap_frame *tf);
const char *trap_name(u64 vector);

#endif
