/*
 * gup.c - pinning user pages: get_user_pages() (the slow path, under
 * mmap_lock) and get_user_pages_fast() (the lockless walk, Nick Piggin's
 * x86 fast path of Linux 2.6.27).
 *
 * A pin is a page reference held so that the kernel (O_DIRECT, the
 * pinning syscall) can use the page while the process runs on: the page
 * cannot be freed until put_page, even if the process unmaps it.
 *
 * get_user_pages_fast: THE GUARANTEE IT RELIES ON. A page that leaves a
 * user page table is freed only after the TLB-shootdown IPIs for it have
 * been acknowledged by every CPU of the mm (mm/mmap.c zap_range,
 * mm/fault.c copy-on-write, mm/rmap.c), and page tables are freed only
 * when no thread of the mm runs (mm_put). A CPU with interrupts disabled
 * cannot acknowledge an IPI. So while this CPU walks with interrupts off,
 * no page it finds in a PTE can be freed, and no table it walks can be.
 *
 * The steps (STYLE.md rule 2; the code cites them):
 *   1. irq_save(): from here no shootdown aimed at this CPU can complete.
 *   2. Walk the current mm's tables with one READ_ONCE per level; refuse a
 *      level that is not present or not user, and a PTE that is not
 *      present, not user, or (for a write pin) not writable - or an
 *      anonymous page mapped read-only for a read pin (it may be shared
 *      copy-on-write: the slow path breaks COW first, see below).
 *   3. Take a reference: increment unless zero. By the guarantee the count
 *      cannot be zero here; if it is, the guarantee was broken, and we say
 *      so (panic) rather than pin a free page.
 *   4. Re-read the PTE. If it changed (munmap, a fork making it read-only,
 *      mprotect) drop the reference: this page is no longer what the
 *      address maps. Changes that free nothing are caught here, not by 1.
 *   5. irq_restore(). Whatever could not be pinned is left to the slow
 *      path, which faults pages in under mmap_lock.
 *
 * Copy-on-write and pins (CVE-2020-29374): a pinned page must be the
 * pinning process's own. A read pin of an anonymous page still shared
 * copy-on-write with another process would let that process's later
 * write (which reuses the page if it looks unshared) show through the
 * pin, so any pin of a possibly shared anonymous page breaks COW in the
 * pinning process first: the slow path faults it for writing. And the
 * COW fault reuses a page only when its refcount is 1, so a pin held
 * elsewhere always forces a copy (mm/fault.c).
 *
 * Fork and the fast path. Fork copies a writable private page for the
 * child when it may be pinned (refcount above mapcount), and otherwise
 * write-protects it and shares it. That decision reads the refcount
 * first and writes the PTE after, and the fast path takes no lock that
 * fork holds, so step 4 alone cannot stop this interleaving:
 *     fork: refcount says unpinned
 *                                 fast path: PTE writable, reference, PTE
 *                                 unchanged: pinned for writing
 *     fork: write-protect, share with the child
 * The parent's next write then copies the page away from the pin, and
 * whatever is written through the pin lands in the child's memory.
 * So mm->fork_seq is odd while fork copies (mm/mmap.c), and:
 *   0. Before step 1, read fork_seq; if odd, pin nothing here.
 *   6. After step 4 for every page, a full barrier, then read fork_seq
 *      again; if it changed, drop every pin taken and use the slow path,
 *      which takes mmap_lock and so waits for fork.
 * Why it is enough (a Dekker pair): fork stores the odd value, full
 * barrier, reads refcounts; we increment a refcount, full barrier, read
 * fork_seq. Either fork sees our reference (the child gets a copy, the
 * pinned page stays ours) or we see fork (and let go). gup.debug_ignore_fork
 * skips steps 0 and 6 (caught by t_pin under vm.debug_fork_pause).
 */
#include "mm/gup.h"
#include "mm/vm.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/pagecache.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/lockdep.h"
#include "kernel/percpu.h"

CMDLINE_KEY(gup_mode_key, "gup", "gup=slow: O_DIRECT and the pinning syscall use the slow path");
CMDLINE_KEY(gup_irqs_on, "gup.debug_irqs_on",
	    "test of the tests: the fast path walks with interrupts enabled");
CMDLINE_KEY(gup_delay, "gup.debug_delay_us",
	    "widen the fast path's window between reading a PTE and the reference");
