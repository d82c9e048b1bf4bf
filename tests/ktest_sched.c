/*
 * ktest_sched.c - the scheduler: threads run, on every CPU; bound threads
 * stay put; the tick preempts a busy loop; sleepers leave the CPU and come
 * back; wait queues and completions lose no wake-up.
 *
 * Every wait has a deadline, so a broken scheduler reports "not ok" rather
 * than hanging. Test data is static: a thread left running by a failed
 * test must not scribble on a dead stack frame. Above each concurrency
 * test, the deliberately broken kernel it must catch (STYLE.md rule 11).
 */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/string.h"

#define MS 1000000ULL

/* cond becomes true within ms milliseconds (polled every tick or so). */
#define WITHIN_MS(ms, cond)                                                    \
	({                                                                     \
		u64 __end = ktime_ns() + (u64)(ms) * MS;                       \
		bool __ok;                                                     \
		while (!(__ok = (cond)) && ktime_ns() < __end)                 \
			msleep(1);                                             \
		__ok;                                                          \
	})

/* Join t if it exits before deadline; otherwise leave it alone, false. */
static bool join_by(struct task *t, u64 deadline, int *code)
{
	u64 now = ktime_ns();
	unsigned ms = now < deadline ? (unsigned)((deadline - now) / MS) + 1 : 1;

	if (!wait_for_completion_timeout(&t->exited, ms))
		return false;
	int c = kthread_join(t);
	if (code)
		*code = c;
	return true;
}

static bool join_all_by(struct task **t, int n, u64 deadline)
{
	for (int i = 0; i < n; i++)
		if (!join_by(t[i], deadline, NULL))
			return false;
	return true;
}

/*
 * Start n threads of fn((void *)i), bound to cpu unless cpu < 0. All are
 * created before any is woken: creating one can take milliseconds (a
 * fresh stack), and threads started one by one might never overlap.
 */
static bool start_threads(struct task **t, int n, int (*fn)(void *), const char *name, int cpu)
{
	for (int i = 0; i < n; i++) {
		t[i] = kthread_create(fn, (void *)(long)i, name);
		if (!t[i])
			return false;
		if (cpu >= 0)
			kthread_bind(t[i], cpu);
	}
	for (int i = 0; i < n; i++)
		wake_up_process(t[i]);
	return true;
}

/* ---------------------------------------------------------------- threads */

static int return_42(void *arg)
{
	return 42;
}

static int exit_7(void *arg)
{
	kthread_exit(7);
}

KTEST(sched_kthread_join_returns_exit_code)
{
	struct task *a = kthread_run(return_42, NULL, "return42");
	struct task *b = kthread_run(exit_7, NULL, "exit7");
	int ca = -1, cb = -1;

	KT_NOT_NULL(a);
	KT_NOT_NULL(b);
	KT_ASSERT(join_by(a, ktime_ns() + 5000 * MS, &ca));
	KT_ASSERT(join_by(b, ktime_ns() + 5000 * MS, &cb));
	KT_EQ(ca, 42);
	KT_EQ(cb, 7);
}

KTEST(sched_joined_thread_stack_is_reused)
{
	struct task *a = kthread_run(return_42, NULL, "first");
	KT_NOT_NULL(a);
	void *top = a->kstack_top;
	KT_ASSERT(join_by(a, ktime_ns() + 5000 * MS, NULL));

	struct task *b = kthread_create(return_42, NULL, "second");
	KT_NOT_NULL(b);
	KT_EQ((uintptr_t)b->kstack_top, (uintptr_t)top);
	wake_up_process(b);
	KT_ASSERT(join_by(b, ktime_ns() + 5000 * MS, NULL));
}

/*
 * 32 threads, each counting to PROGRESS_ITERS in its own counter. All must
 * finish, and with more than one CPU each CPU must have run some of them.
 * Broken variant: debug.broken_sched=balance (no idle pulling, wake-ups
 * stay on the waker's CPU) fails the every-CPU check under --smp 8.
 */
