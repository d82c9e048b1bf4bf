/*
 * page_alloc.c - the physical page allocator.
 *
 * Free memory is kept as blocks of 2^order contiguous frames, order 0 to
 * MAX_ORDER, each aligned to its own size: Knowlton's buddy system as Knuth
 * describes it (TAOCP vol. 1, section 2.5). A block's buddy is the block of
 * the same order whose frame number differs only in bit `order`; when both
 * are free they merge into one block of the next order. The head page of a
 * free block carries PG_buddy and its order; the other pages carry nothing.
 *
 * In front of the buddy lists each CPU keeps a short list of order-0 pages,
 * refilled and drained PCP_BATCH at a time, so most single-page
 * allocations touch only memory the CPU already owns. Each per-CPU list has
 * its own lock, almost never contended, so that an allocation that finds the
 * buddy lists empty can pull the pages other CPUs are hoarding instead of
 * failing (the idea of Mel Gorman's locked per-CPU lists for Linux, 2022).
 *
 * Lock ordering:
 *   pcp->lock -> zone.lock
 *       alloc_pages -> pcp_alloc -> pcp_refill (refill a per-CPU list);
 *       free_block -> pcp_free -> pcp_drain (drain a full per-CPU list).
 *   One pcp->lock at a time: drain_all_pages takes them in turn.
 * Both locks are taken with interrupts off: alloc_pages may be called from
 * an interrupt handler.
 *
 * Reference counts follow DESIGN.md section 3 (see page.h): free pages have
 * refcount 0, and only prep_new_block moves a refcount from 0 to 1.
 *
 * Every frame of a free block carries PG_free, wherever the block sits (a
 * buddy list, or a per-CPU list, where nothing else marks it). A count of
 * 0 is not proof enough that a page is free: a broken speculative getter
 * (an increment that is not "unless zero") raises a free page's count to 1,
 * and its put_page then frees the page a second time. PG_free turns that
 * into a "double free" BUG at once instead of a page listed twice and a
 * corrupted list much later (mm.debug_no_free_marker leaves it unset).
 */
#include "mm/page.h"
#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/percpu.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/x86.h"
#include "kernel/cmdline.h"

CMDLINE_KEY(mm_no_free_marker, "mm.debug_no_free_marker",
	    "test of the tests: free pages carry no PG_free, so a double free goes unseen");

static bool no_free_marker;	/* [I] after page_alloc_init */

#define PCP_BATCH 16	/* pages moved between a per-CPU list and the zone */
#define PCP_HIGH 64	/* a per-CPU list longer than this is drained */

/* Flags a page must not carry when its last reference goes. */
#define PAGE_FLAGS_BAD_AT_FREE                                                 \
	((1UL << PG_locked) | (1UL << PG_lru) | (1UL << PG_writeback) |       \
	 (1UL << PG_slab) | (1UL << PG_kmalloc))

/* Lock legend: [I] set by page_alloc_init, [L:zone] zone.lock. */
static struct zone {
	spinlock_t lock;
	struct page *map;		/* [I] the frames this zone manages */
	unsigned long npfn;		/* [I] frames in map */
	struct list_head free_list[MAX_ORDER + 1];	/* [L:zone] block heads */
	unsigned long nr_free[MAX_ORDER + 1];	/* [L:zone] blocks per list */
	unsigned long free_pages;	/* [L:zone] frames in all the lists */
} zone = { .lock = SPINLOCK_INIT("zone") };

/*
 * Lock legend: [L:pcp] this struct's lock, taken with interrupts off,
 * normally by its own CPU and by drain_all_pages from any CPU.
 * count is also read without the lock by nr_free_pages.
 */
struct pcp_list {
	spinlock_t lock;
	struct list_head pages;		/* [L:pcp] free order-0 pages, via lru */
	unsigned long count;		/* [L:pcp] pages on the list */
} __aligned(64);

static struct pcp_list pcp_lists[MAX_CPUS];

