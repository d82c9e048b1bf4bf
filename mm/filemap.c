/*
 * filemap.c - the page cache: lockless lookups, insertion and deletion,
 * the page lock, dirty pages and writeback, truncation, read and write.
 *
 * The lookup and eviction protocol is stated once, in mm/pagecache.h;
 * the code below cites its steps.
 *
 * Lock order (pagecache.h; names are lockdep classes, checked at run time):
 * 'page_lock' -> 'tree_lock' -> 'lru'.
 *   remove_mapping: 'page_lock' (held by reclaim) -> 'tree_lock'.
 *   delete_from_page_cache: 'page_lock' -> 'tree_lock', then 'lru' (lru_del).
 *   add_to_page_cache_lru: the new page's 'page_lock' -> 'tree_lock', then 'lru'.
 *   set_page_dirty: 'tree_lock' alone.
 */
#include "mm/pagecache.h"
#include "mm/iov_iter.h"
#include "mm/vmscan.h"
#include "mm/vm.h"
#include "mm/page.h"
#include "kernel/rcu.h"
#include "kernel/lockdep.h"
#include "kernel/wait.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "kernel/smp.h"

CMDLINE_KEY(pc_lookup, "pagecache.lookup",
	    "lockless (default) or locked: lookups take tree_lock for reading (2.6.26's way)");
CMDLINE_KEY(pc_skip_recheck, "pagecache.debug_skip_recheck",
	    "test of the tests: lookups skip step 4 (the recheck)");
CMDLINE_KEY(pc_plain_get, "pagecache.debug_plain_get",
	    "test of the tests: step 3 increments even a zero count");
CMDLINE_KEY(pc_split_freeze, "pagecache.debug_split_freeze",
	    "test of the tests: the freeze checks, then stores (no cmpxchg)");
CMDLINE_KEY(vm_truncate_restart, "vm.debug_truncate_restart",
	    "test of the tests: truncation restarts each batch at its start index");
CMDLINE_KEY(pc_ra_no_rcu, "pagecache.debug_ra_no_rcu",
	    "test of the tests: readahead walks the radix tree outside rcu_read_lock");
CMDLINE_KEY(pc_delay, "pagecache.debug_delay_us",
	    "widen the protocol's windows: delay N us between its steps");

#define READAHEAD_PAGES 4

static struct {
	bool locked, skip_recheck, plain_get, split_freeze, truncate_restart, ra_no_rcu;
	unsigned delay_us;
} cfg;				/* [I] after pagecache_init */

/* Per-CPU counters: no shared cache line on the lookup path. [P] with
 * preemption off (inside the RCU read side, or with the tree lock held). */
struct pc_cpu_stats {
	u64 hits, misses, spec_retries, recheck_retries;	/* lookups = hits + misses */
	u64 freeze_failures, evictions, writebacks, overruns, truncate_batches;
} __aligned(64);
static struct pc_cpu_stats pc_stats[MAX_CPUS];

static atomic_t nr_cached = ATOMIC_INIT(0);	/* [A] pages in all caches */

/* Bump this CPU's counter; preemption off so "this CPU" stays true. */
#define STAT(field)                                                            \
	do {                                                                   \
		preempt_disable();                                             \
		__STAT(field);                                                 \
		preempt_enable();                                              \
	} while (0)

/* The same, for a caller whose preemption is already off (inside the RCU
 * read side, or with interrupts off): the lookup's one count per call. */
#define __STAT(field) (pc_stats[smp_processor_id()].field++)

static void page_waitqueues_init(void);

void pagecache_init(void)
{
	const char *v = cmdline_get("pagecache.lookup");

	cfg.locked = v && !strcmp(v, "locked");
	if (v && !cfg.locked && strcmp(v, "lockless"))
		pr_warn("pagecache: pagecache.lookup=%s unknown; using lockless", v);
	cfg.skip_recheck = cmdline_get("pagecache.debug_skip_recheck") != NULL;
	cfg.plain_get = cmdline_get("pagecache.debug_plain_get") != NULL;
	cfg.split_freeze = cmdline_get("pagecache.debug_split_freeze") != NULL;
	cfg.delay_us = (unsigned)cmdline_get_u64("pagecache.debug_delay_us", 0);
	cfg.truncate_restart = cmdline_get("vm.debug_truncate_restart") != NULL;
	cfg.ra_no_rcu = cmdline_get("pagecache.debug_ra_no_rcu") != NULL;
	if (cfg.skip_recheck || cfg.plain_get || cfg.split_freeze || cfg.truncate_restart ||
	    cfg.ra_no_rcu)
		pr_warn("pagecache: deliberately broken protocol (test of the tests)");
	page_waitqueues_init();
	printk("pagecache: %s lookups", cfg.locked ? "locked" : "lockless");
}

