/*
 * acpi.c - finding, checking and parsing the firmware's ACPI tables.
 *
 * The chain, each link checked before it is followed (docs/acpi.md):
 *
 *   RSDP  (boot loader's copy, else found in the BIOS area; checksummed)
 *    -> XSDT (64-bit entries; ACPI 2.0+) or RSDT (32-bit entries)
 *        -> "APIC" the MADT: CPUs, IOAPICs, ISA interrupt overrides
 *        -> "FACP" the FADT: PM1a control port, the DSDT's address
 *            -> "DSDT": AML; we only look for the _S5_ package in it
 *
 * Firmware tables may lie outside the direct map (which covers RAM only),
 * so every table is reached through ioremap: first its 36-byte header, to
 * learn its length, then the whole table. Mappings are never freed; each
 * table is mapped and checked once, by acpi_init, and remembered in a
 * small directory that later lookups only read.
 *
 * Lock legend: everything here is [I], written by acpi_init on the boot
 * CPU before the other CPUs start and read-only afterwards.
 */
#include "drivers/acpi.h"
#include "drivers/pic.h"
#include "drivers/ioapic.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/multiboot.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "mm/mm.h"

struct acpi_info acpi;

CMDLINE_KEY(acpi_bad_checksum, "debug.acpi_bad_checksum",
	    "treat the table with this signature (APIC, RSDT, ...; RSDP: the boot loader's copy) as corrupt, to test the failure paths");

/* The Root System Description Pointer: 20 bytes in ACPI 1.0, 36 after. */
struct rsdp {
	char sig[8];		/* "RSD PTR " */
	u8 checksum;		/* over the first 20 bytes */
	char oem_id[6];
	u8 revision;		/* 0: ACPI 1.0; 2: 2.0 and later */
	u32 rsdt;
	u32 length;		/* 2.0+: of the whole structure */
	u64 xsdt;
	u8 ext_checksum;	/* 2.0+: over all `length` bytes */
	u8 reserved[3];
} __packed;

#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36
#define BIOS_ROM_START 0xe0000
#define BIOS_ROM_END 0x100000
#define EBDA_SEGMENT_PTR 0x40e
#define ACPI_MAX_TABLE_LEN (4UL << 20)	/* anything longer is a corrupt header */
#define ACPI_MAX_TABLES 48

enum table_state { TABLE_GOOD, TABLE_BAD_LENGTH, TABLE_UNMAPPED, TABLE_BAD_SUM };

/*
 * The table directory: every table the root table lists, plus the DSDT,
 * each mapped in full and checked as acpi_init finds it.
 */
struct acpi_table {
	char sig[4];		/* [I] */
	phys_addr_t pa;		/* [I] */
	u32 len;		/* [I] from its header */
	const void *map;	/* [I] the whole table, if state allowed mapping it */
	enum table_state state;	/* [I] */
};
static struct acpi_table tables[ACPI_MAX_TABLES];	/* [I] */
static int ntables;					/* [I] */

/* Unaligned little-endian reads: ACPI structures are byte-packed. */
static u16 rd16(const u8 *p) { u16 v; memcpy(&v, p, 2); return v; }
static u32 rd32(const u8 *p) { u32 v; memcpy(&v, p, 4); return v; }
static u64 rd64(const u8 *p) { u64 v; memcpy(&v, p, 8); return v; }

static u8 byte_sum(const void *t, size_t len)
{
	const u8 *p = t;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += p[i];
	return sum;
}

bool acpi_checksum_ok(const void *t, size_t len)
{
	return byte_sum(t, len) == 0;
}

/* The name a reader knows a table by ("MADT"), for messages. */
static const char *table_name(const char *sig)
{
	if (!memcmp(sig, "APIC", 4))
		return "MADT";
	if (!memcmp(sig, "FACP", 4))
		return "FADT";
	return NULL;
}

static void describe(char *buf, size_t size, const char *sig)
{
	const char *name = table_name(sig);

	if (name)
		snprintf(buf, size, "%s (%.4s)", name, sig);
	else
		snprintf(buf, size, "%.4s", sig);
}

/* ---- Finding the RSDP ---- */