static unsigned long zone_pfn(const struct page *p) { return (unsigned long)(p - zone.map); }

static bool page_flag(const struct page *p, int bit) { return test_bit(bit, &p->flags); }

/* Order of the block headed by p while it is allocated. */
static unsigned int head_order(const struct page *p)
{
	return page_flag(p, PG_head) ? p->order : 0;
}

/* ---------------------------------------------------------------- buddy */

/* True if p heads a free block of exactly this order. Zone lock held. */
static bool page_is_buddy(const struct page *p, unsigned int order)
{
	return page_flag(p, PG_buddy) && p->order == order;
}

static void __add_free_block(struct page *p, unsigned int order)
{
	p->order = order;
	set_bit(PG_buddy, &p->flags);
	list_add(&p->lru, &zone.free_list[order]);
	zone.nr_free[order]++;
}

static void __del_free_block(struct page *p, unsigned int order)
{
	list_del(&p->lru);
	clear_bit(PG_buddy, &p->flags);
	zone.nr_free[order]--;
}

/*
 * __free_one_block: give the block of 2^order frames at pfn back to the
 * lists, merging it with its buddy as long as the buddy is free and whole.
 * Zone lock held; every page of the block has refcount 0 and no flags.
 */
static void __free_one_block(unsigned long pfn, unsigned int order)
{
	BUG_ON(pfn & ((1UL << order) - 1), "free block not aligned to its order");
	BUG_ON(pfn + (1UL << order) > zone.npfn, "free block past the end of memory");

	zone.free_pages += 1UL << order;
	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct page *buddy = &zone.map[buddy_pfn];

		if (buddy_pfn >= zone.npfn || !page_is_buddy(buddy, order))
			break;
		BUG_ON(page_count(buddy) != 0, "free buddy block has a reference");
		__del_free_block(buddy, order);
		pfn &= buddy_pfn;	/* the lower of the two heads the merged block */
		order++;
	}
	__add_free_block(&zone.map[pfn], order);
}

/*
 * __rmqueue: take a block of exactly this order off the lists, splitting a
 * larger one if need be (the upper halves go back as free blocks).
 * Zone lock held. Returns the head with PG_buddy clear, or NULL.
 */
static struct page *__rmqueue(unsigned int order)
{
	unsigned int o = order;
	struct page *p;

	while (o <= MAX_ORDER && list_empty(&zone.free_list[o]))
		o++;
	if (o > MAX_ORDER)
		return NULL;

	p = list_first_entry(&zone.free_list[o], struct page, lru);
	if (!page_is_buddy(p, o) || page_count(p) != 0)
		panic("page_alloc: free list %u corrupted at pfn %lu", o, zone_pfn(p));
	__del_free_block(p, o);
	while (o > order) {
		o--;
		__add_free_block(p + (1UL << o), o);
	}
	zone.free_pages -= 1UL << order;
	return p;
}

/* ---------------------------------------------------------- per-CPU lists */

/* Move up to n pages from the zone onto pcp. pcp->lock held. */
static void pcp_refill(struct pcp_list *pcp, unsigned int n)
{
	spin_lock(&zone.lock);
	while (n--) {
		struct page *p = __rmqueue(0);

		if (!p)
			break;
		list_add_tail(&p->lru, &pcp->pages);
		pcp->count++;
	}
	spin_unlock(&zone.lock);
}

/* Move up to n of pcp's coldest pages back to the zone. pcp->lock held. */
static void pcp_drain(struct pcp_list *pcp, unsigned long n)
{
	spin_lock(&zone.lock);
	while (n-- && pcp->count) {
		struct page *p = list_entry(pcp->pages.prev, struct page, lru);

		list_del(&p->lru);
		pcp->count--;
		__free_one_block(zone_pfn(p), 0);
	}
	spin_unlock(&zone.lock);
}