bool pagecache_locked_lookups(void)
{
	return READ_ONCE(cfg.locked);
}

/*
 * Both kinds of lookup are correct at the same time (writers take the
 * tree lock either way), so a benchmark may switch between them at run
 * time to measure both designs in one boot.
 */
void pagecache_set_locked_lookups(bool locked)
{
	WRITE_ONCE(cfg.locked, locked);
}

static void debug_delay(void)
{
	if (cfg.delay_us)
		udelay(cfg.delay_us);
}

void address_space_init(struct address_space *m, const struct address_space_ops *ops, void *host)
{
	radix_tree_init_root(&m->tree);
	rwlock_init(&m->tree_lock, "tree_lock");
	radix_tree_set_lock(&m->tree, &m->tree_lock);	/* checked by the tree (lockdep) */
	m->page_lock_subclass = 0;
	m->unevictable = false;
	m->nrpages = 0;
	m->size = 0;
	m->a_ops = ops;
	m->host = host;
	list_init(&m->vmas);
	spin_lock_init(&m->i_mmap_lock, "i_mmap");
	m->ra_next = 0;
}

/* ---------------------------------------------------------------- the protocol */

bool page_cache_get_speculative(struct page *page)
{
	if (cfg.plain_get) {		/* deliberately broken: no "unless zero" */
		atomic_inc(&page->refcount);
		return true;
	}
	/* LAB 4 BEGIN page_cache_get_speculative: pagecache.h step 3 (docs/labs/lab4.md) */
	return atomic_inc_not_zero(&page->refcount);	/* lock cmpxchg loop */
	/* LAB 4 END page_cache_get_speculative */
}

bool page_freeze_refs(struct page *page, int count)
{
	if (cfg.split_freeze) {		/* deliberately broken: check, then store */
		if (atomic_read(&page->refcount) != count)
			return false;
		debug_delay();
		atomic_set(&page->refcount, 0);
		return true;
	}
	/* LAB 5 BEGIN page_freeze_refs: pagecache.h step E2 (docs/labs/lab5.md) */
	return atomic_cmpxchg(&page->refcount, count, 0) == count;	/* lock cmpxchg */
	/* LAB 5 END page_freeze_refs */
}

void page_unfreeze_refs(struct page *page, int count)
{
	/* Release: our reads of the page happen before others may take it. */
	__atomic_store_n(&page->refcount.counter, count, __ATOMIC_RELEASE);
}

static struct page *find_get_page_locked(struct address_space *m, unsigned long index)
{
	unsigned long f = read_lock_irqsave(&m->tree_lock);
	struct page *page = radix_tree_lookup(&m->tree, index);
	if (page) {
		get_page(page);		/* the lock keeps the page in the tree */
		__STAT(hits);
	} else {
		__STAT(misses);
	}
	read_unlock_irqrestore(&m->tree_lock, f);
	return page;
}

/*
 * The lookup's test hooks, kept out of its steps so that find_get_page reads
 * as the protocol, and outside LAB 4's region so that a student's lookup
 * meets the same switches (docs/labs/lab4.md names both): race_window() is
 * where pagecache.debug_delay_us widens the windows after steps 2 and 3 for
 * the torture, and slot_still_holds() is step 4, which
 * pagecache.debug_skip_recheck turns into "yes" (the mutant the torture,
 * the VFS readers and the model must catch). Both are called only from
 * there, so a lookup that leaves one out fails to build (defined but not
 * used) instead of quietly ignoring a switch.
 */
static void race_window(void)
{
	debug_delay();
}

static bool slot_still_holds(void **slot, struct page *page)
{
	if (cfg.skip_recheck)		/* deliberately broken: no recheck */
		return true;
	return radix_tree_deref_slot(slot) == page;
}

/* The two ways a lockless lookup loses a race, as functions of their own so
 * that gdb can break on them (docs/pagecache.md). */
static __attribute__((noipa)) void lost_race_count_was_zero(struct page *page)
{
	STAT(spec_retries);		/* interleaving B */
}

static __attribute__((noipa)) void lost_race_slot_changed(struct page *page)
{
	STAT(recheck_retries);		/* interleaving C */
	put_page(page);
}

struct page *find_get_page(struct address_space *m, unsigned long index)
{
	struct page *page;

