/*
 * gupbench - get_user_pages_fast() against get_user_pages(), from user
 * space: T threads each map their own P pages, touch them, then pin and
 * release them N times through the fast path (RB_PIN_FAST) and N times
 * through the slow path (RB_PIN_SLOW). Both are measured in the same run,
 * so the ratio compares like with like.
 *
 * The slow path takes the address space's lock for each call; the fast
 * path walks the page tables with interrupts off and takes no lock, so
 * with more threads of one process the gap should widen. Roundabout only
 * (SYS_rb_pin); on Linux it says so and exits 1.
 */
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <roundabout.h>

#define PAGE 4096

struct run {
	long pages, iterations;
	pthread_barrier_t start, middle;	/* the phases start together */
};

/*
 * One thread's results, padded so that threads do not share a line. Each
 * thread times its own loops: a barrier's wake-up can take longer than a
 * short phase, so the main thread's clock would measure the scheduler.
 */
struct result {
	unsigned long fast_pages;	/* pages the fast path pinned, RB_PIN_FAST phase */
	unsigned long errors;
	double fast_start, fast_end, slow_start, slow_end;
	char pad[16];
};

struct worker {
	struct run *run;
	struct result *res;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* N pins of the buffer with flags; returns the pages the fast path took. */
static unsigned long pin_loop(struct run *r, char *buf, uint32_t flags, struct result *res)
{
	unsigned long fast = 0;
	for (long i = 0; i < r->iterations; i++) {
		struct rb_pin a = { .addr = (uintptr_t)buf, .len = r->pages * PAGE, .flags = flags };
		if (syscall(SYS_rb_pin, &a) != r->pages) {
			if (res->errors++ == 0)
				warn("SYS_rb_pin of %ld pages", r->pages);
			continue;
		}
		fast += a.fast;
	}
	return fast;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	size_t len = (size_t)r->pages * PAGE;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		err(1, "mmap of %ld pages", r->pages);
	for (size_t off = 0; off < len; off += PAGE)
		buf[off] = 1;		/* present and writable: the fast path's case */
	pthread_barrier_wait(&r->start);
	w->res->fast_start = now();
	w->res->fast_pages = pin_loop(r, buf, RB_PIN_FAST, w->res);
	w->res->fast_end = now();
	pthread_barrier_wait(&r->middle);
	w->res->slow_start = now();
	pin_loop(r, buf, RB_PIN_SLOW, w->res);
	w->res->slow_end = now();
	munmap(buf, len);
	return NULL;
}

/* Each phase lasts from its first thread's start to its last thread's end. */
static void span(const struct result *res, int threads, double *fast, double *slow)
{
	double f0 = res[0].fast_start, f1 = res[0].fast_end;
	double s0 = res[0].slow_start, s1 = res[0].slow_end;
	for (int i = 1; i < threads; i++) {
		f0 = res[i].fast_start < f0 ? res[i].fast_start : f0;
		f1 = res[i].fast_end > f1 ? res[i].fast_end : f1;
		s0 = res[i].slow_start < s0 ? res[i].slow_start : s0;
		s1 = res[i].slow_end > s1 ? res[i].slow_end : s1;
	}
	*fast = f1 - f0;
	*slow = s1 - s0;
}

/* One row of the table: T threads, both paths; returns the errors seen. */
static unsigned long measure(int threads, long pages, long iterations)
{
	struct run r = { .pages = pages, .iterations = iterations };
	pthread_t *t = calloc(threads, sizeof *t);
	struct worker *w = calloc(threads, sizeof *w);
	struct result *res = calloc(threads, sizeof *res);
	if (!t || !w || !res)
		err(1, "calloc");
	pthread_barrier_init(&r.start, NULL, threads);
	pthread_barrier_init(&r.middle, NULL, threads);
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ &r, &res[i] };
		if ((errno = pthread_create(&t[i], NULL, worker, &w[i])) != 0)
			err(1, "pthread_create");
	}
	unsigned long fast = 0, errors = 0;
	double fast_secs, slow_secs;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		fast += res[i].fast_pages;
		errors += res[i].errors;
	}
	span(res, threads, &fast_secs, &slow_secs);
	double total = (double)threads * iterations * pages;
	double fast_rate = total / fast_secs, slow_rate = total / slow_secs;
	printf("%7d %14.0f %14.0f %9.2f %9.1f%%\n", threads, fast_rate, slow_rate,
	       fast_rate / slow_rate, 100.0 * fast / total);
	pthread_barrier_destroy(&r.start);
	pthread_barrier_destroy(&r.middle);
	free(t);
	free(w);
	free(res);
	return errors;
}

static void usage(void)
{
	printf("usage: gupbench [-t THREADS] [-p PAGES] [-n ITERATIONS]\n"
	       "Each thread pins and releases its own touched buffer N times through the\n"
	       "fast path (RB_PIN_FAST), then N times through the slow path (RB_PIN_SLOW);\n"
	       "prints pages pinned per second, all threads together, for both.\n"
	       "  -t THREADS     one run with THREADS threads (default: 1, 2, 4 and 8)\n"
	       "  -p PAGES       pages per buffer and per pin (default 64)\n"
	       "  -n ITERATIONS  pins per thread and path (default 2000)\n"
	       "Roundabout only: SYS_rb_pin does not exist on Linux.\n");
}

static long number(const char *s, const char *what, long max)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > max)
		errx(2, "%s: must be 1 to %ld", what, max);
	return v;
}

int main(int argc, char **argv)
{
	int c, threads = 0;
	long pages = 64, iterations = 2000;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage();
		return 0;
	}
	while ((c = getopt(argc, argv, "t:p:n:")) != -1) {
		switch (c) {
		case 't': threads = (int)number(optarg, "-t", 256); break;
		case 'p': pages = number(optarg, "-p", RB_PIN_MAX_PAGES); break;
		case 'n': iterations = number(optarg, "-n", 100000000); break;
		default: return 2;
		}
	}
	errno = 0;
	if (syscall(SYS_rb_pin, NULL) == -1 && errno == ENOSYS)
		errx(1, "SYS_rb_pin is Roundabout's own system call (ENOSYS here): "
		     "run gupbench on Roundabout");
	printf("%ld pages per pin, %ld pins per thread and path; pins/s: pages pinned and "
	       "released per second, all threads\n", pages, iterations);
	printf("%7s %14s %14s %9s %10s\n", "threads", "fast pins/s", "slow pins/s",
	       "fast/slow", "fast path");
	static const int counts[] = { 1, 2, 4, 8 };
	unsigned long errors = 0;
	if (threads)
		errors = measure(threads, pages, iterations);
	for (size_t i = 0; !threads && i < sizeof counts / sizeof counts[0]; i++)
		errors += measure(counts[i], pages, iterations);
	if (errors)
		errx(1, "%lu pins failed", errors);
	return 0;
}
