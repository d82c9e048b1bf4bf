/*
 * pagecache_bench.c - find_get_page hits per second per thread on the host,
 * lockless and locked (pagecache_set_locked_lookups), with mm/filemap.c
 * compiled unchanged; every lookup hits and its reference is put back.
 *
 * Usage: pagecache_bench [threads=N ...] [ms=N] [pages=all|one|own]
 *        pagecache_bench count=N lookup=lockless|locked
 * The first form prints, per thread count (default 1 and 2), one line
 * "bench find_get_page_host threads=N pages=P lockless=X locked=Y" (hits
 * per second per thread). Which pages the threads look up:
 *   all  every thread, random pages of all NINDEX (the default);
 *   one  every thread, the same single page: its refcount's cache line
 *        moves between the cores on every get and put;
 *   own  each thread, random pages of its own NINDEX / MAX_THREADS: no
 *        line is written by two threads (the tree is only read).
 * The second does N lookups of all pages in one thread inside
 * bench_lookups(), for tests/host/callgrind-pagecache to count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernel/cmdline.h"
#include "kernel/rcu.h"
#include "mm/pagecache.h"

#define NINDEX 1024
#define MAX_THREADS 8

static struct address_space mapping;
static int go, stop;				/* [A] */
static unsigned long long counts[MAX_THREADS];	/* [P] one slot per thread */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Which indices a thread looks up: base + (random & mask). */
struct span {
	unsigned long base, mask;
};

static const char *pages_mode = "all";	/* [I] after main's parsing */

static struct span thread_span(long id)
{
	if (!strcmp(pages_mode, "one"))
		return (struct span){ 0, 0 };
	if (!strcmp(pages_mode, "own"))
		return (struct span){ id * (NINDEX / MAX_THREADS), NINDEX / MAX_THREADS - 1 };
	return (struct span){ 0, NINDEX - 1 };
}

/* n lookups in span s from seed x; returns the hits. Not inlined: callgrind's window. */
__attribute__((noinline)) unsigned long long bench_lookups(unsigned long long n, unsigned long long x,
							   struct span s)
{
	unsigned long long hits = 0;

	for (unsigned long long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		struct page *page = find_get_page(&mapping, s.base + (x & s.mask));
		if (page) {
			hits++;
			put_page(page);
		}
	}
	return hits;
}

static void *lookup_thread(void *arg)
{
	long id = (long)arg;
	unsigned long long x = id * 0x9e3779b97f4a7c15ULL + 1, n = 0;
	struct span s = thread_span(id);

	rcu_register_thread();
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		n += bench_lookups(256, x, s);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		rcu_quiescent_state();
	}
	counts[id] = n;
	rcu_unregister_thread();
	return NULL;
}

/* Hits per second per thread with `threads` threads for ms milliseconds. */
static double run(int threads, int ms)
{
	pthread_t t[MAX_THREADS];

	__atomic_store_n(&go, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, lookup_thread, (void *)i);
	double t0 = now();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&d, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	double elapsed = now() - t0;
	unsigned long long total = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += counts[i];
	}
	return total / elapsed / threads;
}

static void setup(void)
{
	radix_tree_init();
	pagecache_init();
	host_page_init(NINDEX);
	address_space_init(&mapping, NULL, NULL);
	for (unsigned long i = 0; i < NINDEX; i++) {
		struct page *page = alloc_page();
		if (!page || add_to_page_cache_lru(page, &mapping, i)) {
			fprintf(stderr, "pagecache_bench: setup failed at %lu\n", i);
			exit(1);
		}
		unlock_page(page);
		put_page(page);
	}
}

int main(int argc, char **argv)
{
	int nthreads = 0, threads[MAX_THREADS], ms = 500;
	const char *lookup = NULL;
	unsigned long long count = 0;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "threads=", 8) && nthreads < MAX_THREADS)
			threads[nthreads++] = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "ms=", 3))
			ms = atoi(argv[i] + 3);
		else if (!strncmp(argv[i], "count=", 6))
			count = strtoull(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "lookup=", 7))
			lookup = argv[i] + 7;
		else if (!strcmp(argv[i], "pages=all") || !strcmp(argv[i], "pages=one") ||
			 !strcmp(argv[i], "pages=own"))
			pages_mode = argv[i] + 6;
		else {
			fprintf(stderr, "usage: pagecache_bench [threads=N ...] [ms=N] "
					"[pages=all|one|own] | count=N lookup=lockless|locked\n");
			return 2;
		}
	}
	host_cmdline_init(1, argv);	/* the words above are ours, not switches */
	setup();
	if (count) {
		pagecache_set_locked_lookups(lookup && !strcmp(lookup, "locked"));
		rcu_register_thread();
		unsigned long long hits = bench_lookups(count, 1, thread_span(0));
		rcu_unregister_thread();
		printf("pagecache_bench: %llu lookups, %llu hits\n", count, hits);
		return hits == count ? 0 : 1;
	}
	if (!nthreads) {
		threads[nthreads++] = 1;
		threads[nthreads++] = 2;
	}
	for (int i = 0; i < nthreads; i++) {
		if (threads[i] < 1 || threads[i] > MAX_THREADS)
			return 2;
		pagecache_set_locked_lookups(false);
		double lockless = run(threads[i], ms);
		pagecache_set_locked_lookups(true);
		double locked = run(threads[i], ms);
		printf("bench find_get_page_host threads=%d pages=%s lockless=%.0f locked=%.0f\n",
		       threads[i], pages_mode, lockless, locked);
	}
	return 0;
}
