/*
 * irq.h - interrupt vector assignments and the EOI/preemption contract.
 *
 *   0x00-0x1f  CPU exceptions
 *   0x20-0x2f  the legacy PICs, remapped here and masked (only spurious ones arrive)
 *   0x30-0x47  IOAPIC inputs: GSI n arrives on vector IRQ_VECTOR(n)
 *   0xec       local APIC timer (the scheduler tick)
 *   0xf0-0xf2  IPIs: reschedule, call-function, TLB shootdown
 *   0xfe       local APIC error, 0xff local APIC spurious
 *
 * trap_dispatch runs the handler registered with trap_set_handler, then
 * sends the local APIC its EOI (for vectors 0x30..0xfe), then, if the
 * interrupted context was preemptible, lets the scheduler switch tasks
 * (sched_preempt_irq). Handlers run with interrupts off and must not sleep.
 */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#define PIC_VECTOR_BASE 0x20
#define IRQ_VECTOR_BASE 0x30
#define IRQ_VECTOR(gsi) (IRQ_VECTOR_BASE + (gsi))
#define NR_IOAPIC_VECTORS 24
#define VEC_TIMER 0xec
#define VEC_RESCHED 0xf0
#define VEC_CALL_FUNC 0xf1
#define VEC_TLB 0xf2
#define VEC_LAPIC_ERROR 0xfe
#define VEC_SPURIOUS 0xff

#endif
