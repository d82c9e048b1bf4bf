/*
 * fault.c - the user page-fault handler (mm/vm.h).
 *
 * A fault is either a page the VMA allows but that is not mapped yet
 * (demand paging: a zeroed anonymous page, or a file page from the page
 * cache through read_mapping_page, which uses the lockless find_get_page),
 * a write to a page shared copy-on-write, a stack that needs to grow, or
 * an access the VMA forbids: -EFAULT, which becomes SIGSEGV (or EFAULT
 * from a syscall's user copy).
 *
 * The slow part - allocating, copying, reading a file page - happens with
 * only mmap_lock held for reading; pt_lock is taken just to install the
 * PTE, after checking that nobody installed one meanwhile.
 */
#include "mm/vm.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/tlb.h"
#include "mm/pagecache.h"
#include "fs/vfs.h"
#include "kernel/trap.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"
#include "kernel/percpu.h"
#include "kernel/x86.h"

#define PTE_PROTNONE (1UL << 9)

static struct vm_stats stats;	/* [A] */

#define COUNT(f) __atomic_add_fetch(&stats.f, 1, __ATOMIC_RELAXED)

void vm_get_stats(struct vm_stats *st)
{
	st->faults = READ_ONCE(stats.faults);
	st->cow_copies = READ_ONCE(stats.cow_copies);
	st->cow_reuses = READ_ONCE(stats.cow_reuses);
	st->file_faults = READ_ONCE(stats.file_faults);
	st->anon_faults = READ_ONCE(stats.anon_faults);
	extern u64 rmap_unmap_count;
	st->rmap_unmaps = READ_ONCE(rmap_unmap_count);
}

static pte_t make_pte(struct page *page, unsigned long vmflags, bool writable)
{
	pte_t v = page_to_phys(page) | PTE_P | PTE_U | PTE_A;
	if (writable)
		v |= PTE_W | PTE_D;
	if (!(vmflags & VM_EXEC))
		v |= PTE_NX;
	return v;
}

/* Install v at addr if the slot still holds `expect`. True if installed. */
static bool install(struct mm_struct *mm, unsigned long addr, pte_t expect, pte_t v)
{
	spin_lock(&mm->pt_lock);
	pte_t *pte = pt_walk(mm->pml4, addr, true);
	bool ok = pte && READ_ONCE(*pte) == expect;
	if (ok)
		WRITE_ONCE(*pte, v);
	spin_unlock(&mm->pt_lock);
	return ok;
}

static pte_t read_pte(struct mm_struct *mm, unsigned long addr)
{
	spin_lock(&mm->pt_lock);
	pte_t *pte = pt_walk(mm->pml4, addr, true);
	pte_t v = pte ? READ_ONCE(*pte) : ~0UL;
	spin_unlock(&mm->pt_lock);
	return v;
}

static void flush_one(struct mm_struct *mm, unsigned long addr)
{
	flush_tlb_cpus(READ_ONCE(mm->cpumask), addr, addr + PAGE_SIZE);
}

/* A page not mapped yet. */
static int fault_missing(struct mm_struct *mm, struct vm_area *v, unsigned long addr, bool write)
{
	struct page *page;
	bool writable = write && (v->flags & VM_WRITE);

	if (v->file) {
		struct inode *inode = v->file;
		u64 index = v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
		if (index << PAGE_SHIFT >= i_size(inode))
			return -ENXIO;		/* wholly past the end of the file: SIGBUS */
		int err = 0;
		struct page *cached = read_mapping_page(&inode->mapping, index, &err);
		if (!cached)
			return err;
		COUNT(file_faults);
		if ((v->flags & VM_SHARED) || !writable) {
			page = cached;		/* the page-cache page itself */
			if (writable)
				set_page_dirty(page);
			writable = writable && (v->flags & VM_SHARED);
		} else {			/* a private copy for a private write */
			page = alloc_page();
			if (!page) {
				put_page(cached);
				return -ENOMEM;
			}
			memcpy(page_address(page), page_address(cached), PAGE_SIZE);
			put_page(cached);
		}
	} else {
		page = alloc_page_zeroed();
		if (!page)
			return -ENOMEM;
		COUNT(anon_faults);
		if (!(v->flags & VM_WRITE))
			writable = false;
		else
			writable = true;	/* no sharing to protect: map it writable now */
	}
	atomic_inc(&page->mapcount);
	if (!install(mm, addr, 0, make_pte(page, v->flags, writable))) {
		atomic_dec(&page->mapcount);
		put_page(page);		/* another thread won the race: its page stays */
	}
	return 0;
}

