/*
 * t_shared_anon_huge - a huge shared anonymous mapping is answered at
 * once: a mapping or ENOMEM, never minutes in the kernel. (Roundabout
 * gives shared anonymous memory all its pages at mmap time; a PROT_NONE
 * one of 64 TiB once made it try each of 2^34 pages in turn.)
 */
#include "tap.h"
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check_quick(int prot, const char *what)
{
	size_t len = 1UL << 46;
	double t0 = now();
	void *p = mmap(NULL, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double took = now() - t0;
	int answered = p != MAP_FAILED || errno == ENOMEM;
	tap_check(answered && took < 5.0, what, "took %.1f s (%s)", took,
		  p == MAP_FAILED ? "failed" : "mapped");
	if (p != MAP_FAILED)
		munmap(p, len);
}

int main(void)
{
	check_quick(PROT_NONE, "a 64 TiB PROT_NONE shared anonymous mmap answers at once");
	return tap_done();
}
