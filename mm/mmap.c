/*
 * mmap.c - address spaces: creating, forking and freeing them, and the
 * VMA operations behind mmap, munmap, mprotect and brk (mm/vm.h).
 */
#include "mm/vm.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/tlb.h"
#include "mm/pagecache.h"
#include "fs/vfs.h"
#include "kernel/uaccess.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/x86.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"

/* A PROT_NONE page keeps its frame in a not-present PTE, marked with a
 * software bit, so the page survives until mprotect gives access back. */
#define PTE_PROTNONE (1UL << 9)

static struct kmem_cache *vma_cache;
static bool fork_shares_pinned;	/* [I] vm.debug_fork_shares_pinned */
static bool mremap_unlocked;	/* [I] vm.debug_mremap_unlocked */
static u64 mremap_delay_us;	/* [I] vm.debug_fault_delay_us, for that broken order */
static bool gap_wraps;		/* [I] vm.debug_gap_wraps */
static u64 fork_pause_at;	/* [I] vm.debug_fork_pause: a user address, or 0 */
static bool zap_no_pending;	/* [I] vm.debug_zap_no_pending */
static u64 zap_delay_us;	/* [I] vm.debug_zap_delay_us */

CMDLINE_KEY(vm_zap_no_pending, "vm.debug_zap_no_pending",
	    "test of the tests: a zap's shootdown after pt_lock, with no tlb_flush_pending count");
CMDLINE_KEY(vm_zap_delay, "vm.debug_zap_delay_us",
	    "hold a zap N us between dropping pt_lock and its shootdown (for t_zap_race)");
CMDLINE_KEY(vm_mremap_unlocked, "vm.debug_mremap_unlocked",
	    "test of the tests: mremap moves PTEs before the VMA, without i_mmap_lock");
CMDLINE_KEY(vm_gap_wraps, "vm.debug_gap_wraps",
	    "test of the tests: the gap search's top - len may wrap into the kernel half");
CMDLINE_KEY(vm_fork_shares_pinned, "vm.debug_fork_shares_pinned",
	    "test of the tests: fork shares pinned anonymous pages copy-on-write");
CMDLINE_KEY(vm_fork_pause, "vm.debug_fork_pause",
	    "fork waits 1 s at this user address, between finding its page unpinned "
	    "and write-protecting it (a window for the fast pinning path)");

/* ------------------------------------------------------------ page-table walks */

static inline int idx(unsigned long va, int level)
{
	return (va >> (12 + 9 * level)) & 511;
}

typedef void (*pte_fn)(pte_t *pte, unsigned long va, void *arg);

/* Call fn for every PTE slot in [start, end) whose tables exist. */
static void walk_ptes(u64 *pml4, unsigned long start, unsigned long end, pte_fn fn, void *arg)
{
	unsigned long va = start;
	while (va < end) {
		u64 *t = pml4;
		int level = 3;
		for (; level > 0; level--) {
			u64 e = t[idx(va, level)];
			if (!(e & PTE_P) || (e & PTE_PS))
				break;
			t = __va(e & PTE_ADDR_MASK);
		}
		if (level > 0) {	/* no table here: skip what this entry covers */
			unsigned long span = 1UL << (12 + 9 * level);
			unsigned long next = (va & ~(span - 1)) + span;
			if (next <= va)
				return;
			va = next;
			continue;
		}
		fn(&t[idx(va, 0)], va, arg);
		va += PAGE_SIZE;
	}
}

static void free_tables(u64 *t, int level)
{
	int top = level == 3 ? 256 : 512;	/* the PML4's upper half is the kernel's */
	for (int i = 0; i < top; i++) {
		u64 e = t[i];
		if (!(e & PTE_P))
			continue;
		if (level > 1)
			free_tables(__va(e & PTE_ADDR_MASK), level - 1);
		else
			free_pages(virt_to_page(__va(e & PTE_ADDR_MASK)), 0);
	}
	if (level != 3)
		free_pages(virt_to_page(t), 0);
}

/* Pages taken out of PTEs wait here until every TLB has forgotten them. */
struct gather {
	struct mm_struct *mm;
	unsigned long start, end;
	int n;
	bool dirty_file;	/* a writable PTE of a file page was among them */
	struct page *pages[64];
};

static void gather_shootdown(struct gather *g)
{
	flush_tlb_cpus(mm_flush_mask(g->mm), g->start, g->end);
}