	if (READ_ONCE(cfg.locked))
		return find_get_page_locked(m, index);
	rcu_read_lock();				/* pagecache.h, step 1 */
	/* LAB 4 BEGIN find_get_page: pagecache.h steps 2-4 (docs/labs/lab4.md) */
	void **slot;
again:
	page = NULL;
	slot = radix_tree_lookup_slot(&m->tree, index);	/* step 2 */
	if (slot)
		page = radix_tree_deref_slot(slot);
	if (page) {
		race_window();
		if (!page_cache_get_speculative(page)) {	/* step 3 */
			lost_race_count_was_zero(page);
			goto again;
		}
		race_window();
		if (!slot_still_holds(slot, page)) {		/* step 4 */
			lost_race_slot_changed(page);
			goto again;
		}
	}
	/* LAB 4 END find_get_page */
	if (page)
		__STAT(hits);		/* preemption is off: rcu_read_lock */
	else
		__STAT(misses);
	rcu_read_unlock();				/* step 5 */
	return page;
}

unsigned find_get_pages(struct address_space *m, unsigned long start, unsigned nr,
			struct page **pages)
{
	unsigned got = 0;

	rcu_read_lock();
	unsigned n = radix_tree_gang_lookup(&m->tree, (void **)pages, start, nr);
	for (unsigned i = 0; i < n; i++) {
		struct page *page = pages[i];
		if (!page_cache_get_speculative(page))		/* step 3 */
			continue;
		/* Step 4, by the page's own index: it must still be there. */
		if (READ_ONCE(page->mapping) != m ||
		    radix_tree_lookup(&m->tree, READ_ONCE(page->index)) != page) {
			put_page(page);
			continue;
		}
		pages[got++] = page;
	}
	rcu_read_unlock();
	return got;
}

/* ---------------------------------------------------------------- page lock */

#define PAGE_WAIT_HASH 64
static struct wait_queue_head page_waitqueues[PAGE_WAIT_HASH];

static struct wait_queue_head *page_waitqueue(struct page *page)
{
	return &page_waitqueues[(page_to_pfn(page) * 0x9e3779b1u >> 7) % PAGE_WAIT_HASH];
}

/*
 * lockdep's view of the page lock (kernel/lockdep.h): the class
 * "page_lock", in its mapping's subclass - a block device's pages are file
 * system metadata, locked inside file pages' locks (fs/ext2/ext2.h).
 */
static void page_lock_acquire(struct page *page, unsigned flags, unsigned long site)
{
	if (lockdep_enabled()) {
		/* Read before we hold the lock, page->mapping may be stale or,
		 * for a page no longer in any cache (a broken kernel's reused
		 * page, say), not a mapping at all: trust only a sane answer,
		 * so a checker never crashes over what another check reports. */
		struct address_space *m = READ_ONCE(page->mapping);
		unsigned sub = m && !test_bit(PG_slab, &page->flags) ? READ_ONCE(m->page_lock_subclass) : 0;
		lockdep_page_acquire(page, sub < LOCKDEP_MAX_SUBCLASSES ? sub : 0, flags, site);
	}
}

bool trylock_page(struct page *page)
{
	bool got = !test_and_set_bit(PG_locked, &page->flags);	/* lock bts: acquire */
	if (got)
		page_lock_acquire(page, LOCKDEP_TRY, LOCKDEP_SITE());
	return got;
}

void lock_page(struct page *page)
{
	might_sleep();
	page_lock_acquire(page, 0, LOCKDEP_SITE());	/* before waiting */
	while (test_and_set_bit(PG_locked, &page->flags))	/* lock bts: acquire */
		wait_event(*page_waitqueue(page), !test_bit(PG_locked, &page->flags));
}

void unlock_page(struct page *page)
{
	BUG_ON(!test_bit(PG_locked, &page->flags), "unlock_page of an unlocked page");
	lockdep_page_release(page);
	clear_bit(PG_locked, &page->flags);	/* lock btr: release, full barrier */
	wake_up_all(page_waitqueue(page));
}

static void end_page_writeback(struct page *page)
{
	clear_bit(PG_writeback, &page->flags);
	wake_up_all(page_waitqueue(page));
}

void wait_on_page_writeback(struct page *page)
{
	might_sleep();
	if (test_bit(PG_writeback, &page->flags))
		wait_event(*page_waitqueue(page), !test_bit(PG_writeback, &page->flags));
}

struct page *find_lock_page(struct address_space *m, unsigned long index)
{
	might_sleep();
	for (;;) {
		struct page *page = find_get_page(m, index);
		if (!page)
			return NULL;
		lock_page(page);
		/* Evicted or truncated while we slept on the lock? (rule 9) */
		if (page->mapping == m && page->index == index)
			return page;
		unlock_page(page);
		put_page(page);
	}
}

/* ---------------------------------------------------------------- insert, delete, evict */

