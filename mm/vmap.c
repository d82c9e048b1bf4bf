/*
 * vmap.c - the vmap area: kernel stacks, each with an unmapped guard page.
 *
 * The area is cut into fixed slots of (KSTACK_PAGES + 1) pages; the first
 * page of each slot is never mapped, so running off the bottom of a stack
 * faults (and the fault then double-faults onto its own IST stack, which
 * reports the overflow) instead of silently overwriting a neighbour.
 */
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/paging.h"
#include "kernel/spinlock.h"
#include "kernel/panic.h"

/* Device memory (ioremap) lives in the top half of the vmap area. */
#define IOREMAP_BASE (VMAP_BASE + (1UL << 38))
#define IOREMAP_LIMIT (VMAP_BASE + (1UL << 39))

#define SLOT_PAGES (KSTACK_PAGES + 1)
#define SLOT_SIZE (SLOT_PAGES * PAGE_SIZE)
#define MAX_SLOTS 4096

static spinlock_t vmap_lock = SPINLOCK_INIT("vmap");
static unsigned long next_slot;	/* [L:vmap_lock] slots handed out so far */
static unsigned long next_io = IOREMAP_BASE;	/* [L:vmap_lock] next free ioremap address */

void *vmap_alloc_stack(unsigned pages)
{
	BUG_ON(pages == 0 || pages > KSTACK_PAGES, "vmap: bad stack size");
	unsigned long f = spin_lock_irqsave(&vmap_lock);
	unsigned long slot = next_slot < MAX_SLOTS ? next_slot++ : MAX_SLOTS;
	spin_unlock_irqrestore(&vmap_lock, f);
	if (slot == MAX_SLOTS)
		return NULL;

	unsigned long top = VMAP_BASE + (slot + 1) * SLOT_SIZE;
	unsigned long va = top - pages * PAGE_SIZE;
	for (unsigned i = 0; i < pages; i++) {
		struct page *p = alloc_page_zeroed();
		if (!p || pt_map_range(kernel_pml4, va + i * PAGE_SIZE, page_to_phys(p),
				       PAGE_SIZE, PROT_KERNEL_RW))
			panic("vmap: out of memory for a kernel stack");
	}
	return (void *)top;
}

bool vmap_is_guard(unsigned long addr)
{
	if (addr < VMAP_BASE || addr >= VMAP_BASE + READ_ONCE(next_slot) * SLOT_SIZE)
		return false;
	/* Every unmapped page of a handed-out slot is guard. */
	return !pt_translate(kernel_pml4, addr, NULL, NULL);
}

void *ioremap(phys_addr_t pa, size_t len)
{
	phys_addr_t base = ALIGN_DOWN(pa, PAGE_SIZE);
	size_t span = ALIGN_UP(pa + len, PAGE_SIZE) - base;

	unsigned long f = spin_lock_irqsave(&vmap_lock);
	unsigned long va = next_io;
	if (va + span + PAGE_SIZE > IOREMAP_LIMIT) {
		spin_unlock_irqrestore(&vmap_lock, f);
		return NULL;
	}
	next_io += span + PAGE_SIZE;	/* an unmapped page between mappings */
	spin_unlock_irqrestore(&vmap_lock, f);
	/* Uncached: device registers must see every access, in order. */
	if (pt_map_range(kernel_pml4, va, base, span, PROT_KERNEL_RW | PTE_PCD | PTE_PWT))
		return NULL;
	return (void *)(va + (pa - base));
}