/* debug.acpi_bad_checksum=SIG: a deliberately broken boot for the tests. */
static bool pretend_corrupt(const char *sig)
{
	const char *v = cmdline_get("debug.acpi_bad_checksum");

	return v && strlen(v) == 4 && !memcmp(v, sig, 4);
}

size_t acpi_rsdp_check(const void *p, size_t avail)
{
	const struct rsdp *r = p;

	if (avail < RSDP_V1_LEN || memcmp(r->sig, "RSD PTR ", 8))
		return 0;
	if (!acpi_checksum_ok(r, RSDP_V1_LEN))
		return 0;
	if (r->revision < 2 || avail < RSDP_V2_LEN)
		return RSDP_V1_LEN;
	if (r->length < RSDP_V2_LEN || !acpi_checksum_ok(r, RSDP_V2_LEN))
		return 0;
	return RSDP_V2_LEN;
}

/* Scan [start, end) of low memory on 16-byte boundaries for a good RSDP. */
static size_t scan_range(phys_addr_t start, phys_addr_t end, void *out)
{
	for (phys_addr_t pa = ALIGN_UP(start, 16); pa + RSDP_V1_LEN <= end; pa += 16) {
		size_t n = acpi_rsdp_check(__va(pa), end - pa);
		if (n) {
			memset(out, 0, RSDP_V2_LEN);
			memcpy(out, __va(pa), n);
			pr_debug("acpi: RSDP at %#llx", (unsigned long long)pa);
			return n;
		}
	}
	return 0;
}

size_t acpi_scan_for_rsdp(void *out)
{
	/* The real-mode segment of the EBDA is kept at 0x40e; low memory is
	 * in the direct map. */
	phys_addr_t ebda = (phys_addr_t)rd16(__va(EBDA_SEGMENT_PTR)) << 4;
	size_t n = 0;

	if (ebda >= 0x400 && ebda < BIOS_ROM_START)
		n = scan_range(ebda, ebda + 1024, out);
	return n ? n : scan_range(BIOS_ROM_START, BIOS_ROM_END, out);
}

/*
 * Fill *out with a checked RSDP: the boot loader's copy if it is good,
 * else one found in the BIOS area. Returns its good length, 0 if none.
 */
static size_t find_rsdp(struct rsdp *out)
{
	size_t have = boot_info.rsdp_version == 2 ? RSDP_V2_LEN :
		      boot_info.rsdp_version == 1 ? RSDP_V1_LEN : 0;
	size_t n = have && !pretend_corrupt("RSDP") ? acpi_rsdp_check(boot_info.rsdp, have) : 0;

	if (n) {
		memset(out, 0, sizeof(*out));
		memcpy(out, boot_info.rsdp, n);
		return n;
	}
	if (have)
		pr_warn("acpi: the boot loader's RSDP copy is corrupt; scanning the BIOS area");
	return acpi_scan_for_rsdp(out);
}

/* ---- The table directory ---- */

/* Map a table's header and return its length (0 if it cannot be mapped). */
static u32 header_length(phys_addr_t pa, char sig[4])
{
	const struct acpi_header *h = ioremap(pa, sizeof(*h));

	memset(sig, 0, 4);
	if (!h)
		return 0;
	memcpy(sig, h->sig, 4);
	return h->length;
}

/* Map the table at t->pa: its header, then all of it; then check its sum. */
static void table_load(struct acpi_table *t)
{
	t->len = header_length(t->pa, t->sig);
	t->map = NULL;
	if (t->len < sizeof(struct acpi_header) || t->len > ACPI_MAX_TABLE_LEN) {
		t->state = TABLE_BAD_LENGTH;
		return;
	}
	t->map = ioremap(t->pa, t->len);
	if (!t->map)
		t->state = TABLE_UNMAPPED;
	else if (!acpi_checksum_ok(t->map, t->len) || pretend_corrupt(t->sig))
		t->state = TABLE_BAD_SUM;
	else
		t->state = TABLE_GOOD;
}

/* Add the table at pa to the directory, loading it now. */
static void add_table(phys_addr_t pa)
{
	if (ntables == ACPI_MAX_TABLES) {
		pr_warn("acpi: %d tables already; ignoring the one at %#llx",
			ACPI_MAX_TABLES, (unsigned long long)pa);
		return;
	}
	tables[ntables].pa = pa;
	table_load(&tables[ntables++]);
}