static void gather_release(struct gather *g)
{
	for (int i = 0; i < g->n; i++) {
		atomic_dec(&g->pages[i]->mapcount);
		put_page(g->pages[i]);
	}
	g->n = 0;
}

static void zap_one(pte_t *pte, unsigned long va, void *arg)
{
	struct gather *g = arg;
	pte_t v = pte_get_and_clear(pte);	/* paging.h: keeps the MMU's D bit */
	if (!(v & (PTE_P | PTE_PROTNONE)))
		return;
	if (g->n == ARRAY_SIZE(g->pages)) {	/* full: under pt_lock, as for a dirty page */
		gather_shootdown(g);
		gather_release(g);
	}
	struct page *page = pfn_to_page((v & PTE_ADDR_MASK) >> PAGE_SHIFT);
	if ((v & PTE_D) && page->mapping) {
		set_page_dirty(page);	/* a store through a shared file mapping */
		g->dirty_file = true;
	}
	g->pages[g->n++] = page;
}

/*
 * Clear every PTE of [start, end); free the pages after the shootdown.
 *
 * The shootdown - an IPI to every other CPU of the mm, and a wait for each
 * to answer - is the slow part, and it is done after pt_lock is dropped,
 * so that the mm's faults and other zaps go on meanwhile. Two things make
 * that safe, as in Linux:
 *   1. The pages are freed only after it (gather_release), so a CPU still
 *      reading through an old translation reads a live page, and
 *      get_user_pages_fast's guarantee holds.
 *   2. tlb_flush_pending counts zaps between their first cleared PTE and
 *      their shootdown. Whoever finds a PTE empty under pt_lock and is
 *      about to let its page go - the reverse map, for truncation or
 *      reclaim, which then delete the page and let a write put new data in
 *      its place; another zap, whose caller may then map something new
 *      there - sees the count (pt_lock orders our increment before our
 *      clears, for them) and flushes that address itself first
 *      (mm_flush_if_pending). Without that, a CPU could go on reading the
 *      old page through its old translation after the file moved on
 *      (vm.debug_zap_no_pending leaves the count out: t_zap_race catches it).
 * One case still flushes under pt_lock: a writable PTE of a file page.
 * There the old translation could still store into the page, and
 * page_mkclean, finding no PTE, would let writeback clean it first - the
 * store would be lost. Linux forces its flush there too.
 * pt_lock is never taken with interrupts off, so the other CPUs answer.
 */
static void zap_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct gather g = { .mm = mm, .start = start, .end = end };
	bool counted = !zap_no_pending;
	if (counted)
		atomic_inc(&mm->tlb_flush_pending);
	spin_lock(&mm->pt_lock);
	walk_ptes(mm->pml4, start, end, zap_one, &g);
	bool locked_flush = g.dirty_file;
	if (locked_flush)
		gather_shootdown(&g);
	/* Another zap that cleared some of these PTEs first may not have
	 * flushed yet; our caller may map something new here as soon as we
	 * return, so flush the range even if we found nothing in it. */
	bool others = atomic_read(&mm->tlb_flush_pending) > (counted ? 1 : 0);
	spin_unlock(&mm->pt_lock);
	if (!locked_flush && (g.n || others)) {
		if (zap_delay_us)
			udelay(zap_delay_us);	/* the window, held open for t_zap_race */
		gather_shootdown(&g);
	}
	gather_release(&g);
	if (counted)
		atomic_dec(&mm->tlb_flush_pending);
}

void mm_flush_if_pending(struct mm_struct *mm, unsigned long va)
{
	if (atomic_read(&mm->tlb_flush_pending))
		flush_tlb_cpus(mm_flush_mask(mm), va, va + PAGE_SIZE);
}

/* ------------------------------------------------------------ mm_struct */

void mm_user_init(void)
{
	vma_cache = kmem_cache_create("vm_area", sizeof(struct vm_area), 8);
	vm_fault_init();
	fork_shares_pinned = cmdline_get("vm.debug_fork_shares_pinned") != NULL;
	mremap_unlocked = cmdline_get("vm.debug_mremap_unlocked") != NULL;
	mremap_delay_us = cmdline_get_u64("vm.debug_fault_delay_us", 0);
	gap_wraps = cmdline_get("vm.debug_gap_wraps") != NULL;
	fork_pause_at = cmdline_get_u64("vm.debug_fork_pause", 0) & PAGE_MASK;
	zap_no_pending = cmdline_get("vm.debug_zap_no_pending") != NULL;
	zap_delay_us = cmdline_get_u64("vm.debug_zap_delay_us", 0);
	if (zap_no_pending)
		pr_warn("vm: zaps do not count their pending shootdowns (a test of the tests)");
	/* Every kernel PML4 entry exists from now on, so the copies in each
	 * process's PML4 see every kernel mapping made later. */
	for (int i = 256; i < 512; i++) {
		if (kernel_pml4[i] & PTE_P)
			continue;
		struct page *p = alloc_page_zeroed();
		BUG_ON(!p, "mm_user_init: no memory for kernel tables");
		kernel_pml4[i] = page_to_phys(p) | PTE_P | PTE_W;
	}
}

