/*
 * ktest_acpi.c - the ACPI table parsers on synthetic tables, what the
 * firmware's tables say about QEMU's PC, the IOAPIC routing built on them,
 * and console input through COM1's interrupt, end to end.
 *
 * Pass test.smp=N (QEMU's -smp count) to check the MADT's CPU count.
 */
#include "kernel/ktest.h"
#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/irq.h"
#include "kernel/multiboot.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "drivers/acpi.h"
#include "drivers/ioapic.h"
#include "drivers/console.h"
#include "drivers/uart.h"

CMDLINE_KEY(acpi_test_smp, "test.smp", "tests: the -smp count QEMU was given");

/* ---- Synthetic tables ---- */

static u8 tbl[512] __aligned(8);
static size_t tbl_len;

static void put32(u8 *p, u32 v) { memcpy(p, &v, 4); }

/* A MADT header: local APIC at 0xfee00000, PC/AT-compatible flag set. */
static void madt_begin(void)
{
	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, "APIC", 4);
	tbl[8] = 4;
	put32(tbl + 36, 0xfee00000);
	put32(tbl + 40, 1);
	tbl_len = 44;
}

static void madt_add(const u8 *entry, size_t n)
{
	memcpy(tbl + tbl_len, entry, n);
	tbl_len += n;
}

/* Write the length and the checksum byte; returns the length. */
static size_t table_end(void)
{
	u8 sum = 0;

	put32(tbl + 4, (u32)tbl_len);
	tbl[9] = 0;
	for (size_t i = 0; i < tbl_len; i++)
		sum += tbl[i];
	tbl[9] = (u8)-sum;
	return tbl_len;
}

static const u8 lapic0_on[] = { 0, 8, 0, 0, 1, 0, 0, 0 };	/* uid 0, APIC id 0, enabled */
static const u8 lapic1_off[] = { 0, 8, 1, 1, 0, 0, 0, 0 };	/* uid 1, APIC id 1, disabled */
static const u8 ioapic0[] = { 1, 12, 0, 0, 0x00, 0x00, 0xc0, 0xfe, 0, 0, 0, 0 };
static const u8 irq0_to_gsi2[] = { 2, 10, 0, 0, 2, 0, 0, 0, 0, 0 };

/* The MADT of a two-CPU PC whose second CPU is disabled. */
static size_t build_small_madt(void)
{
	madt_begin();
	madt_add(lapic0_on, sizeof(lapic0_on));
	madt_add(lapic1_off, sizeof(lapic1_off));
	madt_add(ioapic0, sizeof(ioapic0));
	madt_add(irq0_to_gsi2, sizeof(irq0_to_gsi2));
	return table_end();
}

KTEST(acpi_checksum_accepts_table_summing_to_zero)
{
	size_t n = build_small_madt();

	KT_ASSERT(acpi_checksum_ok(tbl, n));
}

KTEST(acpi_checksum_rejects_one_changed_byte)
{
	size_t n = build_small_madt();

	tbl[50] ^= 0x10;
	KT_ASSERT(!acpi_checksum_ok(tbl, n));
}

KTEST(acpi_madt_parser_counts_enabled_cpus_ioapics_overrides)
{
	struct acpi_info a;
	char err[128] = "";
	size_t n = build_small_madt();

	memset(&a, 0xaa, sizeof(a));	/* the parser must reset what it fills */
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), 0);
	KT_EQ(a.lapic_phys, 0xfee00000);
	KT_ASSERT(a.pcat_compat);
	KT_EQ(a.ncpus, 1);
	KT_EQ(a.cpu_apic_id[0], 0);
	KT_EQ(a.ncpus_dropped, 0);
	KT_EQ(a.nioapics, 1);
	KT_EQ(a.ioapic[0].phys, 0xfec00000);
	KT_EQ(a.ioapic[0].gsi_base, 0);
	KT_EQ(a.noverrides, 1);
	KT_EQ(a.override[0].source, 0);
	KT_EQ(a.override[0].gsi, 2);
	KT_EQ(a.override[0].flags, 0);
}

