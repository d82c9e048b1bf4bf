/* uart.h - the 16550 serial port on COM1, the kernel's console. */
#ifndef DRIVERS_UART_H
#define DRIVERS_UART_H

#include "kernel/types.h"

void uart_init(void);
/* uart_putc: transmit one byte, waiting for the transmitter (polled). */
void uart_putc(char c);
/* uart_getc: a received byte, or -1 if none is waiting (polled). */
int uart_getc(void);

#endif
