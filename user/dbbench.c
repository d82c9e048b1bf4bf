/*
 * dbbench - a threaded database's I/O, to weigh get_user_pages_fast()
 * against get_user_pages() where it matters: every O_DIRECT transfer pins
 * the caller's buffer. N worker threads each own a pool of 16 aligned
 * pages and do random 4 KiB O_DIRECT preads (90%) and pwrites (10%) of a
 * data file, while one more thread maps, touches and unmaps 64 KiB over
 * and over, as a database's allocator does: the slow path's pins and the
 * allocator's mmap/munmap meet on the address space's lock, the fast
 * path's pins do not.
 *
 * The pinning path is the kernel's choice. Roundabout's /proc/gup_mode
 * ("fast" or "slow") sets it, so --mode both measures both in one boot.
 * Other kernels (Linux) have no /proc/gup_mode: the program says so and
 * runs the same workload once per thread count, in the kernel's own way
 * of pinning, with no fast/slow comparison. It makes no other call that
 * only Roundabout has, so tools/bench-linux runs it on both kernels.
 *
 * Each run prints a table row and, for tools, one line
 *   bench dbbench mode=M threads=N tps=T seconds=S transactions=X allocator_cycles=C
 * (M is "-" where the kernel has no /proc/gup_mode).
 *
 * Every block of the file starts with its own tag and number; every read
 * checks it, so wrong data shows as an error (exit status 1); a run
 * without one ends with "ok 1 - ..." (tests/user.txt runs it so).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define POOL 16			/* pages in each worker's buffer pool */
#define ARENA (64 * 1024)	/* what the allocator thread maps each time */
#define TAG 0x4442000000000000ULL	/* "DB" in the top bytes */
#define DATA "dbbench.dat"
#define MODE_FILE "/proc/gup_mode"
#define MAX_COUNTS 16		/* thread counts in one -t list */

/* One worker's counts, padded so that workers do not share a line. */
struct worker {
	int id;
	unsigned long transactions, errors;
	char pad[40];
};

static int fd;
static long nblocks;
static volatile int stop;	/* [A] set once by the main thread */
static unsigned long allocator_cycles;

