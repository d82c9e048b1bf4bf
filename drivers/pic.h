/*
 * pic.h - the two legacy 8259A programmable interrupt controllers.
 *
 * Roundabout takes device interrupts through the IOAPIC; the PICs are only
 * moved out of the way (remapped to vectors 0x20-0x2f, kernel/irq.h) and
 * silenced.
 */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H

/*
 * pic_disable: remap both PICs to PIC_VECTOR_BASE..+15 and mask all sixteen
 * lines. Boot CPU, once, before any IOAPIC line is unmasked. Never sleeps.
 */
void pic_disable(void);

#endif
