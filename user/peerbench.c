/*
 * peerbench - the same system-call and fault workloads on any kernel, so
 * that Roundabout can be weighed against Linux on the same (virtual)
 * machine: the one static binary runs on both (tools/bench-linux boots
 * each kernel with it).
 *
 * Each workload runs with 1, 2, 4 and 8 threads (-t) of one process, for
 * -r repetitions of -m milliseconds; every thread repeats one small batch
 * of the operation until told to stop. A repetition's rate is operations
 * per second of wall time, from the start signal to the last thread's
 * stop; the line printed is the median repetition (by total rate):
 *
 *   bench peer workload=pread threads=4 total=N per_thread=N
 *         min_thread=N max_thread=N reps=3 ms=500 runs=N,N,N
 *
 * total and the per-thread figures are operations per second (a fault
 * workload's operation is one page fault); runs lists every repetition's
 * total. The first line, printed before any work, names the kernel.
 *
 * Every operation checks what it got: each 8-byte word of the data files
 * holds its own offset, tagged, so a read or a mapping that shows other
 * bytes, a fresh anonymous page that is not zero, or a child's wrong exit
 * status ends the program at once with status 3 and a "WRONG" line; a
 * run that ends prints "ok 1 - ..." last (tests/user.txt runs it so).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define FILE_MIB 16
#define FILE_PAGES (FILE_MIB * 256)
#define TAG 0x5045455200000000ULL	/* "PEER" in the top bytes */
#define BATCH 16			/* system calls per batch */
#define FAULT_BATCH 64			/* pages touched between two madvises */
#define MAX_THREADS 64
#define CHILD_STATUS 42

/* One thread's state: [P] private to the thread, but for ops (read after join). */
struct thread {
	int id;
	uint64_t rnd;
	unsigned long ops;
	double end;		/* when it saw the stop signal */
	char *map;		/* its mapping, for the fault workloads */
	unsigned long next;	/* the next batch of map's pages to touch */
	uint64_t *buf;		/* a page-aligned page, for the reads */
	char path[256];		/* its own name, for create+unlink */
	char pad[64];		/* keep two threads' counters off one line */
};

struct workload {
	const char *name;
	void (*setup)(struct thread *t);	/* in the thread, before the start */
	void (*batch)(struct thread *t);	/* adds to t->ops */
	void (*teardown)(struct thread *t);
};

static struct {
	const char *file;	/* the cached file */
	const char *direct;	/* the O_DIRECT file (default: the cached one) */
	const char *dir;	/* where create+unlink makes its files */
	int threads[16], nthreads;
	int reps, ms;
	const char *only;	/* comma-separated workload names, or NULL */
	int processes;		/* -p: each worker a process of its own */
} opt = { "peerbench.dat", NULL, ".", { 1, 2, 4, 8 }, 4, 3, 500, NULL, 0 };

static int cached_fd, direct_fd;
static pid_t parent;	/* what getppid must give a worker */
/* Start and stop signals from the main thread: [A], relaxed is enough, the
 * figures need no ordering with them (the threads' ops are read after join).
 * With -p they and the workers' states live in a shared mapping, so that
 * worker processes see the signals and the main one their counts. */
static struct shared {
	int go, stop, ready;
	struct thread th[MAX_THREADS];
} *sh;

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

static uint64_t word_at(uint64_t off)
{
	return TAG | off;
}

/* Wrong data ends the run loudly: no figure may come from a broken kernel. */
static void wrong(const char *workload, const char *what, uint64_t where, uint64_t got,
		  uint64_t want)
{
	fflush(stdout);
	fprintf(stderr, "peerbench: WRONG %s: %s at %#llx: got %#llx, want %#llx\n", workload,
		what, (unsigned long long)where, (unsigned long long)got,
		(unsigned long long)want);
	_exit(3);
}

/* Check one page read from the file at off: all of it, or its ends only. */
static void check_page(const char *workload, const uint64_t *w, uint64_t off, int all)
{
	for (int i = 0; i < PAGE / 8; i += all ? 1 : PAGE / 8 - 1)
		if (w[i] != word_at(off + 8 * i))
			wrong(workload, "file word", off + 8 * i, w[i], word_at(off + 8 * i));
}

/* Make (or reuse) a data file of FILE_MIB MiB; returns it open with flags. */
static int data_file(const char *path, int flags)
{
	static uint64_t page[PAGE / 8];
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		err(1, "%s", path);
	if (fstat(fd, &st) < 0)
		err(1, "%s: fstat", path);
	if (st.st_size != (off_t)FILE_PAGES * PAGE) {
		for (uint64_t off = 0; off < (uint64_t)FILE_PAGES * PAGE; off += PAGE) {
			for (int i = 0; i < PAGE / 8; i++)
				page[i] = word_at(off + 8 * i);
			if (pwrite(fd, page, PAGE, (off_t)off) != PAGE)
				err(1, "%s: write", path);
		}
		if (fsync(fd) < 0)
			err(1, "%s: fsync", path);
	}
	close(fd);
	if ((fd = open(path, O_RDONLY | flags)) < 0)
		err(1, "%s: open%s", path, flags ? " with O_DIRECT" : "");
	return fd;
}

