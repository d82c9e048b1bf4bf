/*
 * console.h - interrupt-driven input from the serial console.
 *
 * COM1's receive interrupt (ISA IRQ 4, through the IOAPIC) fills a ring
 * buffer; readers take bytes from it and wait for more with `sti; hlt`
 * instead of polling the UART. Output stays polled (drivers/uart.h).
 */
#ifndef DRIVERS_CONSOLE_H
#define DRIVERS_CONSOLE_H

#include "kernel/types.h"

#define CONSOLE_RING_SIZE 256	/* a power of two */

/*
 * console_input_init: route IRQ 4 to the calling CPU (the boot CPU), install
 * the handler and enable the UART's receive interrupt. Boot CPU, once,
 * after ioapic_init. Panics if the IRQ cannot be routed.
 */
void console_input_init(void);

/*
 * console_getc: the next received byte, or -1 if none is waiting. Never
 * waits or sleeps; any context. Before console_input_init it polls the
 * UART instead of reading the ring.
 */
int console_getc(void);

/*
 * console_read_line: read one line into buf (at most max - 1 bytes, then a
 * NUL), echoing it, with backspace editing; returns its length. Waits for
 * each byte with interrupts enabled and halted between checks, whatever
 * the caller's interrupt flag, which is restored on return. Not from an
 * interrupt handler or with a spinlock held. It wakes at once on the CPU
 * the IRQ is routed to; elsewhere at that CPU's next interrupt (its tick).
 */
int console_read_line(char *buf, int max);

/*
 * console_wait_input: sleep (uninterruptibly, for a kernel thread) until a
 * received byte waits in the ring; before console_input_init, for 10 ms.
 * A byte may be gone again when it returns (another reader). May sleep.
 */
void console_wait_input(void);

/* True once console_input_init has made input interrupt-driven. */
bool console_input_irq_driven(void);
/* Receive interrupts handled so far, and bytes dropped because the ring was full. */
u64 console_irq_count(void);
u64 console_dropped_count(void);

#endif
