/* uart.h - the 16550 serial port on COM1, the kernel's console. */
#ifndef DRIVERS_UART_H
#define DRIVERS_UART_H

#include "kernel/types.h"

void uart_init(void);
/* uart_putc: transmit one byte, waiting for the transmitter (polled). */
void uart_putc(char c);
/* uart_getc: a received byte, or -1 if none is waiting (polled). */
int uart_getc(void);
/*
 * uart_enable_rx_irq: make the UART raise its interrupt line (ISA IRQ 4)
 * whenever a received byte is waiting. Route the IRQ first.
 */
void uart_enable_rx_irq(void);
/*
 * uart_set_loopback: with on, bytes sent come straight back as received
 * ones (and raise the receive interrupt) instead of leaving the port; the
 * console's output is lost meanwhile. Waits for pending output to leave.
 */
void uart_set_loopback(bool on);

#endif