/* One page from this CPU's list, refilling it from the zone if empty. */
static struct page *pcp_alloc(void)
{
	unsigned long flags = irq_save();
	struct pcp_list *pcp = &pcp_lists[smp_processor_id()];
	struct page *p = NULL;

	spin_lock(&pcp->lock);
	if (!pcp->count)
		pcp_refill(pcp, PCP_BATCH);
	if (pcp->count) {
		p = list_first_entry(&pcp->pages, struct page, lru);
		list_del(&p->lru);
		pcp->count--;
	}
	spin_unlock(&pcp->lock);
	irq_restore(flags);
	return p;
}

/* Put a free page (refcount 0, no flags) on this CPU's list, hot end. */
static void pcp_free(struct page *p)
{
	unsigned long flags = irq_save();
	struct pcp_list *pcp = &pcp_lists[smp_processor_id()];

	spin_lock(&pcp->lock);
	list_add(&p->lru, &pcp->pages);
	pcp->count++;
	if (pcp->count > PCP_HIGH)
		pcp_drain(pcp, PCP_BATCH);
	spin_unlock(&pcp->lock);
	irq_restore(flags);
}

/* Empty one CPU's list into the zone; returns how many pages moved. */
static unsigned long pcp_drain_all_of(struct pcp_list *pcp)
{
	unsigned long flags = irq_save();
	unsigned long n;

	spin_lock(&pcp->lock);
	n = pcp->count;
	pcp_drain(pcp, n);
	spin_unlock(&pcp->lock);
	irq_restore(flags);
	return n;
}

/*
 * drain_local_pages: empty the calling CPU's list into the buddy lists.
 * Takes and releases pcp->lock and zone.lock; never sleeps.
 */
void drain_local_pages(void)
{
	unsigned long flags = irq_save();

	pcp_drain_all_of(&pcp_lists[smp_processor_id()]);
	irq_restore(flags);
}

/*
 * drain_all_pages: empty every CPU's list into the buddy lists; returns the
 * number of pages moved. Takes each pcp->lock in turn; never sleeps.
 */
unsigned long drain_all_pages(void)
{
	unsigned long moved = 0;

	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		moved += pcp_drain_all_of(&pcp_lists[cpu]);
	return moved;
}

/* ------------------------------------------------------------ allocation */

static struct page *get_free_block(unsigned int order)
{
	struct page *p;
	unsigned long flags;

	if (order == 0)
		return pcp_alloc();
	flags = spin_lock_irqsave(&zone.lock);
	p = __rmqueue(order);
	spin_unlock_irqrestore(&zone.lock, flags);
	return p;
}

/*
 * prep_new_block: make a block just taken from the lists into an allocated
 * one. Nothing else can reach it: it is in no list, tree or page table.
 */
static void prep_new_block(struct page *p, unsigned int order)
{
	unsigned long free_flags = no_free_marker ? 0 : 1UL << PG_free;
	if (page_count(p) != 0 || READ_ONCE(p->flags) != free_flags)
		panic("page_alloc: allocating pfn %lu in use (refcount %d, flags %#lx)",
		      zone_pfn(p), page_count(p), READ_ONCE(p->flags));
	for (unsigned long i = 0; i < 1UL << order; i++)
		clear_bit(PG_free, &p[i].flags);
	p->mapping = NULL;
	p->index = 0;
	p->inuse = 0;
	p->freelist = NULL;
	p->order = order;
	if (order)
		set_bit(PG_head, &p->flags);
	/*
	 * The one 0 -> 1 transition (page.h). A speculative getter holding a
	 * stale pointer cannot have raised the count from 0 (it increments
	 * only a nonzero count), so a store suffices. Release order so that
	 * a getter whose increment lands after it sees the fields above.
	 * x86-64: a plain mov plus a compiler barrier.
	 */
	smp_store_release(&p->refcount.counter, 1);
}

/*
 * alloc_pages: see page.h. Takes pcp->lock and/or zone.lock with interrupts
 * off; if the buddy lists cannot satisfy the request, drains every CPU's
 * list once and retries before returning NULL.
 */
