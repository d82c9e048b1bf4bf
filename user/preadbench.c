/*
 * preadbench - cached pread() throughput: THREADS threads each pread 4 KiB
 * blocks at random aligned offsets of one file that is wholly in the page
 * cache, for SECONDS, and the program prints how many reads all of them
 * finished in each second. Every read is a page-cache hit, so what is
 * measured is the read path itself: the system call, the lockless lookup,
 * the copy to the user's buffer and the LRU bookkeeping.
 *
 * The file (default preadbench.dat in the current directory, MIB MiB) is
 * made if it is missing or has another size; each block starts with its
 * own number, and every read checks it (wrong data: exit status 1). It is
 * read once whole before the runs, so the runs find every page cached.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096
#define MAX_THREADS 64
#define MAX_SECONDS 600

struct worker {
	int fd;
	unsigned id;
	unsigned long nblk;
	pthread_barrier_t *start;
	unsigned long reads;	/* written by this thread, read by main (relaxed atomics) */
	unsigned long bad;
	char pad[64];		/* no two workers' counters on one cache line */
};

static int stop;		/* relaxed atomic: main sets it, workers poll it */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned char buf[BLK] __attribute__((aligned(64)));
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->id + 1);

	pthread_barrier_wait(w->start);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned long blk = x % w->nblk;
		uint32_t tag;
		if (pread(w->fd, buf, BLK, (off_t)(blk * BLK)) != BLK ||
		    (memcpy(&tag, buf, sizeof tag), tag != blk))
			__atomic_store_n(&w->bad, w->bad + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&w->reads, w->reads + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Open name, making it nblk blocks long (each starting with its number) if it is not. */
static int open_file(const char *name, unsigned long nblk)
{
	struct stat st;
	int fd = open(name, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		err(2, "open %s", name);
	if (fstat(fd, &st) == 0 && (unsigned long)st.st_size == nblk * BLK)
		return fd;
	static unsigned char block[BLK];
	if (ftruncate(fd, 0) != 0)
		err(2, "ftruncate %s", name);
	for (unsigned long b = 0; b < nblk; b++) {
		uint32_t tag = (uint32_t)b;
		memset(block, (int)(b & 0xff), sizeof block);
		memcpy(block, &tag, sizeof tag);
		if (pwrite(fd, block, BLK, (off_t)(b * BLK)) != BLK)
			err(2, "write %s", name);
	}
	return fd;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/* One run with nthreads; prints a line per second and a summary. The bad reads. */
static unsigned long run(int fd, unsigned long nblk, unsigned nthreads, unsigned seconds)
{
	static struct worker w[MAX_THREADS];
	static pthread_t tid[MAX_THREADS];
	unsigned long per_sec[MAX_SECONDS], last = 0, bad = 0;
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, nthreads + 1);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .fd = fd, .id = i, .nblk = nblk, .start = &start };
		if (pthread_create(&tid[i], NULL, worker, &w[i]) != 0)
			errx(2, "pthread_create");
	}
	pthread_barrier_wait(&start);
	double t0 = now();
	for (unsigned s = 0; s < seconds; s++) {
		double left = t0 + s + 1 - now();
		if (left > 0) {
			struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
		unsigned long sum = 0;
		for (unsigned i = 0; i < nthreads; i++)
			sum += __atomic_load_n(&w[i].reads, __ATOMIC_RELAXED);
		per_sec[s] = sum - last;
		last = sum;
		printf("preadbench: threads %u second %u preads %lu\n", nthreads, s + 1, per_sec[s]);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		bad += w[i].bad;
	}
	pthread_barrier_destroy(&start);
	qsort(per_sec, seconds, sizeof per_sec[0], cmp_ulong);
	printf("preadbench threads=%u seconds=%u preads=%lu median_per_sec=%lu bad=%lu\n",
	       nthreads, seconds, last, per_sec[seconds / 2], bad);
	return bad;
}

static void usage(int status)
{
	printf("usage: preadbench [-t THREADS[,THREADS...]] [-s SECONDS] [-f MIB] [FILE]\n"
	       "Cached 4 KiB preads at random aligned offsets of FILE (default\n"
	       "preadbench.dat, MIB MiB, default 16), by THREADS threads (default 1;\n"
	       "a list runs once per count) for SECONDS (default 3): one line per\n"
	       "second, then a summary with the median second.\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *threads = "1", *name = "preadbench.dat";
	unsigned seconds = 3, mib = 16;
	int c;

	while ((c = getopt(argc, argv, "t:s:f:h")) != -1) {
		switch (c) {
		case 't': threads = optarg; break;
		case 's': seconds = (unsigned)atoi(optarg); break;
		case 'f': mib = (unsigned)atoi(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind < argc)
		name = argv[optind];
	if (!seconds || seconds > MAX_SECONDS || !mib)
		usage(2);
	setvbuf(stdout, NULL, _IOLBF, 0);
	unsigned long nblk = (unsigned long)mib * (1024 * 1024 / BLK), bad = 0;
	int fd = open_file(name, nblk);
	static unsigned char warm[64 * BLK];
	for (off_t off = 0; pread(fd, warm, sizeof warm, off) > 0; off += sizeof warm)
		;			/* every page into the cache */
	for (char *p = (char *)threads; *p;) {
		char *end;
		unsigned long t = strtoul(p, &end, 10);
		if (end == p || !t || t > MAX_THREADS)
			usage(2);
		bad += run(fd, nblk, (unsigned)t, seconds);
		p = *end == ',' ? end + 1 : end;
	}
	close(fd);
	if (bad)
		printf("preadbench: %lu reads gave wrong data\n", bad);
	return bad ? 1 : 0;
}