int add_to_page_cache_lru(struct page *page, struct address_space *m, unsigned long index)
{
	might_sleep();
	if (pagecache_nr_pages() >= vmscan_max_pages()) {
		vmscan_direct_reclaim(32);
		if (pagecache_nr_pages() >= vmscan_max_pages())
			STAT(overruns);	/* a soft cap: the add still goes ahead */
	}
	int err = radix_tree_preload();
	if (err)
		return err;
	set_bit(PG_locked, &page->flags);	/* nobody else can see it yet */
	get_page(page);				/* the cache's reference */
	page->mapping = m;
	page_lock_acquire(page, LOCKDEP_TRY, LOCKDEP_SITE());
	page->index = index;
	page->private = 0;
	unsigned long f = write_lock_irqsave(&m->tree_lock);
	err = radix_tree_insert(&m->tree, index, page);	/* publishes with release */
	if (!err) {
		m->nrpages++;
		atomic_inc(&nr_cached);
	}
	write_unlock_irqrestore(&m->tree_lock, f);
	radix_tree_preload_end();
	if (err) {
		page->mapping = NULL;
		lockdep_page_release(page);
		clear_bit(PG_locked, &page->flags);
		put_page(page);
		return err;
	}
	if (!m->unevictable)		/* else reclaim has nowhere to put it */
		lru_cache_add(page);
	return 0;
}

/* tree_lock held for writing. */
static void __remove_from_tree(struct address_space *m, struct page *page)
{
	radix_tree_delete(&m->tree, page->index);
	page->mapping = NULL;
	m->nrpages--;
	atomic_dec(&nr_cached);
}

void delete_from_page_cache(struct page *page)
{
	struct address_space *m = page->mapping;

	BUG_ON(!test_bit(PG_locked, &page->flags), "delete_from_page_cache: page not locked");
	unsigned long f = write_lock_irqsave(&m->tree_lock);
	__remove_from_tree(m, page);
	write_unlock_irqrestore(&m->tree_lock, f);
	lru_del(page);
	clear_bit(PG_dirty, &page->flags);
	put_page(page);				/* the cache's reference */
}

bool remove_mapping(struct address_space *m, struct page *page)
{
	BUG_ON(!test_bit(PG_locked, &page->flags), "remove_mapping: page not locked");
	/* LAB 5 BEGIN remove_mapping: pagecache.h steps E1-E5 (docs/labs/lab5.md) */
	unsigned long f = write_lock_irqsave(&m->tree_lock);	/* step E1 */
	if (page->mapping != m || !page_freeze_refs(page, 2)) {	/* step E2 */
		write_unlock_irqrestore(&m->tree_lock, f);
		STAT(freeze_failures);
		return false;
	}
	if (test_bit(PG_dirty, &page->flags)) {			/* step E3 */
		page_unfreeze_refs(page, 2);
		write_unlock_irqrestore(&m->tree_lock, f);
		return false;
	}
	__remove_from_tree(m, page);				/* step E4 */
	write_unlock_irqrestore(&m->tree_lock, f);
	STAT(evictions);
	/* Step E5. Frozen: nobody can be waiting on the lock (waiters hold
	 * references), so we drop it without a wake-up. Every other flag
	 * stays for the allocator to check (no PG_lru, no PG_writeback) and
	 * then clear. */
	lockdep_page_release(page);
	clear_bit(PG_locked, &page->flags);
	free_frozen_pages(page, 0);
	return true;
	/* LAB 5 END remove_mapping */
}

/* ---------------------------------------------------------------- dirty, writeback */

bool set_page_dirty(struct page *page)
{
	/* Page state check: the caller must hold a reference, or the page may
	 * be free (or reused) under it and PG_dirty would land there. */
	if (page_count(page) <= 0 || test_bit(PG_free, &page->flags))
		panic("set_page_dirty of a free page, pfn %lu (refcount %d): "
		      "the caller holds no reference", page_to_pfn(page), page_count(page));
	if (test_and_set_bit(PG_dirty, &page->flags))
		return false;
	struct address_space *m = READ_ONCE(page->mapping);
	if (m) {
		unsigned long f = write_lock_irqsave(&m->tree_lock);
		if (page->mapping == m)
			radix_tree_tag_set(&m->tree, page->index, RADIX_TREE_TAG_DIRTY);
		write_unlock_irqrestore(&m->tree_lock, f);
	}
	return true;
}

