/*
 * pic.c - retiring the legacy 8259A PIC pair.
 *
 * At reset the BIOS leaves the master PIC on vectors 8-15, on top of the
 * CPU's exceptions (8 is the double fault). Masking every line is not
 * enough on its own: a PIC can still raise a spurious interrupt (IRQ 7 or
 * 15) with the mask set, and it must then arrive on a vector that no
 * exception uses. So we first re-run the initialisation sequence with new
 * vector offsets (0x20 and 0x28, kernel/irq.h), then mask everything.
 * trap_dispatch ignores whatever still arrives below IRQ_VECTOR_BASE.
 *
 * The sequence is the 8259A's four initialisation command words (ICW1-4),
 * as in Intel's 8259A data sheet.
 */
#include "drivers/pic.h"
#include "kernel/irq.h"
#include "kernel/x86.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1

#define ICW1_INIT 0x10		/* start initialisation */
#define ICW1_ICW4 0x01		/* an ICW4 will follow */
#define ICW3_MASTER_SLAVE_ON_IR2 0x04	/* master: a slave sits on input 2 */
#define ICW3_SLAVE_ID 0x02		/* slave: my cascade identity is 2 */
#define ICW4_8086 0x01		/* 8086 mode (not MCS-80/85) */
#define MASK_ALL 0xff

/* Give the (possibly slow, real) PIC time between writes: port 0x80 is unused. */
static void io_wait(void)
{
	outb(0x80, 0);
}

static void pic_write(u16 port, u8 v)
{
	outb(port, v);
	io_wait();
}

void pic_disable(void)
{
	pic_write(PIC1_CMD, ICW1_INIT | ICW1_ICW4);
	pic_write(PIC2_CMD, ICW1_INIT | ICW1_ICW4);
	pic_write(PIC1_DATA, PIC_VECTOR_BASE);		/* ICW2: vector offsets */
	pic_write(PIC2_DATA, PIC_VECTOR_BASE + 8);
	pic_write(PIC1_DATA, ICW3_MASTER_SLAVE_ON_IR2);
	pic_write(PIC2_DATA, ICW3_SLAVE_ID);
	pic_write(PIC1_DATA, ICW4_8086);
	pic_write(PIC2_DATA, ICW4_8086);
	pic_write(PIC1_DATA, MASK_ALL);			/* OCW1: mask every line */
	pic_write(PIC2_DATA, MASK_ALL);
}
