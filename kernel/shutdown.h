/* shutdown.h - leaving the machine: the exit protocol and power-off. */
#ifndef KERNEL_SHUTDOWN_H
#define KERNEL_SHUTDOWN_H

#include "kernel/types.h"

/*
 * kernel_exit: print the unprefixed line "roundabout: exit N" (N = status &
 * 255) and leave QEMU through isa-debug-exit, falling back to ACPI power-off
 * and then to halting. Never returns.
 */
void kernel_exit(int status) __noreturn;
/* Leave without printing (after the panic line). */
void machine_halt_exit(int code) __noreturn;

#endif