int write_one_page(struct page *page)
{
	struct address_space *m = page->mapping;
	int err = 0;

	BUG_ON(!test_bit(PG_locked, &page->flags), "write_one_page: page not locked");
	wait_on_page_writeback(page);
	/* Write-protect the mappings first, then clean (Linux's
	 * clear_page_dirty_for_io): a store through a mapping after this
	 * point faults and dirties the page again, so no store is left
	 * known only to a PTE, where fsync would never look. */
	if (m && page_mkclean(page))
		set_bit(PG_dirty, &page->flags);
	if (m && test_and_clear_bit(PG_dirty, &page->flags)) {
		set_bit(PG_writeback, &page->flags);
		unsigned long f = write_lock_irqsave(&m->tree_lock);
		radix_tree_tag_clear(&m->tree, page->index, RADIX_TREE_TAG_DIRTY);
		radix_tree_tag_set(&m->tree, page->index, RADIX_TREE_TAG_WRITEBACK);
		write_unlock_irqrestore(&m->tree_lock, f);
		err = m->a_ops->writepage(m, page);
		f = write_lock_irqsave(&m->tree_lock);
		radix_tree_tag_clear(&m->tree, page->index, RADIX_TREE_TAG_WRITEBACK);
		write_unlock_irqrestore(&m->tree_lock, f);
		end_page_writeback(page);
		if (err)
			set_page_dirty(page);	/* keep it: try again later */
		else
			STAT(writebacks);
	}
	unlock_page(page);
	return err;
}

int filemap_write_and_wait(struct address_space *m)
{
	return filemap_write_range(m, 0, ~0UL);
}

int filemap_write_range(struct address_space *m, unsigned long first, unsigned long last)
{
	might_sleep();
	struct page *pages[16];
	unsigned long next = first;
	int err = 0;

	for (;;) {
		unsigned long f = read_lock_irqsave(&m->tree_lock);
		unsigned n = radix_tree_gang_lookup_tag(&m->tree, (void **)pages, next, 16,
							RADIX_TREE_TAG_DIRTY);
		while (n && pages[n - 1]->index > last)
			n--;			/* past the range */
		for (unsigned i = 0; i < n; i++)
			get_page(pages[i]);	/* the lock keeps them in the tree */
		read_unlock_irqrestore(&m->tree_lock, f);
		if (!n)
			return err;
		for (unsigned i = 0; i < n; i++) {
			struct page *page = pages[i];
			lock_page(page);
			next = page->index + 1;
			if (page->mapping == m) {
				int e = write_one_page(page);	/* unlocks */
				err = err ? err : e;
			} else {
				unlock_page(page);
			}
			put_page(page);
		}
		if (!next)
			return err;	/* wrapped past the last index */
	}
}

void (*truncate_batch_hook)(struct address_space *m);

void truncate_inode_pages(struct address_space *m, u64 from)
{
	might_sleep();
	unsigned long start = (unsigned long)((from + PAGE_SIZE - 1) >> PAGE_SHIFT);
	unsigned long next = start;
	struct page *pages[16];

	if (from & (PAGE_SIZE - 1)) {	/* zero the tail of the partial page */
		struct page *page = find_lock_page(m, from >> PAGE_SHIFT);
		if (page) {
			size_t off = from & (PAGE_SIZE - 1);
			memset((u8 *)page_address(page) + off, 0, PAGE_SIZE - off);
			unlock_page(page);
			put_page(page);
		}
	}
	/*
	 * One pass, the cursor only moving up: each batch starts after the
	 * highest index the last one saw. Restarting at `start` instead lets
	 * writers that keep adding pages above it keep us looping for as long
	 * as they run (vm.debug_truncate_restart brings that back). A page
	 * added behind the cursor was added after i_size shrank: by a write
	 * that extended the file again, so it belongs there.
	 */
	for (;;) {
		unsigned n = find_get_pages(m, next, 16, pages);
		if (!n)
			return;
		STAT(truncate_batches);
		for (unsigned i = 0; i < n; i++) {
			struct page *page = pages[i];
			lock_page(page);
			wait_on_page_writeback(page);
			if (page->mapping == m && page->index >= start) {
				if (atomic_read(&page->mapcount))
					try_to_unmap(page);	/* no user keeps a stale page */
				delete_from_page_cache(page);
			}
			if (page->index >= next)
				next = page->index + 1;
			unlock_page(page);
			put_page(page);
		}
		if (truncate_batch_hook)
			truncate_batch_hook(m);	/* a test's writer, between two batches */
		if (cfg.truncate_restart)	/* deliberately broken: start over */
			next = start;
		else if (!next)
			return;			/* wrapped past the last index */
	}
}

/*
 * Is any page cached in m? A hint: nrpages is read without tree_lock, so
 * the answer is only true at some instant during the call. Callers say
 * why a page added after that instant is none of their business. The
 * read fence keeps our look after the caller's earlier loads (free on
 * x86-64: loads are not reordered with loads).
 */
static bool mapping_empty(struct address_space *m)
{
	smp_rmb();
	return READ_ONCE(m->nrpages) == 0;
}