/* The good table's mapping, or NULL with what is wrong with it in err. */
static const void *table_check(const struct acpi_table *t, char *err, size_t errlen)
{
	char name[16];
	unsigned long long pa = t->pa;

	describe(name, sizeof(name), t->sig);
	switch (t->state) {
	case TABLE_GOOD:
		return t->map;
	case TABLE_BAD_LENGTH:
		snprintf(err, errlen, "%s at %#llx has an impossible length %u", name, pa, t->len);
		break;
	case TABLE_UNMAPPED:
		snprintf(err, errlen, "%s at %#llx cannot be mapped", name, pa);
		break;
	case TABLE_BAD_SUM:
		snprintf(err, errlen, "%s checksum is wrong (sum %#x, must be 0; table at %#llx)%s",
			 name, byte_sum(t->map, t->len), pa,
			 pretend_corrupt(t->sig) ? " [debug.acpi_bad_checksum]" : "");
		break;
	}
	return NULL;
}

/*
 * The n-th table with signature sig. Returns 0 with *out and *len set,
 * -ENOENT if there is none, -EINVAL (reason in err) if it is corrupt.
 */
static int table_lookup(const char *sig, int n, const void **out, size_t *len,
			char *err, size_t errlen)
{
	for (int i = 0; i < ntables; i++) {
		if (memcmp(tables[i].sig, sig, 4) || n-- > 0)
			continue;
		*out = table_check(&tables[i], err, errlen);
		if (!*out)
			return -EINVAL;
		*len = tables[i].len;
		return 0;
	}
	snprintf(err, errlen, "no %.4s table", sig);
	return -ENOENT;
}

const void *acpi_find_table(const char *sig, int n, size_t *len)
{
	const void *t;
	char err[128];

	int r = table_lookup(sig, n, &t, len, err, sizeof(err));
	if (r == -EINVAL)
		pr_warn("acpi: %s", err);
	return r ? NULL : t;
}

int acpi_parse_root(const void *root, size_t len, bool xsdt, phys_addr_t *out, int max)
{
	const u8 *t = root;
	size_t esize = xsdt ? 8 : 4;
	int n = 0;

	if (len < sizeof(struct acpi_header) || memcmp(t, xsdt ? "XSDT" : "RSDT", 4) ||
	    rd32(t + 4) > len)
		return -EINVAL;
	len = rd32(t + 4);
	/* XSDT entries sit at offset 36 + 8i: not 8-byte aligned, so rd64. */
	for (size_t off = sizeof(struct acpi_header); off + esize <= len && n < max;
	     off += esize) {
		phys_addr_t e = xsdt ? rd64(t + off) : rd32(t + off);
		if (e)
			out[n++] = e;
	}
	return n;
}

/*
 * Read the root table (RSDT or XSDT) at pa into the directory. Panics if
 * it is missing or corrupt: without it there is nothing to find.
 */
static void read_root(phys_addr_t pa, bool xsdt)
{
	const char *want = xsdt ? "XSDT" : "RSDT";
	struct acpi_table root = { .pa = pa };
	phys_addr_t entries[ACPI_MAX_TABLES];
	char err[128];

	if (!pa)
		panic("acpi: the RSDP gives no %s address", want);
	table_load(&root);
	if (memcmp(root.sig, want, 4))
		panic("acpi: no %s at %#llx (signature '%.4s')", want,
		      (unsigned long long)pa, root.sig);
	const void *t = table_check(&root, err, sizeof(err));
	if (!t)
		panic("acpi: %s", err);
	/* One slot stays free for the DSDT, which only the FADT points to. */
	int n = acpi_parse_root(t, root.len, xsdt, entries, ACPI_MAX_TABLES - 1);
	if (n < 0)
		panic("acpi: %s at %#llx is malformed", want, (unsigned long long)pa);
	if (n == ACPI_MAX_TABLES - 1)
		pr_warn("acpi: the %s may list more tables than the %d kept", want, n);
	for (int i = 0; i < n; i++)
		add_table(entries[i]);
}

