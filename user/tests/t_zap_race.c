/*
 * t_zap_race - MADV_DONTNEED's shootdown comes after it drops the page
 * table lock; truncation must not get ahead of it.
 *
 * A reader thread reads one word of a MAP_SHARED file page over and over,
 * so its CPU keeps the translation cached. Another thread zaps the page
 * with MADV_DONTNEED; on Roundabout the boot gives vm.debug_zap_delay_us,
 * which holds the zap between clearing the PTE (and dropping pt_lock) and
 * its TLB shootdown. In that window the main thread truncates the file to
 * nothing and writes the page back with new data. The reverse map finds
 * the PTE already gone, but the reader's CPU may still read through its
 * old translation: so truncation must flush it first (mm/mmap.c,
 * zap_range, "tlb_flush_pending"). After the rewrite, every read must show
 * the new data. vm.debug_zap_no_pending leaves the count out, and the
 * reader goes on seeing the deleted page: "a read after the rewrite saw
 * the truncated page". Three tries, in case a loaded machine runs the
 * truncation after the window. Linux passes it with no delay.
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
#define TRIES 3

static volatile uint64_t *map;
static int fd;
static int stop, rewritten;		/* [A] */
static uint64_t stale_seen, reads_after;	/* the reader's, read after join */

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void fill(uint64_t gen)
{
	static uint64_t buf[PAGE / 8];
	for (int i = 0; i < PAGE / 8; i++)
		buf[i] = gen;
	if (pwrite(fd, buf, PAGE, 0) != PAGE)
		printf("# pwrite failed\n");
}

/* A read while the file is cut to nothing gets SIGBUS (right): try again. */
static sigjmp_buf jump;
static int bus_after;		/* SIGBUS once the page was back: wrong */

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

static void *reader(void *arg)
{
	uint64_t old = (uint64_t)(uintptr_t)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int after = __atomic_load_n(&rewritten, __ATOMIC_ACQUIRE);
		if (sigsetjmp(jump, 1)) {
			bus_after |= after;
			continue;
		}
		uint64_t v = map[0];
		if (after) {
			reads_after++;
			if (v == old && !stale_seen)
				stale_seen = v;
		}
	}
	return NULL;
}

static void *zapper(void *arg)
{
	(void)arg;
	madvise((void *)map, PAGE, MADV_DONTNEED);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_zap_race\nMADV_DONTNEED racing truncate-and-rewrite of the page\n"
		       "another thread reads: after the rewrite, never the old page.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	struct sigaction sa = { .sa_handler = on_sigbus };
	sigaction(SIGBUS, &sa, NULL);
	tap_enter_scratch("t_zap_race");
	fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(1);
	map = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "the file maps");
	int ok = 1, reads = 1;
	char why[160] = "";
	for (int k = 0; k < TRIES && ok; k++) {
		uint64_t old = 1 + 2 * (uint64_t)k, new = old + 1;
		if (k)
			fill(old);
		stop = rewritten = 0;
		stale_seen = reads_after = 0;
		pthread_t r, z;
		pthread_create(&r, NULL, reader, (void *)(uintptr_t)old);
		sleep_ms(50);			/* the reader's CPU caches the translation */
		pthread_create(&z, NULL, zapper, NULL);
		sleep_ms(50);			/* the zap is in its window now */
		ftruncate(fd, 0);
		fill(new);
		__atomic_store_n(&rewritten, 1, __ATOMIC_RELEASE);
		sleep_ms(100);			/* the reader reads on */
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(r, NULL);
		pthread_join(z, NULL);
		reads &= reads_after > 0;
		if (bus_after) {
			ok = 0;
			snprintf(why, sizeof why, "try %d: SIGBUS after the page was written back",
				 k + 1);
		}
		if (stale_seen) {
			ok = 0;
			snprintf(why, sizeof why, "try %d: a read after the rewrite saw the truncated "
				 "page (0x%llx, not 0x%llx)", k + 1, (unsigned long long)stale_seen,
				 (unsigned long long)new);
		}
		if (map[0] != new) {
			ok = 0;
			snprintf(why, sizeof why, "try %d: afterwards the mapping shows 0x%llx, not "
				 "0x%llx", k + 1, (unsigned long long)map[0], (unsigned long long)new);
		}
	}
	tap_check(ok, "after truncate-and-rewrite, a zap in flight never shows the old page",
		  "%s", why);
	CHECK(reads, "the reader read after each rewrite");
	munmap((void *)map, PAGE);
	close(fd);
	tap_leave_scratch();
	return tap_done();
}