CMDLINE_KEY(gup_ignore_fork, "gup.debug_ignore_fork",
	    "test of the tests: the fast path ignores a fork in progress (mm->fork_seq)");

struct gup_stats gup_stats;	/* [A] */
static bool slow_default;	/* [A] gup=slow, or /proc/gup_mode */
static bool irqs_on;		/* [I] */
static unsigned delay_us;	/* [I] */
static bool ignore_fork;	/* [I] gup.debug_ignore_fork */
/* walking[cpu]: [P] that CPU is between steps 1 and 5. Read by the shootdown
 * IPI on the same CPU, to say at once when the guarantee is broken. */
static bool walking[MAX_CPUS];

bool gup_fast_walking_here(void)
{
	return READ_ONCE(walking[smp_processor_id()]);
}

#define COUNT(f, n) __atomic_add_fetch(&gup_stats.f, (n), __ATOMIC_RELAXED)

void gup_init(void)
{
	const char *m = cmdline_get("gup");
	slow_default = m && !__builtin_strcmp(m, "slow");
	irqs_on = cmdline_get("gup.debug_irqs_on") != NULL;
	delay_us = (unsigned)cmdline_get_u64("gup.debug_delay_us", 0);
	ignore_fork = cmdline_get("gup.debug_ignore_fork") != NULL;
}

bool gup_slow_default(void)
{
	return READ_ONCE(slow_default);
}

void gup_set_slow_default(bool slow)
{
	WRITE_ONCE(slow_default, slow);
}

/* ------------------------------------------------------------ the slow path */

/* May this PTE be pinned as it is? (The fast path asks the same, step 2.) */
static bool pte_pinnable(pte_t v, bool write, struct page **page)
{
	if ((v & (PTE_P | PTE_U)) != (PTE_P | PTE_U) || (write && !(v & PTE_W)))
		return false;
	struct page *p = pfn_to_page((v & PTE_ADDR_MASK) >> PAGE_SHIFT);
	if (!write && !(v & PTE_W) && !READ_ONCE(p->mapping))
		return false;	/* anonymous and read-only: maybe COW-shared */
	*page = p;
	return true;
}

long get_user_pages(struct mm_struct *mm, unsigned long start, unsigned long nr, unsigned flags,
		    struct page **pages)
{
	might_sleep();	/* mmap_lock, faults */
	bool write = flags & GUP_WRITE;
	for (unsigned long i = 0; i < nr; i++) {
		unsigned long addr = (start & PAGE_MASK) + i * PAGE_SIZE;
		for (int tries = 0;; tries++) {
			down_read(&mm->mmap_lock);
			struct vm_area *v = find_vma(mm, addr);
			bool allowed = v && v->start <= addr &&
				       (v->flags & (write ? VM_WRITE : (VM_READ | VM_WRITE | VM_EXEC)));
			struct page *page = NULL;
			bool ok = false;
			if (allowed) {
				spin_lock(&mm->pt_lock);
				pte_t *pte = pt_walk(mm->pml4, addr, false);
				pte_t val = pte ? READ_ONCE(*pte) : 0;
				ok = pte_pinnable(val, write, &page);
				/* In a read-only VMA nothing can make the page ours:
				 * pin it as it is (no one can write it through us). */
				if (!ok && !write && !(v->flags & VM_WRITE) &&
				    (val & (PTE_P | PTE_U)) == (PTE_P | PTE_U)) {
					page = pfn_to_page((val & PTE_ADDR_MASK) >> PAGE_SHIFT);
					ok = true;
				}
				if (ok)
					get_page(page);
				spin_unlock(&mm->pt_lock);
			}
			up_read(&mm->mmap_lock);
			if (!allowed)
				return i ? (long)i : -EFAULT;
			if (ok) {
				pages[i] = page;
				break;
			}
			/* Fault it in - for writing if it must become ours (COW). */
			bool wfault = write || (v->flags & VM_WRITE);
			int err = tries < 8 ? handle_mm_fault(mm, addr, (wfault ? PF_WRITE : 0) | PF_USER)
					    : -EFAULT;
			if (err)
				return i ? (long)i : (err == -ENOMEM ? -ENOMEM : -EFAULT);
		}
	}
	COUNT(slow_pins, nr);
	return (long)nr;
}

