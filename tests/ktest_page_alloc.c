/*
 * ktest_page_alloc.c - tests of the buddy allocator and page references.
 *
 * Several tests take every free page; they give everything back before
 * asserting, so a failure never leaves the kernel out of memory. The
 * expected-panic tests each end the boot: run them one at a time.
 */
#include "kernel/ktest.h"
#include "kernel/atomic.h"
#include "kernel/list.h"
#include "mm/page.h"

/* Allocate blocks of this order until the allocator says no; returns how many. */
static unsigned long grab_all(struct list_head *held, unsigned int order)
{
	unsigned long n = 0;
	struct page *p;

	while ((p = alloc_pages(order)) != NULL) {
		list_add(&p->lru, held);
		n++;
	}
	return n;
}

/* Drop the only reference to every block on held, whatever its order. */
static void release_all(struct list_head *held)
{
	while (!list_empty(held)) {
		struct page *p = list_first_entry(held, struct page, lru);

		list_del(&p->lru);
		put_page(p);
	}
}

KTEST(page_alloc_all_then_free_restores_count)
{
	LIST_HEAD(held);
	unsigned long before, got, left;

	drain_all_pages();
	before = nr_free_pages();
	got = grab_all(&held, 0);
	left = nr_free_pages();
	release_all(&held);

	KT_EQ(got, before);
	KT_EQ(left, 0);
	KT_EQ(nr_free_pages(), before);
}

KTEST(page_alloc_coalesces_to_max_order)
{
	LIST_HEAD(held);
	unsigned long blocks;

	drain_all_pages();
	blocks = nr_free_blocks(MAX_ORDER);
	grab_all(&held, 0);
	release_all(&held);
	drain_all_pages();

	KT_GT(blocks, 0);
	KT_EQ(nr_free_blocks(MAX_ORDER), blocks);
}

KTEST(page_alloc_oom_returns_null)
{
	LIST_HEAD(held);
	unsigned long before = nr_free_pages();
	struct page *small, *big, *huge;
	unsigned long left;

	for (int order = MAX_ORDER; order >= 0; order--)
		grab_all(&held, (unsigned int)order);
	small = alloc_page();
	big = alloc_pages(3);
	huge = alloc_pages(MAX_ORDER + 1);
	left = nr_free_pages();
	release_all(&held);

	KT_NULL(small);
	KT_NULL(big);
	KT_NULL(huge);
	KT_EQ(left, 0);
	KT_EQ(nr_free_pages(), before);
}

KTEST(page_alloc_order_n_aligned)
{
	static const unsigned int orders[] = { 0, 1, 2, 3, 5, 8, MAX_ORDER };
	LIST_HEAD(held);
	unsigned long misaligned = 0, missing = 0;

	/* Several blocks of each order at once, so some come from splits. */
	for (unsigned int i = 0; i < ARRAY_SIZE(orders); i++) {
		for (int k = 0; k < 3; k++) {
			struct page *p = alloc_pages(orders[i]);

			if (!p) {
				missing++;
				continue;
			}
			if (page_to_pfn(p) & ((1UL << orders[i]) - 1))
				misaligned++;
			list_add(&p->lru, &held);
		}
	}
	release_all(&held);

	KT_EQ(missing, 0);
	KT_EQ(misaligned, 0);
}

KTEST(page_alloc_refcount_one_on_alloc)
{
	struct page *p = alloc_page();
	struct page *q = alloc_pages(2);
	int single, head, tail;

	KT_NOT_NULL(p);
	KT_NOT_NULL(q);
	single = page_count(p);
	head = page_count(q);
	tail = page_count(q + 1) + page_count(q + 2) + page_count(q + 3);
	free_pages(p, 0);
	free_pages(q, 2);

	KT_EQ(single, 1);
	KT_EQ(head, 1);
	KT_EQ(tail, 0);
}

KTEST(page_alloc_put_page_frees_higher_order)
{
	unsigned long before, during, after;
	struct page *p;

	drain_all_pages();
	before = nr_free_pages();
	p = alloc_pages(3);
	KT_NOT_NULL(p);
	during = nr_free_pages();
	put_page(p);
	after = nr_free_pages();

	KT_EQ(during, before - 8);
	KT_EQ(after, before);
}

