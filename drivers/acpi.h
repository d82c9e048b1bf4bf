/*
 * acpi.h - what the firmware's ACPI tables say about this machine.
 *
 * The kernel reads ACPI tables but runs no AML: it finds the RSDP, walks
 * the RSDT or XSDT, checks every table's checksum before use, and parses
 * the MADT (CPUs, local APIC address, IOAPICs, ISA interrupt overrides)
 * and the FADT (the PM1a control port and, from the DSDT, the S5 sleep
 * type that powers the machine off). docs/acpi.md walks through it.
 *
 * The parsers take a table in a memory buffer so that tests can feed them
 * synthetic tables; acpi_init feeds them the firmware's.
 */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H

#include "kernel/types.h"
#include "kernel/percpu.h"

/* The header every ACPI table (but the RSDP) starts with; 36 bytes. */
struct acpi_header {
	char sig[4];
	u32 length;		/* of the whole table, header included */
	u8 revision;
	u8 checksum;		/* makes the bytes of the table sum to 0 mod 256 */
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_OVERRIDES 16

/* Interrupt source override flags (MADT type 2, "MPS INTI flags"). */
#define ACPI_POLARITY_MASK 0x3		/* 0 bus default, 1 high, 3 low */
#define ACPI_POLARITY_LOW 0x3
#define ACPI_TRIGGER_MASK 0xc		/* 0 bus default, 4 edge, 0xc level */
#define ACPI_TRIGGER_LEVEL 0xc

struct acpi_ioapic {
	u8 id;			/* IOAPIC id */
	u32 phys;		/* register window's physical address */
	u32 gsi_base;		/* first global system interrupt it serves */
};

/* ISA IRQ `source` arrives on GSI `gsi` with `flags` (ACPI_POLARITY/TRIGGER). */
struct acpi_override {
	u8 bus;			/* 0: ISA */
	u8 source;
	u32 gsi;
	u16 flags;
};

/*
 * Lock legend: [I] written by acpi_init on the boot CPU before any other
 * CPU starts, read-only afterwards, so read without a lock.
 */
struct acpi_info {
	int revision;			/* [I] RSDP revision: 0 is ACPI 1.0 */
	bool xsdt;			/* [I] tables found through the XSDT */
	u64 lapic_phys;			/* [I] local APIC registers (type 5 wins) */
	bool pcat_compat;		/* [I] legacy 8259 PICs present (MADT flag) */
	int ncpus;			/* [I] enabled CPUs kept, in MADT order */
	u32 cpu_apic_id[MAX_CPUS];	/* [I] their APIC ids */
	int ncpus_dropped;		/* [I] enabled CPUs beyond MAX_CPUS */
	int ncpus_hotplug;		/* [I] online-capable CPUs, not started */
	int nioapics;			/* [I] */
	struct acpi_ioapic ioapic[ACPI_MAX_IOAPICS];	/* [I] */
	int noverrides;			/* [I] */
	struct acpi_override override[ACPI_MAX_OVERRIDES];	/* [I] */
	u32 pm1a_cnt;			/* [I] FADT PM1a control port, 0 if none */
	bool s5_found;			/* [I] the DSDT names _S5_ */
	u8 slp_typa;			/* [I] its SLP_TYPa value */
};

extern struct acpi_info acpi;		/* [I] after acpi_init */

/*
 * acpi_init: find and check the tables and fill in `acpi`, then print a
 * one-line summary. Boot CPU, once, after slab_init (it uses ioremap).
 * Panics, naming the table, if the RSDP, the root table or the MADT is
 * missing or corrupt; a missing or corrupt FADT or DSDT only warns.
 */
void acpi_init(void);

/*
 * acpi_platform_init: acpi_init, then retire the legacy PICs and bring up
 * the IOAPICs (pic_disable, ioapic_init). Boot CPU, once, after slab_init.
 */
void acpi_platform_init(void);

/*
 * acpi_find_table: the n-th (from 0) table with signature sig, mapped and
 * with its checksum verified; its length in *len. NULL (with a warning if
 * it is corrupt) when there is no such good table. After acpi_init.
 */
const void *acpi_find_table(const char *sig, int n, size_t *len);

/*
 * acpi_isa_irq_to_gsi: the GSI that ISA IRQ irq arrives on, after the
 * MADT's source overrides (identity when none applies); its override
 * flags in *flags (0, bus defaults, when none). After acpi_init.
 */
u32 acpi_isa_irq_to_gsi(int irq, u16 *flags);

/*
 * acpi_poweroff: enter S5 by writing SLP_TYPa and SLP_EN to PM1a_CNT.
 * Returns (doing nothing) if the FADT or the DSDT's _S5_ was not found,
 * or if the write did not take effect.
 */
void acpi_poweroff(void);

/* acpi_checksum_ok: true if the len bytes at t sum to 0 mod 256. */
bool acpi_checksum_ok(const void *t, size_t len);

/*
 * acpi_rsdp_check: how many bytes of the RSDP at p (avail readable) are
 * good: 36 (ACPI 2.0+, both checksums right), 20 (ACPI 1.0, or a 2.0+ one
 * of which only 20 bytes are at hand: use its RSDT), 0 (bad signature or
 * checksum).
 */
size_t acpi_rsdp_check(const void *p, size_t avail);

/*
 * acpi_scan_for_rsdp: look for a good RSDP where a PC BIOS leaves one (the
 * first KiB of the EBDA, then 0xe0000-0xfffff, on 16-byte boundaries) and
 * copy it to out (36 bytes). Returns acpi_rsdp_check's length, 0 if none.
 */
size_t acpi_scan_for_rsdp(void *out);

/*
 * acpi_parse_root: the nonzero table addresses listed by the RSDT (xsdt
 * false: 32-bit entries) or XSDT (64-bit) in the len bytes at root, at
 * most max of them, into out. Returns how many, or -EINVAL if the
 * signature is wrong or the header's length exceeds len.
 */
int acpi_parse_root(const void *root, size_t len, bool xsdt, phys_addr_t *out, int max);

/*
 * acpi_parse_madt: parse the MADT in the len readable bytes at madt into
 * the MADT fields of *out (lapic_phys, pcat_compat, the cpu, ioapic and
 * override lists); the other fields are left alone. Checks the bounds of
 * every entry (not the checksum: see acpi_checksum_ok). Returns 0, or
 * -EINVAL with a reason in err.
 */
int acpi_parse_madt(const void *madt, size_t len, struct acpi_info *out,
		    char *err, size_t errlen);

/*
 * acpi_find_s5: find the DSDT's "Name (_S5_, Package () { a, ... })" in
 * the len bytes of AML at dsdt (header included) and store a in *slp_typa.
 * Returns 0, or -ENOENT when there is no such package.
 */
int acpi_find_s5(const void *dsdt, size_t len, u8 *slp_typa);

#endif
