/*
 * t_fault_race - a page fault in flight while the file is truncated.
 *
 * Two deterministic races, each with one thread faulting on a MAP_SHARED
 * mapping while the main thread truncates the file 30 ms later. On
 * Roundabout the boot gives vm.debug_fault_delay_us=100000, so each fault
 * waits 100 ms inside its window and the truncation always lands there;
 * on Linux (and with no delay) the same program passes whatever the order.
 *   1. A write fault on a read-only PTE: the truncation removes the page.
 *      The store lands before it or raises SIGBUS (past EOF), and the
 *      kernel must not touch the freed page (vm.debug_fault_broken=
 *      unreferenced dirties it, and the kernel's page-state check panics:
 *      "set_page_dirty of a free page"); afterwards the page is gone.
 *   2. A read fault that found the page in the cache: the file is cut to
 *      one page and the page written back with new data. Afterwards the
 *      mapping must show the new data, never the page truncation deleted
 *      (vm.debug_fault_broken=no_recheck installs that old page for good).
 */
#include "tap.h"
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096

static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void fill(int fd, int page, uint64_t gen)
{
	static uint64_t buf[PAGE / 8];
	for (int i = 0; i < PAGE / 8; i++)
		buf[i] = gen;
	pwrite(fd, buf, PAGE, (off_t)page * PAGE);
}

static volatile uint64_t *target;
static uint64_t seen;
static int bus;

static void *store_thread(void *arg)
{
	(void)arg;
	if (sigsetjmp(jump, 1)) {
		bus = 1;
		return NULL;
	}
	*target = 99;
	return NULL;
}

static void *load_thread(void *arg)
{
	(void)arg;
	if (sigsetjmp(jump, 1)) {
		bus = 1;
		return NULL;
	}
	seen = *target;
	return NULL;
}

/* Load the word at p: its value, or -1 for SIGBUS. */
static long load(volatile uint64_t *p)
{
	if (sigsetjmp(jump, 1))
		return -1;
	return (long)*p;
}

static void race(void *(*fn)(void *), int fd)
{
	pthread_t t;
	bus = 0;
	pthread_create(&t, NULL, fn, NULL);
	sleep_ms(30);
	ftruncate(fd, PAGE);		/* page 1 leaves the file */
	if (fn == load_thread)
		fill(fd, 1, 2);		/* and comes back, with new data */
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_fault_race\nA write fault and a read fault racing truncation of a\n"
		       "MAP_SHARED file: SIGBUS past EOF, never a stale or freed page.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	struct sigaction sa = { .sa_handler = on_sigbus };
	sigaction(SIGBUS, &sa, NULL);
	tap_enter_scratch("t_fault_race");

	int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(fd, 0, 1);
	fill(fd, 1, 1);
	uint64_t *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK_EQ(p[PAGE / 8], 1, "page 1 read through the mapping (its PTE is read-only now)");
	target = p + PAGE / 8;
	race(store_thread, fd);
	/* The store landed before the truncation or raised SIGBUS: both are
	 * right. What is checked is that the kernel lives (no use of a freed
	 * page) and that the page is gone afterwards. */
	CHECK_EQ(load(target), -1, "after the truncation the page is gone: SIGBUS");
	munmap(p, 2 * PAGE);
	close(fd);

	fd = open("file2", O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(fd, 0, 1);
	fill(fd, 1, 1);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	target = p + PAGE / 8;
	race(load_thread, fd);
	CHECK(!bus && (seen == 1 || seen == 2),
	      "a load racing truncate-and-rewrite of its page sees the old or the new data");
	CHECK_EQ(load(target), 2, "afterwards the mapping shows the new data, not the deleted page");
	munmap(p, 2 * PAGE);
	close(fd);
	tap_leave_scratch();
	return tap_done();
}