struct mm_struct *mm_create(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm));
	struct page *p = alloc_page_zeroed();
	if (!mm || !p) {
		kfree(mm);
		if (p)
			free_pages(p, 0);
		return NULL;
	}
	mm->pml4 = page_address(p);
	memcpy(mm->pml4 + 256, kernel_pml4 + 256, 256 * sizeof(u64));
	init_rwsem(&mm->mmap_lock, "mmap_lock");
	spin_lock_init(&mm->pt_lock, "pt_lock");
	list_init(&mm->vmas);
	atomic_set(&mm->users, 1);
	return mm;
}

void mm_get(struct mm_struct *mm)
{
	atomic_inc(&mm->users);
}

/*
 * The reverse map: a file VMA is on its file's list while it exists, at the
 * front, or right after `after` when given. fork passes the parent's VMA:
 * the reverse map walks the list from the front, and the child's PTEs are
 * copied from the parent's later, under the parent's pt_lock, so a walk
 * that unmaps the page meanwhile either reaches the parent first (and the
 * copy then finds no PTE) or finds the copy made when it reaches the child
 * after. Put first instead, the child could be passed before its copy
 * existed and keep a page truncation deleted.
 */
static void vma_link_file(struct vm_area *v, struct vm_area *after)
{
	if (!v->file)
		return;
	struct address_space *m = &v->file->mapping;
	spin_lock(&m->i_mmap_lock);
	list_add(&v->mapping_link, after ? &after->mapping_link : &m->vmas);
	spin_unlock(&m->i_mmap_lock);
}

/* Change a file VMA's range where the reverse map can see it. */
static void vma_set_range(struct vm_area *v, unsigned long start, unsigned long end, u64 pgoff)
{
	spinlock_t *l = v->file ? &v->file->mapping.i_mmap_lock : NULL;
	if (l)
		spin_lock(l);
	v->start = start;
	v->end = end;
	v->pgoff = pgoff;
	if (l)
		spin_unlock(l);
}

static void vma_free(struct vm_area *v)
{
	if (v->file) {
		struct address_space *m = &v->file->mapping;
		spin_lock(&m->i_mmap_lock);
		list_del(&v->mapping_link);
		spin_unlock(&m->i_mmap_lock);
	}
	iput(v->file);
	kmem_cache_free(vma_cache, v);
}

/*
 * do_munmap runs under mmap_lock, and putting a file VMA's inode may be
 * the last reference, whose eviction takes the inode's i_mutex: the order
 * mmap_lock -> i_mutex. But a write holds i_mutex while it faults its
 * source in (i_mutex -> mmap_lock, as in Linux). So the unmapping task
 * keeps such VMAs on its own list, and puts them when it no longer holds
 * mmap_lock: on its way back from the system call, or at its exit (as
 * Linux defers the final fput of an unmapped file).
 */
CMDLINE_KEY(put_under_lock, "vm.debug_put_under_mmap_lock",
	    "broken on purpose: munmap puts a file's inode with mmap_lock held");

static void vma_free_later(struct vm_area *v)
{
	struct task *me = current_task();
	if (!v->file || !me->mm || cmdline_get("vm.debug_put_under_mmap_lock")) {
		vma_free(v);
		return;
	}
	v->link.next = (struct list_head *)me->unmapped_vmas;
	me->unmapped_vmas = v;
}

void mm_free_unmapped_vmas(void)
{
	struct task *me = current_task();
	while (me->unmapped_vmas) {
		struct vm_area *v = me->unmapped_vmas;
		me->unmapped_vmas = (struct vm_area *)v->link.next;
		vma_free(v);
	}
}

