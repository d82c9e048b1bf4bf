/*
 * rmap.c - the reverse mapping of page-cache pages: from a page to every
 * user PTE that maps it, so reclaim can evict a mapped page and truncation
 * never leaves a stale one in a process.
 *
 * A file page at index i of mapping m can be mapped only by the VMAs of m
 * (m->vmas, kept by mm/mmap.c) that cover i, at one address each:
 *     va = vma->start + (i - vma->pgoff) * PAGE_SIZE.
 * For each, under that mm's pt_lock, clear the PTE if it still holds this
 * page (a private VMA may hold its own copy there instead), shoot the
 * translation down on every CPU of the mm, and only then drop the
 * mapping's reference - the same order munmap keeps.
 *
 * Lock order: page lock -> m->i_mmap_lock -> mm->pt_lock. The page fault
 * path takes pt_lock without holding a page lock, so the two never wait on
 * each other in a circle.
 */
#include "mm/vm.h"
#include "mm/pagecache.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/tlb.h"
#include "kernel/panic.h"
#include "kernel/cmdline.h"

CMDLINE_KEY(rmap_ignore_dirty, "vm.debug_rmap_ignore_dirty",
	    "test of the tests: unmapping forgets the PTE's dirty bit (stores are lost)");
CMDLINE_KEY(no_mkclean, "vm.debug_no_mkclean",
	    "test of the tests: writeback leaves shared mappings writable (later stores are lost)");

#define PTE_PROTNONE (1UL << 9)

u64 rmap_unmap_count;	/* [A] for /proc/vm */

/* The address at which VMA v maps file index `index`, or 0 if it does not cover it. */
static unsigned long vma_address(struct vm_area *v, u64 index)
{
	u64 pages = (v->end - v->start) >> PAGE_SHIFT;
	if (index < v->pgoff || index >= v->pgoff + pages)
		return 0;
	return v->start + ((index - v->pgoff) << PAGE_SHIFT);
}

bool page_mkclean(struct page *page)
{
	static int skip = -1;		/* [A] -1: the switch not read yet */
	struct address_space *m = page->mapping;
	bool dirty = false;
	BUG_ON(!test_bit(PG_locked, &page->flags), "page_mkclean: page not locked");
	if (READ_ONCE(skip) < 0)
		WRITE_ONCE(skip, cmdline_get("vm.debug_no_mkclean") != NULL);
	if (!m || READ_ONCE(skip) || !atomic_read(&page->mapcount))
		return false;
	spin_lock(&m->i_mmap_lock);
	for (struct list_head *l = m->vmas.next; l != &m->vmas; l = l->next) {
		struct vm_area *v = list_entry(l, struct vm_area, mapping_link);
		unsigned long va = vma_address(v, page->index);
		if (!va || !(v->flags & VM_SHARED))
			continue;	/* a private mapping never writes the cache page */
		struct mm_struct *mm = v->mm;
		spin_lock(&mm->pt_lock);
		pte_t *pte = pt_walk(mm->pml4, va, false);
		pte_t old = pte ? READ_ONCE(*pte) : 0;
		bool ours = (old & PTE_P) && (old & (PTE_W | PTE_D)) &&
			    (old & PTE_ADDR_MASK) == page_to_phys(page);
		if (ours)	/* atomic: the MMU may set D meanwhile (paging.h) */
			old = pte_clear_bits(pte, PTE_W | PTE_D);
		spin_unlock(&mm->pt_lock);
		if (!ours) {
			mm_flush_if_pending(mm, va);	/* a zap's old translation (mmap.c) */
			continue;
		}
		/* After the shootdown no CPU holds a writable translation: a
		 * store from now on faults (fault_write_protected) and dirties
		 * the page again, under its page lock, so after our writeback. */
		flush_tlb_cpus(mm_flush_mask(mm), va, va + PAGE_SIZE);
		dirty |= (old & PTE_D) != 0;
	}
	spin_unlock(&m->i_mmap_lock);
	return dirty;
}

int try_to_unmap(struct page *page)
{
	struct address_space *m = page->mapping;
	BUG_ON(!test_bit(PG_locked, &page->flags), "try_to_unmap: page not locked");
	if (!m)
		return atomic_read(&page->mapcount);
	u64 index = page->index;
	spin_lock(&m->i_mmap_lock);
	for (struct list_head *l = m->vmas.next; l != &m->vmas; l = l->next) {
		struct vm_area *v = list_entry(l, struct vm_area, mapping_link);
		unsigned long va = vma_address(v, index);
		if (!va)
			continue;
		struct mm_struct *mm = v->mm;
		spin_lock(&mm->pt_lock);
		pte_t *pte = pt_walk(mm->pml4, va, false);
		pte_t old = pte ? READ_ONCE(*pte) : 0;
		bool ours = (old & (PTE_P | PTE_PROTNONE)) &&
			    (old & PTE_ADDR_MASK) == page_to_phys(page);
		if (ours)	/* an exchange: a D bit the MMU sets meanwhile is kept (paging.h) */
			old = pte_get_and_clear(pte);
		spin_unlock(&mm->pt_lock);
		if (!ours) {
			/* Gone already - perhaps by a zap whose shootdown is still
			 * to come: our caller frees or replaces the page next. */
			mm_flush_if_pending(mm, va);
			continue;
		}
		flush_tlb_cpus(mm_flush_mask(mm), va, va + PAGE_SIZE);
		if ((old & PTE_D) && !cmdline_get("vm.debug_rmap_ignore_dirty"))
			set_page_dirty(page);	/* written through the mapping */
		atomic_dec(&page->mapcount);
		put_page(page);		/* the mapping's reference; the cache and the caller keep theirs */
		__atomic_add_fetch(&rmap_unmap_count, 1, __ATOMIC_RELAXED);
	}
	spin_unlock(&m->i_mmap_lock);
	return atomic_read(&page->mapcount);
}
