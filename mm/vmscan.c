/*
 * vmscan.c - LRU lists, second-chance scanning, and the reclaim thread.
 *
 * Lock order: 'page_lock' -> 'tree_lock' -> 'lru' (lockdep classes; vmscan.h).
 *   reclaim: isolate under lru_lock, then trylock_page outside it, then
 *   remove_mapping (tree_lock); put-back takes lru_lock again alone.
 *
 * Isolation takes a reference (increment-unless-zero: a page whose count
 * is 0 is being freed) and clears PG_lru, so while reclaim looks at a page
 * its count is the cache's 1 + reclaim's 1 = 2 if no one else uses it -
 * the number remove_mapping freezes.
 */
#include "mm/vmscan.h"
#include "mm/pagecache.h"
#include "mm/vm.h"
#include "mm/page.h"
#include "kernel/spinlock.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/list.h"

CMDLINE_KEY(pc_max_pages, "pagecache.max_pages",
	    "cap on page-cache pages (soft: reclaim at the cap, never fail)");

#define SCAN_BATCH 32
#define LOW_FREE_PAGES 1024	/* wake the reclaim thread below this */

/* Lock legend: [L:lru_lock], [I] after vmscan_init, [A] atomic. */
static spinlock_t lru_lock = SPINLOCK_INIT("lru");
static LIST_HEAD(inactive);		/* [L:lru_lock] new and demoted pages */
static LIST_HEAD(active);		/* [L:lru_lock] pages used twice */
static unsigned long nr_inactive, nr_active;	/* [L:lru_lock] */
static unsigned long max_pages = ~0UL;	/* [I] */
static struct wait_queue_head reclaimd_wq;
static struct task *reclaimd;		/* [I] */

unsigned long vmscan_max_pages(void)
{
	return max_pages;
}

void lru_cache_add(struct page *page)
{
	unsigned long f = spin_lock_irqsave(&lru_lock);
	set_bit(PG_lru, &page->flags);
	list_add(&page->lru, &inactive);
	nr_inactive++;
	spin_unlock_irqrestore(&lru_lock, f);
	if (reclaimd && (pagecache_nr_pages() > max_pages || nr_free_pages() < LOW_FREE_PAGES))
		wake_up(&reclaimd_wq);
}

/* lru_lock held, the page on a list. */
static void __lru_unlink(struct page *page)
{
	list_del(&page->lru);
	if (test_and_clear_bit(PG_active, &page->flags))
		nr_active--;
	else
		nr_inactive--;
	clear_bit(PG_lru, &page->flags);
}

void lru_del(struct page *page)
{
	unsigned long f = spin_lock_irqsave(&lru_lock);
	if (test_bit(PG_lru, &page->flags))
		__lru_unlink(page);
	spin_unlock_irqrestore(&lru_lock, f);
}

/*
 * Every cached read calls this, on every CPU, for the same hot pages, so
 * it looks before it writes: a page already active and referenced has
 * nothing left to gain, and a plain load (x86-64: mov) of its flags lets
 * it go without a locked instruction or the global lru_lock - no cache
 * line changes hands between the readers. The load is a hint: if reclaim
 * demotes the page (refill_inactive clears PG_referenced) just after it,
 * this one access goes unrecorded, which costs the page at most one more
 * trip around the lists. Otherwise the first access sets PG_referenced
 * (lock bts) and the next one moves an inactive page to the active list.
 */
void mark_page_accessed(struct page *page)
{
	unsigned long flags = READ_ONCE(page->flags);
	if ((flags & (1UL << PG_active)) && (flags & (1UL << PG_referenced)))
		return;		/* hot already: no store at all */
	if (!test_and_set_bit(PG_referenced, &page->flags))
		return;		/* first use: remember it */
	unsigned long f = spin_lock_irqsave(&lru_lock);
	if (test_bit(PG_lru, &page->flags) && !test_bit(PG_active, &page->flags)) {
		__lru_unlink(page);
		set_bit(PG_lru, &page->flags);
		set_bit(PG_active, &page->flags);
		clear_bit(PG_referenced, &page->flags);
		list_add(&page->lru, &active);
		nr_active++;
	}
	spin_unlock_irqrestore(&lru_lock, f);
}

/*
 * Put an isolated page back (at the head: scanned last) and drop
 * reclaim's reference. A page truncated meanwhile (mapping NULL) is not
 * put back; delete_from_page_cache clears the mapping before its lru_del,
 * and both sides decide under lru_lock, so the page ends up on a list only
 * while it is in a cache.
 */