#define PROGRESS_THREADS 32
#define PROGRESS_ITERS 1000000
static u64 progress[PROGRESS_THREADS];
static u64 progress_cpus;	/* bit n: some thread ran on CPU n */

static int progress_fn(void *arg)
{
	long i = (long)arg;

	for (int n = 0; n < PROGRESS_ITERS; n++) {
		WRITE_ONCE(progress[i], progress[i] + 1);
		if (n % 4096 == 0) {
			__atomic_fetch_or(&progress_cpus, 1ULL << smp_processor_id(),
					  __ATOMIC_RELAXED);
			yield();
		}
	}
	return 0;
}

KTEST(sched_32_threads_all_make_progress_on_every_cpu)
{
	struct task *t[PROGRESS_THREADS];
	int ncpus = num_online_cpus();

	memset(progress, 0, sizeof(progress));
	progress_cpus = 0;
	KT_ASSERT(start_threads(t, PROGRESS_THREADS, progress_fn, "progress", -1));
	KT_ASSERT(join_all_by(t, PROGRESS_THREADS, ktime_ns() + 30000 * MS));
	for (int i = 0; i < PROGRESS_THREADS; i++)
		KT_EQ(progress[i], PROGRESS_ITERS);
	KT_EQ(progress_cpus, (1ULL << ncpus) - 1);
}

/*
 * Two threads bound to CPU k = min(3, ncpus - 1) yield to each other for
 * 300 ms, so k's queue is never empty and idle CPUs keep trying to pull
 * from it; neither thread may ever find itself on another CPU.
 * Broken variant: debug.broken_sched=affinity (pulls and wake-ups ignore
 * the mask) fails under --smp 8.
 */
static int bound_cpu;
static int bound_wrong;		/* [A] iterations seen on the wrong CPU */
static u64 bound_iters[2];

static int bound_fn(void *arg)
{
	long i = (long)arg;
	u64 end = ktime_ns() + 300 * MS;

	while (ktime_ns() < end) {
		if (smp_processor_id() != bound_cpu)
			__atomic_add_fetch(&bound_wrong, 1, __ATOMIC_RELAXED);
		bound_iters[i]++;
		yield();
	}
	return 0;
}

KTEST(sched_bound_thread_stays_on_its_cpu)
{
	struct task *t[2];

	bound_cpu = MIN(3, num_online_cpus() - 1);
	bound_wrong = 0;
	bound_iters[0] = bound_iters[1] = 0;
	KT_ASSERT(start_threads(t, 2, bound_fn, "bound", bound_cpu));
	KT_ASSERT(join_all_by(t, 2, ktime_ns() + 10000 * MS));
	KT_EQ(bound_wrong, 0);
	KT_GT(bound_iters[0], 10);
	KT_GT(bound_iters[1], 10);
}

/*
 * A thread spins, never yielding, until a second thread bound to the same
 * CPU has run: only the tick's preemption can let the second one in.
 * Broken variant: debug.broken_sched=preempt (the tick never asks for a
 * switch) fails.
 */
static struct wait_queue_head spin_wq = WAIT_QUEUE_HEAD_INIT(spin_wq);
static int spin_started, other_ran, spinner_saw;

static int spinner_fn(void *arg)
{
	u64 end = ktime_ns() + 3000 * MS;

	WRITE_ONCE(spin_started, 1);
	wake_up_all(&spin_wq);
	while (!READ_ONCE(other_ran) && ktime_ns() < end)
		cpu_relax();
	spinner_saw = READ_ONCE(other_ran);
	return 0;
}

static int other_fn(void *arg)
{
	WRITE_ONCE(other_ran, 1);
	return 0;
}