/*
 * invalidate_mapping_range: after writing back what is dirty in
 * [first, last], drop the cached pages there (unmapping them from
 * processes first), so that I/O that bypasses the cache (O_DIRECT) and
 * cached I/O agree. An empty mapping returns at once: a page added after
 * that look was added by I/O that overlaps the caller's in time, which
 * fs/direct-io.c promises nothing about.
 */
int invalidate_mapping_range(struct address_space *m, unsigned long first, unsigned long last)
{
	might_sleep();
	if (mapping_empty(m))
		return 0;
	int err = filemap_write_range(m, first, last);
	for (unsigned long i = first; i <= last; i++) {
		struct page *page = find_lock_page(m, i);
		if (!page)
			continue;
		wait_on_page_writeback(page);
		if (test_bit(PG_dirty, &page->flags))
			err = err ? err : -EBUSY;	/* redirtied meanwhile: keep it */
		else if (page->mapping == m) {
			if (atomic_read(&page->mapcount))
				try_to_unmap(page);
			if (test_bit(PG_dirty, &page->flags))	/* a PTE's Dirty bit */
				err = err ? err : -EBUSY;	/* never drop a store */
			else
				delete_from_page_cache(page);
		}
		unlock_page(page);
		put_page(page);
	}
	return err;
}

/*
 * May the page at index hold bytes its block on disk lacks: is it locked
 * (a write may be copying into it), dirty or under writeback? A lockless
 * look with no reference (pagecache.h, steps 1-2 only): the page WAS at
 * index at the lookup, and the flags are read later. If it is still
 * there they are its own. If it left the cache meanwhile and was reused,
 * they are another's and the answer is a guess - but then it left clean
 * (reclaim and invalidation drop only clean pages; truncation, which
 * drops dirty ones, is kept out by filemap_write_page's caller), so the
 * disk already held its bytes, and a wrong "yes" only costs a slow look.
 */
static bool page_ahead_of_disk(struct address_space *m, unsigned long index)
{
	const unsigned long busy = 1UL << PG_locked | 1UL << PG_dirty | 1UL << PG_writeback;
	rcu_read_lock();
	struct page *page = radix_tree_lookup(&m->tree, index);
	/* Acquire: a clear PG_locked (unlock_page's release) orders the
	 * writeback's disk write before the caller's disk read. */
	unsigned long flags = page ? smp_load_acquire(&page->flags) : 0;
	rcu_read_unlock();
	return flags & busy;
}

int filemap_write_page(struct address_space *m, unsigned long index)
{
	might_sleep();
	if (mapping_empty(m) || !page_ahead_of_disk(m, index))
		return 0;
	struct page *page = find_lock_page(m, index);	/* waits for a writer's copy */
	if (!page)
		return 0;
	wait_on_page_writeback(page);
	int err = 0;
	if (test_bit(PG_dirty, &page->flags))
		err = write_one_page(page);		/* unlocks */
	else
		unlock_page(page);
	put_page(page);
	return err;
}

/* ---------------------------------------------------------------- read, write */

static struct page *alloc_cache_page(void)
{
	struct page *page = alloc_page_zeroed();
	if (!page) {		/* direct reclaim, then one more try */
		vmscan_direct_reclaim(64);
		page = alloc_page_zeroed();
	}
	return page;
}

/*
 * Is a page at index now? Only a hint (the answer may change at once), but
 * the walk itself must be safe: tree nodes are freed through call_rcu, so
 * the walk runs inside an RCU read-side critical section like any lockless
 * lookup (pagecache.h, step 1). pagecache.debug_ra_no_rcu walks without it.
 */
static bool page_cache_present(struct address_space *m, unsigned long index)
{
	if (cfg.ra_no_rcu)		/* deliberately broken */
		return radix_tree_lookup(&m->tree, index) != NULL;
	rcu_read_lock();
	bool present = radix_tree_lookup(&m->tree, index) != NULL;
	rcu_read_unlock();
	return present;
}

/* Start reading index into the cache if it is absent; never waits for it. */
static void start_read(struct address_space *m, unsigned long index)
{
	struct page *page = alloc_cache_page();
	if (!page)
		return;
	if (add_to_page_cache_lru(page, m, index) == 0)
		m->a_ops->readpage(m, page);	/* unlocks the page */
	put_page(page);
}

/*
 * Read index into the cache and keep the reference we allocated it with,
 * so that reclaim cannot take it away between the read and our use (under
 * a tight pagecache.max_pages it would, again and again). NULL if someone
 * else added the page first (look it up again) or memory ran out.
 */
static struct page *read_new_page(struct address_space *m, unsigned long index)
{
	struct page *page = alloc_cache_page();
	if (!page)
		return NULL;
	if (add_to_page_cache_lru(page, m, index)) {
		put_page(page);
		return NULL;
	}
	m->a_ops->readpage(m, page);	/* unlocks; uptodate unless it failed */
	return page;
}