/* Read all of the cached file once, checking every word: it is in the
 * cache afterwards, and known right. */
static void warm(void)
{
	for (uint64_t off = 0; off < (uint64_t)FILE_PAGES * PAGE; off += PAGE) {
		static uint64_t page[PAGE / 8];
		if (pread(cached_fd, page, PAGE, (off_t)off) != PAGE)
			err(1, "%s: read", opt.file);
		check_page("warm-up", page, off, 1);
	}
}

static void no_setup(struct thread *t)
{
	(void)t;
}

static void buffer_setup(struct thread *t)
{
	if ((errno = posix_memalign((void **)&t->buf, PAGE, PAGE)) != 0)
		err(1, "posix_memalign");
	memset(t->buf, 0, PAGE);
}

static void buffer_teardown(struct thread *t)
{
	free(t->buf);
}

/* 4 KiB preads at random page offsets; every 64th read is checked whole. */
static void read_batch(struct thread *t, int fd, const char *name)
{
	for (int i = 0; i < BATCH; i++) {
		uint64_t off = next_random(&t->rnd) % FILE_PAGES * PAGE;
		ssize_t n = pread(fd, t->buf, PAGE, (off_t)off);
		if (n != PAGE)
			wrong(name, "pread count", off, (uint64_t)n, PAGE);
		check_page(name, t->buf, off, (t->ops & 63) == 0);
		t->ops++;
	}
}

static void pread_batch(struct thread *t)
{
	read_batch(t, cached_fd, "pread");
}

static void direct_batch(struct thread *t)
{
	read_batch(t, direct_fd, "odirect");
}

static void getppid_batch(struct thread *t)
{
	for (int i = 0; i < BATCH; i++) {
		pid_t p = getppid();
		if (p != parent)
			wrong("getppid", "parent", 0, (uint64_t)p, (uint64_t)parent);
	}
	t->ops += BATCH;
}

/* The thread's own shared, read-only mapping of the whole cached file. */
static void file_map_setup(struct thread *t)
{
	t->map = mmap(NULL, (size_t)FILE_PAGES * PAGE, PROT_READ, MAP_SHARED, cached_fd, 0);
	if (t->map == MAP_FAILED)
		err(1, "mmap %s", opt.file);
	t->next = (unsigned long)t->id;	/* threads start on different batches */
}

static void file_map_teardown(struct thread *t)
{
	munmap(t->map, (size_t)FILE_PAGES * PAGE);
}

/* Read one word of each of FAULT_BATCH pages, then drop those PTEs: each
 * touch is one fault that finds the page in the cache (one page a fault). */
static void file_fault_batch(struct thread *t)
{
	unsigned long first = t->next % (FILE_PAGES / FAULT_BATCH) * FAULT_BATCH;	/* in pages */
	char *base = t->map + first * PAGE;
	for (unsigned long p = 0; p < FAULT_BATCH; p++) {
		uint64_t off = (first + p) * PAGE + 8 * (p % (PAGE / 8));
		uint64_t got = *(volatile uint64_t *)(t->map + off);
		if (got != word_at(off))
			wrong("file_fault", "mapped word", off, got, word_at(off));
	}
	if (madvise(base, FAULT_BATCH * PAGE, MADV_DONTNEED) < 0)
		err(1, "madvise");
	t->next++;
	t->ops += FAULT_BATCH;
}

static void anon_setup(struct thread *t)
{
	t->map = mmap(NULL, FAULT_BATCH * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->map == MAP_FAILED)
		err(1, "mmap");
}

static void anon_teardown(struct thread *t)
{
	munmap(t->map, FAULT_BATCH * PAGE);
}

/* Write each of FAULT_BATCH fresh pages (one fault each), check that the
 * rest of the page is zero, then give them back. */
static void anon_fault_batch(struct thread *t)
{
	for (unsigned long p = 0; p < FAULT_BATCH; p++) {
		volatile uint64_t *w = (volatile uint64_t *)(t->map + p * PAGE);
		w[0] = t->ops + p + 1;
		uint64_t other = w[1 + p % (PAGE / 8 - 1)];
		if (other != 0)
			wrong("anon_fault", "fresh page word", p * PAGE, other, 0);
	}
	if (madvise(t->map, FAULT_BATCH * PAGE, MADV_DONTNEED) < 0)
		err(1, "madvise");
	t->ops += FAULT_BATCH;
}