/* ---- The MADT ---- */

#define MADT_HEADER_LEN 44	/* ACPI header, local APIC address, flags */
#define MADT_PCAT_COMPAT 0x1
#define MADT_LAPIC 0
#define MADT_IOAPIC 1
#define MADT_OVERRIDE 2
#define MADT_LAPIC_ADDR 5
#define MADT_X2APIC 9
#define LAPIC_ENABLED 0x1
#define LAPIC_ONLINE_CAPABLE 0x2

static int bad_madt(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad_madt(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * A processor entry (type 0 or 9). Enabled CPUs are kept in MADT order, up
 * to MAX_CPUS; an id listed twice (firmware may give a CPU both kinds of
 * entry) counts once. Online-capable CPUs are absent now: only counted.
 */
static void madt_cpu(struct acpi_info *out, u32 apic_id, u32 flags)
{
	if (!(flags & LAPIC_ENABLED)) {
		if (flags & LAPIC_ONLINE_CAPABLE)
			out->ncpus_hotplug++;
		return;
	}
	for (int i = 0; i < out->ncpus; i++)
		if (out->cpu_apic_id[i] == apic_id)
			return;
	if (out->ncpus < MAX_CPUS)
		out->cpu_apic_id[out->ncpus++] = apic_id;
	else
		out->ncpus_dropped++;
}

/* Minimum length of each entry type we read; 0 for types we skip. */
static u8 madt_entry_min_len(u8 type)
{
	switch (type) {
	case MADT_LAPIC: return 8;
	case MADT_IOAPIC: return 12;
	case MADT_OVERRIDE: return 10;
	case MADT_LAPIC_ADDR: return 12;
	case MADT_X2APIC: return 16;
	default: return 0;
	}
}

/* One entry e (already bounds-checked) at offset off. */
static int madt_entry(const u8 *e, size_t off, struct acpi_info *out, char *err, size_t errlen)
{
	switch (e[0]) {
	case MADT_LAPIC:
		madt_cpu(out, e[3], rd32(e + 4));
		break;
	case MADT_X2APIC:
		madt_cpu(out, rd32(e + 4), rd32(e + 8));
		break;
	case MADT_IOAPIC:
		if (out->nioapics == ACPI_MAX_IOAPICS)
			return bad_madt(err, errlen, "more than %d IOAPICs (entry at offset %zu)",
					ACPI_MAX_IOAPICS, off);
		out->ioapic[out->nioapics++] = (struct acpi_ioapic){
			.id = e[2], .phys = rd32(e + 4), .gsi_base = rd32(e + 8) };
		break;
	case MADT_OVERRIDE:
		if (out->noverrides == ACPI_MAX_OVERRIDES)
			return bad_madt(err, errlen, "more than %d overrides (entry at offset %zu)",
					ACPI_MAX_OVERRIDES, off);
		out->override[out->noverrides++] = (struct acpi_override){
			.bus = e[2], .source = e[3], .gsi = rd32(e + 4), .flags = rd16(e + 8) };
		break;
	case MADT_LAPIC_ADDR:
		out->lapic_phys = rd64(e + 4);
		break;
	}
	return 0;
}

static void madt_reset(struct acpi_info *out)
{
	out->lapic_phys = 0;
	out->pcat_compat = false;
	out->ncpus = out->ncpus_dropped = out->ncpus_hotplug = 0;
	out->nioapics = out->noverrides = 0;
}

int acpi_parse_madt(const void *madt, size_t len, struct acpi_info *out,
		    char *err, size_t errlen)
{
	const u8 *t = madt;
	u64 addr_override = 0;

	madt_reset(out);
	if (len < MADT_HEADER_LEN)
		return bad_madt(err, errlen, "%zu bytes is too short for a MADT", len);
	size_t tlen = rd32(t + 4);
	if (tlen < MADT_HEADER_LEN || tlen > len)
		return bad_madt(err, errlen, "header length %zu is outside 44..%zu", tlen, len);
	out->lapic_phys = rd32(t + 36);
	out->pcat_compat = rd32(t + 40) & MADT_PCAT_COMPAT;
	for (size_t off = MADT_HEADER_LEN; off < tlen; off += t[off + 1]) {
		if (off + 2 > tlen)
			return bad_madt(err, errlen, "entry at offset %zu runs past the table", off);
		u8 elen = t[off + 1];
		if (elen < 2 || off + elen > tlen)
			return bad_madt(err, errlen, "entry at offset %zu (type %u) has length %u,"
					" table length %zu", off, t[off], elen, tlen);
		if (elen < madt_entry_min_len(t[off]))
			return bad_madt(err, errlen, "entry at offset %zu (type %u) is too short (%u)",
					off, t[off], elen);
		if (t[off] == MADT_LAPIC_ADDR)
			addr_override = rd64(t + off + 4);
		else if (madt_entry(t + off, off, out, err, errlen))
			return -EINVAL;
	}
	if (addr_override)
		out->lapic_phys = addr_override;
	return 0;
}

/* ---- The FADT and the DSDT's _S5_ ---- */

#define FADT_DSDT 40		/* u32 */
#define FADT_PM1A_CNT 64	/* u32, an I/O port */
#define FADT_X_DSDT 140		/* u64, ACPI 2.0+ */
#define AML_NAME_OP 0x08
#define AML_PACKAGE_OP 0x12
#define AML_ZERO_OP 0x00
#define AML_ONE_OP 0x01
#define AML_BYTE_PREFIX 0x0a
#define AML_WORD_PREFIX 0x0b
#define AML_DWORD_PREFIX 0x0c
#define AML_ROOT_CHAR '\\'
#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_EN (1u << 13)

/*
 * Decode the package after "_S5_" at a[p..len): PackageOp, PkgLength
 * (its lead byte's top two bits count the bytes that follow), NumElements,
 * then the first element, an integer. 0 with *v set, or -ENOENT.
 */
static int s5_package(const u8 *a, size_t p, size_t len, u8 *v)
{
	if (p >= len || a[p] != AML_PACKAGE_OP)
		return -ENOENT;
	p++;
	if (p >= len)
		return -ENOENT;
	p += 1 + (a[p] >> 6);	/* PkgLength */
	p++;			/* NumElements */
	if (p >= len)
		return -ENOENT;
	switch (a[p]) {
	case AML_ZERO_OP:
	case AML_ONE_OP:
		*v = a[p];
		return 0;
	case AML_BYTE_PREFIX:
	case AML_WORD_PREFIX:
	case AML_DWORD_PREFIX:
		if (p + 1 >= len)	/* only the low byte matters: SLP_TYP is 3 bits */
			return -ENOENT;
		*v = a[p + 1];
		return 0;
	default:
		return -ENOENT;
	}
}

int acpi_find_s5(const void *dsdt, size_t len, u8 *slp_typa)
{
	const u8 *a = dsdt;

	/* The usual byte-level scan, not an AML interpreter: look for the
	 * name "_S5_" right after NameOp (or NameOp and a root prefix). */
	for (size_t i = sizeof(struct acpi_header); i + 4 <= len; i++) {
		if (memcmp(a + i, "_S5_", 4))
			continue;
		bool named = a[i - 1] == AML_NAME_OP ||
			     (a[i - 1] == AML_ROOT_CHAR && a[i - 2] == AML_NAME_OP);
		u8 v;
		if (named && !s5_package(a, i + 4, len, &v)) {
			*slp_typa = v & 7;
			return 0;
		}
	}
	return -ENOENT;
}

/* Read the FADT (if any and good) and the S5 sleep type from its DSDT. */
static void read_fadt(void)
{
	const u8 *f;
	size_t len;
	char err[128];

	if (table_lookup("FACP", 0, (const void **)&f, &len, err, sizeof(err))) {
		pr_warn("acpi: %s; acpi_poweroff will not work", err);
		return;
	}
	if (len >= FADT_PM1A_CNT + 4)
		acpi.pm1a_cnt = rd32(f + FADT_PM1A_CNT);
	phys_addr_t dsdt = len >= FADT_DSDT + 4 ? rd32(f + FADT_DSDT) : 0;
	if (len >= FADT_X_DSDT + 8 && rd64(f + FADT_X_DSDT))
		dsdt = rd64(f + FADT_X_DSDT);
	if (!dsdt) {
		pr_warn("acpi: the FADT gives no DSDT; acpi_poweroff will not work");
		return;
	}
	add_table(dsdt);
	const void *d = acpi_find_table("DSDT", 0, &len);
	acpi.s5_found = d && !acpi_find_s5(d, len, &acpi.slp_typa);
	if (d && !acpi.s5_found)
		pr_warn("acpi: the DSDT has no _S5_ package; acpi_poweroff will not work");
}

void acpi_poweroff(void)
{
	if (!acpi.pm1a_cnt || acpi.pm1a_cnt > 0xffff || !acpi.s5_found)
		return;
	outw((u16)acpi.pm1a_cnt, (u16)(acpi.slp_typa << PM1_SLP_TYP_SHIFT | PM1_SLP_EN));
	udelay(1000 * 1000);	/* the machine goes off meanwhile, or it did not */
}

/* ---- Putting it together ---- */

static void read_madt(void)
{
	const void *m;
	size_t len;
	char err[128];

	int r = table_lookup("APIC", 0, &m, &len, err, sizeof(err));
	if (r == -ENOENT)
		panic("acpi: no MADT (APIC) table: cannot find the CPUs and IOAPICs");
	if (r)
		panic("acpi: %s", err);
	if (acpi_parse_madt(m, len, &acpi, err, sizeof(err)))
		panic("acpi: MADT (APIC) is malformed: %s", err);
	if (acpi.ncpus == 0)
		panic("acpi: the MADT lists no enabled CPU");
	if (acpi.nioapics == 0)
		panic("acpi: the MADT lists no IOAPIC");
	if (acpi.ncpus_dropped)
		pr_warn("acpi: %d more CPUs than MAX_CPUS (%d); using the first %d",
			acpi.ncpus_dropped, MAX_CPUS, MAX_CPUS);
}

static void print_summary(void)
{
	printk("acpi: %d CPU%s, %d IOAPIC%s, %d override%s, revision %d (%s)", acpi.ncpus,
	       acpi.ncpus == 1 ? "" : "s", acpi.nioapics, acpi.nioapics == 1 ? "" : "s",
	       acpi.noverrides, acpi.noverrides == 1 ? "" : "s", acpi.revision,
	       acpi.xsdt ? "XSDT" : "RSDT");
	for (int i = 0; i < acpi.nioapics; i++)
		pr_debug("acpi: IOAPIC id %u at %#x, GSI base %u", acpi.ioapic[i].id,
			 acpi.ioapic[i].phys, acpi.ioapic[i].gsi_base);
	for (int i = 0; i < acpi.noverrides; i++)
		pr_debug("acpi: ISA IRQ %u -> GSI %u, flags %#x", acpi.override[i].source,
			 acpi.override[i].gsi, acpi.override[i].flags);
	pr_debug("acpi: local APIC at %#llx, PM1a_CNT %#x, S5 %s (SLP_TYPa %u)",
		 (unsigned long long)acpi.lapic_phys, acpi.pm1a_cnt,
		 acpi.s5_found ? "found" : "absent", acpi.slp_typa);
}

void acpi_init(void)
{
	struct rsdp r;
	size_t n = find_rsdp(&r);

	if (!n)
		panic("acpi: no RSDP with a good checksum (boot loader copy: %s; BIOS area: none)",
		      boot_info.rsdp_version ? "corrupt" : "absent");
	acpi.revision = r.revision;
	acpi.xsdt = n == RSDP_V2_LEN && r.xsdt != 0;
	if (acpi.xsdt)
		read_root(r.xsdt, true);
	else
		read_root(r.rsdt, false);
	read_madt();
	read_fadt();
	print_summary();
}

u32 acpi_isa_irq_to_gsi(int irq, u16 *flags)
{
	for (int i = 0; i < acpi.noverrides; i++) {
		const struct acpi_override *o = &acpi.override[i];
		if (o->bus == 0 && o->source == irq) {
			*flags = o->flags;
			return o->gsi;
		}
	}
	*flags = 0;
	return (u32)irq;
}

void acpi_platform_init(void)
{
	acpi_init();
	pic_disable();
	ioapic_init();
}