/*
 * A page we hold a reference to and have locked may leave the cache
 * (truncation or eviction set its mapping to NULL; the caller looks) but
 * cannot change owner: that needs it freed, and our reference forbids it.
 * Another owner here means a lookup handed out a page it never rechecked
 * (pagecache.h, interleaving C): say so now, before a read into the page
 * writes a file's bytes over someone else's memory (a slab, a tree node).
 */
static void check_page_owner(struct page *page, struct address_space *m, unsigned long index)
{
	void *owner = READ_ONCE(page->mapping);
	if (owner != m || page->index != index)
		panic("page state: pfn %lu (owner %p, index %lu) was looked up as index %lu "
		      "of mapping %p: a lookup without its recheck? (pagecache.h, step 4)",
		      page_to_pfn(page), owner, page->index, index, (void *)m);
}

struct page *read_mapping_page(struct address_space *m, unsigned long index)
{
	might_sleep();
	for (int tries = 0; tries < 32; tries++) {
		struct page *page = find_get_page(m, index);
		if (!page) {
			/* Readahead: a sequential reader gets the next pages started. */
			unsigned ra = READ_ONCE(m->ra_next) == index && !m->unevictable
					      ? READAHEAD_PAGES : 1;
			for (unsigned i = 1; i < ra; i++)
				if (!page_cache_present(m, index + i))
					start_read(m, index + i);
			WRITE_ONCE(m->ra_next, index + ra);
			page = read_new_page(m, index);
			if (!page)
				continue;
		}
		if (!test_bit(PG_uptodate, &page->flags)) {
			lock_page(page);	/* waits for the read in flight */
			if (!page->mapping) {	/* evicted or truncated meanwhile */
				unlock_page(page);
				put_page(page);
				continue;
			}
			check_page_owner(page, m, index);
			int e = 0;
			if (!test_bit(PG_uptodate, &page->flags))
				e = m->a_ops->readpage(m, page);	/* unlocks */
			else
				unlock_page(page);
			if (!test_bit(PG_uptodate, &page->flags)) {
				put_page(page);
				return ERR_PTR(e ? e : -EIO);
			}
		}
		return page;
	}
	return ERR_PTR(-ENOMEM);
}

/*
 * filemap_read_iter: one copy, from each page-cache page straight to the
 * reader's buffer. Only a reference is held across the copy, never the
 * page lock or a spinlock: the copy may fault on a user buffer, and the
 * fault may need this very page (read(fd, buf, n) where buf is a shared
 * mapping of the same file locks the page in mm/fault.c).
 */
ssize_t filemap_read_iter(struct address_space *m, struct iov_iter *to, u64 pos)
{
	might_sleep();
	u64 size = READ_ONCE(m->size);
	size_t done = 0;

	if (pos >= size)
		return 0;
	size_t len = MIN(iov_iter_count(to), size - pos);
	while (done < len) {
		u64 p = pos + done;
		size_t off = p & (PAGE_SIZE - 1), n = MIN(len - done, PAGE_SIZE - off);
		struct page *page = read_mapping_page(m, p >> PAGE_SHIFT);
		if (IS_ERR(page))
			return done ? (ssize_t)done : PTR_ERR(page);
		size_t got = copy_page_to_iter(page, off, n, to);	/* may fault */
		mark_page_accessed(page);
		put_page(page);
		done += got;
		if (got < n)		/* the buffer went bad part-way */
			return done ? (ssize_t)done : -EFAULT;
	}
	return done;
}

ssize_t filemap_read(struct address_space *m, void *buf, size_t len, u64 pos)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return filemap_read_iter(m, &it, pos);
}

/*
 * The locked page at index, uptodate unless the write covers all of it
 * (or it lies wholly past the end of the file), with its place on disk
 * (write_begin); or ERR_PTR(-errno), never NULL.
 */
static struct page *write_lock_page(struct address_space *m, unsigned long index, bool partial)
{
	struct page *page = find_or_create_page(m, index);
	if (!page)
		return ERR_PTR(-ENOMEM);
	if (!test_bit(PG_uptodate, &page->flags) && partial &&
	    (u64)index << PAGE_SHIFT < READ_ONCE(m->size)) {
		int e = m->a_ops->readpage(m, page);	/* old contents first; unlocks */
		lock_page(page);
		if (!test_bit(PG_uptodate, &page->flags)) {	/* could not read it */
			unlock_page(page);
			put_page(page);
			return ERR_PTR(e ? e : -EIO);
		}
	}
	wait_on_page_writeback(page);
	int e = m->a_ops->write_begin ? m->a_ops->write_begin(m, page) : 0;
	if (e) {	/* e.g. ENOSPC: nothing of this page was written */
		unlock_page(page);
		put_page(page);
		return ERR_PTR(e);
	}
	return page;
}

