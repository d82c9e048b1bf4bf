/*
 * ioapic.c - programming the IOAPICs' redirection tables.
 *
 * An IOAPIC has only two registers in memory: IOREGSEL (offset 0x00)
 * selects an internal register and IOWIN (offset 0x10) reads or writes it.
 * Internal registers: 0 the id, 1 the version (bits 16-23: number of
 * redirection entries minus one), and from 0x10 a pair of 32-bit halves
 * per redirection entry. The select-then-access pair is not atomic, so all
 * IOAPIC accesses happen under ioapic_lock, with interrupts off so that a
 * handler on this CPU cannot interleave its own pair.
 *
 * Lock legend: [I] set by ioapic_init on the boot CPU, read-only after;
 * [L:ioapic_lock] the IOAPICs' registers themselves.
 */
#include "drivers/ioapic.h"
#include "drivers/acpi.h"
#include "kernel/irq.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "mm/mm.h"

#define IOREGSEL 0x00
#define IOWIN 0x10
#define IOAPIC_WINDOW_LEN 0x20
#define REG_ID 0x00
#define REG_VERSION 0x01
#define REG_REDIR(n) (0x10 + 2 * (n))	/* low half; high half at +1 */
#define ISA_IRQS 16

struct ioapic {
	u8 id;			/* [I] */
	u32 gsi_base;		/* [I] */
	u32 entries;		/* [I] redirection entries it has */
	u8 *regs;		/* [I] mapping; the registers are [L:ioapic_lock] */
};

static struct ioapic ioapics[ACPI_MAX_IOAPICS];	/* [I] */
static int nioapics;				/* [I] */
static spinlock_t ioapic_lock = SPINLOCK_INIT("ioapic");

/*
 * One register access. The barrier keeps the compiler from moving the
 * window access before the select; the mapping is uncached, so the IOAPIC
 * sees the two stores (or the store and the load) in program order.
 */
static u32 __ioapic_read(const struct ioapic *io, u32 reg)
{
	__atomic_store_n((u32 *)(io->regs + IOREGSEL), reg, __ATOMIC_RELAXED);
	barrier();
	return __atomic_load_n((u32 *)(io->regs + IOWIN), __ATOMIC_RELAXED);
}

static void __ioapic_write(const struct ioapic *io, u32 reg, u32 v)
{
	__atomic_store_n((u32 *)(io->regs + IOREGSEL), reg, __ATOMIC_RELAXED);
	barrier();
	__atomic_store_n((u32 *)(io->regs + IOWIN), v, __ATOMIC_RELAXED);
}

/* The IOAPIC serving gsi, or NULL. */
static struct ioapic *ioapic_for(u32 gsi)
{
	for (int i = 0; i < nioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi - ioapics[i].gsi_base < ioapics[i].entries)
			return &ioapics[i];
	return NULL;
}

static void setup_one(struct ioapic *io, const struct acpi_ioapic *a)
{
	io->id = a->id;
	io->gsi_base = a->gsi_base;
	io->regs = ioremap(a->phys, IOAPIC_WINDOW_LEN);
	if (!io->regs)
		panic("ioapic: cannot map IOAPIC %u at %#x", a->id, a->phys);
	unsigned long f = spin_lock_irqsave(&ioapic_lock);
	u32 ver = __ioapic_read(io, REG_VERSION);
	if (ver == 0xffffffff) {
		spin_unlock_irqrestore(&ioapic_lock, f);
		panic("ioapic: IOAPIC %u at %#x does not answer (version reads %#x)",
		      a->id, a->phys, ver);
	}
	io->entries = ((ver >> 16) & 0xff) + 1;
	for (u32 n = 0; n < io->entries; n++) {
		__ioapic_write(io, REG_REDIR(n), IOAPIC_MASKED);
		__ioapic_write(io, REG_REDIR(n) + 1, 0);
	}
	spin_unlock_irqrestore(&ioapic_lock, f);
	printk("ioapic: id %u at %#x: GSIs %u-%u masked, version %#x", io->id, a->phys,
	       io->gsi_base, io->gsi_base + io->entries - 1, ver & 0xff);
}

void ioapic_init(void)
{
	for (int i = 0; i < acpi.nioapics; i++)
		setup_one(&ioapics[i], &acpi.ioapic[i]);
	nioapics = acpi.nioapics;
}

/*
 * The redirection entry's low half for an ISA IRQ with MADT override
 * flags: "conforms to the bus" (0) means ISA's edge and active high;
 * the reserved encoding 2 is read the same way.
 */
static u32 isa_entry_low(int vector, u16 flags)
{
	u32 low = (u32)vector;	/* fixed delivery, physical destination, unmasked */

	if ((flags & ACPI_POLARITY_MASK) == ACPI_POLARITY_LOW)
		low |= IOAPIC_POLARITY_LOW;
	if ((flags & ACPI_TRIGGER_MASK) == ACPI_TRIGGER_LEVEL)
		low |= IOAPIC_TRIGGER_LEVEL;
	return low;
}

int ioapic_route_isa_irq(int isa_irq, int vector, u32 dest_apic_id)
{
	u16 flags;

	if (isa_irq < 0 || isa_irq >= ISA_IRQS || vector < IRQ_VECTOR_BASE ||
	    vector >= VEC_SPURIOUS || dest_apic_id > 0xff)
		return -EINVAL;
	u32 gsi = acpi_isa_irq_to_gsi(isa_irq, &flags);
	struct ioapic *io = ioapic_for(gsi);
	if (!io)
		return -EINVAL;
	u32 n = gsi - io->gsi_base;
	unsigned long f = spin_lock_irqsave(&ioapic_lock);
	/* Destination first: the entry is still masked while it changes. */
	__ioapic_write(io, REG_REDIR(n), IOAPIC_MASKED);
	__ioapic_write(io, REG_REDIR(n) + 1, dest_apic_id << 24);
	__ioapic_write(io, REG_REDIR(n), isa_entry_low(vector, flags));
	spin_unlock_irqrestore(&ioapic_lock, f);
	return (int)gsi;
}

void ioapic_mask_gsi(u32 gsi)
{
	struct ioapic *io = ioapic_for(gsi);

	if (!io)
		return;
	u32 n = gsi - io->gsi_base;
	unsigned long f = spin_lock_irqsave(&ioapic_lock);
	__ioapic_write(io, REG_REDIR(n), __ioapic_read(io, REG_REDIR(n)) | IOAPIC_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, f);
}

int ioapic_count(void)
{
	return nioapics;
}

u32 ioapic_version(int idx)
{
	BUG_ON(idx < 0 || idx >= nioapics, "ioapic: no such IOAPIC");
	unsigned long f = spin_lock_irqsave(&ioapic_lock);
	u32 v = __ioapic_read(&ioapics[idx], REG_VERSION);
	spin_unlock_irqrestore(&ioapic_lock, f);
	return v;
}

int ioapic_read_entry(u32 gsi, u64 *entry)
{
	struct ioapic *io = ioapic_for(gsi);

	if (!io)
		return -EINVAL;
	u32 n = gsi - io->gsi_base;
	unsigned long f = spin_lock_irqsave(&ioapic_lock);
	u64 lo = __ioapic_read(io, REG_REDIR(n));
	u64 hi = __ioapic_read(io, REG_REDIR(n) + 1);
	spin_unlock_irqrestore(&ioapic_lock, f);
	*entry = hi << 32 | lo;
	return 0;
}
