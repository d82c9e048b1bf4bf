/*
 * mm_init.c - from the boot loader's memory map to a working allocator.
 *
 * Before the buddy allocator exists, memory comes from a bump allocator
 * over the usable ranges below 4 GiB (what the early page tables map) that
 * skips every reserved range; each early allocation is itself recorded as
 * reserved, so the hand-over to the buddy allocator simply gives away every
 * usable frame that no reservation covers.
 */
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/paging.h"
#include "kernel/multiboot.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"

struct mm_boot_stats mm_boot;
struct page *mem_map;
unsigned long max_pfn;

extern char __boot_start[], __kernel_end[];

#define LOW_LIMIT (4UL << 30)	/* early tables map only the first 4 GiB */

static void reserve(phys_addr_t start, phys_addr_t end, const char *what)
{
	if (mm_boot.nreserved == MM_MAX_RESERVED)
		panic("mm: more than %d reserved ranges", MM_MAX_RESERVED);
	struct mem_region *r = &mm_boot.reserved[mm_boot.nreserved++];
	r->start = ALIGN_DOWN(start, PAGE_SIZE);
	r->end = ALIGN_UP(end, PAGE_SIZE);
	r->what = what;
}

/* The lowest-starting reserved range overlapping [start, end), or NULL. */
static const struct mem_region *overlap(phys_addr_t start, phys_addr_t end)
{
	const struct mem_region *best = NULL;

	for (int i = 0; i < mm_boot.nreserved; i++) {
		const struct mem_region *r = &mm_boot.reserved[i];
		if (r->start < end && start < r->end && (!best || r->start < best->start))
			best = r;
	}
	return best;
}

/* early_alloc: size bytes (page-aligned) of usable RAM below 4 GiB, zeroed. */
static phys_addr_t early_alloc(size_t size, const char *what)
{
	size = ALIGN_UP(size, PAGE_SIZE);
	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		if (e->type != MB_MEM_USABLE)
			continue;
		phys_addr_t p = ALIGN_UP(e->addr, PAGE_SIZE);
		phys_addr_t end = MIN(ALIGN_DOWN(e->addr + e->len, PAGE_SIZE), LOW_LIMIT);
		while (p + size <= end) {
			const struct mem_region *r = overlap(p, p + size);
			if (!r) {
				reserve(p, p + size, what);
				memset(__va(p), 0, size);
				return p;
			}
			p = r->end;
		}
	}
	panic("mm: no %zu bytes of low memory for %s", size, what);
}

static phys_addr_t early_table(void)
{
	return early_alloc(PAGE_SIZE, "early page tables");
}

u64 mm_usable_pages_in(phys_addr_t start, phys_addr_t end)
{
	u64 n = 0;

	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		if (e->type != MB_MEM_USABLE)
			continue;
		phys_addr_t s = MAX(ALIGN_UP(e->addr, PAGE_SIZE), start);
		phys_addr_t t = MIN(ALIGN_DOWN(e->addr + e->len, PAGE_SIZE), end);
		if (s < t)
			n += (t - s) >> PAGE_SHIFT;
	}
	return n;
}

static void scan_memory_map(void)
{
	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		if (e->type != MB_MEM_USABLE)
			continue;
		mm_boot.usable_bytes += e->len;
		unsigned long end_pfn = ALIGN_DOWN(e->addr + e->len, PAGE_SIZE) >> PAGE_SHIFT;
		if (end_pfn > max_pfn)
			max_pfn = end_pfn;
	}
	mm_boot.usable_pages = mm_usable_pages_in(0, (phys_addr_t)max_pfn << PAGE_SHIFT);
	if (!max_pfn)
		panic("mm: the memory map has no usable RAM");
}

static void reserve_boot_ranges(void)
{
	reserve(0, 0x100000, "low 1 MiB (BIOS, real-mode trampoline)");
	reserve((phys_addr_t)__boot_start, (unsigned long)__kernel_end - KERNEL_VMA,
		"kernel image");
	reserve(boot_info.info_start, boot_info.info_end, "multiboot information");
	for (int i = 0; i < boot_info.nmods; i++)
		reserve(boot_info.mods[i].start, boot_info.mods[i].end, "module");
}

/* Give every usable frame outside the reserved ranges to the buddy allocator. */
static void free_usable_ranges(void)
{
	for (int i = 0; i < boot_info.nmmap; i++) {
		const struct mb_mmap_entry *e = &boot_info.mmap[i];
		if (e->type != MB_MEM_USABLE)
			continue;
		phys_addr_t p = ALIGN_UP(e->addr, PAGE_SIZE);
		phys_addr_t end = ALIGN_DOWN(e->addr + e->len, PAGE_SIZE);
		while (p < end) {
			const struct mem_region *r = overlap(p, end);
			phys_addr_t stop = r ? MAX(r->start, p) : end;
			if (stop > p) {
				page_alloc_free_range(p >> PAGE_SHIFT, stop >> PAGE_SHIFT);
				mm_boot.freed_pages += (stop - p) >> PAGE_SHIFT;
			}
			p = r ? MAX(r->end, p) : end;
		}
	}
}

void mm_init(void)
{
	scan_memory_map();
	reserve_boot_ranges();
	paging_init(early_table);
	mm_boot.memmap_bytes = (u64)max_pfn * sizeof(struct page);
	mem_map = __va(early_alloc(mm_boot.memmap_bytes, "mem_map"));
	page_alloc_init(mem_map, max_pfn);
	free_usable_ranges();
	paging_use_buddy();
}
