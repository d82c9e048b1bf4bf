/*
 * paging.c - build and edit x86-64 page tables.
 *
 * Lock order: none yet. The kernel half is built once at boot on one CPU;
 * pt_* helpers on a shared PML4 must be serialized by the caller (the
 * address space's lock, to come). TLB flushes here are local only: cross-CPU
 * shootdown arrives with SMP.
 */
#include "mm/paging.h"
#include "mm/page.h"
#include "kernel/multiboot.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/x86.h"
#include "kernel/cmdline.h"

CMDLINE_KEY(vm_pte_plain_rmw, "vm.debug_pte_plain_rmw",
	    "test of the tests: PTE updates are a plain load and store (the MMU's A/D bits get lost)");

bool pte_plain_rmw;			/* [I] after paging_use_buddy */
void (*pte_rmw_window)(pte_t *pte);	/* [P] a test's hook */

pte_t pte_plain_update(pte_t *pte, pte_t clear, pte_t set, const pte_t *expect)
{
	pte_t v = READ_ONCE(*pte);
	if (expect && v != *expect)
		return v;
	void (*window)(pte_t *) = READ_ONCE(pte_rmw_window);
	if (window)
		window(pte);
	WRITE_ONCE(*pte, (v & ~clear) | set);
	return v;
}

u64 *kernel_pml4;
struct paging_features paging_features;
static phys_addr_t (*table_source)(void);	/* [I] early allocator, then buddy */

extern char __kernel_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __kernel_end[];

phys_addr_t __pa(const void *va)
{
	unsigned long v = (unsigned long)va;
	phys_addr_t pa;

	if (v >= KERNEL_VMA)
		return v - KERNEL_VMA;
	if (v >= DIRECT_MAP_BASE && v < VMAP_BASE)
		return v - DIRECT_MAP_BASE;
	if (kernel_pml4 && pt_translate(kernel_pml4, v, &pa, NULL))
		return pa;
	panic("__pa: %#lx is not a kernel address", v);
}

static phys_addr_t buddy_table(void)
{
	struct page *p = alloc_page_zeroed();
	return p ? page_to_phys(p) : 0;
}

void paging_use_buddy(void)
{
	pte_plain_rmw = cmdline_get("vm.debug_pte_plain_rmw") != NULL;
	table_source = buddy_table;
}

static inline int index_at(unsigned long va, int level)
{
	return (va >> (12 + 9 * level)) & 511;	/* level 3 = PML4 .. 0 = PT */
}

/* Next-level table for entry e, allocating it if asked. NULL if none. */
static u64 *next_table(u64 *e, bool create)
{
	u64 v = READ_ONCE(*e);		/* walks without pt_lock read it too (mm/fault.c) */
	if (v & PTE_P)
		return (v & PTE_PS) ? NULL : __va(v & PTE_ADDR_MASK);
	if (!create)
		return NULL;
	phys_addr_t t = table_source();
	if (!t)
		return NULL;
	memset(__va(t), 0, PAGE_SIZE);
	paging_features.tables++;
	/* Upper levels are permissive; the leaf decides (Intel SDM 4.6).
	 * Release: the zeroed table before the entry that publishes it to a
	 * lockless walker. x86-64: a plain mov after a compiler barrier. */
	smp_store_release(e, t | PTE_P | PTE_W | PTE_U);
	return __va(t);
}

pte_t *pt_walk(u64 *pml4, unsigned long va, bool create)
{
	u64 *t = pml4;

	for (int level = 3; level > 0; level--) {
		t = next_table(&t[index_at(va, level)], create);
		if (!t)
			return NULL;
	}
	return &t[index_at(va, 0)];
}

/* Map one large page (level 2 = 1 GiB in the PDPT, 1 = 2 MiB in the PD). */
static void map_large(u64 *pml4, unsigned long va, phys_addr_t pa, int level, u64 prot)
{
	u64 *t = pml4;

	for (int l = 3; l > level; l--) {
		t = next_table(&t[index_at(va, l)], true);
		if (!t)
			panic("paging: out of memory for the direct map");
	}
	u64 *e = &t[index_at(va, level)];
	if (!(*e & PTE_P))
		*e = pa | PTE_P | PTE_PS | prot;
}

int pt_map_range(u64 *pml4, unsigned long va, phys_addr_t pa, size_t len, u64 prot)
{
	for (size_t off = 0; off < len; off += PAGE_SIZE) {
		pte_t *pte = pt_walk(pml4, va + off, true);
		if (!pte)
			return -ENOMEM;
		if (*pte & PTE_P)
			return -EEXIST;
		WRITE_ONCE(*pte, (pa + off) | PTE_P | prot);
	}
	return 0;
}

long pt_unmap_range(u64 *pml4, unsigned long va, size_t len)
{
	long n = 0;

	for (size_t off = 0; off < len; off += PAGE_SIZE) {
		pte_t *pte = pt_walk(pml4, va + off, false);
		if (pte && (*pte & PTE_P)) {
			WRITE_ONCE(*pte, 0);
			invlpg(va + off);
			n++;
		}
	}
	return n;
}

