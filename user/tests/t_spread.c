/*
 * t_spread - as many busy threads as CPUs run on every CPU at once: the
 * scheduler uses the whole machine. Each thread spins, noting the CPU it
 * is on (getcpu, through sched_getcpu) after every step; the main thread
 * looks every 10 ms, for up to 5 s, for an instant at which the threads
 * name as many different CPUs as there are. A CPU that never looks idle
 * to the scheduler gets no thread (sched.debug_boot_idles: CPU 0's boot
 * task used to idle in place of its idle task). Also checks getcpu's
 * answers and its NULL arguments. Runs on Linux too.
 */
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define LOOK_MS 10
#define DEADLINE_MS 5000

static int cpu_of[MAX_THREADS];		/* [A] each thread's last getcpu */
static int stop;			/* [A] */

static void *spin(void *arg)
{
	int *slot = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		__atomic_store_n(slot, sched_getcpu(), __ATOMIC_RELAXED);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* How many different CPUs the n threads name now (-1 not counted yet). */
static int distinct_cpus(int n)
{
	unsigned long long seen = 0;
	int count = 0;
	for (int i = 0; i < n; i++) {
		int c = __atomic_load_n(&cpu_of[i], __ATOMIC_RELAXED);
		if (c >= 0 && c < 64 && !(seen >> c & 1)) {
			seen |= 1ULL << c;
			count++;
		}
	}
	return count;
}

static void test_getcpu(int ncpus)
{
	unsigned cpu = ~0u, node = ~0u;
	CHECK_OK(syscall(SYS_getcpu, &cpu, &node, NULL), "getcpu answers");
	CHECK((int)cpu >= 0 && (int)cpu < ncpus, "getcpu's CPU is one of the online CPUs");
	CHECK_EQ(node, 0, "getcpu's node is 0 (one node)");
	CHECK_OK(syscall(SYS_getcpu, NULL, NULL, NULL), "getcpu with NULL pointers answers");
	CHECK_ERR(syscall(SYS_getcpu, (unsigned *)1, NULL, NULL), EFAULT,
		  "getcpu with a bad pointer: EFAULT");
}

int main(void)
{
	cpu_set_t set;
	tap_start();
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof set, &set);
	int n = CPU_COUNT(&set);
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	test_getcpu(n);
	pthread_t t[MAX_THREADS];
	for (int i = 0; i < n; i++) {
		cpu_of[i] = -1;
		pthread_create(&t[i], NULL, spin, &cpu_of[i]);
	}
	int best = 0;
	for (int waited = 0; waited < DEADLINE_MS && best < n; waited += LOOK_MS) {
		sleep_ms(LOOK_MS);
		int d = distinct_cpus(n);
		best = d > best ? d : best;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	tap_check(best == n, "as many busy threads as CPUs ran on every CPU at once",
		  "at most %d of %d CPUs at once in %d s", best, n, DEADLINE_MS / 1000);
	return tap_done();
}
