/*
 * ktest_pagecache.c - the page cache's single-threaded behaviour over a
 * memfile (mm/memfile.h): hits and misses, eviction by freezing, reuse of
 * an evicted frame, truncation, writeback, both lookup kinds, and the
 * pagecache.max_pages cap. The concurrent protocol is tortured in
 * ktest_pagecache_torture.c.
 *
 * The reference counts asserted here assume nobody else touches these
 * pages: reclaim stays idle in a boot without a cap (no memory pressure).
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "mm/pagecache.h"
#include "mm/vmscan.h"
#include "mm/memfile.h"
#include "mm/slab.h"

/* The pattern byte at file offset off: depends on the page and the byte. */
static u8 pattern_byte(u64 off, u8 salt)
{
	return (u8)((off >> PAGE_SHIFT) * 31 + (off & (PAGE_SIZE - 1)) * 7 + salt);
}

static void pattern_fill(u8 *buf, u64 off, size_t len, u8 salt)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(off + i, salt);
}

/* The first offset in buf[0..len) that differs from the pattern, or -1. */
static long pattern_mismatch(const u8 *buf, u64 off, size_t len, u8 salt)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern_byte(off + i, salt))
			return (long)i;
	return -1;
}

/* A memfile of npages whose store holds the pattern with salt. */
static struct memfile *patterned_memfile(unsigned long npages, u8 salt)
{
	struct memfile *mf = memfile_create((u64)npages * PAGE_SIZE);
	u8 *buf = kmalloc(PAGE_SIZE);

	if (mf && buf)
		for (unsigned long i = 0; i < npages; i++) {
			pattern_fill(buf, i * PAGE_SIZE, PAGE_SIZE, salt);
			memfile_store_write(mf, i * PAGE_SIZE, buf, PAGE_SIZE);
		}
	kfree(buf);
	return mf;
}

static u8 page_buf[PAGE_SIZE];	/* [P] the running test's (tests run one at a time) */

KTEST(pagecache_first_read_misses_second_hits)
{
	struct memfile *mf = patterned_memfile(64, 1);
	struct pagecache_stats s0, s1, s2;
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	pagecache_get_stats(&s0);
	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	KT_EQ(pattern_mismatch(page_buf, 0, PAGE_SIZE, 1), -1);
	pagecache_get_stats(&s1);
	u64 reads = memfile_reads(mf);
	KT_GT(s1.misses, s0.misses);
	KT_GE(reads, 1);

	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	KT_EQ(pattern_mismatch(page_buf, 0, PAGE_SIZE, 1), -1);
	pagecache_get_stats(&s2);
	KT_EQ(memfile_reads(mf), reads);	/* no readpage: a hit */
	KT_GT(s2.hits, s1.hits);
	memfile_destroy(mf);
}

/*
 * The LRU's second chance, read by read (mm/vmscan.c, mark_page_accessed):
 * the first read of a new page marks it referenced, the second moves it to
 * the active list, the third marks it referenced there, and from then on a
 * read leaves the flags as they are (it only looks at them).
 */
KTEST(pagecache_reads_promote_a_page_once_then_leave_its_flags_alone)
{
	const unsigned long lru_bits = 1UL << PG_lru | 1UL << PG_active | 1UL << PG_referenced;
	struct memfile *mf = patterned_memfile(2, 9);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_EQ(filemap_read(m, page_buf, 16, 0), 16);
	struct page *p = find_get_page(m, 0);
	KT_NOT_NULL(p);
	KT_EQ(p->flags & lru_bits, 1UL << PG_lru | 1UL << PG_referenced);
	KT_EQ(filemap_read(m, page_buf, 16, 0), 16);
	KT_EQ(p->flags & lru_bits, 1UL << PG_lru | 1UL << PG_active);
	KT_EQ(filemap_read(m, page_buf, 16, 0), 16);
	KT_EQ(p->flags & lru_bits, lru_bits);
	for (int i = 0; i < 3; i++) {
		KT_EQ(filemap_read(m, page_buf, 16, 0), 16);
		KT_EQ(p->flags & lru_bits, lru_bits);
	}
	put_page(p);
	memfile_destroy(mf);
}

