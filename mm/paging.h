/*
 * paging.h - x86-64 four-level page tables and the kernel's own mappings.
 *
 * Kernel layout (DESIGN.md section 2): the direct map of RAM at
 * DIRECT_MAP_BASE (1 GiB or 2 MiB pages, NX), the vmap area for kernel stacks
 * with guard pages at VMAP_BASE, and the image at KERNEL_VMA with text RX,
 * rodata R+NX, data and bss RW+NX. Kernel entries are global (CR4.PGE).
 * Helpers take the PML4 they work on, so address spaces to come reuse them.
 */
#ifndef MM_PAGING_H
#define MM_PAGING_H

#include "kernel/types.h"

typedef u64 pte_t;

#define PTE_P (1UL << 0)
#define PTE_W (1UL << 1)
#define PTE_U (1UL << 2)
#define PTE_PWT (1UL << 3)
#define PTE_PCD (1UL << 4)
#define PTE_A (1UL << 5)
#define PTE_D (1UL << 6)
#define PTE_PS (1UL << 7)	/* large page, in a PDPT or PD entry */
#define PTE_G (1UL << 8)
#define PTE_NX (1UL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000UL
#define PTE_FLAGS_MASK (~PTE_ADDR_MASK)

#define PAGE_SIZE_2M (1UL << 21)
#define PAGE_SIZE_1G (1UL << 30)

/* Protections for pt_map/pt_protect: built from these, P is implied. */
#define PROT_KERNEL_RW (PTE_W | PTE_G | PTE_NX)
#define PROT_KERNEL_RO (PTE_G | PTE_NX)
#define PROT_KERNEL_RX (PTE_G)

extern u64 *kernel_pml4;	/* [I] after paging_init (kernel virtual address) */

/*
 * paging_init: build the final kernel tables from the memory map and switch
 * CR3 to them; turn on PGE, WP, NXE, and SMEP/SMAP if the CPU has them.
 * Page-table pages come from alloc_table (the early allocator at boot).
 */
void paging_init(phys_addr_t (*alloc_table)(void));
/* After the buddy allocator is up, new table pages come from it. */
void paging_use_buddy(void);

/*
 * pt_walk: pointer to the 4 KiB PTE for va, creating missing tables when
 * create is set. NULL if a table is missing (or cannot be allocated) or va
 * lies in a large page.
 */
pte_t *pt_walk(u64 *pml4, unsigned long va, bool create);
/*
 * Atomic updates of a live user PTE. The MMU sets a present PTE's Accessed
 * and Dirty bits on its own, with a locked read-modify-write and without
 * any of our locks, so a PTE that may be present is never changed by a
 * plain load followed by a store: that store would silently undo a bit set
 * in between (a write through the mapping whose Dirty bit is lost is a lost
 * store). Each of these is one locked instruction, fully ordered.
 */
/*
 * Test of the tests (vm.debug_pte_plain_rmw): each update below becomes a
 * plain load and a store, and pte_rmw_window(pte), when a test sets it,
 * runs between the two - where the MMU's bit gets lost.
 */
extern bool pte_plain_rmw;
extern void (*pte_rmw_window)(pte_t *pte);
/* The broken update: load, window, store (v & ~clear) | set, unless expect
 * is given and differs. Returns the value loaded. */
pte_t pte_plain_update(pte_t *pte, pte_t clear, pte_t set, const pte_t *expect);

/* pte_get_and_clear: make the PTE 0 and return what it held (xchg). */
static inline pte_t pte_get_and_clear(pte_t *pte)
{
	if (unlikely(pte_plain_rmw))
		return pte_plain_update(pte, ~0UL, 0, NULL);
	return __atomic_exchange_n(pte, 0, __ATOMIC_SEQ_CST);
}
/* pte_clear_bits: clear `bits`, keep the rest, return the old value (a lock
 * cmpxchg loop: the old value is needed). */
static inline pte_t pte_clear_bits(pte_t *pte, pte_t bits)
{
	if (unlikely(pte_plain_rmw))
		return pte_plain_update(pte, bits, 0, NULL);
	return __atomic_fetch_and(pte, ~bits, __ATOMIC_SEQ_CST);
}
/* pte_cmpxchg: store v if the PTE still holds expect; true if stored (lock cmpxchg). */
static inline bool pte_cmpxchg(pte_t *pte, pte_t expect, pte_t v)
{
	if (unlikely(pte_plain_rmw))
		return pte_plain_update(pte, ~0UL, v, &expect) == expect;
	return __atomic_compare_exchange_n(pte, &expect, v, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/* pt_map_range: map [va, va+len) to [pa, ...) with 4 KiB pages. 0, -EEXIST, -ENOMEM. */
int pt_map_range(u64 *pml4, unsigned long va, phys_addr_t pa, size_t len, u64 prot);
/* pt_unmap_range: clear the PTEs of [va, va+len) and flush this CPU's TLB.
 * Returns the number of pages that were mapped. Frees no frames. */
long pt_unmap_range(u64 *pml4, unsigned long va, size_t len);
/* pt_protect_range: set the protection of mapped pages in [va, va+len). 0 or -ENOENT. */
int pt_protect_range(u64 *pml4, unsigned long va, size_t len, u64 prot);
/* pt_translate: physical address and PTE flags for va (large pages too). */
bool pt_translate(u64 *pml4, unsigned long va, phys_addr_t *pa, u64 *flags);

/* What the CPU offered and what we turned on. */
struct paging_features {
	bool gb_pages, smep, smap, pge, nx;
	u64 direct_map_bytes;	/* RAM mapped at DIRECT_MAP_BASE */
	unsigned long tables;	/* page-table pages used by the kernel */
};
extern struct paging_features paging_features;

#endif
