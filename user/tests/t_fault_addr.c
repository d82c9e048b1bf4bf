/*
 * t_fault_addr - each page fault is judged at its own address.
 *
 * Touchers map fresh anonymous pages and store to each (every store
 * faults, and every one is legal), while probers load from a PROT_NONE
 * page (every load faults, and must raise SIGSEGV). The CPU reports a
 * fault's address in CR2, which the next fault on that CPU overwrites: a
 * kernel that reads it after it could have been preempted may take a
 * prober's address for a toucher's fault and send the toucher SIGSEGV.
 * (Roundabout's debug.late_cr2 reads it late on purpose; tests/boots.txt
 * checks that this program notices.)
 *
 * Usage: t_fault_addr [SECONDS]   (default 2)
 */
#include "tap.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096
#define TOUCH_PAGES 64
#define THREADS 4		/* half touchers, half probers */

struct worker {
	int prober;			/* [I] */
	sigjmp_buf jb;			/* [P] where a SIGSEGV jumps back to */
	volatile sig_atomic_t armed;	/* [P] a probe is under way */
	long faults_expected, sigsegv, unexpected;	/* [P] until joined */
	void *first_bad;		/* [P] the first toucher address that got SIGSEGV */
};

static __thread struct worker *self;
static volatile int stop;
static long stray;			/* [A] SIGSEGVs outside every store and probe */
static char *forbidden;			/* a PROT_NONE page */

static void on_segv(int sig)
{
	(void)sig;
	struct worker *w = self;
	if (w && w->armed) {
		w->armed = 0;
		siglongjmp(w->jb, 1);
	}
	/* Outside every store and probe (the stack, the program's own
	 * pages): counted as wrong, and the access is simply tried again. */
	__atomic_add_fetch(&stray, 1, __ATOMIC_RELAXED);
}

static void probe(struct worker *w)
{
	if (sigsetjmp(w->jb, 0)) {
		w->sigsegv++;
		return;
	}
	w->faults_expected++;
	w->armed = 1;
	(void)*(volatile char *)forbidden;
	w->armed = 0;			/* not reached: the load must fault */
}

/* Store to each of TOUCH_PAGES fresh pages; a SIGSEGV here is recorded. */
static void touch(struct worker *w)
{
	char *m = mmap(NULL, TOUCH_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	for (int i = 0; i < TOUCH_PAGES; i++) {
		if (sigsetjmp(w->jb, 0)) {
			if (!w->unexpected++)
				w->first_bad = m + (size_t)i * PAGE;
			continue;
		}
		w->armed = 1;
		m[(size_t)i * PAGE] = 1;
		w->armed = 0;
	}
	munmap(m, TOUCH_PAGES * PAGE);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	self = w;
	while (!stop)
		w->prober ? probe(w) : touch(w);
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = 2;
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || (seconds = atoi(argv[1])) <= 0) {
			printf("usage: t_fault_addr [SECONDS]\nstores to fresh pages racing loads "
			       "from a PROT_NONE page: only the loads get SIGSEGV\n");
			return strcmp(argv[1], "--help") ? 2 : 0;
		}
	}
	tap_start();
	forbidden = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_NODEFER;
	if (forbidden == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL)) {
		tap_check(0, "setup", "mmap or sigaction failed: errno %d", errno);
		return tap_done();
	}
	static struct worker w[THREADS];
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i].prober = i & 1;
		pthread_create(&th[i], NULL, run, &w[i]);
	}
	struct timespec ts = { .tv_sec = seconds };
	nanosleep(&ts, NULL);
	stop = 1;
	long expected = 0, got = 0, bad = 0;
	void *first_bad = NULL;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		expected += w[i].faults_expected;
		got += w[i].sigsegv;
		bad += w[i].unexpected;
		if (!first_bad)
			first_bad = w[i].first_bad;
	}
	tap_check(expected > 0 && got == expected,
		  "every load from a PROT_NONE page raises SIGSEGV",
		  "%ld probes, %ld SIGSEGV", expected, got);
	tap_check(bad == 0 && stray == 0, "no SIGSEGV for an access to a mapped page",
		  "%ld stores got SIGSEGV (the first at %p), and %ld other accesses", bad, first_bad,
		  stray);
	return tap_done();
}
