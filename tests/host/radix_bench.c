/*
 * radix_bench.c - lockless radix-tree lookups per second per thread on the
 * host, with the same tree code the kernel runs (for make bench, beside the
 * guest's figures: here threads run on real cores).
 *
 * Usage: radix_bench [threads=N] [ms=N]
 * Prints one line: "bench radix_lookup_host threads=N lookups_per_sec_per_thread=X".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernel/rcu.h"
#include "mm/radix-tree.h"

#define NKEYS 65536
#define MAX_THREADS 64

static struct radix_tree_root tree;
static int go, stop;			/* [A] */
static unsigned long long counts[MAX_THREADS];	/* [P] one slot per thread */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *lookup_thread(void *arg)
{
	long id = (long)arg;
	unsigned long long x = id * 0x9e3779b97f4a7c15ULL + 1, n = 0, bad = 0;

	rcu_register_thread();
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 256; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			unsigned long key = x % NKEYS;
			rcu_read_lock();
			void *v = radix_tree_lookup(&tree, key);
			rcu_read_unlock();
			bad += v != (void *)(key * 2 + 2);
		}
		n += 256;
		rcu_quiescent_state();
	}
	counts[id] = n;
	rcu_unregister_thread();
	if (bad)
		fprintf(stderr, "radix_bench: %llu lookups returned the wrong item\n", bad);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 1, ms = 500;
	pthread_t t[MAX_THREADS];

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "threads=", 8))
			threads = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "ms=", 3))
			ms = atoi(argv[i] + 3);
		else {
			fprintf(stderr, "usage: radix_bench [threads=N] [ms=N]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > MAX_THREADS)
		return 2;
	radix_tree_init();
	radix_tree_init_root(&tree);
	for (unsigned long key = 0; key < NKEYS; key++)
		if (radix_tree_insert(&tree, key, (void *)(key * 2 + 2)))
			return 1;
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
	printf("bench radix_lookup_host threads=%d lookups_per_sec_per_thread=%.0f\n", threads,
	       total / elapsed / threads);
	return 0;
}