KTEST(pagecache_find_get_page_null_when_absent_referenced_when_present)
{
	struct memfile *mf = patterned_memfile(64, 2);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_NULL(find_get_page(m, 50));
	KT_EQ(filemap_read(m, page_buf, 16, 0), 16);
	struct page *p = find_get_page(m, 0);
	KT_NOT_NULL(p);
	KT_GE(page_count(p), 2);	/* the cache's reference and ours */
	KT_ASSERT(p->mapping == m);
	KT_EQ(p->index, 0);
	KT_ASSERT(test_bit(PG_uptodate, &p->flags));
	put_page(p);
	KT_NULL(find_get_page(m, 50));	/* readahead stays near the reader */
	memfile_destroy(mf);
}

KTEST(pagecache_find_lock_page_returns_it_locked_in_its_mapping)
{
	struct memfile *mf = patterned_memfile(8, 3);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_NULL(find_lock_page(m, 2));
	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 2 * PAGE_SIZE), PAGE_SIZE);
	struct page *p = find_lock_page(m, 2);
	KT_NOT_NULL(p);
	KT_ASSERT(test_bit(PG_locked, &p->flags));
	KT_ASSERT(!trylock_page(p));
	KT_ASSERT(p->mapping == m);
	KT_EQ(p->index, 2);
	KT_EQ(pattern_mismatch(page_address(p), 2 * PAGE_SIZE, PAGE_SIZE, 3), -1);
	unlock_page(p);
	put_page(p);
	memfile_destroy(mf);
}

/*
 * Isolate the cached page at index as reclaim would: our reference stands
 * for reclaim's, and the page leaves the LRU. Returns it locked, or NULL.
 */
static struct page *isolate_locked(struct address_space *m, unsigned long index)
{
	struct page *p = find_get_page(m, index);
	if (p) {
		lru_del(p);
		lock_page(p);
	}
	return p;
}

/* Undo isolate_locked for a page that stayed cached. */
static void putback_unlock(struct page *p)
{
	unlock_page(p);
	lru_cache_add(p);
	put_page(p);
}

/*
 * Eviction hands the page to the allocator with its flags intact (only the
 * page lock is dropped), so the allocator's page-state checks see what the
 * evictor forgot: here, a page still on the LRU list.
 */
KTEST_EXPECT_PANIC(pagecache_evicting_a_page_still_on_the_lru_is_bug, "still set")
{
	struct memfile *mf = patterned_memfile(2, 4);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	struct page *p = find_get_page(m, 0);	/* not isolated: PG_lru stays */
	KT_NOT_NULL(p);
	KT_ASSERT(test_bit(PG_lru, &p->flags));
	lock_page(p);
	remove_mapping(m, p);
	KT_FAIL("a page on the LRU was freed without a word");
}

KTEST(pagecache_remove_mapping_evicts_an_unused_clean_page)
{
	struct memfile *mf = patterned_memfile(8, 4);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	unsigned long n0 = m->nrpages;
	struct page *p = isolate_locked(m, 0);
	KT_NOT_NULL(p);
	KT_EQ(page_count(p), 2);	/* the cache's and ours (reclaim's) */
	KT_ASSERT(remove_mapping(m, p));	/* frees p: our reference went too */
	KT_NULL(find_get_page(m, 0));
	KT_EQ(m->nrpages, n0 - 1);
	/* Read again: a miss that fills a new page with the same data. */
	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	KT_EQ(pattern_mismatch(page_buf, 0, PAGE_SIZE, 4), -1);
	memfile_destroy(mf);
}

KTEST(pagecache_remove_mapping_fails_while_a_third_reference_is_held)
{
	struct memfile *mf = patterned_memfile(8, 5);
	struct pagecache_stats s0, s1;
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	struct page *p = isolate_locked(m, 0);
	KT_NOT_NULL(p);
	get_page(p);			/* a user's reference */
	KT_EQ(page_count(p), 3);
	pagecache_get_stats(&s0);
	KT_ASSERT(!remove_mapping(m, p));	/* step E2 fails */
	pagecache_get_stats(&s1);
	KT_GT(s1.freeze_failures, s0.freeze_failures);
	KT_EQ(page_count(p), 3);	/* the failed freeze changed nothing */
	struct page *q = find_get_page(m, 0);
	KT_ASSERT(q == p);
	put_page(q);
	put_page(p);			/* the user's */
	putback_unlock(p);
	memfile_destroy(mf);
}