int pt_protect_range(u64 *pml4, unsigned long va, size_t len, u64 prot)
{
	for (size_t off = 0; off < len; off += PAGE_SIZE) {
		pte_t *pte = pt_walk(pml4, va + off, false);
		if (!pte || !(*pte & PTE_P))
			return -ENOENT;
		WRITE_ONCE(*pte, (*pte & PTE_ADDR_MASK) | PTE_P | prot);
		invlpg(va + off);
	}
	return 0;
}

bool pt_translate(u64 *pml4, unsigned long va, phys_addr_t *pa, u64 *flags)
{
	u64 *t = pml4;

	for (int level = 3; level >= 0; level--) {
		u64 e = READ_ONCE(t[index_at(va, level)]);
		if (!(e & PTE_P))
			return false;
		if (level == 0 || (level <= 2 && (e & PTE_PS))) {
			u64 span = 1UL << (12 + 9 * level);
			if (pa)
				*pa = (e & PTE_ADDR_MASK & ~(span - 1)) | (va & (span - 1));
			if (flags)
				*flags = e & PTE_FLAGS_MASK;
			return true;
		}
		t = __va(e & PTE_ADDR_MASK);
	}
	return false;
}

static bool is_ram(u32 type)
{
	return type == MB_MEM_USABLE || type == MB_MEM_ACPI || type == MB_MEM_NVS;
}

/* True if the PDPT entry covering va already points to a page directory. */
static bool gb_slot_has_table(unsigned long va)
{
	u64 e = kernel_pml4[index_at(va, 3)];

	if (!(e & PTE_P))
		return false;
	u64 *pdpt = __va(e & PTE_ADDR_MASK);
	e = pdpt[index_at(va, 2)];
	return (e & PTE_P) && !(e & PTE_PS);
}

/*
 * Direct map of every RAM range, rounded out to 2 MiB, largest pages first.
 * A 1 GiB slot that an earlier range already split into 2 MiB pages (the
 * first GiB always is: RAM below 640 KiB comes first) is filled with 2 MiB
 * pages too.
 */
static void map_direct(void)
{
	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		if (!is_ram(e->type) || !e->len)
			continue;
		u64 pa = ALIGN_DOWN(e->addr, PAGE_SIZE_2M);
		u64 end = ALIGN_UP(e->addr + e->len, PAGE_SIZE_2M);
		while (pa < end) {
			bool gb = paging_features.gb_pages && !(pa & (PAGE_SIZE_1G - 1)) &&
				  end - pa >= PAGE_SIZE_1G &&
				  !gb_slot_has_table(DIRECT_MAP_BASE + pa);
			u64 step = gb ? PAGE_SIZE_1G : PAGE_SIZE_2M;
			map_large(kernel_pml4, DIRECT_MAP_BASE + pa, pa, gb ? 2 : 1,
				  PTE_W | PTE_G | PTE_NX);
			pa += step;
		}
		if (end > paging_features.direct_map_bytes)
			paging_features.direct_map_bytes = end;
	}
}

static void map_image(char *start, char *end, u64 prot)
{
	unsigned long va = (unsigned long)start;
	size_t len = ALIGN_UP((unsigned long)end, PAGE_SIZE) - va;

	if (pt_map_range(kernel_pml4, va, va - KERNEL_VMA, len, prot))
		panic("paging: cannot map the kernel image");
}

static void detect_features(void)
{
	u32 a, b, c, d;

	cpuid(0x80000001, 0, &a, &b, &c, &d);
	paging_features.gb_pages = d & (1u << 26);
	paging_features.nx = d & (1u << 20);
	cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		paging_features.smep = b & (1u << 7);
		paging_features.smap = b & (1u << 20);
	}
	paging_features.pge = true;	/* every x86-64 CPU has PGE */
}

void paging_init(phys_addr_t (*alloc_table)(void))
{
	table_source = alloc_table;
	detect_features();
	if (!paging_features.nx)
		panic("paging: CPU lacks NX; Roundabout maps data no-execute");
	kernel_pml4 = __va(table_source());
	memset(kernel_pml4, 0, PAGE_SIZE);
	paging_features.tables = 1;
	map_direct();
	map_image(__kernel_start, __text_end, PROT_KERNEL_RX);
	map_image(__rodata_start, __rodata_end, PROT_KERNEL_RO);
	map_image(__data_start, __kernel_end, PROT_KERNEL_RW);
	/* The vmap area's top-level table exists up front, so every address
	 * space that copies the kernel half sees later vmap mappings. */
	next_table(&kernel_pml4[index_at(VMAP_BASE, 3)], true);

	write_cr4(read_cr4() | CR4_PGE);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(__pa(kernel_pml4));
	u64 cr4 = read_cr4();
	if (paging_features.smep)
		cr4 |= CR4_SMEP;
	if (paging_features.smap)
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
}
