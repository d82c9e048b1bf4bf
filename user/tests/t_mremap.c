/*
 * t_mremap - a shared file mapping moved by mremap while the file is
 * truncated: the moved pages must still be found and unmapped.
 *
 * Truncation takes a page out of every page table through the reverse
 * map, which computes each mapping's address from its VMA. mremap moves
 * the PTEs and the VMA; if it moved the PTEs first and the VMA later,
 * with nothing keeping the reverse map out in between, truncation looked
 * at the old address, found nothing, and the process kept a page that is
 * no longer in the file. Each round here maps a 4-page file MAP_SHARED,
 * touches it, grows the mapping with MREMAP_MAYMOVE (a page mapped just
 * after it forces the move) on one thread while this one truncates the
 * file to 0 bytes 100 ms later; then a touch of the moved mapping must
 * raise SIGBUS, as on Linux. (On Roundabout, vm.debug_mremap_unlocked
 * restores the old order and vm.debug_fault_delay_us=300000 holds the
 * window open 300 ms, so the truncation lands inside it.)
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
#define PAGES 4
#define ROUNDS 3

static sigjmp_buf jump;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

/* Read one byte; -1 if it raised SIGBUS. */
static int touch(volatile uint8_t *p)
{
	if (sigsetjmp(jump, 1))
		return -1;
	return *p;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

struct grow {
	uint8_t *from, *to;
};

static void *grow_thread(void *arg)
{
	struct grow *g = arg;
	g->to = mremap(g->from, PAGES * PAGE, 2 * PAGES * PAGE, MREMAP_MAYMOVE);
	return NULL;
}

static void round_once(int r)
{
	char what[120];
	int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	static uint8_t buf[PAGES * PAGE];
	memset(buf, 'a' + r, sizeof buf);
	write(fd, buf, sizeof buf);
	/* The mapping, and a page right after it so that growing must move it. */
	uint8_t *p = mmap(NULL, (PAGES + 1) * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	mmap(p + PAGES * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	int sum = 0;
	for (int i = 0; i < PAGES; i++)
		sum += touch(p + i * PAGE) == 'a' + r;
	snprintf(what, sizeof what, "round %d: the 4 pages read through the mapping", r);
	CHECK_EQ(sum, PAGES, what);
	struct grow g = { p, NULL };
	pthread_t t;
	pthread_create(&t, NULL, grow_thread, &g);
	sleep_ms(100);
	ftruncate(fd, 0);
	pthread_join(t, NULL);
	snprintf(what, sizeof what, "round %d: mremap moved the mapping", r);
	CHECK(g.to != MAP_FAILED && g.to != p, what);
	int bus = 0;
	if (g.to != MAP_FAILED)
		for (int i = 0; i < PAGES; i++)
			bus += touch(g.to + i * PAGE) == -1;
	snprintf(what, sizeof what, "round %d: after truncation to 0, every moved page "
		 "raises SIGBUS (none still mapped after mremap)", r);
	CHECK_EQ(bus, PAGES, what);
	if (g.to != MAP_FAILED)
		munmap(g.to, 2 * PAGES * PAGE);
	munmap(p + PAGES * PAGE, PAGE);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_mremap\nmremap of a shared file mapping racing truncation: the\n"
		       "moved pages are unmapped by the truncation (SIGBUS after).\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	struct sigaction sa = { .sa_handler = on_sigbus };
	sigaction(SIGBUS, &sa, NULL);
	tap_enter_scratch("t_mremap");
	for (int r = 0; r < ROUNDS; r++)
		round_once(r);
	tap_leave_scratch();
	return tap_done();
}