KTEST(pagecache_remove_mapping_keeps_a_dirty_page)
{
	struct memfile *mf = patterned_memfile(8, 6);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_EQ(filemap_read(m, page_buf, PAGE_SIZE, 0), PAGE_SIZE);
	struct page *p = isolate_locked(m, 0);
	KT_NOT_NULL(p);
	set_page_dirty(p);		/* dirtied after reclaim looked */
	KT_EQ(page_count(p), 2);
	KT_ASSERT(!remove_mapping(m, p));	/* step E3: unfrozen, kept */
	KT_EQ(page_count(p), 2);
	KT_ASSERT(find_get_page(m, 0) == p);
	put_page(p);			/* find_get_page's */
	putback_unlock(p);
	memfile_destroy(mf);		/* the dirty page is discarded */
}

/*
 * An evicted frame, reused by another mapping, is never found at its old
 * place. The frame goes back to this CPU's page list, so it is usually the
 * next one allocated; keep B's pages cached so each try gets a new frame.
 */
KTEST(pagecache_reused_frame_is_not_found_at_its_old_index)
{
	struct memfile *a = patterned_memfile(8, 7), *b = memfile_create(1024 * PAGE_SIZE);
	KT_NOT_NULL(a);
	KT_NOT_NULL(b);
	const unsigned long i = 3;

	KT_EQ(filemap_read(&a->mapping, page_buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
	struct page *p = isolate_locked(&a->mapping, i);
	KT_NOT_NULL(p);
	unsigned long pfn = page_to_pfn(p);
	KT_ASSERT(remove_mapping(&a->mapping, p));
	unsigned long j;
	bool reused = false;
	for (j = 0; j < 1024 && !reused; j++) {
		struct page *q = find_or_create_page(&b->mapping, j);
		KT_NOT_NULL(q);
		reused = page_to_pfn(q) == pfn;
		unlock_page(q);
		put_page(q);
	}
	if (!reused)
		KT_FAIL("frame %#lx not reused in 1024 allocations", pfn);
	pr_info("pagecache: frame %#lx reused after %lu allocations", pfn, j);
	KT_ASSERT(p->mapping == &b->mapping);
	KT_EQ(p->index, j - 1);
	struct page *old = find_get_page(&a->mapping, i);
	KT_ASSERT(old != p);
	KT_NULL(old);
	/* The old index reads its own data, not B's zeroes. */
	KT_EQ(filemap_read(&a->mapping, page_buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
	KT_EQ(pattern_mismatch(page_buf, i * PAGE_SIZE, PAGE_SIZE, 7), -1);
	memfile_destroy(a);
	memfile_destroy(b);
}

KTEST(pagecache_truncate_drops_pages_past_the_offset_and_zeroes_the_tail)
{
	struct memfile *mf = memfile_create(10 * PAGE_SIZE);
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	for (unsigned long i = 0; i < 10; i++) {
		pattern_fill(page_buf, i * PAGE_SIZE, PAGE_SIZE, 8);
		KT_EQ(filemap_write(m, page_buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
	}
	KT_EQ(m->nrpages, 10);
	truncate_inode_pages(m, 5 * PAGE_SIZE + 100);
	KT_EQ(m->nrpages, 6);
	for (unsigned long i = 0; i < 10; i++) {
		struct page *p = find_get_page(m, i);
		if (i <= 5)
			KT_NOT_NULL(p);
		else
			KT_NULL(p);
		if (p)
			put_page(p);
	}
	struct page *p = find_get_page(m, 5);
	const u8 *d = page_address(p);
	KT_EQ(pattern_mismatch(d, 5 * PAGE_SIZE, 100, 8), -1);	/* kept */
	for (size_t k = 100; k < PAGE_SIZE; k++)
		if (d[k])
			KT_FAIL("page 5 byte %zu is %#x past the truncation point", k, d[k]);
	put_page(p);
	memfile_destroy(mf);
}

KTEST(pagecache_write_and_wait_cleans_dirty_tags_and_fills_the_store)
{
	struct memfile *mf = memfile_create(8 * PAGE_SIZE);
	struct pagecache_stats s0, s1;
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;

	KT_ASSERT(!radix_tree_tagged(&m->tree, RADIX_TREE_TAG_DIRTY));
	for (unsigned long i = 2; i < 5; i++) {
		pattern_fill(page_buf, i * PAGE_SIZE, PAGE_SIZE, 9);
		KT_EQ(filemap_write(m, page_buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
	}
	KT_ASSERT(radix_tree_tagged(&m->tree, RADIX_TREE_TAG_DIRTY));
	memfile_store_read(mf, 2 * PAGE_SIZE, page_buf, PAGE_SIZE);
	KT_EQ(page_buf[0], 0);		/* not written back yet */
	pagecache_get_stats(&s0);
	KT_EQ(filemap_write_and_wait(m), 0);
	pagecache_get_stats(&s1);
	KT_ASSERT(!radix_tree_tagged(&m->tree, RADIX_TREE_TAG_DIRTY));
	KT_GE(s1.writebacks, s0.writebacks + 3);
	KT_EQ(memfile_writes(mf), 3);
	for (unsigned long i = 2; i < 5; i++) {
		memfile_store_read(mf, i * PAGE_SIZE, page_buf, PAGE_SIZE);
		KT_EQ(pattern_mismatch(page_buf, i * PAGE_SIZE, PAGE_SIZE, 9), -1);
		struct page *p = find_get_page(m, i);
		KT_NOT_NULL(p);
		KT_ASSERT(!test_bit(PG_dirty, &p->flags));
		put_page(p);
	}
	memfile_destroy(mf);
}

/*
 * Both lookup kinds (pagecache.h: lockless, or under tree_lock as before
 * 2.6.27) find the same pages: both are correct at any moment, so the
 * switch may be flipped here and put back.
 */
KTEST(pagecache_locked_and_lockless_lookups_agree)
{
	struct memfile *mf = patterned_memfile(16, 10);
	struct page *got[2][16];
	KT_NOT_NULL(mf);
	struct address_space *m = &mf->mapping;
	bool was_locked = pagecache_locked_lookups();

	for (unsigned long i = 0; i < 16; i += 3)
		KT_EQ(filemap_read(m, page_buf, 1, i * PAGE_SIZE), 1);
	for (int kind = 0; kind < 2; kind++) {
		pagecache_set_locked_lookups(kind == 1);
		KT_EQ(pagecache_locked_lookups(), kind == 1);
		for (unsigned long i = 0; i < 16; i++) {
			got[kind][i] = find_get_page(m, i);
			if (got[kind][i])
				put_page(got[kind][i]);
		}
	}
	pagecache_set_locked_lookups(was_locked);
	for (unsigned long i = 0; i < 16; i++)
		if (got[0][i] != got[1][i])
			KT_FAIL("index %lu: lockless %p, locked %p", i, got[0][i], got[1][i]);
	memfile_destroy(mf);
}

/*
 * With pagecache.max_pages=N on the command line, a sequential read of a
 * file four times the cap keeps the cache near the cap (a soft cap: an add
 * at the cap reclaims first, and the reclaim thread trims above 7/8 of it)
 * and evicts. Without a cap only the data is checked.
 */
#define CAP_SLACK 16

KTEST(pagecache_max_pages_cap_holds_during_a_sequential_read)
{
	unsigned long cap = vmscan_max_pages(), npages = 256, peak = 0;
	struct pagecache_stats s0, s1;
	struct memfile *mf = patterned_memfile(npages, 11);
	KT_NOT_NULL(mf);

	pagecache_get_stats(&s0);
	for (unsigned long i = 0; i < npages; i++) {
		KT_EQ(filemap_read(&mf->mapping, page_buf, PAGE_SIZE, i * PAGE_SIZE), PAGE_SIZE);
		long bad = pattern_mismatch(page_buf, i * PAGE_SIZE, PAGE_SIZE, 11);
		if (bad >= 0)
			KT_FAIL("page %lu byte %ld is %#x", i, bad, page_buf[bad]);
		peak = MAX(peak, pagecache_nr_pages());
	}
	pagecache_get_stats(&s1);
	pr_info("pagecache cap %lu: peak %lu pages, %llu evictions, %llu overruns", cap, peak,
		(unsigned long long)(s1.evictions - s0.evictions),
		(unsigned long long)(s1.overruns - s0.overruns));
	if (cap < npages) {
		KT_LE(peak, cap + CAP_SLACK);
		KT_GT(s1.evictions, s0.evictions);
	}
	memfile_destroy(mf);
}