KTEST(acpi_madt_parser_reads_x2apic_cpus_and_address_override)
{
	static const u8 x2apic_300[] = { 9, 16, 0, 0, 0x2c, 1, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0 };
	static const u8 addr_override[] = { 5, 12, 0, 0, 0, 0, 0xd0, 0xfe, 1, 0, 0, 0 };
	struct acpi_info a;
	char err[128] = "";

	madt_begin();
	madt_add(addr_override, sizeof(addr_override));	/* wins over the header */
	madt_add(lapic0_on, sizeof(lapic0_on));
	madt_add(x2apic_300, sizeof(x2apic_300));
	madt_add(lapic0_on, sizeof(lapic0_on));			/* listed twice: one CPU */
	size_t n = table_end();
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), 0);
	KT_EQ(a.lapic_phys, 0x1fed00000);
	KT_EQ(a.ncpus, 2);
	KT_EQ(a.cpu_apic_id[0], 0);
	KT_EQ(a.cpu_apic_id[1], 300);
}

KTEST(acpi_madt_parser_keeps_first_max_cpus)
{
	struct acpi_info a;
	char err[128] = "";

	madt_begin();
	for (int i = 0; i < MAX_CPUS + 2; i++) {
		u8 e[8] = { 0, 8, (u8)i, (u8)(i * 2), 1, 0, 0, 0 };
		madt_add(e, sizeof(e));
	}
	size_t n = table_end();
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), 0);
	KT_EQ(a.ncpus, MAX_CPUS);
	KT_EQ(a.ncpus_dropped, 2);
	KT_EQ(a.cpu_apic_id[MAX_CPUS - 1], (MAX_CPUS - 1) * 2);
}

KTEST(acpi_madt_parser_rejects_zero_length_entry)
{
	static const u8 empty_entry[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	struct acpi_info a;
	char err[128] = "";

	madt_begin();
	madt_add(lapic0_on, sizeof(lapic0_on));
	madt_add(empty_entry, sizeof(empty_entry));
	size_t n = table_end();
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), -EINVAL);
	KT_NE(strlen(err), 0);
}

KTEST(acpi_madt_parser_rejects_entry_running_past_table)
{
	static const u8 long_entry[] = { 1, 40, 0, 0, 0x00, 0x00, 0xc0, 0xfe, 0, 0, 0, 0 };
	struct acpi_info a;
	char err[128] = "";

	madt_begin();
	madt_add(lapic0_on, sizeof(lapic0_on));
	madt_add(long_entry, sizeof(long_entry));	/* claims 40 bytes, 12 remain */
	size_t n = table_end();
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), -EINVAL);
	KT_NE(strlen(err), 0);
	/* A header claiming more than the buffer holds is refused too. */
	build_small_madt();
	KT_EQ(acpi_parse_madt(tbl, tbl_len - 1, &a, err, sizeof(err)), -EINVAL);
}

KTEST(acpi_madt_parser_rejects_entry_too_short_for_its_type)
{
	static const u8 short_ioapic[] = { 1, 8, 0, 0, 0x00, 0x00, 0xc0, 0xfe };
	struct acpi_info a;
	char err[128] = "";

	madt_begin();
	madt_add(short_ioapic, sizeof(short_ioapic));
	size_t n = table_end();
	KT_EQ(acpi_parse_madt(tbl, n, &a, err, sizeof(err)), -EINVAL);
}

/* An ACPI 2.0 RSDP pointing at an XSDT at 0x12345678abc; both sums right. */
static void build_rsdp_v2(u8 *r)
{
	u64 xsdt = 0x12345678abcUL;
	u8 sum = 0;

	memset(r, 0, 36);
	memcpy(r, "RSD PTR ", 8);
	r[15] = 2;				/* revision */
	put32(r + 20, 36);			/* length */
	memcpy(r + 24, &xsdt, 8);
	for (int i = 0; i < 20; i++)
		sum += r[i];
	r[8] = (u8)-sum;
	sum = 0;
	for (int i = 0; i < 36; i++)
		sum += r[i];
	r[32] = (u8)-sum;
}

KTEST(acpi_rsdp_v2_needs_both_checksums)
{
	u8 r[36];

	build_rsdp_v2(r);
	KT_EQ(acpi_rsdp_check(r, 36), 36);
	KT_EQ(acpi_rsdp_check(r, 20), 20);	/* only the 1.0 part at hand */
	r[30] ^= 1;				/* inside the extended part only */
	KT_EQ(acpi_rsdp_check(r, 36), 0);
	KT_EQ(acpi_rsdp_check(r, 20), 20);
	build_rsdp_v2(r);
	r[0] = 'X';
	KT_EQ(acpi_rsdp_check(r, 36), 0);
}