void mm_put(struct mm_struct *mm)
{
	if (!mm || !atomic_dec_and_test(&mm->users))
		return;
	/* No CPU runs it now: a CPU switching away loads another cr3. */
	if (READ_ONCE(mm->cpumask))
		panic("BUG: mm %p freed while it is in the cr3 of CPUs %#llx", (void *)mm,
		      (unsigned long long)READ_ONCE(mm->cpumask));
	while (!list_empty(&mm->vmas)) {
		struct vm_area *v = list_first_entry(&mm->vmas, struct vm_area, link);
		zap_range(mm, v->start, v->end);
		list_del(&v->link);
		vma_free(v);
	}
	free_tables(mm->pml4, 3);
	free_pages(virt_to_page(mm->pml4), 0);
	kfree(mm);
}

/*
 * The cpumask is lazy, as Linux's mm_cpumask: a CPU's bit is set while its
 * cr3 holds the mm and cleared when it loads another (the cr3 write drops
 * every user translation: no PCIDs, no global user pages). So a shootdown
 * goes only to CPUs that can hold the mm's translations, not to every CPU
 * that ever ran one of its threads.
 *
 * Why a CPU joining the mask needs no flush sent to it (a Dekker pair):
 * the switcher sets its bit (a locked or: a full barrier) and then walks
 * the new tables; a zapper changes a PTE and then reads the mask behind a
 * full barrier (mm_flush_mask). Either the zapper sees the bit and flushes
 * the CPU, or the CPU's walks see the changed PTE.
 */
void mm_activate(struct mm_struct *mm)
{
	struct cpu *c = this_cpu();
	struct mm_struct *prev = c->loaded_mm;
	u64 bit = 1ULL << c->id;

	BUG_ON(!irqs_disabled(), "mm_activate with interrupts on");
	if (prev == mm)
		return;
	if (mm) {
		__atomic_or_fetch(&mm->cpumask, bit, __ATOMIC_SEQ_CST);
		write_cr3(__pa(mm->pml4));
	} else {
		write_cr3(__pa(kernel_pml4));
	}
	/* After the cr3 write: this CPU holds none of prev's translations now. */
	if (prev)
		__atomic_and_fetch(&prev->cpumask, ~bit, __ATOMIC_RELEASE);
	c->loaded_mm = mm;
}

u64 mm_flush_mask(struct mm_struct *mm)
{
	smp_mb();	/* the PTE change before the mask read (mm_activate's pair) */
	return READ_ONCE(mm->cpumask);
}

struct fork_ctx {
	struct mm_struct *child;
	bool shared;
	bool nomem;
};

/*
 * May a page be pinned (get_user_pages, O_DIRECT, the pinning syscall)?
 * Every reference to an anonymous page is a PTE's (counted in mapcount)
 * or a passing one; a count above mapcount may be a pin.
 */
static bool page_maybe_pinned(struct page *page)
{
	return page_count(page) > atomic_read(&page->mapcount);
}

/*
 * Fork's rule for pinned pages (today's Linux rule): a writable anonymous
 * page that may be pinned is copied for the child now instead of being
 * shared copy-on-write. Shared, the parent's next write would copy it
 * away from under the pin, and the pin would then see the child's page
 * (vm.debug_fork_shares_pinned brings that back). The parent keeps its
 * page, writable. False if no memory.
 */
static bool copy_pinned_for_child(pte_t v, struct page *page, pte_t *cp)
{
	struct page *copy = alloc_page();
	if (!copy)
		return false;
	memcpy(page_address(copy), page_address(page), PAGE_SIZE);
	atomic_inc(&copy->mapcount);
	WRITE_ONCE(*cp, (v & ~PTE_ADDR_MASK) | page_to_phys(copy));
	return true;
}

static void copy_one(pte_t *pte, unsigned long va, void *arg)
{
	struct fork_ctx *c = arg;
	pte_t v = READ_ONCE(*pte);
	if (!(v & (PTE_P | PTE_PROTNONE)) || c->nomem)
		return;
	pte_t *cp = pt_walk(c->child->pml4, va, true);
	if (!cp) {
		c->nomem = true;
		return;
	}
	struct page *page = pfn_to_page((v & PTE_ADDR_MASK) >> PAGE_SHIFT);
	if (!c->shared && (v & PTE_W) && !page->mapping && page_maybe_pinned(page) &&
	    !fork_shares_pinned) {
		if (!copy_pinned_for_child(v, page, cp))
			c->nomem = true;
		return;
	}
	if (!c->shared && (v & PTE_W)) {	/* both copies read-only: the first write copies */
		if (unlikely(va == fork_pause_at))
			udelay(1000000);	/* a fast pin may come now (mm_fork's seq) */
		v = pte_clear_bits(pte, PTE_W) & ~PTE_W;	/* paging.h: keeps the MMU's D bit */
	}
	get_page(page);
	atomic_inc(&page->mapcount);
	WRITE_ONCE(*cp, v);
}