static void putback(struct page *page, bool to_active)
{
	unsigned long f = spin_lock_irqsave(&lru_lock);
	if (READ_ONCE(page->mapping)) {
		set_bit(PG_lru, &page->flags);
		if (to_active) {
			set_bit(PG_active, &page->flags);
			list_add(&page->lru, &active);
			nr_active++;
		} else {
			list_add(&page->lru, &inactive);
			nr_inactive++;
		}
	}
	spin_unlock_irqrestore(&lru_lock, f);
	put_page(page);
}

/* Move up to n pages from the cold end of the active list to the inactive one. */
static void refill_inactive(unsigned long n)
{
	unsigned long f = spin_lock_irqsave(&lru_lock);
	while (n-- && !list_empty(&active)) {
		struct page *page = list_entry(active.prev, struct page, lru);
		__lru_unlink(page);
		set_bit(PG_lru, &page->flags);
		clear_bit(PG_referenced, &page->flags);
		list_add(&page->lru, &inactive);
		nr_inactive++;
	}
	spin_unlock_irqrestore(&lru_lock, f);
}

/* Isolate up to n pages from the cold end of the inactive list. */
static unsigned isolate(struct page **out, unsigned n)
{
	unsigned got = 0;
	unsigned long f = spin_lock_irqsave(&lru_lock);
	while (got < n && !list_empty(&inactive)) {
		struct page *page = list_entry(inactive.prev, struct page, lru);
		__lru_unlink(page);
		if (!page_cache_get_speculative(page))
			continue;	/* being freed: its owner no longer wants it listed */
		out[got++] = page;
	}
	spin_unlock_irqrestore(&lru_lock, f);
	return got;
}

/* Decide one isolated page's fate. Returns true if it was evicted. */
static bool reclaim_one(struct page *page)
{
	if (test_and_clear_bit(PG_referenced, &page->flags)) {
		putback(page, true);	/* second chance */
		return false;
	}
	if (!trylock_page(page)) {
		putback(page, false);
		return false;
	}
	struct address_space *m = page->mapping;
	/* A page mapped into user space is unmapped first (reverse mapping,
	 * mm/rmap.c): its user references go, and a dirty PTE dirties it. */
	if (m && atomic_read(&page->mapcount) > 0)
		try_to_unmap(page);
	if (!m || test_bit(PG_writeback, &page->flags) || atomic_read(&page->mapcount) > 0) {
		unlock_page(page);
		putback(page, false);
		return false;
	}
	if (test_bit(PG_dirty, &page->flags)) {
		write_one_page(page);	/* clean it; reconsidered on a later pass */
		putback(page, false);
		return false;
	}
	if (remove_mapping(m, page))	/* pagecache.h, steps E1-E5 */
		return true;		/* freed: our reference went with the freeze */
	unlock_page(page);
	putback(page, false);
	return false;
}

unsigned long vmscan_direct_reclaim(unsigned long nr)
{
	might_sleep();	/* writes dirty pages back */
	struct page *batch[SCAN_BATCH];
	unsigned long freed = 0, scanned = 0, budget = 4 * nr + 2 * SCAN_BATCH;

	while (freed < nr && scanned < budget) {
		if (READ_ONCE(nr_inactive) < READ_ONCE(nr_active))
			refill_inactive(SCAN_BATCH);
		unsigned n = isolate(batch, SCAN_BATCH);
		if (!n)
			break;
		scanned += n;
		for (unsigned i = 0; i < n; i++)
			freed += reclaim_one(batch[i]);
	}
	return freed;
}

static bool reclaim_needed(void)
{
	return pagecache_nr_pages() > max_pages - max_pages / 8 ||
	       (nr_free_pages() < LOW_FREE_PAGES && pagecache_nr_pages() > 0);
}

/* The reclaim thread: sleeps until memory runs low or the cache passes 7/8 of its cap. */
static int reclaimd_main(void *unused)
{
	for (;;) {
		wait_event(reclaimd_wq, reclaim_needed());
		if (!vmscan_direct_reclaim(SCAN_BATCH))
			msleep(10);	/* nothing evictable now: do not spin */
	}
	return 0;
}

void vmscan_init(void)
{
	max_pages = cmdline_get_u64("pagecache.max_pages", ~0UL);
	if (!max_pages)
		max_pages = 1;
	init_waitqueue_head(&reclaimd_wq);
	reclaimd = kthread_create(reclaimd_main, NULL, "reclaimd");
	if (reclaimd)
		wake_up_process(reclaimd);
	if (max_pages != ~0UL)
		printk("pagecache: capped at %lu pages", max_pages);
}