KTEST(acpi_bios_area_scan_finds_the_boot_loaders_rsdp)
{
	u8 found[36];
	size_t n = acpi_scan_for_rsdp(found);

	KT_GE(n, 20);	/* QEMU's SeaBIOS puts one in the BIOS area */
	KT_GE(boot_info.rsdp_version, 1);
	KT_EQ(memcmp(found, boot_info.rsdp, 20), 0);
}

KTEST(acpi_root_parser_reads_unaligned_xsdt_entries)
{
	phys_addr_t e[4];
	u64 a = 0x100000000fUL, b = 0x2000UL, zero = 0;

	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, "XSDT", 4);
	memcpy(tbl + 36, &a, 8);	/* at offset 36: 4-byte aligned only */
	memcpy(tbl + 44, &zero, 8);	/* a null entry is skipped */
	memcpy(tbl + 52, &b, 8);
	tbl_len = 60;
	size_t n = table_end();
	KT_EQ(acpi_parse_root(tbl, n, true, e, 4), 2);
	KT_EQ(e[0], a);
	KT_EQ(e[1], b);
	KT_EQ(acpi_parse_root(tbl, n, true, e, 1), 1);	/* never more than max */
	KT_EQ(acpi_parse_root(tbl, n, false, e, 4), -EINVAL);	/* not an RSDT */
	KT_EQ(acpi_parse_root(tbl, n - 1, true, e, 4), -EINVAL);	/* header too long */
}

/* A DSDT whose AML is just the given bytes after the header. */
static size_t build_dsdt(const u8 *aml, size_t n)
{
	memset(tbl, 0, sizeof(tbl));
	memcpy(tbl, "DSDT", 4);
	memcpy(tbl + 36, aml, n);
	tbl_len = 36 + n;
	return table_end();
}

KTEST(acpi_s5_found_after_name_op_with_byte_prefix)
{
	/* Name (_S5_, Package (4) { 5, 5, 0, 0 }) */
	static const u8 aml[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04,
				  0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00 };
	u8 typ = 0xff;

	KT_EQ(acpi_find_s5(tbl, build_dsdt(aml, sizeof(aml)), &typ), 0);
	KT_EQ(typ, 5);
}

KTEST(acpi_s5_found_with_root_prefix_and_zero_op)
{
	/* Name (\_S5_, Package (4) { Zero, Zero, Zero, Zero }), PkgLength in 2 bytes */
	static const u8 aml[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x46, 0x00, 0x04,
				  0x00, 0x00, 0x00, 0x00 };
	u8 typ = 0xff;

	KT_EQ(acpi_find_s5(tbl, build_dsdt(aml, sizeof(aml)), &typ), 0);
	KT_EQ(typ, 0);
}

KTEST(acpi_s5_not_found_without_name_op_or_package)
{
	static const u8 use_only[] = { 0x70, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a, 0x05 };
	static const u8 truncated[] = { 0x08, '_', 'S', '5', '_', 0x12 };
	u8 typ;

	KT_EQ(acpi_find_s5(tbl, build_dsdt(use_only, sizeof(use_only)), &typ), -ENOENT);
	KT_EQ(acpi_find_s5(tbl, build_dsdt(truncated, sizeof(truncated)), &typ), -ENOENT);
}

/* ---- The firmware's tables (QEMU's PC) ---- */

#define REQUIRE_ACPI()                                                         \
	do {                                                                   \
		if (acpi.ncpus == 0)                                           \
			KT_FAIL("acpi_init has not run: kmain must call "      \
				"acpi_platform_init");                         \
	} while (0)

KTEST(acpi_madt_cpu_count_matches_qemu_smp)
{
	u64 want = cmdline_get_u64("test.smp", 0);

	REQUIRE_ACPI();
	KT_GT(acpi.ncpus, 0);
	KT_EQ(acpi.ncpus_dropped, 0);
	if (want)	/* only a boot that says how many it asked for can check it */
		KT_EQ(acpi.ncpus, want);
	for (int i = 1; i < acpi.ncpus; i++)
		KT_NE(acpi.cpu_apic_id[i], acpi.cpu_apic_id[0]);
}

KTEST(acpi_tables_found_are_checksummed)
{
	size_t len = 0;

	REQUIRE_ACPI();
	const void *madt = acpi_find_table("APIC", 0, &len);
	KT_NOT_NULL(madt);
	KT_GE(len, 44);
	KT_ASSERT(acpi_checksum_ok(madt, len));
	KT_NULL(acpi_find_table("APIC", 1, &len));	/* one MADT only */
	KT_NULL(acpi_find_table("NONE", 0, &len));
}