/* ------------------------------------------------------------ the fast path */

/* Steps 2-4 for one page, interrupts off. The page, or NULL to fall back. */
static struct page *fast_one(u64 *pml4, unsigned long addr, bool write)
{
	/* The guarantee, checked for each page: interrupts are off (step 1) -
	 * unless they are on by request (gup.debug_irqs_on), so that the torture
	 * has to catch it. Above LAB 6's region, so a student's walk keeps it. */
	lockdep_assert(irqs_disabled() || irqs_on);
	/* LAB 6 BEGIN fast_one: gup.c steps 2-4 for one page (docs/labs/lab6.md) */
	u64 *t = pml4;
	for (int level = 3; level > 0; level--) {			/* step 2 */
		u64 e = READ_ONCE(t[(addr >> (12 + 9 * level)) & 511]);
		if ((e & (PTE_P | PTE_U)) != (PTE_P | PTE_U) || (e & PTE_PS)) {
			COUNT(fallback_not_present, 1);
			return NULL;
		}
		t = __va(e & PTE_ADDR_MASK);
	}
	pte_t *ptep = &t[(addr >> 12) & 511];
	pte_t v = READ_ONCE(*ptep);
	struct page *page;
	if (!(v & PTE_P)) {
		COUNT(fallback_not_present, 1);
		return NULL;
	}
	if (!pte_pinnable(v, write, &page)) {
		COUNT(fallback_permission, 1);
		return NULL;
	}
	if (delay_us)
		udelay(delay_us);		/* a wider window, for the torture */
	if (!page_cache_get_speculative(page))				/* step 3 */
		panic("gup_fast: the page at %#lx was freed while this CPU walked with "
		      "interrupts off - a TLB shootdown completed without it (the "
		      "interrupts-off guarantee, mm/gup.c, is broken)", addr);
	if (READ_ONCE(*ptep) != v) {					/* step 4 */
		put_page(page);
		COUNT(fallback_changed, 1);
		return NULL;
	}
	return page;
	/* LAB 6 END fast_one */
}

long get_user_pages_fast(unsigned long start, unsigned long nr, unsigned flags,
			 struct page **pages, unsigned long *nr_fast)
{
	struct mm_struct *mm = current_task()->mm;
	bool write = flags & GUP_WRITE;
	unsigned long end = (start & PAGE_MASK) + nr * PAGE_SIZE, i = 0;
	might_sleep();	/* the slow path may finish the job */
	*nr_fast = 0;
	if (!mm || end < start || end > USER_TOP)
		return -EFAULT;
	unsigned long f = 0;
	unsigned long seq = smp_load_acquire(&mm->fork_seq);		/* step 0 */
	bool forking = (seq & 1) && !ignore_fork;
	if (irqs_on)
		preempt_disable();	/* broken: interrupts stay on, but no migration */
	else
		f = irq_save();						/* step 1 */
	WRITE_ONCE(walking[smp_processor_id()], true);
	for (; i < nr && !forking; i++) {
		struct page *page = fast_one(mm->pml4, (start & PAGE_MASK) + i * PAGE_SIZE, write);
		if (!page)
			break;
		pages[i] = page;
	}
	WRITE_ONCE(walking[smp_processor_id()], false);
	if (irqs_on)
		preempt_enable();
	else
		irq_restore(f);						/* step 5 */
	smp_mb();	/* mfence: our references before the second read (step 6) */
	if (forking || (i && READ_ONCE(mm->fork_seq) != seq && !ignore_fork)) {
		unpin_user_pages(pages, i, false);	/* a fork ran: they may be shared */
		COUNT(fallback_fork, 1);
		i = 0;
	}
	*nr_fast = i;
	COUNT(fast_pins, i);
	if (i == nr)
		return (long)nr;
	long r = get_user_pages(mm, (start & PAGE_MASK) + i * PAGE_SIZE, nr - i, flags, pages + i);
	if (r < 0)
		return i ? (long)i : r;
	return (long)(i + (unsigned long)r);
}

void unpin_user_pages(struct page **pages, unsigned long nr, bool dirty)
{
	for (unsigned long i = 0; i < nr; i++) {
		if (dirty && pages[i]->mapping)
			set_page_dirty(pages[i]);	/* written through the pin (O_DIRECT read) */
		put_page(pages[i]);
	}
}