/*
 * filemap_write_iter: one copy, from the writer's buffer straight into
 * each locked page-cache page. A fault must not be served under the page
 * lock (write(fd, buf, n) where buf is a shared mapping of the same file
 * faults that page in under its own lock, mm/fault.c), so, as Linux's
 * generic_perform_write does, each page's piece of the source is faulted
 * in first, with no lock held, and then copied with faults off. If the
 * source went away in between (reclaim unmapped it), the copy comes up
 * short: what reached an uptodate page stays; a page that was not
 * uptodate keeps nothing (its other bytes were never read from disk), and
 * the loop faults the source in again. A source that cannot be faulted
 * in ends the write: the bytes written so far, or EFAULT if none.
 */
ssize_t filemap_write_iter(struct address_space *m, struct iov_iter *from, u64 pos)
{
	might_sleep();
	size_t done = 0;

	while (iov_iter_count(from)) {
		u64 p = pos + done;
		unsigned long index = p >> PAGE_SHIFT;
		size_t off = p & (PAGE_SIZE - 1);
		size_t n = MIN(iov_iter_count(from), PAGE_SIZE - off);
		n = iov_iter_fault_in_readable(from, n);	/* no lock held: may fault */
		if (!n)
			return done ? (ssize_t)done : -EFAULT;
		struct page *page = write_lock_page(m, index, off || n < PAGE_SIZE);
		if (IS_ERR(page))
			return done ? (ssize_t)done : PTR_ERR(page);
		size_t got = copy_page_from_iter_nofault(page, off, n, from);
		if (got < n && !test_bit(PG_uptodate, &page->flags)) {
			iov_iter_revert(from, got);	/* try the whole piece again */
			got = 0;
		}
		if (got) {
			set_bit(PG_uptodate, &page->flags);
			set_page_dirty(page);
		}
		unlock_page(page);
		mark_page_accessed(page);
		put_page(page);
		done += got;
		if (p + got > READ_ONCE(m->size))
			WRITE_ONCE(m->size, p + got);
	}
	return done;
}

ssize_t filemap_write(struct address_space *m, const void *buf, size_t len, u64 pos)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return filemap_write_iter(m, &it, pos);
}

struct page *find_or_create_page(struct address_space *m, unsigned long index)
{
	might_sleep();
	for (;;) {
		struct page *page = find_lock_page(m, index);
		if (page)
			return page;
		page = alloc_cache_page();
		if (!page)
			return NULL;
		int err = add_to_page_cache_lru(page, m, index);
		if (!err)
			return page;	/* locked, with the caller's reference */
		put_page(page);
		if (err != -EEXIST)
			return NULL;
	}
}

/* ---------------------------------------------------------------- statistics */

void pagecache_get_stats(struct pagecache_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct pc_cpu_stats *c = &pc_stats[cpu];
		st->hits += READ_ONCE(c->hits);
		st->misses += READ_ONCE(c->misses);
		st->spec_retries += READ_ONCE(c->spec_retries);
		st->recheck_retries += READ_ONCE(c->recheck_retries);
		st->freeze_failures += READ_ONCE(c->freeze_failures);
		st->evictions += READ_ONCE(c->evictions);
		st->writebacks += READ_ONCE(c->writebacks);
		st->overruns += READ_ONCE(c->overruns);
		st->truncate_batches += READ_ONCE(c->truncate_batches);
	}
	st->lookups = st->hits + st->misses;
	st->pages = atomic_read(&nr_cached);
}

unsigned long pagecache_nr_pages(void)
{
	return (unsigned long)atomic_read(&nr_cached);
}

void pagecache_dump_stats(void)
{
	struct pagecache_stats s;

	pagecache_get_stats(&s);
	printk("pagecache: %llu pages; lookups %llu (hits %llu, misses %llu); retries: "
	       "speculative %llu, recheck %llu; freeze failures %llu; evictions %llu; "
	       "writebacks %llu; overruns %llu",
	       (unsigned long long)s.pages, (unsigned long long)s.lookups,
	       (unsigned long long)s.hits, (unsigned long long)s.misses,
	       (unsigned long long)s.spec_retries, (unsigned long long)s.recheck_retries,
	       (unsigned long long)s.freeze_failures, (unsigned long long)s.evictions,
	       (unsigned long long)s.writebacks, (unsigned long long)s.overruns);
}

static void page_waitqueues_init(void)
{
	for (int i = 0; i < PAGE_WAIT_HASH; i++)
		init_waitqueue_head(&page_waitqueues[i]);
}
