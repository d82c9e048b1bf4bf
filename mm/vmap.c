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

#define SLOT_PAGES (KSTACK_PAGES + 1)
#define SLOT_SIZE (SLOT_PAGES * PAGE_SIZE)
#define MAX_SLOTS 4096

static spinlock_t vmap_lock = SPINLOCK_INIT("vmap");
static unsigned long next_slot;	/* [L:vmap_lock] slots handed out so far */

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
