/*
 * lapic.h - the local APIC: each CPU's interrupt controller, timer and
 * inter-processor interrupt (IPI) sender.
 *
 * xAPIC mode (registers in a 4 KiB MMIO page) is what QEMU's TCG offers and
 * what every test exercises. x2APIC mode (registers as MSRs) is used when
 * CPUID says the CPU has it; that path is small and untested here.
 */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H

#include "kernel/types.h"

/* Map and enable the boot CPU's local APIC (after mm_init). */
void lapic_init_boot(void);
/* Enable the calling AP's local APIC (same mode as the boot CPU). */
void lapic_init_ap(void);
u32 lapic_id(void);
void lapic_eoi(void);
bool lapic_x2apic_mode(void);

/* Fixed-vector IPI to one CPU, by APIC id. Returns when the APIC has sent it. */
void lapic_send_ipi(u32 apic_id, u8 vector);
void lapic_send_nmi(u32 apic_id);
/* The AP start-up sequence pieces (kernel/smp.c times them). */
void lapic_send_init(u32 apic_id);
void lapic_send_sipi(u32 apic_id, u8 page);

/*
 * Timer: lapic_timer_calibrate measures the timer's input clock against the
 * TSC once (boot CPU); lapic_timer_start_periodic programs this CPU's timer
 * to interrupt hz times a second on VEC_TIMER.
 */
void lapic_timer_calibrate(void);
void lapic_timer_start_periodic(unsigned hz);
/* Timer input ticks per second (after calibration). */
u64 lapic_timer_hz(void);

#endif