/* A write to a present, read-only page the VMA lets us write. */
static int fault_write_protected(struct mm_struct *mm, struct vm_area *v, unsigned long addr,
				 pte_t old)
{
	struct page *page = pfn_to_page((old & PTE_ADDR_MASK) >> PAGE_SHIFT);
	if (v->flags & VM_SHARED) {		/* a shared file page: it becomes dirty */
		set_page_dirty(page);
		install(mm, addr, old, old | PTE_W | PTE_D);
		flush_one(mm, addr);
		return 0;
	}
	/* Copy-on-write. Reuse the page only if it is anonymous and ours
	 * alone: one reference, the one this PTE holds (a pin would make it
	 * two, so a pinned page is always copied). */
	if (!page->mapping && atomic_read(&page->refcount) == 1) {
		COUNT(cow_reuses);
		install(mm, addr, old, old | PTE_W | PTE_D);
		flush_one(mm, addr);
		return 0;
	}
	struct page *copy = alloc_page();
	if (!copy)
		return -ENOMEM;
	memcpy(page_address(copy), page_address(page), PAGE_SIZE);
	atomic_inc(&copy->mapcount);
	if (!install(mm, addr, old, make_pte(copy, v->flags, true))) {
		atomic_dec(&copy->mapcount);
		put_page(copy);
		return 0;
	}
	COUNT(cow_copies);
	flush_one(mm, addr);		/* no CPU may still write the old page */
	atomic_dec(&page->mapcount);
	put_page(page);
	return 0;
}

/* Grow the stack VMA v down to cover addr; mmap_lock held for writing. */
static bool grow_stack(struct mm_struct *mm, struct vm_area *v, unsigned long addr)
{
	unsigned long start = addr & PAGE_MASK;
	if (!(v->flags & VM_GROWSDOWN) || v->end - start > USER_STACK_MAX)
		return false;
	if (v->link.prev != &mm->vmas &&
	    list_entry(v->link.prev, struct vm_area, link)->end > start - PAGE_SIZE)
		return false;	/* would touch the mapping below (keep a guard gap) */
	v->start = start;
	return true;
}

int handle_mm_fault(struct mm_struct *mm, unsigned long addr, u64 error)
{
	bool write = error & PF_WRITE, exec = error & PF_INSTR;
	COUNT(faults);
	if (addr >= USER_TOP)
		return -EFAULT;
	down_read(&mm->mmap_lock);
	struct vm_area *v = find_vma(mm, addr);
	if (v && addr < v->start) {
		up_read(&mm->mmap_lock);
		down_write(&mm->mmap_lock);	/* growing a VMA changes the list */
		v = find_vma(mm, addr);
		bool ok = v && (addr >= v->start || grow_stack(mm, v, addr));
		up_write(&mm->mmap_lock);
		if (!ok)
			return -EFAULT;
		down_read(&mm->mmap_lock);
		v = find_vma(mm, addr);
		if (!v || addr < v->start) {
			up_read(&mm->mmap_lock);
			return -EFAULT;
		}
	}
	int err = -EFAULT;
	if (!v)
		goto out;
	if ((write && !(v->flags & VM_WRITE)) || (exec && !(v->flags & VM_EXEC)) ||
	    !(v->flags & (VM_READ | VM_WRITE | VM_EXEC)))
		goto out;
	addr &= PAGE_MASK;
	pte_t old = read_pte(mm, addr);
	if (old == ~0UL) {
		err = -ENOMEM;
	} else if (!(old & (PTE_P | PTE_PROTNONE))) {
		err = fault_missing(mm, v, addr, write);
	} else if (old & PTE_PROTNONE) {
		err = 0;	/* mprotect gave access back but left this PTE: restore it */
		pte_t nv = (old & ~PTE_PROTNONE) | PTE_P;
		nv = (v->flags & VM_EXEC) ? nv & ~PTE_NX : nv | PTE_NX;
		install(mm, addr, old, nv & ~PTE_W);
	} else if (write && !(old & PTE_W)) {
		err = fault_write_protected(mm, v, addr, old);
	} else {
		err = 0;	/* already fine: a stale TLB entry on this CPU */
		invlpg(addr);
	}
out:
	up_read(&mm->mmap_lock);
	return err;
}