static void die_usage(const char *msg)
{
	errx(2, "%s (try --help)", msg);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Block n's contents: its tag and number, then a pattern of version v. */
static void fill_block(uint64_t *w, long n, uint64_t v)
{
	w[0] = TAG | (uint64_t)n;
	for (int i = 1; i < BLOCK / 8; i++)
		w[i] = v * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
}

static void create_file(long mib)
{
	static uint64_t block[BLOCK / 8];
	int out = open(DATA, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		err(1, "%s", DATA);
	for (long n = 0; n < mib * 256; n++) {
		fill_block(block, n, 0);
		if (write(out, block, BLOCK) != BLOCK)
			err(1, "%s: write", DATA);
	}
	if (fsync(out) < 0 || close(out) < 0)
		err(1, "%s", DATA);
}

/* Reuse the file if it has the size asked for and its end blocks look right. */
static int reusable(long mib)
{
	struct stat st;
	uint64_t first = 0, last = 0;
	int in = open(DATA, O_RDONLY);
	if (in < 0)
		return 0;
	off_t size = (off_t)mib << 20;
	int ok = fstat(in, &st) == 0 && st.st_size == size &&
		 pread(in, &first, 8, 0) == 8 && pread(in, &last, 8, size - BLOCK) == 8 &&
		 first == TAG && last == (TAG | (uint64_t)(size / BLOCK - 1));
	close(in);
	return ok;
}

/* One transaction: a read checked against the block's tag, or a write. */
static int transaction(uint64_t *buf, uint64_t *rnd, uint64_t version)
{
	uint64_t r = next_random(rnd);
	long n = (long)((r >> 8) % (uint64_t)nblocks);
	off_t off = (off_t)n * BLOCK;
	if (r % 10 == 0) {
		fill_block(buf, n, version);
		return pwrite(fd, buf, BLOCK, off) == BLOCK;
	}
	return pread(fd, buf, BLOCK, off) == BLOCK && buf[0] == (TAG | (uint64_t)n);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned char *pool;
	uint64_t rnd = 0x2545f4914f6cdd1dULL * (uint64_t)(w->id + 1);
	if ((errno = posix_memalign((void **)&pool, BLOCK, POOL * BLOCK)) != 0)
		err(1, "posix_memalign");
	memset(pool, 0, POOL * BLOCK);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint64_t *buf = (uint64_t *)(pool + next_random(&rnd) % POOL * BLOCK);
		if (!transaction(buf, &rnd, w->transactions) && w->errors++ == 0)
			warnx("worker %d: a transaction failed or read wrong data", w->id);
		w->transactions++;
	}
	free(pool);
	return NULL;
}

/* The allocator: map, touch every page, unmap, until told to stop. */
static void *allocator(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		char *p = mmap(NULL, ARENA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			err(1, "mmap");
		for (int off = 0; off < ARENA; off += BLOCK)
			p[off] = 1;
		munmap(p, ARENA);
		allocator_cycles++;
	}
	return NULL;
}

struct outcome {
	double seconds;
	unsigned long transactions, errors, cycles;
};

static struct outcome run(int threads, int seconds)
{
	pthread_t alloc_thread, *t = calloc(threads, sizeof *t);
	struct worker *w = calloc(threads, sizeof *w);
	struct outcome o = { 0 };
	struct timespec span = { seconds, 0 };
	if (!t || !w)
		err(1, "calloc");
	stop = 0;
	allocator_cycles = 0;
	double t0 = now();
	for (int i = 0; i < threads; i++) {
		w[i].id = i;
		if ((errno = pthread_create(&t[i], NULL, worker, &w[i])) != 0)
			err(1, "pthread_create");
	}
	if ((errno = pthread_create(&alloc_thread, NULL, allocator, NULL)) != 0)
		err(1, "pthread_create");
	nanosleep(&span, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		o.transactions += w[i].transactions;
		o.errors += w[i].errors;
	}
	pthread_join(alloc_thread, NULL);
	o.seconds = now() - t0;
	o.cycles = allocator_cycles;
	free(t);
	free(w);
	return o;
}

/* The kernel's pinning mode as /proc/gup_mode says it, or "-". */
static const char *current_mode(void)
{
	static char text[16];
	int in = open(MODE_FILE, O_RDONLY);
	ssize_t n = in >= 0 ? read(in, text, sizeof text - 1) : -1;
	if (in >= 0)
		close(in);
	if (n <= 0)
		return "-";
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* Ask for a pinning mode; 0 if the kernel took it, -1 if it cannot be set. */
static int set_mode(const char *mode)
{
	int out = open(MODE_FILE, O_WRONLY);
	if (out < 0)
		return -1;
	ssize_t n = write(out, mode, strlen(mode));
	close(out);
	return n == (ssize_t)strlen(mode) ? 0 : -1;
}

static void print_header(int seconds, long mib, int reused)
{
	printf("file %s: %ld MiB (%s); %d s a run; 4 KiB O_DIRECT, "
	       "90%% preads, 10%% pwrites\n", DATA, mib, reused ? "reused" : "created",
	       seconds);
	printf("%-6s %7s %8s %13s %11s %17s\n", "mode", "threads", "seconds",
	       "transactions", "tps", "allocator cycles");
}

/* One run in mode (NULL: the kernel's as it is); returns its tps. */
static double measure(const char *mode, int threads, int seconds, unsigned long *errors)
{
	if (mode && set_mode(mode) != 0)
		errx(1, "%s: cannot set the pinning mode to %s", MODE_FILE, mode);
	struct outcome o = run(threads, seconds);
	double tps = o.transactions / o.seconds;
	const char *shown = mode ? mode : current_mode();
	printf("%-6s %7d %8.2f %13lu %11.1f %17lu\n", shown, threads, o.seconds,
	       o.transactions, tps, o.cycles);
	printf("bench dbbench mode=%s threads=%d tps=%.0f seconds=%.2f transactions=%lu "
	       "allocator_cycles=%lu\n", shown, threads, tps, o.seconds, o.transactions,
	       o.cycles);
	fflush(stdout);
	*errors += o.errors;
	return tps;
}

static void usage(void)
{
	printf("usage: dbbench [-t THREADS,...] [-s SECONDS] [-f MIB] [-d DIR]\n"
	       "               [--mode fast|slow|both]\n"
	       "A database's I/O: THREADS workers (default 8; a list runs each count in\n"
	       "turn) each own 16 aligned pages and do random 4 KiB O_DIRECT preads (90%%)\n"
	       "and pwrites (10%%) of %s (MIB MiB, default 16, in DIR, default the\n"
	       "current directory; created or reused) for SECONDS (default 3), while one\n"
	       "thread maps, touches and unmaps 64 KiB in a loop. Prints transactions\n"
	       "(one pread or pwrite each) per second, and a 'bench dbbench ...' line a run.\n"
	       "  --mode M  the pinning path, set through %s before the runs:\n"
	       "            fast, slow, or both (one run each, and their ratio). Without a\n"
	       "            writable %s (Linux) there is one run a thread count, in\n"
	       "            the kernel's own way, and no fast/slow comparison.\n",
	       DATA, MODE_FILE, MODE_FILE);
}

/* A number from s, ended by the end of s or (where list) a ','. */
static long number(const char *s, const char *what, long max, int list)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || (*end && !(list && *end == ',')) || v < 1 || v > max)
		errx(2, "%s: must be 1 to %ld", what, max);
	return v;
}