KTEST(page_alloc_get_put_balance)
{
	struct page *p = alloc_page();
	unsigned long held, still_held;
	int peak, back;

	KT_NOT_NULL(p);
	held = nr_free_pages();
	for (int i = 0; i < 3; i++)
		get_page(p);
	peak = page_count(p);
	for (int i = 0; i < 3; i++)
		put_page(p);
	back = page_count(p);
	still_held = nr_free_pages();
	put_page(p);

	KT_EQ(peak, 4);
	KT_EQ(back, 1);
	KT_EQ(still_held, held);
	KT_EQ(nr_free_pages(), held + 1);
}

KTEST(page_alloc_free_frozen_pages_takes_frozen_block)
{
	struct page *p = alloc_pages(1);
	unsigned long before;
	int found;

	KT_NOT_NULL(p);
	get_page(p);	/* as a cached page: one for the cache, one for reclaim */
	before = nr_free_pages();
	found = atomic_cmpxchg(&p->refcount, 2, 0);	/* the eviction freeze */
	free_frozen_pages(p, 1);

	KT_EQ(found, 2);
	KT_EQ(nr_free_pages(), before + 2);
}

KTEST(page_alloc_zeroed_page_is_zero)
{
	unsigned long nonzero = 0;
	struct page *p = alloc_page();
	u64 *w;

	KT_NOT_NULL(p);
	w = page_address(p);
	for (unsigned long i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		w[i] = ~0ULL;
	free_pages(p, 0);
	/* The page just freed is the hot one on this CPU's list. */
	w = get_zeroed_page();
	KT_NOT_NULL(w);
	for (unsigned long i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		nonzero += w[i] != 0;
	free_page_addr(w);

	KT_EQ(nonzero, 0);
}

KTEST_EXPECT_PANIC(page_alloc_double_free_is_bug, "double free")
{
	struct page *p = alloc_pages(1);

	KT_NOT_NULL(p);
	free_pages(p, 1);
	free_pages(p, 1);
	KT_FAIL("second free_pages of the same block returned");
}

/*
 * A stray reference on a free page - what a speculative getter without
 * "unless zero" takes (pagecache.debug_plain_get) - raises its count from
 * 0 to 1, and its put_page frees the page a second time. The page sits on
 * a per-CPU list, where only PG_free says it is free: without it
 * (mm.debug_no_free_marker) the page goes on the list twice, silently.
 */
KTEST_EXPECT_PANIC(page_alloc_free_after_a_stray_reference_is_double_free, "double free")
{
	struct page *p = alloc_page();

	KT_NOT_NULL(p);
	put_page(p);			/* free: on this CPU's list */
	atomic_inc(&p->refcount);	/* a getter that ignored the zero count */
	put_page(p);			/* and gave its reference back */
	KT_FAIL("the second free of pfn %lu went unseen (the page is listed twice now)",
		page_to_pfn(p));
}

KTEST_EXPECT_PANIC(page_alloc_refcount_underflow_is_bug, "refcount underflow")
{
	struct page *p = alloc_page();

	KT_NOT_NULL(p);
	put_page(p);
	put_page(p);
	KT_FAIL("put_page of a free page returned");
}

KTEST_EXPECT_PANIC(page_alloc_bad_order_is_bug, "bad order")
{
	struct page *p = alloc_pages(2);

	KT_NOT_NULL(p);
	free_pages(p, 1);
	KT_FAIL("free_pages with the wrong order returned");
}

KTEST_EXPECT_PANIC(page_alloc_get_page_on_free_page_is_bug, "get_page on free page")
{
	struct page *p = alloc_page();

	KT_NOT_NULL(p);
	put_page(p);
	get_page(p);
	KT_FAIL("get_page of a free page returned");
}

KTEST_EXPECT_PANIC(page_alloc_free_of_reserved_page_is_bug, "free of reserved page")
{
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *p = pfn_to_page(pfn);

		if (test_bit(PG_reserved, &p->flags)) {
			put_page(p);
			KT_FAIL("put_page of the last reference to reserved pfn %lu returned", pfn);
		}
	}
	KT_FAIL("no reserved page to try");
}
