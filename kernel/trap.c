/*
 * trap.c - the Interrupt Descriptor Table and what happens on a trap.
 *
 * An exception in the kernel either has an exception-table fixup (an
 * instruction that was allowed to fault, like a probe or a user copy) or is
 * a bug: we print the vector, error code, CR2 for a page fault, every
 * register and a symbolized backtrace, then panic. Vectors 32 and up go to
 * the handler registered for them.
 */
#include "kernel/entry.h"
#include "kernel/trap.h"
#include "kernel/user.h"
#include "kernel/extable.h"
#include "kernel/uaccess.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "mm/vm.h"
#include "kernel/gdt.h"
#include "kernel/extable.h"
#include "kernel/ksyms.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/percpu.h"
#include "kernel/x86.h"
#include "kernel/atomic.h"
#include "kernel/irq.h"
#include "kernel/smp.h"
#include "kernel/sched.h"
#include "kernel/rcu.h"
#include "kernel/lockdep.h"
#include "drivers/lapic.h"
#include "mm/mm.h"

struct idt_entry {
	u16 off_lo;
	u16 sel;
	u8 ist;
	u8 type_attr;
	u16 off_mid;
	u32 off_hi;
	u32 zero;
} __packed;

static struct idt_entry idt[256] __aligned(16);	/* [I] after idt_init */
static irq_handler_t handlers[256];		/* [A] set once per vector */
extern const u64 isr_stub_table[256];

static const char *const names[32] = {
	"divide error (#DE)", "debug (#DB)", "NMI", "breakpoint (#BP)",
	"overflow (#OF)", "bound range (#BR)", "invalid opcode (#UD)",
	"device not available (#NM)", "double fault (#DF)", "coprocessor overrun",
	"invalid TSS (#TS)", "segment not present (#NP)", "stack fault (#SS)",
	"general protection (#GP)", "page fault (#PF)", "reserved 15",
	"x87 error (#MF)", "alignment check (#AC)", "machine check (#MC)",
	"SIMD error (#XM)", "virtualization (#VE)", "control protection (#CP)",
	"reserved 22", "reserved 23", "reserved 24", "reserved 25", "reserved 26",
	"reserved 27", "hypervisor injection (#HV)", "VMM communication (#VC)",
	"security (#SX)", "reserved 31",
};

const char *trap_name(u64 vector)
{
	return vector < 32 ? names[vector] : "interrupt";
}

static void set_gate(int v, u64 handler, int ist)
{
	struct idt_entry *e = &idt[v];

	e->off_lo = handler & 0xffff;
	e->sel = KERNEL_CS;
	e->ist = ist;
	e->type_attr = 0x8e;	/* present, DPL 0, 64-bit interrupt gate */
	e->off_mid = (handler >> 16) & 0xffff;
	e->off_hi = handler >> 32;
	e->zero = 0;
}

void idt_load(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed p = { sizeof(idt) - 1, (u64)idt };
	__asm__ __volatile__("lidt %0" :: "m"(p));
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
	idt[T_DF].ist = IST_DF;
	idt[T_NMI].ist = IST_NMI;
	idt[T_MC].ist = IST_MC;
	idt_load();
}

void trap_set_handler(int vector, irq_handler_t h)
{
	WRITE_ONCE(handlers[vector], h);
}

