/*
 * radix_concurrent.c - lockless readers see old or new (radix_stress.h) on
 * the host: reader threads under the host's QSBR RCU, one writer (the main
 * thread) under a mutex, for a few seconds. Built plain (gcc -O2 -g, to
 * step through) and with ThreadSanitizer (clang -fsanitize=thread), which
 * must report nothing.
 *
 * Usage: radix_concurrent [seed=N] [seconds=N] [readers=N]
 *                         [debug.radix_broken_publish=1 expect=caught]
 * With expect=caught the run is a test of the test: it succeeds only if a
 * reader saw something wrong (run it with the deliberately broken tree).
 * Exit status 0 on success, 1 otherwise.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "kernel/cmdline.h"
#include "radix_stress.h"

#define MAX_READERS 8

static struct radix_stress stress;
static struct radix_stress_reader readers[MAX_READERS];
static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;
static int stop;		/* [A] set by the writer when time is up */
static int failed_reader = -1;	/* [A] the first reader that saw something wrong */

static void lock_tree(struct radix_stress *s)
{
	pthread_mutex_lock(&tree_lock);
}

static void unlock_tree(struct radix_stress *s)
{
	pthread_mutex_unlock(&tree_lock);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader_main(void *arg)
{
	struct radix_stress_reader *rd = arg;

	rcu_register_thread();
	while (!READ_ONCE(stop)) {	/* relaxed: a flag, nothing published with it */
		if (!radix_stress_reader_step(&stress, rd)) {
			int none = -1;
			__atomic_compare_exchange_n(&failed_reader, &none, (int)(rd - readers),
						    false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			break;
		}
		rcu_quiescent_state();	/* holds no tree pointer between steps */
	}
	rcu_unregister_thread();
	return NULL;
}

/* Run the writer until the deadline or until a reader fails. */
static void writer_run(double seconds)
{
	double end = now_seconds() + seconds;

	while (__atomic_load_n(&failed_reader, __ATOMIC_RELAXED) < 0) {
		for (int i = 0; i < 256; i++)
			radix_stress_writer_step(&stress);
		if (now_seconds() >= end)
			break;
	}
	WRITE_ONCE(stop, 1);
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_READERS];
	u64 seed, seconds, nreaders;
	unsigned long lookups = 0, found = 0, nexts = 0;
	const char *err;
	bool expect_caught, caught;
	long baseline;
	int bad;

	host_cmdline_init(argc, argv);
	seed = cmdline_get_u64("seed", (u64)time(NULL));
	seconds = cmdline_get_u64("seconds", 2);
	nreaders = cmdline_get_u64("readers", 3);
	expect_caught = cmdline_get("expect") && strcmp(cmdline_get("expect"), "caught") == 0;
	if (nreaders < 1 || nreaders > MAX_READERS)
		nreaders = 3;
	radix_tree_init();
	baseline = radix_tree_node_count();
	printf("radix_concurrent: seed=%llu seconds=%llu readers=%llu\n", (unsigned long long)seed,
	       (unsigned long long)seconds, (unsigned long long)nreaders);

	stress.lock = lock_tree;
	stress.unlock = unlock_tree;
	if (!radix_stress_setup(&stress, seed)) {
		printf("radix_concurrent: out of memory in setup\n");
		return 1;
	}
	for (unsigned i = 0; i < nreaders; i++) {
		readers[i].rng = seed * 1000003 + i + 1;
		pthread_create(&threads[i], NULL, reader_main, &readers[i]);
	}
	writer_run((double)seconds);
	for (unsigned i = 0; i < nreaders; i++) {
		pthread_join(threads[i], NULL);
		lookups += readers[i].lookups;
		found += readers[i].found;
		nexts += readers[i].nexts;
	}
	err = radix_stress_finish(&stress);
	rcu_barrier();
	printf("radix_concurrent: %lu lookups (%lu found), %lu walks; writer %lu ops,"
	       " %lu leaf sweeps, %lu far keys, height up to %lu\n", lookups, found, nexts,
	       stress.ops, stress.sweeps, stress.fars, stress.max_height);

	bad = __atomic_load_n(&failed_reader, __ATOMIC_RELAXED);
	caught = bad >= 0;
	if (caught)
		printf("radix_concurrent: reader %d: %s\n", bad, readers[bad].why);
	if (err)
		printf("radix_concurrent: %s\n", err);
	if (radix_tree_node_count() != baseline) {
		printf("radix_concurrent: %ld nodes leaked\n", radix_tree_node_count() - baseline);
		err = "leak";
	}
	if (expect_caught) {
		printf("radix_concurrent: broken tree %s\n", caught ? "caught" : "NOT caught");
		return caught ? 0 : 1;
	}
	return caught || err ? 1 : 0;
}