/*
 * fork_seq brackets the copy for get_user_pages_fast (gup.c, "fork and the
 * fast path"): odd while private pages are being write-protected. The
 * full barrier orders the odd store before copy_one's reads of refcounts;
 * the fast path orders its reference before its second read of fork_seq.
 * Only the holder of mmap_lock for writing stores it.
 */
static void fork_seq_begin(struct mm_struct *mm)
{
	WRITE_ONCE(mm->fork_seq, mm->fork_seq + 1);
	smp_mb();	/* mov, then mfence: the odd value before any refcount read */
}

static void fork_seq_end(struct mm_struct *mm)
{
	/* After every PTE write of the copy (a plain mov under TSO). */
	smp_store_release(&mm->fork_seq, mm->fork_seq + 1);
}

struct mm_struct *mm_fork(struct mm_struct *old)
{
	struct mm_struct *mm = mm_create();
	if (!mm)
		return NULL;
	down_write(&old->mmap_lock);
	fork_seq_begin(old);
	mm->brk_start = old->brk_start;
	mm->brk = old->brk;
	bool nomem = false;
	for (struct list_head *p = old->vmas.next; p != &old->vmas && !nomem; p = p->next) {
		struct vm_area *v = list_entry(p, struct vm_area, link);
		struct vm_area *n = kmem_cache_alloc(vma_cache);
		if (!n) {
			nomem = true;
			break;
		}
		*n = *v;
		n->mm = mm;
		if (n->file)
			igrab(n->file);
		vma_link_file(n, v);
		list_add_tail(&n->link, &mm->vmas);
		struct fork_ctx c = { mm, (v->flags & VM_SHARED) != 0, false };
		spin_lock(&old->pt_lock);
		walk_ptes(old->pml4, v->start, v->end, copy_one, &c);
		spin_unlock(&old->pt_lock);
		nomem = c.nomem;
	}
	/* The parent's writable translations are now read-only: flush them. */
	flush_tlb_cpus(mm_flush_mask(old), 0, USER_TOP);
	fork_seq_end(old);
	up_write(&old->mmap_lock);
	if (nomem) {
		mm_put(mm);
		return NULL;
	}
	return mm;
}

static void count_one(pte_t *pte, unsigned long va, void *arg)
{
	*(unsigned long *)arg += (READ_ONCE(*pte) & (PTE_P | PTE_PROTNONE)) != 0;
}

unsigned long mm_rss(struct mm_struct *mm)
{
	unsigned long n = 0;
	spin_lock(&mm->pt_lock);
	walk_ptes(mm->pml4, 0, USER_TOP, count_one, &n);
	spin_unlock(&mm->pt_lock);
	return n;
}

/* ------------------------------------------------------------ VMAs */

struct vm_area *find_vma(struct mm_struct *mm, unsigned long addr)
{
	for (struct list_head *p = mm->vmas.next; p != &mm->vmas; p = p->next) {
		struct vm_area *v = list_entry(p, struct vm_area, link);
		if (addr < v->end)
			return v;
	}
	return NULL;
}

/* Split v at addr (inside it): v keeps [start, addr), the new one [addr, end). */
static struct vm_area *split(struct vm_area *v, unsigned long addr)
{
	struct vm_area *n = kmem_cache_alloc(vma_cache);
	if (!n)
		return NULL;
	*n = *v;
	if (n->file)
		igrab(n->file);
	n->start = addr;
	if (n->file)
		n->pgoff += (addr - v->start) >> PAGE_SHIFT;
	vma_link_file(n, NULL);
	vma_set_range(v, v->start, addr, v->pgoff);
	list_add(&n->link, &v->link);
	return n;
}

static bool page_aligned_range(unsigned long addr, size_t len, unsigned long *end)
{
	if (addr & (PAGE_SIZE - 1) || !len)
		return false;
	*end = addr + ((len + PAGE_SIZE - 1) & PAGE_MASK);
	return *end > addr && *end <= USER_TOP;
}

