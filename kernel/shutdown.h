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
/*
 * kernel_set_exit_hook: at boot, before any CPU can exit. kernel_exit then
 * calls hook(status) instead of leaving itself; the hook must not return.
 */
void kernel_set_exit_hook(void (*hook)(int status) __noreturn);
/* Leave without printing (after the panic line). */
void machine_halt_exit(int code) __noreturn;

#endif
