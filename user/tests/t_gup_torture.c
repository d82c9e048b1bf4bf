/*
 * t_gup_torture.c - pinners against unmappers on every CPU (Roundabout
 * only: SYS_rb_pin). Usage: t_gup_torture [SECONDS] (default 20).
 *
 * Regions of 16 pages sit at fixed addresses. Unmapper threads munmap a
 * region and map it again at once, writing a new tag into every page
 * (region, page, generation). Pinner threads pin a region through the
 * fast path and hold the pins a moment. A pin must never hold a page that
 * was freed: read through the pin after the hold, the page must hold the
 * tag of the region and page asked for, or zero (a fresh page of the new
 * mapping, pinned before its unmapper tagged it); a freed page reused
 * elsewhere would hold something else. The kernel itself
 * panics if the fast path ever finds a freed page (mm/gup.c, step 3);
 * booted with gup.debug_irqs_on it walks with interrupts enabled and that
 * is what happens.
 */
#include "tap.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include "roundabout.h"

#define REGIONS 16
#define PAGES 16
#define PAGE 4096
#define BASE 0x500000000000UL

static volatile int stop;
static pthread_mutex_t locks[REGIONS];	/* unmappers do not race each other */
static unsigned long pins, pinned_pages, remaps, wrong, failed;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static char *region(int r)
{
	return (char *)(BASE + (unsigned long)r * PAGES * PAGE * 2);
}

static uint64_t tag(int r, int p, uint64_t gen)
{
	return (gen << 32) | ((uint64_t)r << 16) | (uint64_t)p;
}

static int map_region(int r, uint64_t gen)
{
	char *a = mmap(region(r), PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (a == MAP_FAILED)
		return -1;
	for (int p = 0; p < PAGES; p++)
		*(uint64_t *)(a + p * PAGE) = tag(r, p, gen);
	return 0;
}

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void *unmapper(void *arg)
{
	unsigned s = (unsigned)(uintptr_t)arg * 7919u + 1;
	uint64_t gen = 1;
	while (!stop) {
		int r = (int)(rnd(&s) % REGIONS);
		pthread_mutex_lock(&locks[r]);
		munmap(region(r), PAGES * PAGE);
		map_region(r, ++gen);
		pthread_mutex_unlock(&locks[r]);
		__atomic_add_fetch(&remaps, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *pinner(void *arg)
{
	unsigned s = (unsigned)(uintptr_t)arg * 104729u + 3;
	unsigned long my_pins = 0, my_pages = 0, my_wrong = 0, my_failed = 0;
	while (!stop) {
		int r = (int)(rnd(&s) % REGIONS), p = (int)(rnd(&s) % PAGES);
		struct rb_pin a = { .addr = (uint64_t)(region(r) + p * PAGE), .len = PAGE,
				    .flags = RB_PIN_FAST, .hold_us = rnd(&s) % 50 };
		long n = syscall(SYS_rb_pin, &a);
		if (n != 1) {
			my_failed++;	/* caught between munmap and mmap: EFAULT */
			continue;
		}
		my_pins++;
		my_pages += a.pinned;
		if (a.first_word != 0 && (((a.first_word >> 16) & 0xffff) != (uint64_t)r ||
					   (a.first_word & 0xffff) != (uint64_t)p))
			my_wrong++;
	}
	pthread_mutex_lock(&stats_lock);
	pins += my_pins;
	pinned_pages += my_pages;
	wrong += my_wrong;
	failed += my_failed;
	pthread_mutex_unlock(&stats_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	tap_start();
	int seconds = argc > 1 ? atoi(argv[1]) : 20;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: t_gup_torture [SECONDS]\n");
		return 0;
	}
	struct rb_pin probe = { 0 };
	if (syscall(SYS_rb_pin, &probe) < 0 && errno == ENOSYS) {
		printf("not ok 1 - SYS_rb_pin exists: ENOSYS (run on Roundabout)\n");
		return 1;
	}
	for (int r = 0; r < REGIONS; r++) {
		pthread_mutex_init(&locks[r], NULL);
		map_region(r, 0);
	}
	int half = 4;	/* 4 pinners and 4 unmappers: every CPU of -smp 8 */
	pthread_t t[64];
	int n = 0;
	for (int i = 0; i < half; i++)
		pthread_create(&t[n++], NULL, unmapper, (void *)(uintptr_t)i);
	for (int i = 0; i < half; i++)
		pthread_create(&t[n++], NULL, pinner, (void *)(uintptr_t)i);
	sleep((unsigned)seconds);
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("# %d s, %d pinners, %d unmappers: %lu pins, %lu remaps, %lu pins refused mid-remap\n",
	       seconds, half, half, pins, remaps, failed);
	CHECK(pins > 100 && remaps > 100, "the pinners and unmappers both made progress");
	CHECK_EQ(wrong, 0, "no pin ever held another region's or page's page");
	return tap_done();
}