int do_munmap(struct mm_struct *mm, unsigned long addr, size_t len)
{
	unsigned long end;
	if (!page_aligned_range(addr, len, &end))
		return -EINVAL;
	struct list_head *p = mm->vmas.next;
	while (p != &mm->vmas) {
		struct vm_area *v = list_entry(p, struct vm_area, link);
		p = p->next;
		if (v->end <= addr || v->start >= end)
			continue;
		if (v->start < addr) {			/* keep the part below */
			if (!split(v, addr))
				return -ENOMEM;
			p = v->link.next;		/* the upper part, next */
			continue;
		}
		if (v->end > end) {			/* keep the part above */
			if (!split(v, end))
				return -ENOMEM;
		}
		zap_range(mm, v->start, v->end);
		list_del(&v->link);
		vma_free_later(v);
	}
	return 0;
}

/* A free gap of len bytes, as high as it fits below USER_MMAP_TOP; 0 if none. */
static unsigned long find_gap(struct mm_struct *mm, size_t len)
{
	unsigned long top = USER_MMAP_TOP;
	if (len > top - 0x10000000UL && !gap_wraps)
		return 0;	/* could never fit: and top - len must not wrap */
	for (struct list_head *p = mm->vmas.prev; p != &mm->vmas; p = p->prev) {
		struct vm_area *v = list_entry(p, struct vm_area, link);
		if (v->start >= top)
			continue;
		if (v->end <= top - len)
			return top - len;
		top = v->start;
		if (top < len + PAGE_SIZE * 16)
			return 0;
	}
	return top >= len + 0x10000000UL ? top - len : 0;
}

static void insert_sorted(struct mm_struct *mm, struct vm_area *n)
{
	struct list_head *p = mm->vmas.next;
	for (; p != &mm->vmas; p = p->next)
		if (list_entry(p, struct vm_area, link)->start > n->start)
			break;
	list_add_tail(&n->link, p);
}

long do_mmap(struct mm_struct *mm, unsigned long addr, size_t len, unsigned long vmflags,
	     bool fixed, struct inode *file, u64 pgoff)
{
	if (!len || len > USER_TOP)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (fixed) {
		if (addr & (PAGE_SIZE - 1))
			return -EINVAL;
		if (addr >= USER_TOP || len > USER_TOP - addr)
			return -ENOMEM;		/* Linux: no room there in user space */
		int err = do_munmap(mm, addr, len);
		if (err)
			return err;
	} else {
		addr = find_gap(mm, len);
		if (!addr)
			return -ENOMEM;
	}
	struct vm_area *n = kmem_cache_alloc(vma_cache);
	if (!n)
		return -ENOMEM;
	n->start = addr;
	n->end = addr + len;
	n->flags = vmflags;
	n->file = file ? igrab(file) : NULL;
	n->pgoff = pgoff;
	n->mm = mm;
	vma_link_file(n, NULL);
	insert_sorted(mm, n);
	return (long)addr;
}

