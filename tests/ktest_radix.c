/*
 * ktest_radix.c - tests of the RCU-safe radix tree (mm/radix-tree.h).
 *
 * The random test and the concurrent test are specifications shared with
 * the host programs in tests/host/ (radix_model.h, radix_stress.h): a seed
 * printed here replays there, under gdb or ThreadSanitizer. The small tests
 * each pin one promise of the header. Items are numbers that name their
 * key (radix_item_for), never dereferenced.
 *
 *   test.seed=N            seed of the random and concurrent tests
 *                          (default: from the TSC; printed either way)
 *   test.radix_seconds=N   length of the concurrent test (default 3)
 *   debug.radix_broken_publish=1   the tree publishes leaves before zeroing
 *                          them: radix_concurrent_readers_see_old_or_new
 *                          must then report not ok
 */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/preempt.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "mm/radix-tree.h"
#include "tests/host/radix_model.h"
#include "tests/host/radix_stress.h"

CMDLINE_KEY(radix_test_seed, "test.seed",
	    "tests: seed for randomised tests (default: from the TSC)");
CMDLINE_KEY(radix_test_seconds, "test.radix_seconds",
	    "tests: seconds radix_concurrent_readers_see_old_or_new runs (default 3)");

static u64 test_seed(void)
{
	return cmdline_get_u64("test.seed", rdtsc());
}

/* Insert item_for(index) at each index; false if any insert failed. */
static bool insert_all(struct radix_tree_root *root, const unsigned long *idx, int n)
{
	for (int i = 0; i < n; i++)
		if (radix_tree_insert(root, idx[i], radix_item_for(idx[i], 0)) != 0)
			return false;
	return true;
}

/*
 * The small tests run alone on their private trees, but their reads still
 * go through the readers' check (radix-tree.h: rcu_read_lock or the tree's
 * lock; these trees name none), so each read comes in its own section.
 */
static void *lookup(struct radix_tree_root *root, unsigned long index)
{
	rcu_read_lock();
	void *item = radix_tree_lookup(root, index);
	rcu_read_unlock();
	return item;
}

static void *next(struct radix_tree_root *root, unsigned long *index)
{
	rcu_read_lock();
	void *item = radix_tree_next(root, index);
	rcu_read_unlock();
	return item;
}

static bool tag_get(struct radix_tree_root *root, unsigned long index, enum radix_tree_tag tag)
{
	rcu_read_lock();
	bool set = radix_tree_tag_get(root, index, tag);
	rcu_read_unlock();
	return set;
}

/* tag < 0: radix_tree_gang_lookup, else radix_tree_gang_lookup_tag. */
static unsigned gang(struct radix_tree_root *root, void **got, unsigned long first, unsigned max,
		     int tag)
{
	rcu_read_lock();
	unsigned n = tag < 0 ? radix_tree_gang_lookup(root, got, first, max)
			     : radix_tree_gang_lookup_tag(root, got, first, max, tag);
	rcu_read_unlock();
	return n;
}

static void delete_all(struct radix_tree_root *root)
{
	unsigned long index = 0;

	while (next(root, &index))
		radix_tree_delete(root, index);
}

static struct radix_random random_run;

KTEST(radix_random_ops_match_model)
{
	u64 seed = test_seed();
	const char *err;
	long before;

	radix_tree_init();
	rcu_barrier();
	before = radix_tree_node_count();
	pr_info("radix: 100000 random steps, seed %llu (replay: test.seed=%llu, or on the host"
		" build/host/radix_tree_random seed=%llu)", (unsigned long long)seed,
		(unsigned long long)seed, (unsigned long long)seed);
	err = radix_random_run(&random_run, seed, 100000);
	if (err) {
		pr_err("radix: %s", err);
		KT_FAIL("%s", err);
	}
	pr_info("radix: matched the model; height up to %u", random_run.max_height);
	rcu_barrier();
	KT_EQ(radix_tree_node_count(), before);
}

KTEST(radix_insert_at_taken_index_is_eexist)
{
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;

	radix_tree_init();
	KT_EQ(radix_tree_insert(&root, 42, radix_item_for(42, 1)), 0);
	KT_EQ(radix_tree_insert(&root, 42, radix_item_for(42, 2)), -EEXIST);
	KT_EQ((uintptr_t)lookup(&root, 42), (uintptr_t)radix_item_for(42, 1));
	radix_tree_delete(&root, 42);
}