struct page *alloc_pages(unsigned int order)
{
	struct page *p;

	if (order > MAX_ORDER)
		return NULL;
	p = get_free_block(order);
	if (!p && drain_all_pages())
		p = get_free_block(order);
	if (!p)
		return NULL;
	prep_new_block(p, order);
	return p;
}

/* alloc_page_zeroed: see page.h. */
struct page *alloc_page_zeroed(void)
{
	struct page *p = alloc_page();

	if (p)
		memset(page_address(p), 0, PAGE_SIZE);
	return p;
}

/* get_zeroed_page: see page.h. The page has refcount 1; free_page_addr frees it. */
void *get_zeroed_page(void)
{
	struct page *p = alloc_page_zeroed();

	return p ? page_address(p) : NULL;
}

/* --------------------------------------------------------------- freeing */

/* Panic unless the block at p may go back to the lists. Refcount is 0. */
static void check_free_block(struct page *p, unsigned int order)
{
	unsigned long flags = READ_ONCE(p->flags);

	if (flags & (1UL << PG_reserved))
		panic("page_alloc: free of reserved page, pfn %lu", zone_pfn(p));
	if (flags & ((1UL << PG_buddy) | (1UL << PG_free)))
		panic("page_alloc: double free of pfn %lu (it is already in the allocator)",
		      zone_pfn(p));
	if (head_order(p) != order)
		panic("page_alloc: bad order %u freeing pfn %lu, allocated with order %u",
		      order, zone_pfn(p), head_order(p));
	if (flags & PAGE_FLAGS_BAD_AT_FREE)
		panic("page_alloc: free of pfn %lu with flags %#lx still set",
		      zone_pfn(p), flags & PAGE_FLAGS_BAD_AT_FREE);
	if (atomic_read(&p->mapcount) != 0)
		panic("page_alloc: free of mapped page, pfn %lu (mapcount %d)",
		      zone_pfn(p), atomic_read(&p->mapcount));
}

/* Mark every frame of a block free (PG_free); the head's other flags are clear. */
static void mark_free(struct page *p, unsigned int order)
{
	if (no_free_marker)
		return;
	for (unsigned long i = 0; i < 1UL << order; i++)
		set_bit(PG_free, &p[i].flags);
}

/* Return a block whose refcount has reached 0 to the allocator. */
static void free_block(struct page *p, unsigned int order)
{
	unsigned long flags;

	check_free_block(p, order);
	/*
	 * Nobody can hold a reference, and a speculative getter fails on a
	 * zero count, so the flags are ours to clear. Relaxed store (a mov).
	 */
	WRITE_ONCE(p->flags, 0);
	p->mapping = NULL;
	mark_free(p, order);
	if (order == 0) {
		pcp_free(p);
		return;
	}
	flags = spin_lock_irqsave(&zone.lock);
	__free_one_block(zone_pfn(p), order);
	spin_unlock_irqrestore(&zone.lock, flags);
}

/*
 * free_pages: see page.h. Drops the caller's reference; the block goes back
 * to the allocator when that was the last one (a speculative getter may
 * briefly hold another, and its put_page then frees the block).
 */
void free_pages(struct page *p, unsigned int order)
{
	if (page_count(p) <= 0 || page_flag(p, PG_buddy) || page_flag(p, PG_free))
		panic("page_alloc: double free of pfn %lu (order %u, refcount %d)",
		      zone_pfn(p), order, page_count(p));
	if (head_order(p) != order)
		panic("page_alloc: bad order %u freeing pfn %lu, allocated with order %u",
		      order, zone_pfn(p), head_order(p));
	if (atomic_dec_and_test(&p->refcount))
		free_block(p, order);
}

/* free_page_addr: free the page get_zeroed_page returned; NULL is a no-op. */
void free_page_addr(void *va)
{
	if (va)
		free_pages(virt_to_page(va), 0);
}

