/*
 * radix_random.c - the radix tree's sequential specification on the host:
 * the random operations of radix_model.h against the reference model, then
 * what only the host can force, allocation failures: an insert that runs
 * out of memory changes nothing, and one after a preload cannot run out.
 *
 * Usage: radix_random [seed=N] [steps=N]   (prints the seed it used)
 * Exit status 0 when every check passed, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mm/radix-tree.h"
#include "mm/slab.h"
#include "kernel/cmdline.h"
#include "kernel/preempt.h"
#include "radix_model.h"

#define FAR_INDEX (RADIX_TREE_INDEX_MAX - 12345)	/* needs a tree of 11 levels */

static struct radix_random run;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("radix_random: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
			return false;                                          \
		}                                                              \
	} while (0)

/* The walk of root as a sum, to tell whether anything changed. */
static unsigned long tree_digest(struct radix_tree_root *root)
{
	unsigned long index, sum = 0;
	void *item;

	radix_tree_for_each(root, index, item)
		sum = sum * 31 + index + (uintptr_t)item;
	return sum;
}

/* Every allocation an insert makes, failed in turn, leaves the tree as it was. */
static bool insert_out_of_memory_changes_nothing(void)
{
	struct radix_tree_root root;
	unsigned long digest;
	unsigned nodes, height;
	int rc = -ENOMEM;

	radix_tree_init_root(&root);
	for (unsigned long i = 0; i < 100; i++)
		CHECK(radix_tree_insert(&root, i, radix_item_for(i, 0)) == 0, "setup %lu", i);
	digest = tree_digest(&root);
	nodes = root.nodes;
	height = root.height;
	for (long allowed = 0; rc == -ENOMEM; allowed++) {
		host_slab_fail_after(allowed);
		rc = radix_tree_insert(&root, FAR_INDEX, radix_item_for(FAR_INDEX, 0));
		host_slab_fail_after(-1);
		if (rc == -ENOMEM) {
			CHECK(tree_digest(&root) == digest, "tree changed after %ld allocations",
			      allowed);
			CHECK(root.nodes == nodes && root.height == height, "shape changed");
		}
		CHECK(allowed <= 2 * RADIX_TREE_MAX_HEIGHT, "insert never succeeded");
	}
	CHECK(rc == 0, "insert returned %d", rc);
	CHECK(radix_tree_lookup(&root, FAR_INDEX) == radix_item_for(FAR_INDEX, 0), "far item");
	CHECK(root.height == RADIX_TREE_MAX_HEIGHT, "height %u", root.height);
	for (unsigned long i = 0; i < 100; i++)
		radix_tree_delete(&root, i);
	radix_tree_delete(&root, FAR_INDEX);
	CHECK(root.nodes == 0 && root.rnode == NULL, "not empty");
	return true;
}

/* After a preload, the worst insert there is takes only pool nodes. */
static bool preloaded_insert_cannot_fail(void)
{
	struct radix_tree_root root;
	int before = preempt_count(), rc;

	radix_tree_init_root(&root);
	CHECK(radix_tree_insert(&root, 0, radix_item_for(0, 0)) == 0, "setup");
	CHECK(radix_tree_preload() == 0, "preload failed");
	CHECK(preempt_count() == before + 1, "preload left preemption on");
	host_slab_fail_after(0);	/* from now on the slab has nothing */
	rc = radix_tree_insert(&root, RADIX_TREE_INDEX_MAX, radix_item_for(~0UL, 0));
	host_slab_fail_after(-1);
	radix_tree_preload_end();
	CHECK(rc == 0, "preloaded insert returned %d", rc);
	CHECK(preempt_count() == before, "preload_end left preemption off");
	CHECK(root.height == RADIX_TREE_MAX_HEIGHT, "height %u", root.height);
	radix_tree_delete(&root, 0);
	radix_tree_delete(&root, RADIX_TREE_INDEX_MAX);
	CHECK(root.nodes == 0 && root.rnode == NULL, "not empty");
	return true;
}

int main(int argc, char **argv)
{
	u64 seed, steps;
	long baseline;
	const char *err;
	bool ok;

	host_cmdline_init(argc, argv);
	seed = cmdline_get_u64("seed", (u64)time(NULL));
	steps = cmdline_get_u64("steps", 100000);
	radix_tree_init();
	baseline = radix_tree_node_count();

	printf("radix_random: seed=%llu steps=%llu\n", (unsigned long long)seed,
	       (unsigned long long)steps);
	err = radix_random_run(&run, seed, steps);
	if (err)
		printf("radix_random: MISMATCH %s\n", err);
	else
		printf("radix_random: %llu steps matched the model, height up to %u\n",
		       (unsigned long long)steps, run.max_height);
	ok = !err && insert_out_of_memory_changes_nothing() && preloaded_insert_cannot_fail();
	rcu_barrier();
	if (ok && radix_tree_node_count() != baseline) {
		printf("radix_random: %ld nodes leaked\n", radix_tree_node_count() - baseline);
		ok = false;
	}
	return ok ? 0 : 1;
}