static pte_t protected_pte(pte_t v, unsigned long flags)
{
	if (!(flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return (v & ~PTE_P) | PTE_PROTNONE;
	v = (v & ~PTE_PROTNONE) | PTE_P;
	if (!(flags & VM_WRITE))
		v &= ~PTE_W;		/* writable again only through a fault */
	return (flags & VM_EXEC) ? v & ~PTE_NX : v | PTE_NX;
}

static void protect_one(pte_t *pte, unsigned long va, void *arg)
{
	unsigned long flags = *(unsigned long *)arg;
	pte_t v = READ_ONCE(*pte);
	/* A compare-and-swap loop, not a store: the MMU may set A or D in
	 * between (paging.h), and the new value must keep them. */
	while ((v & (PTE_P | PTE_PROTNONE)) && !pte_cmpxchg(pte, v, protected_pte(v, flags)))
		v = READ_ONCE(*pte);
}

/* Whether every page of [addr, end) is in some VMA. mmap_lock held. */
static bool range_mapped(struct mm_struct *mm, unsigned long addr, unsigned long end)
{
	unsigned long at = addr;
	for (struct vm_area *v = find_vma(mm, at); at < end; v = find_vma(mm, at)) {
		if (!v || v->start > at)
			return false;
		at = v->end;
	}
	return true;
}

int do_mprotect(struct mm_struct *mm, unsigned long addr, size_t len, unsigned long vmflags)
{
	unsigned long end;
	if (addr & (PAGE_SIZE - 1) || !len)
		return -EINVAL;
	/* Linux: ENOMEM if any part of the range is not mapped, also when it
	 * wraps or leaves user space (nothing is mapped there). */
	if (!page_aligned_range(addr, len, &end) || !range_mapped(mm, addr, end))
		return -ENOMEM;
	for (struct list_head *p = mm->vmas.next; p != &mm->vmas; p = p->next) {
		struct vm_area *v = list_entry(p, struct vm_area, link);
		if (v->end <= addr || v->start >= end)
			continue;
		if (v->start < addr) {
			if (!split(v, addr))
				return -ENOMEM;
			continue;		/* the loop meets the upper part next */
		}
		if (v->end > end && !split(v, end))
			return -ENOMEM;
		v->flags = (v->flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vmflags;
		spin_lock(&mm->pt_lock);
		walk_ptes(mm->pml4, v->start, v->end, protect_one, &v->flags);
		spin_unlock(&mm->pt_lock);
	}
	flush_tlb_cpus(mm_flush_mask(mm), addr, end);
	return 0;
}

int do_zap(struct mm_struct *mm, unsigned long addr, size_t len)
{
	unsigned long end;
	if (addr & (PAGE_SIZE - 1) || !len || addr + ((len + PAGE_SIZE - 1) & PAGE_MASK) <= addr)
		return -EINVAL;		/* Linux: a length that wraps is EINVAL here */
	if (!page_aligned_range(addr, len, &end))
		return -ENOMEM;		/* past user space: nothing mapped there */
	zap_range(mm, addr, MIN(end, USER_TOP));
	/* Linux: the mapped parts are done, and a hole anywhere is ENOMEM. */
	return range_mapped(mm, addr, end) ? 0 : -ENOMEM;
}

int vma_check_range(struct mm_struct *mm, unsigned long addr, size_t len)
{
	unsigned long end;
	if (addr & (PAGE_SIZE - 1) || !len || addr + ((len + PAGE_SIZE - 1) & PAGE_MASK) <= addr)
		return -EINVAL;
	return page_aligned_range(addr, len, &end) && range_mapped(mm, addr, end) ? 0 : -ENOMEM;
}

struct move_ctx {
	struct mm_struct *mm;
	long delta;
	bool nomem;
};

/* Make the page tables for the PTE that will move from va. */
static void prepare_move_one(pte_t *pte, unsigned long va, void *arg)
{
	struct move_ctx *c = arg;
	if ((READ_ONCE(*pte) & (PTE_P | PTE_PROTNONE)) && !c->nomem &&
	    !pt_walk(c->mm->pml4, va + c->delta, true))
		c->nomem = true;
}

static void move_one(pte_t *pte, unsigned long va, void *arg)
{
	struct move_ctx *c = arg;
	if (!(READ_ONCE(*pte) & (PTE_P | PTE_PROTNONE)))
		return;
	pte_t *to = pt_walk(c->mm->pml4, va + c->delta, false);	/* made beforehand */
	pte_t v = pte_get_and_clear(pte);	/* paging.h: keeps the MMU's D bit */
	WRITE_ONCE(*to, v);	/* the page's reference and mapcount move with it */
}

/*
 * Move v's pages to `to` and v with them. First every page table the move
 * needs is made, so that it cannot fail halfway (which would leave PTEs
 * outside any VMA); then, under the file's i_mmap_lock (so the reverse
 * map sees either the old VMA range with the old PTEs or the new with the
 * new, never a PTE where its VMA does not say) and pt_lock, the PTEs move
 * and the VMA changes together, and the old addresses are shot down
 * before the reverse map can unmap the page at its new place and free it.
 * mmap_lock held for writing. vm.debug_mremap_unlocked restores the old
 * order: PTEs moved first, the VMA changed later, no i_mmap_lock.
 */
static int move_vma(struct mm_struct *mm, struct vm_area *v, unsigned long to, size_t newlen)
{
	struct move_ctx c = { mm, (long)to - (long)v->start, false };
	unsigned long from = v->start, from_end = v->end;
	spinlock_t *l = v->file && !mremap_unlocked ? &v->file->mapping.i_mmap_lock : NULL;

	spin_lock(&mm->pt_lock);
	walk_ptes(mm->pml4, from, from_end, prepare_move_one, &c);
	spin_unlock(&mm->pt_lock);
	if (c.nomem)
		return -ENOMEM;		/* nothing moved */
	if (l)
		spin_lock(l);
	spin_lock(&mm->pt_lock);
	walk_ptes(mm->pml4, from, from_end, move_one, &c);
	spin_unlock(&mm->pt_lock);
	if (!l && mremap_delay_us)
		udelay(mremap_delay_us);	/* the broken order's window, held open */
	if (l) {
		v->start = to;
		v->end = to + newlen;
	}
	flush_tlb_cpus(mm_flush_mask(mm), from, from_end);
	if (l)
		spin_unlock(l);
	else
		vma_set_range(v, to, to + newlen, v->pgoff);
	list_del(&v->link);
	insert_sorted(mm, v);
	return 0;
}

long do_mremap_grow(struct mm_struct *mm, unsigned long old, size_t oldlen, size_t newlen,
		    bool may_move)
{
	struct vm_area *v = find_vma(mm, old);
	if (!v || v->start > old || old + oldlen != v->end || !oldlen)
		return -EFAULT;		/* Linux: EFAULT when the range is not one mapping */
	struct vm_area *next = v->link.next != &mm->vmas
				       ? list_entry(v->link.next, struct vm_area, link) : NULL;
	if (old <= USER_MMAP_TOP && newlen <= USER_MMAP_TOP - old && (!next || next->start >= old + newlen)) {
		vma_set_range(v, v->start, old + newlen, v->pgoff);	/* grow in place */
		return (long)old;
	}
	if (!may_move)
		return -ENOMEM;
	unsigned long to = find_gap(mm, newlen);
	if (!to)
		return -ENOMEM;
	int err = move_vma(mm, v, to, newlen);
	return err ? err : (long)to;
}

/* ------------------------------------------------------------ msync */

/*
 * A store through a writable shared PTE sets only the PTE's dirty bit
 * once the page has been written back, so msync moves each dirty bit to
 * its page first: clear it (atomically: the MMU may set it meanwhile) and
 * dirty the page, whose reference the PTE holds while pt_lock shows it.
 * The TLB is flushed afterwards, so the next store sets the bit again.
 */
static void move_dirty_bit(pte_t *pte, unsigned long va, void *arg)
{
	pte_t v = READ_ONCE(*pte);
	if (!(v & PTE_P) || !(v & PTE_D))
		return;
	v = pte_clear_bits(pte, PTE_D);		/* paging.h: the old value */
	if (v & PTE_D)
		set_page_dirty(pfn_to_page((v & PTE_ADDR_MASK) >> PAGE_SHIFT));
	*(bool *)arg = true;
}

/* Write back the part [start, end) of the shared file VMA v. May sleep. */
static int msync_vma(struct mm_struct *mm, struct vm_area *v, unsigned long start,
		     unsigned long end)
{
	bool moved = false;
	spin_lock(&mm->pt_lock);
	walk_ptes(mm->pml4, start, end, move_dirty_bit, &moved);
	spin_unlock(&mm->pt_lock);
	if (moved)
		flush_tlb_cpus(mm_flush_mask(mm), start, end);
	struct address_space *m = &v->file->mapping;
	if (!m->a_ops || !m->a_ops->writepage)
		return 0;		/* memory only (shared anonymous): nothing to write */
	u64 first = v->pgoff + ((start - v->start) >> PAGE_SHIFT);
	return filemap_write_range(m, first, first + ((end - start) >> PAGE_SHIFT) - 1);
}

int do_msync(struct mm_struct *mm, unsigned long addr, size_t len, int flags)
{
	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC) || (addr & (PAGE_SIZE - 1)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	unsigned long end = addr + ((len + PAGE_SIZE - 1) & PAGE_MASK);
	if (end < addr || (len && end == addr))
		return -ENOMEM;		/* the length wraps */
	if (end == addr)
		return 0;
	int err = 0, unmapped = 0;
	down_read(&mm->mmap_lock);
	for (unsigned long at = addr; at < end && !err;) {
		struct vm_area *v = find_vma(mm, at);
		if (!v || v->start >= end) {
			unmapped = -ENOMEM;
			break;
		}
		if (v->start > at)
			unmapped = -ENOMEM;	/* a hole: Linux goes on, then says so */
		unsigned long s = MAX(at, v->start), e = MIN(end, v->end);
		if ((flags & MS_SYNC) && v->file && (v->flags & VM_SHARED))
			err = msync_vma(mm, v, s, e);
		at = e;
	}
	up_read(&mm->mmap_lock);
	return err ? err : unmapped;
}