struct options {
	int threads[MAX_COUNTS], nthreads;
	int seconds;
	long mib;
	const char *dir;	/* where the data file is; NULL: here */
	const char *mode;	/* NULL, "fast", "slow" or "both" */
};

static void thread_list(struct options *o, const char *s)
{
	o->nthreads = 0;
	for (const char *p = s; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (o->nthreads == MAX_COUNTS)
			errx(2, "-t: at most %d thread counts", MAX_COUNTS);
		o->threads[o->nthreads++] = (int)number(p, "-t", 256, 1);
	}
}

static struct options parse(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { { 8 }, 1, 3, 16, NULL, NULL };
	int c;
	while ((c = getopt_long(argc, argv, "t:s:f:d:", longs, NULL)) != -1) {
		switch (c) {
		case 't': thread_list(&o, optarg); break;
		case 's': o.seconds = (int)number(optarg, "-s", 3600, 0); break;
		case 'f': o.mib = number(optarg, "-f", 4096, 0); break;
		case 'd': o.dir = optarg; break;
		case 'm': o.mode = optarg; break;
		case 'h': usage(); exit(0);
		default: exit(2);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument");
	if (o.mode && strcmp(o.mode, "fast") && strcmp(o.mode, "slow") && strcmp(o.mode, "both"))
		die_usage("--mode: fast, slow or both");
	return o;
}

/* The runs for one thread count: mode NULL (the kernel's), fast, slow or both. */
static void run_count(const char *mode, int threads, int seconds, unsigned long *errors)
{
	if (!mode || strcmp(mode, "both")) {
		measure(mode, threads, seconds, errors);
		return;
	}
	double fast = measure("fast", threads, seconds, errors);
	double slow = measure("slow", threads, seconds, errors);
	printf("fast/slow, %d thread%s: %.2f\n", threads, threads == 1 ? "" : "s",
	       slow > 0 ? fast / slow : 0);
}

int main(int argc, char **argv)
{
	struct options o = parse(argc, argv);
	if (o.dir && chdir(o.dir) < 0)
		err(1, "%s", o.dir);
	int reused = reusable(o.mib);
	if (!reused)
		create_file(o.mib);
	nblocks = o.mib * 256;
	if ((fd = open(DATA, O_RDWR | O_DIRECT)) < 0)
		err(1, "%s: open with O_DIRECT", DATA);
	char before[16];
	snprintf(before, sizeof before, "%s", current_mode());
	int known = strcmp(before, "-") != 0;
	int settable = o.mode && known && set_mode(before) == 0;
	if (!known)
		printf("no %s (not Roundabout): the kernel pins buffers its own way; one run a "
		       "thread count, no fast/slow comparison\n", MODE_FILE);
	else if (o.mode && !settable)
		printf("no writable %s: the pinning path is the kernel's (%s); one run a thread "
		       "count\n", MODE_FILE, before);
	print_header(o.seconds, o.mib, reused);
	unsigned long errors = 0;
	for (int i = 0; i < o.nthreads; i++)
		run_count(settable ? o.mode : NULL, o.threads[i], o.seconds, &errors);
	if (settable)
		set_mode(before);	/* leave the kernel as it was */
	close(fd);
	if (errors)
		errx(1, "%lu transactions failed or read wrong data", errors);
	printf("ok 1 - every transaction succeeded and every read found its block's tag\n");
	return 0;
}
