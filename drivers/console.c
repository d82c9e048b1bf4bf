/*
 * console.c - interrupt-driven console input: a ring buffer filled by
 * COM1's receive interrupt, and readers that halt until it has bytes.
 *
 * The handler drains every byte waiting in the UART into the ring (the
 * ISA line is edge-triggered: a byte left behind would raise no new edge).
 * A reader that finds the ring empty waits with `sti; hlt`. The two
 * instructions must be adjacent and entered with interrupts off: sti only
 * takes effect after the next instruction, so an interrupt that is already
 * pending when the ring was found empty is taken after hlt has begun and
 * wakes it, never between the check and the halt (the lost-wakeup race
 * that a separate sti would open).
 *
 * The local APIC's EOI is sent by trap_dispatch after the handler returns
 * (kernel/irq.h), not here.
 *
 * Lock legend: [L:console_lock] the ring and its counters (taken with
 * interrupts saved outside the handler); [A] irq_driven.
 */
#include "drivers/console.h"
#include "drivers/acpi.h"
#include "drivers/ioapic.h"
#include "drivers/uart.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/trap.h"
#include "kernel/wait.h"
#include "kernel/x86.h"

#define COM1_ISA_IRQ 4

static spinlock_t console_lock = SPINLOCK_INIT("console");
static u8 ring[CONSOLE_RING_SIZE];	/* [L:console_lock] */
static u32 ring_head;			/* [L:console_lock] bytes ever put in */
static u32 ring_tail;			/* [L:console_lock] bytes ever taken out */
static u64 irqs;			/* [L:console_lock] interrupts handled */
static u64 dropped;			/* [L:console_lock] bytes lost to a full ring */
static int irq_driven;			/* [A] set once by console_input_init */
static struct wait_queue_head input_wq = WAIT_QUEUE_HEAD_INIT(input_wq);	/* console_wait_input */

/* Interrupt handler (interrupts are off): move every waiting byte to the ring. */
static void console_irq(struct trap_frame *tf)
{
	int c;

	spin_lock(&console_lock);
	while ((c = uart_getc()) >= 0) {
		if (ring_head - ring_tail == CONSOLE_RING_SIZE)
			dropped++;
		else
			ring[ring_head++ % CONSOLE_RING_SIZE] = (u8)c;
	}
	irqs++;
	spin_unlock(&console_lock);
	wake_up_all(&input_wq);		/* wait.h, step B: the bytes are in the ring */
}

static int ring_pop(void)
{
	int c = -1;

	unsigned long f = spin_lock_irqsave(&console_lock);
	if (ring_head != ring_tail)
		c = ring[ring_tail++ % CONSOLE_RING_SIZE];
	spin_unlock_irqrestore(&console_lock, f);
	return c;
}

static bool ring_nonempty(void)
{
	unsigned long f = spin_lock_irqsave(&console_lock);
	bool r = ring_head != ring_tail;
	spin_unlock_irqrestore(&console_lock, f);
	return r;
}

void console_wait_input(void)
{
	if (console_input_irq_driven())
		wait_event(input_wq, ring_nonempty());
	else
		msleep(10);	/* nothing would wake us: look again later */
}

bool console_input_irq_driven(void)
{
	/* Pairs with the release in console_input_init. x86-64: a plain mov. */
	return smp_load_acquire(&irq_driven);
}

int console_getc(void)
{
	return console_input_irq_driven() ? ring_pop() : uart_getc();
}

/*
 * The next byte, waiting for it. Returns with interrupts off. Before
 * console_input_init nothing would wake a halt, so it polls instead.
 */
static int wait_byte(void)
{
	for (;;) {
		cli();
		int c = console_getc();
		if (c >= 0)
			return c;
		if (console_input_irq_driven())
			__asm__ __volatile__("sti; hlt" ::: "memory");	/* see the top */
		else
			cpu_relax();
	}
}

int console_read_line(char *buf, int max)
{
	unsigned long f = read_rflags();
	int n = 0;

	for (;;) {
		int c = wait_byte();
		if (c == '\r' || c == '\n') {
			uart_putc('\r');
			uart_putc('\n');
			break;
		}
		if ((c == 0x7f || c == 0x08) && n > 0) {	/* DEL or backspace */
			n--;
			uart_putc('\b');
			uart_putc(' ');
			uart_putc('\b');
		} else if (c >= ' ' && c < 0x7f && n < max - 1) {
			buf[n++] = (char)c;
			uart_putc((char)c);
		}
	}
	buf[n] = 0;
	irq_restore(f);		/* wait_byte left them off */
	return n;
}

u64 console_irq_count(void)
{
	unsigned long f = spin_lock_irqsave(&console_lock);
	u64 n = irqs;
	spin_unlock_irqrestore(&console_lock, f);
	return n;
}

u64 console_dropped_count(void)
{
	unsigned long f = spin_lock_irqsave(&console_lock);
	u64 n = dropped;
	spin_unlock_irqrestore(&console_lock, f);
	return n;
}

void console_input_init(void)
{
	u16 flags;
	/* The boot CPU's APIC id, filled in by the SMP bring-up; it reads 0
	 * before that, which is also the boot CPU's id on QEMU and most PCs. */
	u32 dest = this_cpu()->apic_id;
	u32 gsi = acpi_isa_irq_to_gsi(COM1_ISA_IRQ, &flags);

	if (gsi >= NR_IOAPIC_VECTORS)
		panic("console: COM1's IRQ %d arrives on GSI %u, which has no vector",
		      COM1_ISA_IRQ, gsi);
	trap_set_handler(IRQ_VECTOR(gsi), console_irq);
	if (ioapic_route_isa_irq(COM1_ISA_IRQ, IRQ_VECTOR(gsi), dest) < 0)
		panic("console: cannot route COM1's IRQ %d (GSI %u) to APIC id %u",
		      COM1_ISA_IRQ, gsi, dest);
	/* Publish before the first interrupt can come. x86-64: a plain mov. */
	smp_store_release(&irq_driven, 1);
	uart_enable_rx_irq();
	printk("console: input on IRQ %d (GSI %u, vector %#x) to APIC id %u",
	       COM1_ISA_IRQ, gsi, IRQ_VECTOR(gsi), dest);
}
