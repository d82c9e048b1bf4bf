/*
 * uart.c - 16550 UART on COM1 (I/O port 0x3f8), 115200 baud, 8N1.
 * Output is polled: the console must work in a panic with interrupts off.
 * Input can be polled (uart_getc) or, once uart_enable_rx_irq has run,
 * interrupt-driven on ISA IRQ 4 (drivers/console.c).
 */
#include "kernel/printk.h"
#include "drivers/uart.h"
#include "kernel/x86.h"

#define COM1 0x3f8
#define REG_DATA 0
#define REG_IER 1
#define REG_FCR 2
#define REG_LCR 3
#define REG_MCR 4
#define REG_LSR 5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define LSR_TX_IDLE 0x40	/* holding register and shift register both empty */
#define IER_RX_DATA 0x01	/* interrupt when received data is waiting */
#define FCR_ENABLE_TRIGGER_1 0x01	/* FIFOs on, RX interrupt at 1 byte */
#define MCR_NORMAL 0x0b		/* DTR, RTS, OUT2 (OUT2 gates the IRQ line on PCs) */
#define MCR_LOOPBACK 0x10

void uart_init(void)
{
	outb(COM1 + REG_IER, 0x00);	/* no interrupts yet */
	outb(COM1 + REG_LCR, 0x80);	/* divisor latch on */
	outb(COM1 + 0, 0x01);		/* divisor 1: 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + REG_LCR, 0x03);	/* 8 bits, no parity, 1 stop */
	outb(COM1 + REG_FCR, 0xc7);	/* FIFOs on, cleared, 14-byte threshold */
	outb(COM1 + REG_MCR, MCR_NORMAL);
	printk_register_console(uart_putc);
}

void uart_putc(char c)
{
	while (!(inb(COM1 + REG_LSR) & LSR_THR_EMPTY))
		__asm__ __volatile__("pause");
	outb(COM1 + REG_DATA, (u8)c);
}

int uart_getc(void)
{
	if (!(inb(COM1 + REG_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + REG_DATA);
}

void uart_enable_rx_irq(void)
{
	/* A console wants each key at once, not after 14 of them (or the
	 * FIFO's character timeout): trigger at one byte. The FIFO is not
	 * cleared, so nothing typed before now is lost. */
	outb(COM1 + REG_FCR, FCR_ENABLE_TRIGGER_1);
	outb(COM1 + REG_IER, IER_RX_DATA);
}

void uart_set_loopback(bool on)
{
	while (!(inb(COM1 + REG_LSR) & LSR_TX_IDLE))	/* let output finish first */
		__asm__ __volatile__("pause");
	outb(COM1 + REG_MCR, on ? MCR_NORMAL | MCR_LOOPBACK : MCR_NORMAL);
}