KTEST(sched_tick_preempts_a_busy_loop)
{
	int cpu = num_online_cpus() - 1;

	spin_started = other_ran = spinner_saw = 0;
	struct task *a = kthread_create(spinner_fn, NULL, "spinner");
	KT_NOT_NULL(a);
	kthread_bind(a, cpu);
	wake_up_process(a);
	KT_ASSERT(wait_event_timeout(spin_wq, READ_ONCE(spin_started), 5000));
	struct task *b = kthread_create(other_fn, NULL, "other");
	KT_NOT_NULL(b);
	kthread_bind(b, cpu);
	wake_up_process(b);
	KT_ASSERT(join_by(a, ktime_ns() + 10000 * MS, NULL));
	KT_ASSERT(join_by(b, ktime_ns() + 10000 * MS, NULL));
	KT_EQ(spinner_saw, 1);
}

/* ---------------------------------------------------------------- sleeping */

static struct task *sleeper;
static int saw_sleeping;

static int watcher_fn(void *arg)
{
	u64 end = ktime_ns() + 2000 * MS;

	while (ktime_ns() < end) {
		if (__atomic_load_n(&sleeper->state, __ATOMIC_RELAXED) == TASK_SLEEPING) {
			saw_sleeping = 1;
			break;
		}
		yield();
	}
	return 0;
}

/* msleep takes at least its time, and the sleeper is off the CPU meanwhile. */
KTEST(sched_msleep_sleeps_off_the_cpu)
{
	sleeper = current_task();
	saw_sleeping = 0;
	struct task *w = kthread_run(watcher_fn, NULL, "watcher");
	KT_NOT_NULL(w);
	u64 t0 = ktime_ns();
	msleep(200);
	u64 elapsed = ktime_ns() - t0;
	KT_ASSERT(join_by(w, ktime_ns() + 5000 * MS, NULL));
	KT_GE(elapsed, 200 * MS);
	KT_LT(elapsed, 2000 * MS);
	KT_EQ(saw_sleeping, 1);
}

KTEST(sched_wait_event_timeout_gives_up_after_its_time)
{
	static struct wait_queue_head never = WAIT_QUEUE_HEAD_INIT(never);
	u64 t0 = ktime_ns();
	bool ok = wait_event_timeout(never, false, 50);
	u64 elapsed = ktime_ns() - t0;

	KT_EQ(ok, false);
	KT_GE(elapsed, 50 * MS);
	KT_LT(elapsed, 2000 * MS);
}

/*
 * Ping-pong: a producer hands over items one at a time and waits for each
 * to be acknowledged; the consumer waits for each item. One lost wake-up
 * strands a waiter until its timeout, which counts as a failure even when
 * the condition holds by then. One pair shares a CPU, one is split across
 * two (the same CPU when there is only one).
 * Broken variant: debug.broken_sched=wakeup (check the condition, then
 * announce the sleep: wait.h's lost wake-up) fails.
 */
#define PINGPONG_ITEMS 2000
#define PINGPONG_WAIT_MS 2000

struct pingpong {
	struct wait_queue_head item_wq, ack_wq;
	int item, ack;		/* [A] last item handed over / acknowledged */
	int failed;		/* [A] first item whose wait timed out, or 0 */
};
static struct pingpong pairs[2];

/* Wait for cond on wq; a wait that ran into its timeout fails pp. */
#define PP_WAIT(pp, wq, cond, i)                                               \
	do {                                                                   \
		u64 pp_t0 = ktime_ns();                                         \
		bool pp_ok = wait_event_timeout(wq, (cond) || READ_ONCE((pp)->failed), \
					       PINGPONG_WAIT_MS);              \
		if (!pp_ok || ktime_ns() - pp_t0 >= PINGPONG_WAIT_MS * MS)       \
			WRITE_ONCE((pp)->failed, i);                           \
	} while (0)

