/*
 * ioapic.h - the IOAPICs: where device interrupt lines (global system
 * interrupts, GSIs) are turned into interrupt messages to a CPU.
 *
 * Each IOAPIC serves GSIs gsi_base .. gsi_base + entries - 1 (from the
 * MADT, drivers/acpi.h) and has one redirection entry per input: vector,
 * destination APIC id, polarity, trigger mode and a mask bit. GSI n is
 * given vector IRQ_VECTOR(n) (kernel/irq.h) by convention.
 */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H

#include "kernel/types.h"

/* Redirection entry bits (the low 32 bits; the destination is bits 56-63). */
#define IOAPIC_POLARITY_LOW (1u << 13)
#define IOAPIC_TRIGGER_LEVEL (1u << 15)
#define IOAPIC_MASKED (1u << 16)

/*
 * ioapic_init: map every IOAPIC the MADT lists and mask all of its inputs.
 * Boot CPU, once, after acpi_init. Panics if one cannot be mapped or does
 * not answer.
 */
void ioapic_init(void);

/*
 * ioapic_route_isa_irq: deliver ISA IRQ isa_irq (0-15) as `vector` to the
 * CPU with APIC id dest_apic_id (physical mode, fixed delivery) and unmask
 * it. The MADT's source overrides choose the GSI, polarity and trigger
 * mode (ISA's default is edge-triggered, active high). Returns the GSI, or
 * -EINVAL for a bad IRQ, vector or destination (above 255) or a GSI no
 * IOAPIC serves. Takes ioapic_lock with interrupts saved; never sleeps.
 */
int ioapic_route_isa_irq(int isa_irq, int vector, u32 dest_apic_id);

/* ioapic_mask_gsi: mask GSI gsi (no effect if no IOAPIC serves it). Never sleeps. */
void ioapic_mask_gsi(u32 gsi);

/* Number of IOAPICs set up by ioapic_init. */
int ioapic_count(void);
/* ioapic_version: IOAPIC idx's version register, read now (bits 16-23: last entry). */
u32 ioapic_version(int idx);
/*
 * ioapic_read_entry: GSI gsi's 64-bit redirection entry, read now, in
 * *entry. Returns 0, or -EINVAL if no IOAPIC serves gsi.
 */
int ioapic_read_entry(u32 gsi, u64 *entry);

#endif