KTEST(radix_tag_set_propagates_to_root)
{
	static const unsigned long idx[] = { 7, 5000, RADIX_TREE_INDEX_MAX };
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;

	radix_tree_init();
	KT_ASSERT(insert_all(&root, idx, 3));
	KT_ASSERT(!radix_tree_tagged(&root, RADIX_TREE_TAG_DIRTY));
	KT_EQ((uintptr_t)radix_tree_tag_set(&root, 5000, RADIX_TREE_TAG_DIRTY),
	      (uintptr_t)radix_item_for(5000, 0));
	KT_ASSERT(radix_tree_tagged(&root, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(!radix_tree_tagged(&root, RADIX_TREE_TAG_WRITEBACK));
	KT_ASSERT(tag_get(&root, 5000, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(!tag_get(&root, 7, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(!tag_get(&root, 5000, RADIX_TREE_TAG_WRITEBACK));
	KT_NULL(radix_tree_tag_set(&root, 5001, RADIX_TREE_TAG_DIRTY));	/* absent */
	KT_ASSERT(!tag_get(&root, 5001, RADIX_TREE_TAG_DIRTY));
	delete_all(&root);
}

KTEST(radix_root_tag_clears_when_last_tagged_item_goes)
{
	static const unsigned long idx[] = { 7, 5000, RADIX_TREE_INDEX_MAX };
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;

	radix_tree_init();
	KT_ASSERT(insert_all(&root, idx, 3));
	radix_tree_tag_set(&root, 7, RADIX_TREE_TAG_DIRTY);
	radix_tree_tag_set(&root, RADIX_TREE_INDEX_MAX, RADIX_TREE_TAG_DIRTY);
	radix_tree_tag_clear(&root, 7, RADIX_TREE_TAG_DIRTY);
	KT_ASSERT(radix_tree_tagged(&root, RADIX_TREE_TAG_DIRTY));	/* the top one is left */
	radix_tree_delete(&root, RADIX_TREE_INDEX_MAX);		/* deleting takes its tags */
	KT_ASSERT(!radix_tree_tagged(&root, RADIX_TREE_TAG_DIRTY));
	KT_EQ(radix_tree_insert(&root, RADIX_TREE_INDEX_MAX, radix_item_for(~0UL, 1)), 0);
	KT_ASSERT(!tag_get(&root, RADIX_TREE_INDEX_MAX, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(!radix_tree_tagged(&root, RADIX_TREE_TAG_DIRTY));
	delete_all(&root);
}

KTEST(radix_gang_lookup_tag_returns_tagged_items_in_order)
{
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;
	void *got[100];
	unsigned n;

	radix_tree_init();
	for (unsigned long i = 0; i < 200; i++) {
		KT_EQ(radix_tree_insert(&root, i * 37, radix_item_for(i * 37, 0)), 0);
		if (i % 3 == 0)
			radix_tree_tag_set(&root, i * 37, RADIX_TREE_TAG_WRITEBACK);
	}
	n = gang(&root, got, 0, 100, RADIX_TREE_TAG_WRITEBACK);
	KT_EQ(n, 67);	/* i = 0, 3, ..., 198 */
	for (unsigned j = 0; j < n; j++)
		KT_ASSERT(radix_item_matches(j * 3 * 37, got[j]));
	n = gang(&root, got, 1000, 5, RADIX_TREE_TAG_WRITEBACK);
	KT_EQ(n, 5);	/* from i = 28 (1036) on: 30, 33, 36, 39, 42 */
	KT_ASSERT(radix_item_matches(30 * 37, got[0]));
	KT_ASSERT(radix_item_matches(42 * 37, got[4]));
	KT_EQ(gang(&root, got, 0, 100, RADIX_TREE_TAG_DIRTY), 0);
	delete_all(&root);
}

KTEST(radix_delete_all_shrinks_to_empty_without_leaking)
{
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;
	long before;

	radix_tree_init();
	rcu_barrier();
	before = radix_tree_node_count();
	for (unsigned long i = 0; i < 1000; i++)
		KT_EQ(radix_tree_insert(&root, i * 1000003, radix_item_for(i * 1000003, 0)), 0);
	KT_EQ(radix_tree_insert(&root, RADIX_TREE_INDEX_MAX, radix_item_for(~0UL, 0)), 0);
	KT_EQ(root.height, RADIX_TREE_MAX_HEIGHT);
	KT_GT(radix_tree_node_count(), before);
	radix_tree_delete(&root, RADIX_TREE_INDEX_MAX);
	KT_EQ(root.height, 5);	/* 999 * 1000003 < 2^30 */
	for (long i = 999; i >= 0; i--)
		KT_NOT_NULL(radix_tree_delete(&root, i * 1000003));
	KT_EQ(root.height, 0);
	KT_NULL(root.rnode);
	KT_EQ(root.nodes, 0);
	rcu_barrier();	/* the deleted nodes wait for a grace period */
	KT_EQ(radix_tree_node_count(), before);
}

KTEST(radix_max_index_is_usable)
{
	static const unsigned long idx[] = { 0, RADIX_TREE_INDEX_MAX };
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;
	unsigned long index, at = RADIX_TREE_INDEX_MAX;
	void *got[4], *item;
	int seen = 0;

	radix_tree_init();
	KT_ASSERT(insert_all(&root, idx, 2));
	KT_EQ(root.height, RADIX_TREE_MAX_HEIGHT);
	KT_ASSERT(radix_item_matches(~0UL, lookup(&root, RADIX_TREE_INDEX_MAX)));
	KT_NULL(lookup(&root, RADIX_TREE_INDEX_MAX - 1));
	KT_EQ(gang(&root, got, RADIX_TREE_INDEX_MAX, 4, -1), 1);	/* no wrap */
	KT_EQ(gang(&root, got, 1, 4, -1), 1);
	KT_NOT_NULL(next(&root, &at));
	KT_EQ(at, RADIX_TREE_INDEX_MAX);
	rcu_read_lock();
	radix_tree_for_each(&root, index, item)
		seen++;
	rcu_read_unlock();
	KT_EQ(seen, 2);	/* and the loop ended */
	radix_tree_delete(&root, RADIX_TREE_INDEX_MAX);
	KT_EQ(root.height, 1);
	delete_all(&root);
}

KTEST(radix_replace_slot_keeps_tags)
{
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;
	void **slot;

	radix_tree_init();
	KT_EQ(radix_tree_insert(&root, 300, radix_item_for(300, 1)), 0);
	radix_tree_tag_set(&root, 300, RADIX_TREE_TAG_DIRTY);
	rcu_read_lock();	/* alone on the tree: the slot stays valid after */
	slot = radix_tree_lookup_slot(&root, 300);
	rcu_read_unlock();
	KT_NOT_NULL(slot);
	radix_tree_replace_slot(slot, radix_item_for(300, 2));
	KT_EQ((uintptr_t)lookup(&root, 300), (uintptr_t)radix_item_for(300, 2));
	KT_ASSERT(tag_get(&root, 300, RADIX_TREE_TAG_DIRTY));
	rcu_read_lock();
	slot = radix_tree_lookup_slot(&root, 301);	/* absent: no slot to replace */
	rcu_read_unlock();
	KT_NULL(slot);
	delete_all(&root);
}

KTEST(radix_preload_keeps_preemption_off_until_end)
{
	struct radix_tree_root root = RADIX_TREE_ROOT_INIT;
	int before = preempt_count();

	radix_tree_init();
	KT_EQ(radix_tree_insert(&root, 0, radix_item_for(0, 0)), 0);
	KT_EQ(radix_tree_preload(), 0);
	KT_EQ(preempt_count(), before + 1);
	/* The worst insert there is (10 new tops, 10 nodes below) fits the pool. */
	KT_EQ(radix_tree_insert(&root, RADIX_TREE_INDEX_MAX, radix_item_for(~0UL, 0)), 0);
	radix_tree_preload_end();
	KT_EQ(preempt_count(), before);
	delete_all(&root);
}

/* ------------------------------------------------------------ concurrent */

static struct radix_stress stress;
static struct radix_stress_reader stress_readers[MAX_CPUS];
static struct task *stress_threads[MAX_CPUS];
static spinlock_t stress_lock = SPINLOCK_INIT("radix_stress");
static int stress_stop;			/* [A] set when the readers must leave */
static int stress_failed_cpu = -1;	/* [A] first reader that saw something wrong */

static void stress_lock_tree(struct radix_stress *s)
{
	spin_lock(&stress_lock);
}

static void stress_unlock_tree(struct radix_stress *s)
{
	spin_unlock(&stress_lock);
}

/*
 * A reader thread, bound to one CPU: lockless checks until told to stop.
 * Between two checks it holds no tree pointer and is preemptible, so the
 * tick finds it in a quiescent state now and then, grace periods end, and
 * the nodes the writer hands to call_rcu are freed while readers run.
 * (A reader that stays in a read-side section, or keeps interrupts off,
 * would only delay those frees: correct, just slower to reclaim.)
 */
static int stress_reader(void *arg)
{
	struct radix_stress_reader *rd = arg;

	while (!READ_ONCE(stress_stop)) {	/* relaxed: a flag */
		if (!radix_stress_reader_step(&stress, rd)) {
			int none = -1;
			__atomic_compare_exchange_n(&stress_failed_cpu, &none,
						    (int)(rd - stress_readers), false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			break;
		}
	}
	return 0;
}

/* The writer thread, on CPU 0: changes until the deadline or a reader's failure. */
static int stress_writer(void *arg)
{
	u64 end = *(u64 *)arg;

	while (ktime_ns() < end && READ_ONCE(stress_failed_cpu) < 0)
		for (int i = 0; i < 64; i++)
			radix_stress_writer_step(&stress);
	return 0;
}

/* One thread bound to cpu; false if it could not be made. */
static bool stress_start(int cpu, int (*fn)(void *), void *arg, const char *name)
{
	stress_threads[cpu] = kthread_create(fn, arg, name);
	if (!stress_threads[cpu])
		return false;
	kthread_bind(stress_threads[cpu], cpu);
	wake_up_process(stress_threads[cpu]);
	return true;
}

/*
 * The writer on CPU 0, a reader on each other CPU, for `ns`; returns when
 * all have been reaped (kthread_join orders their results before our reads).
 */
static bool stress_run(int ncpus, u64 ns)
{
	u64 end = ktime_ns() + ns;
	bool started = true;

	for (int cpu = 1; cpu < ncpus && started; cpu++)
		started = stress_start(cpu, stress_reader, &stress_readers[cpu], "radix_reader");
	if (started) {
		started = stress_start(0, stress_writer, &end, "radix_writer");
		if (started)
			kthread_join(stress_threads[0]);
		stress_threads[0] = NULL;
	}
	WRITE_ONCE(stress_stop, 1);	/* relaxed: a flag */
	for (int cpu = 1; cpu < ncpus; cpu++) {
		if (stress_threads[cpu])
			kthread_join(stress_threads[cpu]);
		stress_threads[cpu] = NULL;
	}
	return started;
}

static void stress_report(int ncpus, u64 ns, const struct rcu_stats *rcu0)
{
	unsigned long lookups = 0, found = 0, nexts = 0;
	struct rcu_stats rcu1;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		lookups += stress_readers[cpu].lookups;
		found += stress_readers[cpu].found;
		nexts += stress_readers[cpu].nexts;
	}
	rcu_get_stats(&rcu1);
	pr_info("radix: %d readers, %llu ms: %lu lookups (%lu found), %lu walks", ncpus - 1,
		(unsigned long long)(ns / 1000000), lookups, found, nexts);
	pr_info("radix: writer %lu ops, %lu leaf sweeps, %lu far keys, height up to %lu;"
		" meanwhile %llu grace periods, %llu callbacks run", stress.ops, stress.sweeps,
		stress.fars, stress.max_height,
		(unsigned long long)(rcu1.gp_completed - rcu0->gp_completed),
		(unsigned long long)(rcu1.cbs_invoked - rcu0->cbs_invoked));
}

/*
 * Readers on all CPUs but one check, without locks, that everything they
 * find belongs where they found it (radix_stress.h), while a writer
 * inserts, deletes, replaces and tags under a spinlock with preloads, and
 * grows and shrinks the tree; freed nodes go through real grace periods
 * meanwhile. With one CPU the writer runs alone for half a second.
 */
KTEST(radix_concurrent_readers_see_old_or_new)
{
	u64 seed = test_seed(), seconds = cmdline_get_u64("test.radix_seconds", 3);
	int ncpus = num_online_cpus(), bad;
	u64 ns = ncpus > 1 ? seconds * 1000000000ULL : 500000000ULL, t0;
	struct rcu_stats rcu0;
	const char *err;
	long before;

	radix_tree_init();
	rcu_barrier();
	before = radix_tree_node_count();
	memset(&stress, 0, sizeof(stress));
	memset(stress_readers, 0, sizeof(stress_readers));
	WRITE_ONCE(stress_stop, 0);
	WRITE_ONCE(stress_failed_cpu, -1);
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		stress_readers[cpu].rng = seed * 1000003 + cpu + 1;
	stress.lock = stress_lock_tree;
	stress.tree_lock = &stress_lock;
	stress.unlock = stress_unlock_tree;
	pr_info("radix: concurrent, seed %llu", (unsigned long long)seed);
	KT_ASSERT(radix_stress_setup(&stress, seed));

	rcu_get_stats(&rcu0);
	t0 = ktime_ns();
	KT_ASSERT(stress_run(ncpus, ns));
	stress_report(ncpus, ktime_ns() - t0, &rcu0);
	err = radix_stress_finish(&stress);
	rcu_barrier();
	bad = READ_ONCE(stress_failed_cpu);
	if (bad >= 0)
		KT_FAIL("cpu %d: %s", bad, stress_readers[bad].why);
	if (err)
		KT_FAIL("%s", err);
	KT_EQ(radix_tree_node_count(), before);
}