static void fork_batch(struct thread *t)
{
	int st;
	pid_t pid = fork();
	if (pid == 0)
		_exit(CHILD_STATUS);
	if (pid < 0)
		err(1, "fork");
	if (waitpid(pid, &st, 0) != pid)
		err(1, "waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != CHILD_STATUS)
		wrong("fork", "child status", (uint64_t)pid, (uint64_t)st, CHILD_STATUS << 8);
	t->ops++;
}

static void open_batch(struct thread *t)
{
	for (int i = 0; i < BATCH; i++) {
		int fd = open(opt.file, O_RDONLY);
		if (fd < 0 || close(fd) < 0)
			err(1, "open+close %s", opt.file);
	}
	t->ops += BATCH;
}

static void create_setup(struct thread *t)
{
	snprintf(t->path, sizeof t->path, "%s/peerbench.%d.%d", opt.dir, (int)getpid(), t->id);
}

static void create_batch(struct thread *t)
{
	for (int i = 0; i < BATCH; i++) {
		int fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || close(fd) < 0)
			err(1, "create %s", t->path);
		if (unlink(t->path) < 0)
			err(1, "unlink %s", t->path);
	}
	t->ops += BATCH;
}

static const struct workload workloads[] = {
	{ "pread", buffer_setup, pread_batch, buffer_teardown },
	{ "getppid", no_setup, getppid_batch, no_setup },
	{ "file_fault", file_map_setup, file_fault_batch, file_map_teardown },
	{ "anon_fault", anon_setup, anon_fault_batch, anon_teardown },
	{ "fork", no_setup, fork_batch, no_setup },
	{ "open_close", no_setup, open_batch, no_setup },
	{ "create_unlink", create_setup, create_batch, no_setup },
	{ "odirect", buffer_setup, direct_batch, buffer_teardown },
};

static const struct workload *current;

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	current->setup(t);
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&sh->go, __ATOMIC_RELAXED))
		sched_yield();
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
		current->batch(t);
	t->end = now();
	current->teardown(t);
	return NULL;
}

struct rep {
	double total, min_thread, max_thread;	/* operations per second */
};

/* One repetition of w with n threads. */
static struct rep run_once(const struct workload *w, int n)
{
	struct thread *th = sh->th;
	pthread_t id[MAX_THREADS];
	pid_t pid[MAX_THREADS];
	struct timespec span = { opt.ms / 1000, opt.ms % 1000 * 1000000L };
	current = w;
	sh->go = sh->stop = sh->ready = 0;
	for (int i = 0; i < n; i++) {
		memset(&th[i], 0, sizeof th[i]);
		th[i].id = i;
		th[i].rnd = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
		if (opt.processes) {
			fflush(stdout);
			if ((pid[i] = fork()) < 0)
				err(1, "fork");
			if (pid[i] == 0) {
				parent = getppid();
				thread_main(&th[i]);
				_exit(0);
			}
		} else if ((errno = pthread_create(&id[i], NULL, thread_main, &th[i])) != 0) {
			err(1, "pthread_create");
		}
	}
	while (__atomic_load_n(&sh->ready, __ATOMIC_RELAXED) < n)
		sched_yield();
	double t0 = now(), end = t0;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELAXED);
	nanosleep(&span, NULL);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++) {
		int st;
		if (!opt.processes)
			pthread_join(id[i], NULL);
		else if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			errx(WIFEXITED(st) ? WEXITSTATUS(st) : 1, "worker process %d failed",
			     (int)pid[i]);
	}
	for (int i = 0; i < n; i++)
		end = th[i].end > end ? th[i].end : end;
	struct rep r = { 0, 1e300, 0 };
	for (int i = 0; i < n; i++) {
		double rate = th[i].ops / (end - t0);
		r.total += rate;
		r.min_thread = rate < r.min_thread ? rate : r.min_thread;
		r.max_thread = rate > r.max_thread ? rate : r.max_thread;
	}
	return r;
}

static int by_total(const void *a, const void *b)
{
	const struct rep *x = a, *y = b;
	return (x->total > y->total) - (x->total < y->total);
}

/* opt.reps repetitions; prints the median one's line. */
static void measure(const struct workload *w, int n)
{
	struct rep r[32];
	char runs[32 * 16] = "";
	for (int i = 0; i < opt.reps; i++) {
		r[i] = run_once(w, n);
		snprintf(runs + strlen(runs), sizeof runs - strlen(runs), "%s%.0f", i ? "," : "",
			 r[i].total);
	}
	qsort(r, (size_t)opt.reps, sizeof r[0], by_total);
	struct rep m = r[opt.reps / 2];
	printf("bench peer workload=%s%s threads=%d total=%.0f per_thread=%.0f min_thread=%.0f "
	       "max_thread=%.0f reps=%d ms=%d runs=%s\n", w->name, opt.processes ? "_procs" : "",
	       n, m.total, m.total / n, m.min_thread, m.max_thread, opt.reps, opt.ms, runs);
	fflush(stdout);
}