void dump_registers(const struct trap_frame *tf)
{
	printk("RIP: %04llx:%016llx RFLAGS: %016llx", (unsigned long long)tf->cs,
	       (unsigned long long)tf->rip, (unsigned long long)tf->rflags);
	printk("RSP: %04llx:%016llx", (unsigned long long)tf->ss, (unsigned long long)tf->rsp);
	printk("RAX: %016llx RBX: %016llx RCX: %016llx", (unsigned long long)tf->rax,
	       (unsigned long long)tf->rbx, (unsigned long long)tf->rcx);
	printk("RDX: %016llx RSI: %016llx RDI: %016llx", (unsigned long long)tf->rdx,
	       (unsigned long long)tf->rsi, (unsigned long long)tf->rdi);
	printk("RBP: %016llx R8:  %016llx R9:  %016llx", (unsigned long long)tf->rbp,
	       (unsigned long long)tf->r8, (unsigned long long)tf->r9);
	printk("R10: %016llx R11: %016llx R12: %016llx", (unsigned long long)tf->r10,
	       (unsigned long long)tf->r11, (unsigned long long)tf->r12);
	printk("R13: %016llx R14: %016llx R15: %016llx", (unsigned long long)tf->r13,
	       (unsigned long long)tf->r14, (unsigned long long)tf->r15);
	printk("CR0: %016llx CR3: %016llx CR4: %016llx", (unsigned long long)read_cr0(),
	       (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
}


static __noreturn void kernel_exception(struct trap_frame *tf, u64 cr2)
{
	char where[96];

	ksym_format(where, sizeof(where), tf->rip);
	if (tf->vector == T_PF) {
		panic_frame(tf, "%s in %s: %s %s at %#llx (error %#llx)", trap_name(tf->vector),
			    where, tf->error & PF_INSTR ? "fetch" :
			    tf->error & PF_WRITE ? "write" : "read",
			    tf->error & PF_PRESENT ? "protection violation" : "not-present page",
			    (unsigned long long)cr2, (unsigned long long)tf->error);
	}
	/* A fault while pushing onto a guard page escalates to #DF; CR2 still
	 * holds the address that failed. */
	if (tf->vector == T_DF && (vmap_is_guard(tf->rsp) || vmap_is_guard(read_cr2())))
		panic_frame(tf, "%s in %s: kernel stack overflow (rsp %#llx, cr2 %#llx: guard page)",
			    trap_name(tf->vector), where, (unsigned long long)tf->rsp,
			    (unsigned long long)read_cr2());
	panic_frame(tf, "%s in %s (error %#llx)", trap_name(tf->vector), where,
		    (unsigned long long)tf->error);
}

static bool user_copy_fault(struct trap_frame *tf, u64 addr);

/*
 * On the way back to user mode: deliver signals with interrupts on (writing
 * a signal frame is a user copy, which may fault, and the fault may sleep),
 * then turn them off again for the exit path, whose swapgs ... iretq must
 * not be interrupted (an interrupt there would run on the user's GS base).
 */
static void return_to_user(struct trap_frame *tf)
{
	sti();
	handle_signals(tf);
	cli();
}

void trap_dispatch(struct trap_frame *tf)
{
	u64 v = tf->vector;

	if (v == T_NMI) {
		smp_nmi(tf);
		return;
	}
	if (v < 32) {
		/* CR2 holds the address of this CPU's latest page fault. Read it
		 * now, while interrupts are still off (an interrupt gate): once
		 * they are on, this task can be preempted, and the next task's
		 * fault on this CPU overwrites CR2 before we read it
		 * (debug.late_cr2 reads it late, for t_fault_addr to catch). */
		u64 cr2 = v == T_PF ? read_cr2() : 0;
		if (tf->cs & 3) {		/* the program's fault, not ours */
			user_exception(tf, cr2);
			return_to_user(tf);
			return;
		}
		if (v == T_PF && user_copy_fault(tf, cr2))
			return;			/* a user page, faulted in for a user copy */
		if (v != T_DF && v != T_MC && fixup_exception(tf, cr2))
			return;
		kernel_exception(tf, cr2);
	}
	if (v < IRQ_VECTOR_BASE)	/* a spurious interrupt from the masked PICs */
		return;
	irq_handler_t h = READ_ONCE(handlers[v]);
	rcu_irq_enter();
	lockdep_hardirq_enter();	/* for lockdep's interrupt rule */
	if (h)
		h(tf);
	else
		pr_warn("trap: unexpected interrupt vector %llu", (unsigned long long)v);
	lockdep_hardirq_exit();
	rcu_irq_exit();
	if (v != VEC_SPURIOUS)
		lapic_eoi();
	sched_preempt_irq(tf);	/* may switch tasks: must come after the EOI */
	if (tf->cs & 3)
		return_to_user(tf);
}

/*
 * A kernel page fault at a user address, from a user copy (an instruction
 * in the exception table): let the fault handler map the page, as if the
 * program had touched it. False if it cannot; the fixup then gives EFAULT.
 */
static bool user_copy_fault(struct trap_frame *tf, u64 addr)
{
	struct task *me = current_task();
	if (addr >= USER_TOP || !me->mm || !search_extable(tf->rip, EX_DEFAULT))
		return false;
	if (tf->rflags & RFLAGS_IF)
		sti();
	return handle_mm_fault(me->mm, addr, tf->error | PF_USER) == 0;
}
