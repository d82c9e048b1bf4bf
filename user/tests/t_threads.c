/*
 * t_threads - POSIX threads as musl builds them from clone, futex,
 * set_tid_address and arch_prctl(ARCH_SET_FS): mutual exclusion, join
 * values, a condition-variable handoff, thread-local storage, thread ids,
 * and each thread's own SSE registers across switches.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

enum { NTHREADS = 8, INCREMENTS = 100000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;   /* [L:lock] */

static void *add_locked(void *arg)
{
	(void)arg;
	for (int i = 0; i < INCREMENTS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static long atomic_counter;   /* [A] */

static void *add_atomic(void *arg)
{
	(void)arg;
	/* relaxed: only the total matters, and join orders the final read */
	for (int i = 0; i < INCREMENTS; i++)
		__atomic_fetch_add(&atomic_counter, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Start NTHREADS running fn and join them all; returns 0 or an error. */
static int run_all(void *(*fn)(void *))
{
	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) != 0)
			return -1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void test_counters(void)
{
	CHECK_OK(run_all(add_locked), "8 threads start and join");
	CHECK_EQ(counter, (long)NTHREADS * INCREMENTS,
		 "8 x 100000 increments under a mutex give the exact total");
	run_all(add_atomic);
	CHECK_EQ(atomic_counter, (long)NTHREADS * INCREMENTS,
		 "8 x 100000 atomic increments give the exact total");
}

static void *return_value(void *arg)
{
	intptr_t i = (intptr_t)arg;
	if (i % 2)
		pthread_exit((void *)(i * 10 + 1));   /* the other way out */
	return (void *)(i * 10 + 1);
}

static void test_join_values(void)
{
	pthread_t t[NTHREADS];
	int right = 0;
	for (intptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, return_value, (void *)i);
	for (intptr_t i = 0; i < NTHREADS; i++) {
		void *v = NULL;
		if (pthread_join(t[i], &v) == 0 && v == (void *)(i * 10 + 1))
			right++;
	}
	CHECK_EQ(right, NTHREADS, "pthread_join returns each thread's return or exit value");
}

/* One-slot mailbox: the producer waits for it to empty, the consumer to fill. */
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t box_filled = PTHREAD_COND_INITIALIZER;
static pthread_cond_t box_emptied = PTHREAD_COND_INITIALIZER;
static int box_full;   /* [L:box_lock] */
static int box_value;  /* [L:box_lock] */

enum { HANDOFFS = 2000 };

static void *consume(void *arg)
{
	long sum = 0;
	(void)arg;
	for (int i = 0; i < HANDOFFS; i++) {
		pthread_mutex_lock(&box_lock);
		while (!box_full)
			pthread_cond_wait(&box_filled, &box_lock);
		sum += box_value;
		box_full = 0;
		pthread_cond_signal(&box_emptied);
		pthread_mutex_unlock(&box_lock);
	}
	return (void *)sum;
}

static void test_condvar(void)
{
	pthread_t t;
	void *sum = NULL;
	pthread_create(&t, NULL, consume, NULL);
	for (int i = 1; i <= HANDOFFS; i++) {
		pthread_mutex_lock(&box_lock);
		while (box_full)
			pthread_cond_wait(&box_emptied, &box_lock);
		box_value = i;
		box_full = 1;
		pthread_cond_signal(&box_filled);
		pthread_mutex_unlock(&box_lock);
	}
	pthread_join(t, &sum);
	CHECK_EQ((intptr_t)sum, (intptr_t)HANDOFFS * (HANDOFFS + 1) / 2,
		 "2000 values handed over through a condition variable arrive once each");
}

static __thread int tls_value = 7;
static pthread_barrier_t barrier;

struct ids {
	int *tls_addr;
	pid_t tid, pid;
	int tls_seen;
};
static struct ids ids[NTHREADS];

/* Each thread stores its index in its own tls_value, and reads it back
 * after every thread has stored, so a shared variable would show. */
static void *record_ids(void *arg)
{
	intptr_t i = (intptr_t)arg;
	int fresh = tls_value;
	tls_value = (int)i + 100;
	pthread_barrier_wait(&barrier);
	ids[i].tls_addr = &tls_value;
	ids[i].tls_seen = fresh == 7 && tls_value == i + 100;
	ids[i].tid = (pid_t)syscall(SYS_gettid);
	ids[i].pid = getpid();
	return NULL;
}

static void test_tls_and_ids(void)
{
	pthread_barrier_init(&barrier, NULL, NTHREADS);
	tls_value = 1;
	run_all(record_ids);
	int seen = 0, distinct = 1, same_pid = 1, tid_not_pid = 1;
	for (int i = 0; i < NTHREADS; i++) {
		seen += ids[i].tls_seen;
		same_pid &= ids[i].pid == getpid();
		tid_not_pid &= ids[i].tid != getpid();
		for (int j = 0; j < i; j++)
			distinct &= ids[i].tid != ids[j].tid &&
				    ids[i].tls_addr != ids[j].tls_addr;
	}
	CHECK_EQ(seen, NTHREADS, "each thread starts with the initial __thread value and keeps its own");
	CHECK_EQ(tls_value, 1, "the threads' stores leave the main thread's copy alone");
	CHECK(distinct, "each thread has its own gettid and its own __thread address");
	CHECK(same_pid, "getpid is the same in every thread");
	CHECK(tid_not_pid, "a new thread's gettid differs from the pid");
	CHECK_EQ(syscall(SYS_gettid), getpid(), "the main thread's gettid is the pid");
	pthread_barrier_destroy(&barrier);
}

static void *nothing(void *arg)
{
	return arg;
}

static void test_many_threads(void)
{
	int ok = 0;
	for (intptr_t i = 0; i < 200; i++) {
		pthread_t t;
		void *v = NULL;
		if (pthread_create(&t, NULL, nothing, (void *)i) == 0 &&
		    pthread_join(t, &v) == 0 && v == (void *)i)
			ok++;
	}
	CHECK_EQ(ok, 200, "200 threads created and joined one after another");
}

/*
 * Each thread fills all sixteen SSE registers with values of its own, calls
 * sched_yield from the same asm statement (the Linux ABI keeps xmm0-15
 * across a system call), and stores the registers back to compare. With
 * more threads than CPUs and all of them started together, every yield
 * can switch to another of them on the same CPU, and it would leave its
 * own values behind if a switch did not save and restore the registers:
 * the switch is forced, not left to the timer (a busy host may run each
 * thread through before its tick comes).
 */
enum { XMM_THREADS = 16, XMM_ROUNDS = 100 };

#define XMM_IN(n) "movdqu " #n "*16(%[in]), %%xmm" #n "\n\t"
#define XMM_OUT(n) "movdqu %%xmm" #n ", " #n "*16(%[out])\n\t"
#define XMM_ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) \
	m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)

/* xmm0-15 = in[0..31] (two words each); sched_yield; out = xmm0-15. */
static void yield_in_xmm(const uint64_t in[32], uint64_t out[32])
{
	long nr = SYS_sched_yield;
	__asm__ __volatile__(XMM_ALL(XMM_IN) "syscall\n\t" XMM_ALL(XMM_OUT)
		: "+a"(nr)
		: [in] "r"(in), [out] "r"(out)
		: "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
		  "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		  "xmm12", "xmm13", "xmm14", "xmm15");
}

static pthread_barrier_t xmm_start;

/* Returns non-NULL when every round got back the registers it loaded. */
static void *xmm_yields(void *arg)
{
	uint64_t t = (uint64_t)(intptr_t)arg, in[32], out[32];
	int good = 1;
	pthread_barrier_wait(&xmm_start);	/* all runnable at once */
	for (uint64_t r = 0; r < XMM_ROUNDS; r++) {
		for (uint64_t w = 0; w < 32; w++)
			in[w] = (t + 1) << 48 | r << 16 | w;
		yield_in_xmm(in, out);
		good &= memcmp(in, out, sizeof(in)) == 0;
	}
	return (void *)(intptr_t)good;
}

static void test_sse_across_yields(void)
{
	pthread_t t[XMM_THREADS];
	int good = 0;
	pthread_barrier_init(&xmm_start, NULL, XMM_THREADS);
	for (long i = 0; i < XMM_THREADS; i++)
		pthread_create(&t[i], NULL, xmm_yields, (void *)i);
	for (int i = 0; i < XMM_THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		good += r != NULL;
	}
	pthread_barrier_destroy(&xmm_start);
	CHECK_EQ(good, XMM_THREADS, "every thread's SSE registers survived 100 sched_yield switches");
}

/*
 * The same through preemption: each thread keeps a running sum in an SSE
 * register through a long loop with no calls in it, so only a preemption
 * can come between its steps. Whether one comes depends on the timer.
 */
#define FP_STEPS 3000000L

static void *fp_sum(void *arg)
{
	double acc = 0.0, step = 0.5 + (long)arg;	/* exact in a double */
	for (long i = 0; i < FP_STEPS; i++)
		acc += step;
	return (void *)(long)(acc == step * FP_STEPS);
}

static void test_fpu_state(void)
{
	pthread_t t[NTHREADS];
	int good = 0;
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, fp_sum, (void *)i);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		good += r != NULL;
	}
	CHECK_EQ(good, NTHREADS, "every thread's SSE sum survived being preempted");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_threads\nChecks pthreads: mutexes, join, condition"
		       " variables, __thread, thread ids, SSE registers.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	test_counters();
	test_join_values();
	test_condvar();
	test_tls_and_ids();
	test_many_threads();
	test_sse_across_yields();
	test_fpu_state();
	return tap_done();
}