#define NWORKLOADS (sizeof workloads / sizeof workloads[0])

/* Does the list item at p (up to a ',' or the end) name a workload? */
static int known(const char *p)
{
	size_t len = strcspn(p, ",");
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (strlen(workloads[i].name) == len && strncmp(p, workloads[i].name, len) == 0)
			return 1;
	return 0;
}

static int wanted(const char *name)
{
	if (!opt.only)
		return 1;
	size_t len = strlen(name);
	for (const char *p = opt.only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

static void usage(void)
{
	printf("usage: peerbench [-t N,N,...] [-m MS] [-r REPS] [-f FILE] [-o FILE] [-d DIR]\n"
	       "                 [-w WORKLOAD,...] [-p]\n"
	       "Kernel workloads, each with every thread count of -t (default 1,2,4,8),\n"
	       "REPS repetitions (default 3) of MS milliseconds (default 500); prints the\n"
	       "median repetition as 'bench peer workload=W threads=N total=OPS/S ...'.\n"
	       "  pread          4 KiB preads at random offsets of the cached %d MiB FILE\n"
	       "  getppid        the null system call\n"
	       "  file_fault     read faults on a MAP_SHARED mapping of FILE, one page each\n"
	       "                 (madvise(MADV_DONTNEED) after each %d pages)\n"
	       "  anon_fault     write faults on fresh anonymous pages\n"
	       "  fork           fork, the child exits, the parent waits\n"
	       "  open_close     open FILE read-only and close it\n"
	       "  create_unlink  create a file in DIR (default .), close it, unlink it\n"
	       "  odirect        4 KiB O_DIRECT preads at random offsets of the -o FILE\n"
	       "                 (default: FILE)\n"
	       "-p runs each worker as a process of its own (workload names get _procs):\n"
	       "what the threads of one process share (its page tables, mmap_lock, TLB\n"
	       "shootdowns) is then not shared.\n"
	       "FILE (default peerbench.dat) is made or reused. Wrong data: status 3.\n",
	       FILE_MIB, FAULT_BATCH);
}

static long number(const char *s, const char *what, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || (*end && *end != ',') || v < min || v > max)
		errx(2, "%s: must be %ld to %ld", what, min, max);
	return v;
}

static void thread_list(const char *s)
{
	opt.nthreads = 0;
	for (const char *p = s; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (opt.nthreads == 16)
			errx(2, "-t: at most 16 thread counts");
		opt.threads[opt.nthreads++] = (int)number(p, "-t", 1, MAX_THREADS);
	}
}

static void parse(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "t:m:r:f:o:d:w:p", longs, NULL)) != -1) {
		switch (c) {
		case 't': thread_list(optarg); break;
		case 'm': opt.ms = (int)number(optarg, "-m", 1, 600000); break;
		case 'r': opt.reps = (int)number(optarg, "-r", 1, 32); break;
		case 'f': opt.file = optarg; break;
		case 'o': opt.direct = optarg; break;
		case 'd': opt.dir = optarg; break;
		case 'w': opt.only = optarg; break;
		case 'p': opt.processes = 1; break;
		case 'h': usage(); exit(0);
		default: exit(2);
		}
	}
	if (optind < argc)
		errx(2, "unexpected argument %s (try --help)", argv[optind]);
	for (const char *p = opt.only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!known(p))
			errx(2, "-w: no workload %.*s (try --help)", (int)strcspn(p, ","), p);
}

int main(int argc, char **argv)
{
	struct utsname u;
	parse(argc, argv);
	uname(&u);
	printf("bench peer_kernel sysname=%s release=%s\n", u.sysname, u.release);
	fflush(stdout);
	parent = getppid();
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		err(1, "mmap");
	cached_fd = data_file(opt.file, 0);
	warm();
	double t0 = now();
	for (size_t i = 0; i < NWORKLOADS; i++) {
		if (!wanted(workloads[i].name))
			continue;
		if (workloads[i].batch == direct_batch)
			direct_fd = data_file(opt.direct ? opt.direct : opt.file, O_DIRECT);
		for (int k = 0; k < opt.nthreads; k++)
			measure(&workloads[i], opt.threads[k]);
	}
	printf("bench peer_done seconds=%.0f\n", now() - t0);
	printf("ok 1 - every read, mapped word, fresh page and child status was right\n");
	return 0;
}
