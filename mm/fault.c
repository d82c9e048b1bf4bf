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
 *
 * Two rules keep a fault from racing truncation and reclaim (both of
 * which lock the page, unmap it through the reverse map, then free it):
 *   - A page seen in a PTE is used only with a reference taken while
 *     pt_lock still shows that PTE (the PTE's own reference keeps it alive
 *     until then). Without one, the page may be freed under us and our
 *     set_page_dirty lands on a free page (vm.debug_fault_broken=unreferenced).
 *   - A page-cache page is installed in a PTE only under its page lock,
 *     after rechecking that it is still in the file (page->mapping) and
 *     still inside i_size: a lookup's page only WAS at that index
 *     (pagecache.h, rule 9), and truncation may have deleted it since. With
 *     the page lock held, truncation's unmap comes after our install and
 *     removes it (vm.debug_fault_broken=no_recheck skips this).
 * vm.debug_fault_delay_us=N waits N us inside both windows, so the
 * fault-path torture (user/tests/t_fault_torture.c) hits them often; and
 * as long again after a write fault whose PTE changed before it could
 * install, before the store is retried (t_fault_race's third race).
 *
 * Lock order: mmap_lock (read) -> page lock -> pt_lock.
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
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/wait.h"

CMDLINE_KEY(vm_fault_delay, "vm.debug_fault_delay_us",
	    "widen the fault path's windows against truncation: wait N us in each");
CMDLINE_KEY(vm_fault_broken, "vm.debug_fault_broken",
	    "test of the tests: unreferenced (use a PTE's page with no reference) or "
	    "no_recheck (install a file page without its page lock and recheck)");

#define PTE_PROTNONE (1UL << 9)

static struct {
	unsigned delay_us;
	bool unreferenced, no_recheck;
} cfg;			/* [I] after vm_fault_init */

void vm_fault_init(void)
{
	const char *b = cmdline_get("vm.debug_fault_broken");
	cfg.delay_us = (unsigned)cmdline_get_u64("vm.debug_fault_delay_us", 0);
	cfg.unreferenced = b && !strcmp(b, "unreferenced");
	cfg.no_recheck = b && !strcmp(b, "no_recheck");
	if (b && !cfg.unreferenced && !cfg.no_recheck)
		pr_warn("vm: vm.debug_fault_broken=%s unknown; ignored", b);
	else if (b)
		pr_warn("vm: fault path deliberately broken (%s): a test of the tests", b);
}

static void fault_delay(void)
{
	if (cfg.delay_us)
		udelay(cfg.delay_us);
}

/*
 * The counters, one cache line per CPU: every fault counts, and one shared
 * line would move between the CPUs on each (8 threads faulting would queue
 * on it). A task preempted between reading its CPU number and the add
 * counts on another CPU's line, which the atomic add keeps correct.
 */
static struct {
	struct vm_stats s;
} __attribute__((aligned(64))) stats[MAX_CPUS];	/* [A] */

#define COUNT(f) __atomic_add_fetch(&stats[smp_processor_id()].s.f, 1, __ATOMIC_RELAXED)

void vm_get_stats(struct vm_stats *st)
{
	*st = (struct vm_stats){ 0 };
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		st->faults += READ_ONCE(stats[cpu].s.faults);
		st->cow_copies += READ_ONCE(stats[cpu].s.cow_copies);
		st->cow_reuses += READ_ONCE(stats[cpu].s.cow_reuses);
		st->file_faults += READ_ONCE(stats[cpu].s.file_faults);
		st->anon_faults += READ_ONCE(stats[cpu].s.anon_faults);
	}
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

/*
 * Install v at addr if the slot still holds `expect`. True if installed.
 * A compare-and-swap, not a load then a store: another CPU's MMU may set
 * the Accessed or Dirty bit of a present PTE at any moment, without
 * pt_lock, and a plain store would wipe that bit out; the cmpxchg fails
 * instead, and the fault is simply taken again.
 */
static bool install(struct mm_struct *mm, unsigned long addr, pte_t expect, pte_t v)
{
	spin_lock(&mm->pt_lock);
	pte_t *pte = pt_walk(mm->pml4, addr, true);
	bool ok = pte && pte_cmpxchg(pte, expect, v);
	spin_unlock(&mm->pt_lock);
	return ok;
}

/*
 * The page that PTE value `old` maps, with a reference of our own, if the
 * PTE at addr still holds `old`; NULL if it changed (the caller returns and
 * the access faults again). The PTE's reference keeps the page alive while
 * pt_lock shows it, so the get_page is safe (rule one at the top).
 */
static struct page *get_pte_page(struct mm_struct *mm, unsigned long addr, pte_t old)
{
	struct page *page = pfn_to_page((old & PTE_ADDR_MASK) >> PAGE_SHIFT);
	if (cfg.unreferenced)		/* deliberately broken: no reference */
		return page;
	spin_lock(&mm->pt_lock);
	pte_t *pte = pt_walk(mm->pml4, addr, false);
	if (pte && READ_ONCE(*pte) == old)
		get_page(page);
	else
		page = NULL;
	spin_unlock(&mm->pt_lock);
	return page;
}

static void put_pte_page(struct page *page)
{
	if (!cfg.unreferenced)
		put_page(page);
}

/*
 * The PTE at addr now (~0: no memory for a table). Page tables are freed
 * only with the mm (mm_put), so a walk that finds every level present
 * needs no lock: the common fault reads its PTE without pt_lock and takes
 * it once, to install. A missing level is made under pt_lock.
 */
static pte_t read_pte(struct mm_struct *mm, unsigned long addr)
{
	pte_t *fast = pt_walk(mm->pml4, addr, false);
	if (fast)
		return READ_ONCE(*fast);
	spin_lock(&mm->pt_lock);
	pte_t *pte = pt_walk(mm->pml4, addr, true);
	pte_t v = pte ? READ_ONCE(*pte) : ~0UL;
	spin_unlock(&mm->pt_lock);
	return v;
}

static void flush_one(struct mm_struct *mm, unsigned long addr)
{
	flush_tlb_cpus(mm_flush_mask(mm), addr, addr + PAGE_SIZE);
}

/*
 * The uptodate page-cache page at index of v's file, locked, with a
 * reference, still in the file and inside i_size (rule two at the top);
 * or ERR_PTR(-ENXIO) when the page lies wholly past the end of the file
 * (SIGBUS), or ERR_PTR of the read's error. Never NULL.
 */
static struct page *lock_file_page(struct vm_area *v, u64 index)
{
	struct inode *inode = v->file;
	struct address_space *m = &inode->mapping;
	for (;;) {
		if (index << PAGE_SHIFT >= i_size(inode))
			return ERR_PTR(-ENXIO);
		struct page *page = read_mapping_page(m, index);
		if (IS_ERR(page))
			return page;
		fault_delay();			/* truncation may delete it here */
		if (cfg.no_recheck)		/* deliberately broken: trust the lookup */
			return page;
		lock_page(page);
		if (page->mapping == m && index << PAGE_SHIFT < i_size(inode))
			return page;
		unlock_page(page);		/* truncated or evicted meanwhile */
		put_page(page);
	}
}

static void unlock_file_page(struct page *page)
{
	if (!cfg.no_recheck)
		unlock_page(page);
}

/*
 * Before a shared file page may be written through a PTE, give it a place
 * on disk (ext2 allocates its block: Linux's page_mkwrite). Otherwise a
 * store into a hole of a sparse file dirties a page that writeback has
 * nowhere to write, and the data is lost. A page given a new block comes
 * back dirty (write_begin's contract, pagecache.h), because our install
 * may yet fail: a PTE zapped meanwhile leaves the store undone, and a
 * clean page could then be evicted and read back from a block that still
 * holds its last owner's bytes. Page locked. 0 or -errno (-ENOSPC: the
 * access gets SIGBUS).
 */
static int prepare_shared_write(struct page *page)
{
	struct address_space *m = page->mapping;
	if (m && m->a_ops && m->a_ops->write_begin)
		return m->a_ops->write_begin(m, page);
	return 0;
}

/* A page not mapped yet. */
static int fault_missing(struct mm_struct *mm, struct vm_area *v, unsigned long addr, bool write)
{
	struct page *page, *locked = NULL;
	bool writable = write && (v->flags & VM_WRITE);

	if (v->file) {
		u64 index = v->pgoff + ((addr - v->start) >> PAGE_SHIFT);
		struct page *cached = lock_file_page(v, index);
		if (IS_ERR(cached))
			return PTR_ERR(cached);
		COUNT(file_faults);
		if ((v->flags & VM_SHARED) || !writable) {
			page = locked = cached;	/* the page-cache page itself */
			if (writable && (v->flags & VM_SHARED)) {
				int e = prepare_shared_write(page);
				if (e) {
					unlock_file_page(page);
					put_page(page);
					return e;
				}
				set_page_dirty(page);
			}
			writable = writable && (v->flags & VM_SHARED);
		} else {			/* a private copy for a private write */
			page = alloc_page();
			if (page)
				memcpy(page_address(page), page_address(cached), PAGE_SIZE);
			unlock_file_page(cached);
			put_page(cached);
			if (!page)
				return -ENOMEM;
		}
	} else {
		page = alloc_page_zeroed();
		if (!page)
			return -ENOMEM;
		COUNT(anon_faults);
		/* No sharing to protect: a writable VMA gets a writable page now. */
		writable = (v->flags & VM_WRITE) != 0;
	}
	atomic_inc(&page->mapcount);
	bool ok = install(mm, addr, 0, make_pte(page, v->flags, writable));
	if (locked)
		unlock_file_page(locked);	/* truncation's unmap now sees our PTE */
	if (!ok) {
		atomic_dec(&page->mapcount);
		put_page(page);		/* another thread won the race: its page stays */
	}
	return 0;
}

/*
 * A write to a present, read-only page the VMA lets us write. Adding write
 * permission needs no TLB shootdown: a CPU still caching the read-only
 * translation faults, finds the PTE already writable and just drops its
 * stale entry (handle_mm_fault's last case).
 */
static int fault_write_protected(struct mm_struct *mm, struct vm_area *v, unsigned long addr,
				 pte_t old)
{
	struct page *page = get_pte_page(mm, addr, old);
	if (!page)
		return 0;			/* the PTE changed: try the access again */
	fault_delay();				/* truncation may unmap it here */
	if (v->flags & VM_SHARED) {		/* a shared file page: it becomes dirty */
		if (cfg.unreferenced) {	/* deliberately broken: the page may be free by now */
			/* With the delay switch, hold on until it is (5 s at most),
			 * so that t_fault_race's truncation lands in the window
			 * however late a loaded machine runs it. */
			for (int ms = 0; cfg.delay_us && ms < 5000 && page_count(page) > 0; ms++)
				msleep(1);
			set_page_dirty(page);
			install(mm, addr, old, old | PTE_W | PTE_D);
			return 0;
		}
		/* Under the page lock, so writeback and truncation wait for us. */
		int err = 0;
		bool installed = false;
		lock_page(page);
		if (page->mapping)	/* else truncated: the access faults again */
			err = prepare_shared_write(page);
		if (!err && page->mapping && install(mm, addr, old, old | PTE_W | PTE_D)) {
			set_page_dirty(page);
			installed = true;
		}
		unlock_page(page);
		put_pte_page(page);
		if (!err && !installed)
			fault_delay();	/* the PTE went: the store is retried after this */
		return err;
	}
	/* Copy-on-write. Reuse the page only if it is anonymous and ours
	 * alone: the PTE's reference and our own (a pin, a fork's sharing or
	 * a page-cache page makes more, so such a page is always copied). */
	int ours = cfg.unreferenced ? 1 : 2;
	if (!page->mapping && atomic_read(&page->refcount) == ours) {
		if (install(mm, addr, old, old | PTE_W | PTE_D))
			COUNT(cow_reuses);
		put_pte_page(page);
		return 0;
	}
	struct page *copy = alloc_page();
	if (!copy) {
		put_pte_page(page);
		return -ENOMEM;
	}
	memcpy(page_address(copy), page_address(page), PAGE_SIZE);
	atomic_inc(&copy->mapcount);
	if (!install(mm, addr, old, make_pte(copy, v->flags, true))) {
		atomic_dec(&copy->mapcount);
		put_page(copy);
		put_pte_page(page);
		return 0;
	}
	COUNT(cow_copies);
	flush_one(mm, addr);		/* no CPU may still write the old page */
	atomic_dec(&page->mapcount);
	put_page(page);			/* the reference the old PTE held */
	put_pte_page(page);		/* and ours */
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
	struct task *me = current_task();	/* getrusage's ru_minflt: only it writes its count */
	__atomic_store_n(&me->min_flt, __atomic_load_n(&me->min_flt, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
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
