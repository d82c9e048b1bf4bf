/*
 * t_affinity - sched_getaffinity: the online CPUs, which is what nproc and
 * sysconf(_SC_NPROCESSORS_ONLN) count. With an argument N, the count must
 * be N (the test line boots -smp N). Run on Linux too, without N.
 */
#include "tap.h"
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	cpu_set_t set;
	tap_start();
	CPU_ZERO(&set);
	CHECK_OK(sched_getaffinity(0, sizeof set, &set), "sched_getaffinity of the caller");
	int n = CPU_COUNT(&set);
	CHECK(n >= 1, "at least one CPU");
	CHECK_EQ(sysconf(_SC_NPROCESSORS_ONLN), n, "sysconf counts the same CPUs");
	if (argc > 1)
		CHECK_EQ(n, atoi(argv[1]), "as many CPUs as the machine has");
	CHECK_ERR(sched_getaffinity(0, 4, &set), EINVAL, "a mask shorter than a word: EINVAL");
	CHECK_ERR(sched_getaffinity(999999, sizeof set, &set), ESRCH, "no such process: ESRCH");
	CHECK_ERR(sched_getaffinity(0, sizeof set, (cpu_set_t *)1), EFAULT, "a bad pointer: EFAULT");
	return tap_done();
}