static int producer_fn(void *arg)
{
	struct pingpong *pp = arg;

	for (int i = 1; i <= PINGPONG_ITEMS && !READ_ONCE(pp->failed); i++) {
		WRITE_ONCE(pp->item, i);		/* wait.h, step A */
		wake_up(&pp->item_wq);			/* step B */
		PP_WAIT(pp, pp->ack_wq, READ_ONCE(pp->ack) == i, i);
	}
	return 0;
}

static int consumer_fn(void *arg)
{
	struct pingpong *pp = arg;

	for (int i = 1; i <= PINGPONG_ITEMS && !READ_ONCE(pp->failed); i++) {
		PP_WAIT(pp, pp->item_wq, READ_ONCE(pp->item) == i, i);
		WRITE_ONCE(pp->ack, i);
		wake_up(&pp->ack_wq);
	}
	return 0;
}

static bool start_pair(struct pingpong *pp, struct task **t, int cpu_p, int cpu_c)
{
	memset(pp, 0, sizeof(*pp));
	init_waitqueue_head(&pp->item_wq);
	init_waitqueue_head(&pp->ack_wq);
	t[0] = kthread_create(producer_fn, pp, "producer");
	t[1] = kthread_create(consumer_fn, pp, "consumer");
	if (!t[0] || !t[1])
		return false;
	kthread_bind(t[0], cpu_p);
	kthread_bind(t[1], cpu_c);
	wake_up_process(t[1]);
	wake_up_process(t[0]);
	return true;
}

KTEST(sched_wait_event_loses_no_wakeup)
{
	struct task *t[4];
	int last = num_online_cpus() - 1;

	KT_ASSERT(start_pair(&pairs[0], &t[0], last, last));
	KT_ASSERT(start_pair(&pairs[1], &t[2], 0, last));
	KT_ASSERT(join_all_by(t, 4, ktime_ns() + 40000 * MS));
	KT_EQ(pairs[0].failed, 0);
	KT_EQ(pairs[1].failed, 0);
	KT_EQ(pairs[0].ack, PINGPONG_ITEMS);
	KT_EQ(pairs[1].ack, PINGPONG_ITEMS);
}

/* ---------------------------------------------------------------- completions */

static struct completion comp;
static atomic_t comp_passed;

static int comp_waiter(void *arg)
{
	wait_for_completion(&comp);
	atomic_inc(&comp_passed);
	return 0;
}

/* complete() lets exactly one waiter through; complete_all() the rest, and
 * every later wait. */
KTEST(sched_completion_lets_one_waiter_through_per_complete)
{
	struct task *t[3];

	init_completion(&comp);
	atomic_set(&comp_passed, 0);
	KT_ASSERT(start_threads(t, 3, comp_waiter, "compwait", -1));
	msleep(50);
	KT_EQ(atomic_read(&comp_passed), 0);
	complete(&comp);
	KT_ASSERT(WITHIN_MS(2000, atomic_read(&comp_passed) == 1));
	msleep(50);
	KT_EQ(atomic_read(&comp_passed), 1);
	complete_all(&comp);
	KT_ASSERT(join_all_by(t, 3, ktime_ns() + 5000 * MS));
	KT_EQ(atomic_read(&comp_passed), 3);
	KT_ASSERT(wait_for_completion_timeout(&comp, 10));
}

KTEST(sched_completion_counts_completes_made_before_the_wait)
{
	static struct completion c;

	init_completion(&c);
	complete(&c);
	complete(&c);
	KT_ASSERT(wait_for_completion_timeout(&c, 10));
	KT_ASSERT(wait_for_completion_timeout(&c, 10));
	KT_ASSERT(!wait_for_completion_timeout(&c, 30));
}

/* ---------------------------------------------------------------- contexts */

KTEST_EXPECT_PANIC(sched_sleep_under_spinlock_is_reported,
		   "sleeping function called from atomic context")
{
	static spinlock_t l = SPINLOCK_INIT("test");

	spin_lock(&l);
	msleep(1);
	spin_unlock(&l);
}
