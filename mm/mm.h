/*
 * mm.h - bringing memory up at boot, and what it found.
 *
 * mm_init runs once on the boot CPU: it reserves every range the allocator
 * must never hand out (low 1 MiB, kernel image, boot information block,
 * modules), builds the final page tables, places mem_map, and gives every
 * remaining usable frame to the buddy allocator.
 */
#ifndef MM_MM_H
#define MM_MM_H

#include "kernel/types.h"

struct mem_region {
	phys_addr_t start, end;	/* [start, end), page-aligned */
	const char *what;
};

#define MM_MAX_RESERVED 32

struct mm_boot_stats {
	u64 usable_bytes;	/* sum of the memory map's usable ranges */
	u64 usable_pages;	/* whole frames inside those ranges */
	u64 freed_pages;	/* frames handed to the buddy allocator */
	u64 memmap_bytes;	/* size of mem_map */
	int nreserved;
	struct mem_region reserved[MM_MAX_RESERVED];	/* incl. early allocations */
};

extern struct mm_boot_stats mm_boot;	/* [I] after mm_init */

void mm_init(void);
/* Frames of [start, end) that lie in usable RAM (for accounting and tests). */
u64 mm_usable_pages_in(phys_addr_t start, phys_addr_t end);

/*
 * vmap_alloc_stack: a kernel stack of `pages` pages in the vmap area with an
 * unmapped guard page below it. Returns the stack top, or NULL.
 */
void *vmap_alloc_stack(unsigned pages);
/* True if addr lies in a guard page of the vmap area. */
bool vmap_is_guard(unsigned long addr);

#define KSTACK_PAGES 4

/*
 * ioremap: map len bytes of device memory (or firmware tables) at physical
 * pa, uncached, and return its kernel address; NULL if the area is full or
 * tables cannot be allocated. Mappings are never removed.
 */
void *ioremap(phys_addr_t pa, size_t len);

#endif
