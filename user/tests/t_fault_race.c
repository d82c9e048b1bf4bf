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
 *   3. A write fault into a hole, whose PTE is zapped (MADV_DONTNEED)
 *      30 ms in, while the kernel is about to give the page its new block.
 *      The block may have held another page's data, still on the disk.
 *      The store is retried after a second 100 ms wait, and in that wait
 *      (at 150 ms) an O_DIRECT read, which drops clean cached pages and
 *      reads the disk, must see zeros: the page was dirtied when it got
 *      the block, so its zeros are written first (ext2.debug_fresh_block_
 *      clean leaves it clean, and the read shows the old data: "a hole
 *      showed a freed block's old bytes"). Five holes, one try each.
 */
#include "tap.h"
#include <errno.h>
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

/* Race 3: after the zap, an O_DIRECT read of the page's block (fd is O_DIRECT). */
static uint64_t *direct_buf;
static ssize_t direct_got;
static int direct_errno;

#define SECRET 0x5ec7e75ec7e70000ULL	/* + the page number */

static void zap_then_read_direct(int direct_fd, int page)
{
	sleep_ms(30);
	madvise((void *)((uintptr_t)target & ~(uintptr_t)(PAGE - 1)), PAGE, MADV_DONTNEED);
	sleep_ms(120);			/* the fault is in its second wait now */
	direct_got = pread(direct_fd, direct_buf, PAGE, (off_t)page * PAGE);
	direct_errno = errno;
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
	tap_enter_scratch_here("t_fault_race");	/* O_DIRECT: not on a tmpfs */

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

	/* Race 3, over TRIES holes: each page's block gets a secret on the disk
	 * and is freed again, so every page past the first is a hole whose next
	 * block may well be one of those. One try is enough when the timing
	 * holds; the others are there for a loaded machine, where the 30 ms
	 * zap or the read may miss its window (then that try proves nothing,
	 * and the fixed kernel passes it anyway). */
	enum { TRIES = 5 };
	fd = open("file3", O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(fd, 0, 1);
	for (int k = 1; k <= TRIES; k++)
		fill(fd, k, SECRET + k);
	fsync(fd);
	ftruncate(fd, PAGE);
	ftruncate(fd, (TRIES + 1) * PAGE);
	int dfd = open("file3", O_RDONLY | O_DIRECT);
	CHECK(dfd >= 0, "file3 opens with O_DIRECT");
	direct_buf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p = mmap(NULL, (TRIES + 1) * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char why[160] = "";
	int zeros = 1, after = 1;
	for (int k = 1; k <= TRIES && !why[0]; k++) {
		zeros &= p[k * PAGE / 8 + 1] == 0;	/* a read fault: a read-only PTE */
		target = p + k * PAGE / 8;
		pthread_t t;
		bus = 0;
		pthread_create(&t, NULL, store_thread, NULL);
		zap_then_read_direct(dfd, k);
		pthread_join(t, NULL);
		if (direct_got != PAGE)
			snprintf(why, sizeof why, "the O_DIRECT pread of page %d gave %zd (%s)", k,
				 direct_got, strerror(direct_errno));
		else if ((direct_buf[1] & ~0xffULL) == SECRET)
			snprintf(why, sizeof why, "a hole showed a freed block's old bytes (page %d "
				 "read 0x%llx)", k, (unsigned long long)direct_buf[1]);
		else if (direct_buf[1] || (direct_buf[0] && direct_buf[0] != 99))
			snprintf(why, sizeof why, "page %d's words 0 and 1 read 0x%llx 0x%llx", k,
				 (unsigned long long)direct_buf[0], (unsigned long long)direct_buf[1]);
		after &= !bus && p[k * PAGE / 8] == 99 && p[k * PAGE / 8 + 1] == 0;
	}
	CHECK(zeros, "the holes read as zeros through the mapping");
	tap_check(!why[0], "an O_DIRECT read while a store into a hole is retried sees zeros",
		  "%s", why);
	CHECK(after, "afterwards each store is there and the rest of its hole is zeros");
	munmap(p, (TRIES + 1) * PAGE);
	close(dfd);
	close(fd);
	tap_leave_scratch();
	return tap_done();
}
