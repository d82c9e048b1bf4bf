/*
 * pagecache_concurrent.c - lockless find_get_page against eviction and
 * frame reuse (mm/pagecache.h, interleavings A, B and C) on the host, with
 * mm/filemap.c compiled unchanged.
 *
 * One mapping of NINDEX pages; the page at index i holds i in every word.
 * Reader threads look up random indices and check every word of each page
 * they get (it must be the page for that index), then put_page. One
 * evictor thread picks an index, takes the page with find_get_page (its
 * isolation reference), trylock_page, lru_del, remove_mapping; if the page
 * went, it fills a fresh frame from the host free list with the index and
 * add_to_page_cache_lru's it. The free list is FIFO with few spare frames,
 * so a freed frame soon comes back for another index: a reader between
 * steps 2 and 3 may get a reference on somebody else's page, and only the
 * recheck (step 4) sends it back.
 *
 * Built plain (gcc -O2 -g) and with ThreadSanitizer, which must report
 * nothing.
 *
 * Usage: pagecache_concurrent [seed=N] [seconds=N] [readers=N] [spare=N]
 *        [pagecache.debug_skip_recheck=1 pagecache.debug_delay_us=N expect=caught]
 * With expect=caught the run is a test of the test: it succeeds only if a
 * reader got a wrong page. Exit status 0 on success, 1 otherwise.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernel/cmdline.h"
#include "kernel/rcu.h"
#include "mm/pagecache.h"
#include "mm/vmscan.h"

#define NINDEX 64
#define MAX_READERS 8
#define WORDS (PAGE_SIZE / sizeof(unsigned long))

static struct address_space mapping;
static int stop;			/* [A] set by main when time is up */
static u64 seed;			/* [I] */
static int evictor_failed;		/* [P] evictor's, read after join */

/* Lock legend: [P] the owning thread's until joined. */
struct reader {
	pthread_t thread;	/* [P] */
	int id;			/* [P] */
	u64 lookups, hits;	/* [P] */
	u64 wrong;		/* [P] pages whose contents were not their index */
};
static struct reader readers[MAX_READERS];
static u64 evictions, kept;		/* [P] the evictor's */

static u64 xorshift(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The page's owner writes it before it is published (radix_tree_insert releases). */
static void fill(struct page *page, unsigned long index)
{
	unsigned long *w = page_address(page);

	for (unsigned i = 0; i < WORDS; i++)
		w[i] = index;
}

/* Every word holds index; false if any does not. */
static bool page_holds(struct page *page, unsigned long index)
{
	const unsigned long *w = page_address(page);
	bool ok = true;

	for (unsigned i = 0; i < WORDS; i++)
		ok &= w[i] == index;
	return ok;
}

/* A fresh page, filled with index, into the cache; false on any failure. */
static bool add_fresh(unsigned long index)
{
	struct page *page = alloc_page();

	if (!page) {
		fprintf(stderr, "pagecache_concurrent: host free list empty\n");
		return false;
	}
	fill(page, index);
	int err = add_to_page_cache_lru(page, &mapping, index);	/* locked, refcount 2 */
	if (err) {
		fprintf(stderr, "pagecache_concurrent: add at %lu failed: %d\n", index, err);
		return false;
	}
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	put_page(page);			/* the cache's reference stays */
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	u64 x = seed * 0x9e3779b97f4a7c15ULL + (u64)rd->id * 7919 + 1;

	rcu_register_thread();
	while (!READ_ONCE(stop)) {	/* relaxed: a flag, nothing published with it */
		unsigned long index = xorshift(&x) % NINDEX;
		struct page *page = find_get_page(&mapping, index);
		rd->lookups++;
		if (page) {
			rd->hits++;
			if (!page_holds(page, index) && rd->wrong++ == 0)
				fprintf(stderr, "reader %d: page %lu handed out for index %lu\n",
					rd->id, page_to_pfn(page), index);
			put_page(page);
		}
		rcu_quiescent_state();	/* holds no tree pointer between lookups */
	}
	rcu_unregister_thread();
	return NULL;
}

/* One eviction attempt at index; false on a broken invariant. */
static bool evict_one(unsigned long index)
{
	struct page *page = find_get_page(&mapping, index);	/* isolation reference */

	if (!page) {
		fprintf(stderr, "evictor: index %lu missing from the cache\n", index);
		return false;
	}
	if (!trylock_page(page)) {
		put_page(page);
		return true;
	}
	lru_del(page);				/* isolated from the LRU */
	if (remove_mapping(&mapping, page)) {	/* frozen and freed: our reference went too */
		evictions++;
		return add_fresh(index);
	}
	kept++;					/* a reader held it (interleaving A) */
	lru_cache_add(page);
	unlock_page(page);
	put_page(page);
	return true;
}

static void *evictor_main(void *arg)
{
	u64 x = seed * 0x2545f4914f6cdd1dULL + 12345;

	while (!READ_ONCE(stop)) {
		if (!evict_one(xorshift(&x) % NINDEX)) {
			evictor_failed = 1;
			break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	host_cmdline_init(argc, argv);
	seed = cmdline_get_u64("seed", 1);
	unsigned seconds = (unsigned)cmdline_get_u64("seconds", 3);
	unsigned nreaders = (unsigned)cmdline_get_u64("readers", 3);
	unsigned spare = (unsigned)cmdline_get_u64("spare", 2);
	bool expect_caught = cmdline_get("expect") && !strcmp(cmdline_get("expect"), "caught");
	pthread_t evictor;

	if (nreaders < 1 || nreaders > MAX_READERS || spare < 1) {
		fprintf(stderr, "pagecache_concurrent: readers=1..%d, spare>=1\n", MAX_READERS);
		return 1;
	}
	radix_tree_init();
	pagecache_init();
	host_page_init(NINDEX + spare);
	address_space_init(&mapping, NULL, NULL);
	for (unsigned long i = 0; i < NINDEX; i++)
		if (!add_fresh(i))
			return 1;
	for (unsigned i = 0; i < nreaders; i++) {
		readers[i].id = (int)i;
		pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]);
	}
	pthread_create(&evictor, NULL, evictor_main, NULL);
	struct timespec d = { seconds, 0 };
	nanosleep(&d, NULL);
	WRITE_ONCE(stop, 1);
	pthread_join(evictor, NULL);
	u64 lookups = 0, hits = 0, wrong = 0;
	for (unsigned i = 0; i < nreaders; i++) {
		pthread_join(readers[i].thread, NULL);
		lookups += readers[i].lookups;
		hits += readers[i].hits;
		wrong += readers[i].wrong;
	}
	struct pagecache_stats st;
	pagecache_get_stats(&st);
	printf("pagecache_concurrent: %llu lookups, %llu hits, %llu wrong pages; "
	       "%llu evictions, %llu kept; retries: speculative %llu, recheck %llu\n",
	       (unsigned long long)lookups, (unsigned long long)hits,
	       (unsigned long long)wrong, (unsigned long long)evictions,
	       (unsigned long long)kept, (unsigned long long)st.spec_retries,
	       (unsigned long long)st.recheck_retries);
	if (evictor_failed || st.pages != NINDEX) {
		fprintf(stderr, "pagecache_concurrent: evictor failed or %llu pages cached\n",
			(unsigned long long)st.pages);
		return 1;
	}
	if (expect_caught)
		return wrong ? 0 : 1;
	return wrong ? 1 : 0;
}
