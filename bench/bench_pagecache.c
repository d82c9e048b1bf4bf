/*
 * bench_pagecache.c - find_get_page hits per second per CPU, lockless
 * against locked (pagecache.lookup=locked, the rwlock 2.6.26 took), in the
 * same boot, on 1, 2, 4, ... CPUs: once with every CPU reading one shared
 * mapping (the article's shared-library case) and once with a mapping per
 * CPU. The locked design writes the rwlock's cache line on every lookup;
 * the lockless one writes only the page's refcount.
 */
#include "kernel/bench.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "mm/pagecache.h"

#define NPAGES 256
#define WINDOW_MS 300

static int bench_readpage(struct address_space *m, struct page *page)
{
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return 0;
}

static int bench_writepage(struct address_space *m, struct page *page)
{
	return 0;
}

static const struct address_space_ops bench_ops = {
	.readpage = bench_readpage,
	.writepage = bench_writepage,
};
static struct address_space maps[MAX_CPUS];
static bool shared;		/* [I] during a run */

static int hit_thread(void *arg)
{
	long cpu = (long)arg;
	struct address_space *m = shared ? &maps[0] : &maps[cpu];
	u64 x = cpu * 0x9e3779b97f4a7c15ULL + 7, n = 0;

	bench_wait_start();
	while (!bench_should_stop()) {
		for (int i = 0; i < 64; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			struct page *p = find_get_page(m, x % NPAGES);
			if (p)
				put_page(p);
		}
		n += 64;
	}
	bench_record(cpu, n);
	return 0;
}

static u64 run(int k)
{
	return bench_run_on_cpus(k, hit_thread, "bench_hits", WINDOW_MS);
}

static void populate(struct address_space *m)
{
	address_space_init(m, &bench_ops, NULL);
	m->size = NPAGES * PAGE_SIZE;
	for (unsigned long i = 0; i < NPAGES; i++) {
		struct page *p = find_or_create_page(m, i);
		if (!p)
			return;
		set_bit(PG_uptodate, &p->flags);
		unlock_page(p);
		put_page(p);
	}
}

BENCH(pagecache)
{
	bool was = pagecache_locked_lookups();

	for (int cpu = 0; cpu < num_online_cpus(); cpu++)
		populate(&maps[cpu]);
	for (int s = 1; s >= 0; s--) {
		shared = s;
		for (int k = 1; k <= num_online_cpus(); k *= 2) {
			pagecache_set_locked_lookups(false);
			u64 lockless = run(k);
			pagecache_set_locked_lookups(true);
			u64 locked = run(k);
			bench_report("find_get_page", "mapping=%s cpus=%d lockless=%llu locked=%llu "
				     "ratio_x100=%llu", s ? "shared" : "per_cpu", k,
				     (unsigned long long)lockless, (unsigned long long)locked,
				     (unsigned long long)(locked ? lockless * 100 / locked : 0));
		}
	}
	pagecache_set_locked_lookups(was);
	for (int cpu = 0; cpu < num_online_cpus(); cpu++)
		truncate_inode_pages(&maps[cpu], 0);
}