/* free_frozen_pages: see page.h. */
void free_frozen_pages(struct page *p, unsigned int order)
{
	if (page_count(p) != 0)
		panic("page_alloc: free_frozen_pages of pfn %lu with refcount %d",
		      zone_pfn(p), page_count(p));
	free_block(p, order);
}

/* get_page: see page.h. A fully ordered increment (lock xadd). */
void get_page(struct page *p)
{
	int c = atomic_inc_return(&p->refcount);

	if (c <= 1)
		panic("page_alloc: get_page on free page, pfn %lu (refcount was %d)",
		      zone_pfn(p), c - 1);
}

/*
 * put_page: see page.h. A fully ordered decrement (lock xadd), so every
 * access the caller made to the page happens before the block is reused.
 */
void put_page(struct page *p)
{
	int c = atomic_dec_return(&p->refcount);

	if (c < 0)
		panic("page_alloc: refcount underflow on pfn %lu (put_page of a free page)",
		      zone_pfn(p));
	if (c == 0)
		free_block(p, head_order(p));
}

/* ---------------------------------------------------------- bookkeeping */

/*
 * nr_free_pages: see page.h. Reads the counters without locks, so the sum
 * is exact only while no allocation or free is in flight.
 */
unsigned long nr_free_pages(void)
{
	unsigned long n = READ_ONCE(zone.free_pages);

	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		n += READ_ONCE(pcp_lists[cpu].count);
	return n;
}

/* nr_free_blocks: see page.h. An unlocked read of one counter. */
unsigned long nr_free_blocks(unsigned int order)
{
	return order > MAX_ORDER ? 0 : READ_ONCE(zone.nr_free[order]);
}

/*
 * page_alloc_init: see page.h. Single-threaded, before any allocation;
 * map must be mem_map and npfn max_pfn.
 */
void page_alloc_init(struct page *map, unsigned long npfn)
{
	zone.map = map;
	zone.npfn = npfn;
	no_free_marker = cmdline_get("mm.debug_no_free_marker") != NULL;
	memset(map, 0, npfn * sizeof(*map));
	for (unsigned long pfn = 0; pfn < npfn; pfn++) {
		map[pfn].flags = 1UL << PG_reserved;
		atomic_set(&map[pfn].refcount, 1);
		list_init(&map[pfn].lru);
	}
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		list_init(&zone.free_list[o]);
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		spin_lock_init(&pcp_lists[cpu].lock, "pcp");
		list_init(&pcp_lists[cpu].pages);
	}
}

/* Largest order of an aligned block starting at pfn and ending by end. */
static unsigned int largest_fit(unsigned long pfn, unsigned long end)
{
	unsigned int order = MAX_ORDER;

	if (pfn)
		order = MIN((unsigned int)__builtin_ctzl(pfn), MAX_ORDER);
	while (pfn + (1UL << order) > end)
		order--;
	return order;
}

/*
 * page_alloc_free_range: see page.h. Every frame in [start_pfn, end_pfn)
 * must still be reserved (handed over at most once). Single-threaded.
 */
void page_alloc_free_range(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long flags;

	BUG_ON(start_pfn > end_pfn || end_pfn > zone.npfn, "free range outside mem_map");
	for (unsigned long pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *p = &zone.map[pfn];

		BUG_ON(!page_flag(p, PG_reserved), "frame handed to the allocator twice");
		WRITE_ONCE(p->flags, no_free_marker ? 0 : 1UL << PG_free);
		atomic_set(&p->refcount, 0);
	}
	flags = spin_lock_irqsave(&zone.lock);
	for (unsigned long pfn = start_pfn; pfn < end_pfn;) {
		unsigned int order = largest_fit(pfn, end_pfn);

		__free_one_block(pfn, order);
		pfn += 1UL << order;
	}
	spin_unlock_irqrestore(&zone.lock, flags);
}
