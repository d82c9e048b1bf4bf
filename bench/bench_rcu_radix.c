/*
 * bench_rcu_radix.c - how fast lockless radix-tree lookups are on 1, 2, 4
 * and 8 CPUs, and how long synchronize_rcu takes.
 *
 * A tree of NKEYS items; on k CPUs at once, a bound kernel thread per CPU
 * looks up pseudo-random keys under rcu_read_lock for WINDOW_MS, counting.
 * Lookups write nothing shared, so the per-CPU rate should hold as k grows
 * - on real cores. Under TCG with more vCPUs than host cores it cannot.
 */
#include "kernel/bench.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "mm/radix-tree.h"

#define NKEYS 65536
#define WINDOW_MS 500

static struct radix_tree_root tree;

static int lookup_thread(void *arg)
{
	long cpu = (long)arg;
	u64 x = cpu * 0x9e3779b97f4a7c15ULL + 1, n = 0, misses = 0;

	bench_wait_start();
	while (!bench_should_stop()) {
		for (int i = 0; i < 256; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			unsigned long key = x % NKEYS;
			rcu_read_lock();
			void *v = radix_tree_lookup(&tree, key);
			rcu_read_unlock();
			misses += v != (void *)(key * 2 + 2);
		}
		n += 256;
	}
	bench_record(cpu, n);
	if (misses)
		pr_err("bench: %llu lookups returned the wrong item", (unsigned long long)misses);
	return 0;
}

static u64 run_lookups(int k)
{
	return bench_run_on_cpus(k, lookup_thread, "bench_lookup", WINDOW_MS);
}

BENCH(rcu_radix)
{
	radix_tree_init();	/* idempotent */
	radix_tree_init_root(&tree);
	for (unsigned long key = 0; key < NKEYS; key++) {
		if (radix_tree_preload())
			break;
		radix_tree_insert(&tree, key, (void *)(key * 2 + 2));
		radix_tree_preload_end();
	}
	for (int k = 1; k <= num_online_cpus(); k *= 2)
		bench_report("radix_lookup", "cpus=%d lookups_per_sec_per_cpu=%llu", k,
			     (unsigned long long)run_lookups(k));
	u64 t0 = ktime_ns();
	for (int i = 0; i < 20; i++)
		synchronize_rcu();
	bench_report("synchronize_rcu", "cpus=%d avg_us=%llu", num_online_cpus(),
		     (unsigned long long)(ktime_ns() - t0) / 20 / 1000);
}