KTEST(acpi_ioapic_exists_and_version_register_is_sane)
{
	REQUIRE_ACPI();
	KT_GE(acpi.nioapics, 1);
	KT_EQ(ioapic_count(), acpi.nioapics);
	u32 v = ioapic_version(0);
	KT_NE(v, 0xffffffff);			/* nothing on the bus reads all ones */
	KT_GE((v >> 16) & 0xff, 23);		/* QEMU's has 24 inputs */
	KT_GE(v & 0xff, 0x10);			/* an integrated APIC: 0x1X or 0x2X */
	KT_LE(v & 0xff, 0x2f);
}

KTEST(acpi_overrides_send_isa_irq0_to_gsi2)
{
	u16 flags;

	REQUIRE_ACPI();
	KT_EQ(acpi_isa_irq_to_gsi(0, &flags), 2);	/* QEMU's PIT sits on pin 2 */
	KT_EQ(acpi_isa_irq_to_gsi(4, &flags), 4);	/* COM1: no override */
	KT_EQ(flags, 0);
}

KTEST(acpi_fadt_gives_pm1a_port_and_s5_type)
{
	REQUIRE_ACPI();
	KT_NE(acpi.pm1a_cnt, 0);
	KT_ASSERT(acpi.s5_found);
}

KTEST(acpi_ioapic_masks_every_input_but_the_console)
{
	u16 flags;
	u32 console_gsi = acpi_isa_irq_to_gsi(4, &flags);
	u64 e;

	REQUIRE_ACPI();
	for (u32 gsi = 0; gsi < NR_IOAPIC_VECTORS; gsi++) {
		KT_EQ(ioapic_read_entry(gsi, &e), 0);
		if (gsi != console_gsi && !(e & IOAPIC_MASKED))
			KT_FAIL("GSI %u is unmasked (entry %#llx)", gsi, (unsigned long long)e);
	}
}

/* ---- Console input through the IRQ ---- */

KTEST(console_irq4_routed_edge_high_to_boot_cpu)
{
	u16 flags;
	u32 gsi = acpi_isa_irq_to_gsi(4, &flags);
	u64 e;

	if (!console_input_irq_driven())
		KT_FAIL("console_input_init has not run");
	KT_EQ(ioapic_read_entry(gsi, &e), 0);
	KT_EQ(e & 0xff, IRQ_VECTOR(gsi));
	KT_EQ(e & (IOAPIC_MASKED | IOAPIC_TRIGGER_LEVEL | IOAPIC_POLARITY_LOW), 0);
	KT_EQ(e >> 56, per_cpu(0)->apic_id);
}

/*
 * In the 16550's loopback mode a byte written to the transmitter comes
 * back on the receiver and raises the receive interrupt: the whole path
 * UART -> IOAPIC -> local APIC -> handler -> ring, with no keyboard. Our
 * own output is swallowed meanwhile, so nothing is printed until it ends.
 */
KTEST(console_loopback_byte_arrives_through_irq)
{
	int c = -1;

	if (!console_input_irq_driven())
		KT_FAIL("console_input_init has not run");
	while (console_getc() >= 0)	/* forget anything typed before */
		;
	u64 before = console_irq_count();
	unsigned long f = irq_save();
	uart_set_loopback(true);
	uart_putc('x');
	sti();
	for (u64 end = ktime_ns() + 100 * 1000 * 1000; ktime_ns() < end;) {
		c = console_getc();
		if (c == 'x')
			break;
		cpu_relax();
	}
	cli();
	uart_set_loopback(false);
	irq_restore(f);
	if (c != 'x')
		KT_FAIL("no 'x' within 100 ms (last byte %d, %llu interrupts before, %llu after)",
			c, (unsigned long long)before, (unsigned long long)console_irq_count());
	KT_GT(console_irq_count(), before);
}

/*
 * Power off through the FADT's PM1a port and the DSDT's _S5_: QEMU exits
 * without the kernel's exit line, which qemu-run reports as 126.
 */
KTEST_HARNESS(acpi_poweroff_turns_qemu_off, 126)
{
	acpi_poweroff();
	panic("acpi_poweroff returned (PM1a_CNT %#x, S5 %s)", acpi.pm1a_cnt,
	      acpi.s5_found ? "found" : "absent");
}
