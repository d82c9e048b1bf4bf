/*
 * ktest_mutex.c - sleeping locks: mutexes exclude, hand over to sleepers
 * and catch misuse; rw-semaphores let readers share, keep writers alone,
 * and do not let new readers starve a waiting writer. Both let a task that
 * lets go take the lock straight back past a sleeper (no convoy), yet
 * hand it to a sleeper that lost (nobody starves).
 *
 * Every wait has a deadline ("not ok", never a hang); test data is static.
 * Above each concurrency test, the deliberately broken kernel it must
 * catch (STYLE.md rule 11).
 */
#include "kernel/ktest.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/time.h"
#include "kernel/preempt.h"

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

/* Join t if it exits within ms; otherwise leave it alone, false. */
static bool join_within(struct task *t, unsigned ms)
{
	if (!wait_for_completion_timeout(&t->exited, ms))
		return false;
	kthread_join(t);
	return true;
}

/*
 * Start n threads of fn((void *)i). All are created before any is woken:
 * creating one can take milliseconds (a fresh stack), and threads started
 * one by one might each finish before the next exists, never meeting.
 */
static bool start_threads(struct task **t, int n, int (*fn)(void *), const char *name)
{
	for (int i = 0; i < n; i++)
		if (!(t[i] = kthread_create(fn, (void *)(long)i, name)))
			return false;
	for (int i = 0; i < n; i++)
		wake_up_process(t[i]);
	return true;
}

static bool join_all_within(struct task **t, int n, unsigned ms)
{
	u64 end = ktime_ns() + ms * MS;

	for (int i = 0; i < n; i++) {
		u64 now = ktime_ns();
		if (!join_within(t[i], now < end ? (unsigned)((end - now) / MS) + 1 : 1))
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- mutex */

/*
 * 8 threads each add 1 to a plain counter MUTEX_ITERS times: read, yield
 * (so another thread of this CPU surely runs inside the window), wait 20
 * us (so threads on other CPUs overlap it too), write back. Only mutual
 * exclusion gives the exact total. Inside, each thread also checks that it
 * is alone (an atomic count of those inside) and that the mutex names it
 * as owner.
 * Broken variant: debug.broken_mutex=1 (mutex_lock excludes nobody) fails,
 * with one CPU or many.
 */
#define MUTEX_THREADS 8
#define MUTEX_ITERS 300
static DEFINE_MUTEX(counter_lock);
static long counter;		/* [L:counter_lock], deliberately not atomic */
static atomic_t counter_inside, counter_crowded, counter_not_owner;

static int counter_fn(void *arg)
{
	for (int i = 0; i < MUTEX_ITERS; i++) {
		mutex_lock(&counter_lock);
		if (atomic_inc_return(&counter_inside) != 1)
			atomic_inc(&counter_crowded);
		if (!mutex_held_by_me(&counter_lock))
			atomic_inc(&counter_not_owner);
		long v = counter;
		yield();
		udelay(20);
		counter = v + 1;
		atomic_dec(&counter_inside);
		mutex_unlock(&counter_lock);
	}
	return 0;
}

KTEST(lock_mutex_mutual_exclusion)
{
	struct task *t[MUTEX_THREADS];

	counter = 0;
	atomic_set(&counter_inside, 0);
	atomic_set(&counter_crowded, 0);
	atomic_set(&counter_not_owner, 0);
	KT_ASSERT(start_threads(t, MUTEX_THREADS, counter_fn, "counter"));
	KT_ASSERT(join_all_within(t, MUTEX_THREADS, 30000));
	KT_EQ(counter, MUTEX_THREADS * MUTEX_ITERS);
	KT_EQ(atomic_read(&counter_crowded), 0);
	KT_EQ(atomic_read(&counter_not_owner), 0);
}

static DEFINE_MUTEX(try_lock);
static int try_result;

static int trylock_fn(void *arg)
{
	try_result = mutex_trylock(&try_lock);
	if (try_result)
		mutex_unlock(&try_lock);
	return 0;
}

KTEST(lock_mutex_trylock_fails_while_another_task_holds_it)
{
	mutex_lock(&try_lock);
	try_result = -1;
	struct task *t = kthread_run(trylock_fn, NULL, "trylock");
	bool joined = t && join_within(t, 5000);
	mutex_unlock(&try_lock);
	KT_ASSERT(joined);
	KT_EQ(try_result, 0);

	t = kthread_run(trylock_fn, NULL, "trylock");
	KT_ASSERT(t && join_within(t, 5000));
	KT_EQ(try_result, 1);
}

static DEFINE_MUTEX(handoff_lock);
static int handoff_got;

static int handoff_fn(void *arg)
{
	mutex_lock(&handoff_lock);
	WRITE_ONCE(handoff_got, 1);
	mutex_unlock(&handoff_lock);
	return 0;
}

/* A contender sleeps (after at most a short spin) while the mutex is held, and
 * gets it at unlock. */
KTEST(lock_mutex_contender_sleeps_until_unlock)
{
	handoff_got = 0;
	mutex_lock(&handoff_lock);
	struct task *t = kthread_run(handoff_fn, NULL, "contender");
	bool slept = t && WITHIN_MS(2000, __atomic_load_n(&t->state, __ATOMIC_RELAXED) ==
					  TASK_SLEEPING);
	int early = READ_ONCE(handoff_got);
	mutex_unlock(&handoff_lock);
	KT_ASSERT(t && join_within(t, 5000));
	KT_ASSERT(slept);
	KT_EQ(early, 0);
	KT_EQ(handoff_got, 1);
}

/*
 * The retake race, forced (for the mutex here, for the rw-semaphore's
 * write side below). A hog holds the lock, and a sleeper queues for it.
 * Then the hog lets go and takes it straight back with a trylock,
 * preemption off between the two so that the sleeper cannot run in
 * between, holds it 10 us, and again, until its trylock fails (the lock
 * was handed to the sleeper) or RETAKE_MS pass. Both threads are bound to
 * CPU 0: the sleeper runs only when the tick preempts the hog, which
 * always holds the lock then, so it never finds the lock free, whatever
 * the number of CPUs and however busy the host. Two rules show:
 *   - stealing: the hog's first trylock succeeds, although the release
 *     before it woke the sleeper (strict FIFO would have handed the lock
 *     over, and a task that wants it back at once would sleep: a convoy);
 *   - no starvation: the sleeper, once it has woken and lost, is handed
 *     the lock, so the hog's trylock fails in the end.
 */
#define RETAKE_MS 3000

struct retake_ops {
	void (*lock)(void *l);
	bool (*trylock)(void *l);
	void (*unlock)(void *l);
};

static struct {
	const struct retake_ops *ops;	/* [I] per run */
	void *lock;			/* [I] per run */
	struct completion holds;	/* the hog holds the lock */
	int go;				/* [A] the sleeper is queued: start */
	int first_retake;		/* [A] the hog's first trylock succeeded */
	int handed_over;		/* [A] a trylock of the hog failed */
	int sleeper_in;			/* [A] the sleeper got the lock */
} rt;

static int retake_hog_fn(void *arg)
{
	rt.ops->lock(rt.lock);
	complete(&rt.holds);
	while (!READ_ONCE(rt.go))
		msleep(1);
	u64 end = ktime_ns() + RETAKE_MS * MS;
	for (int i = 0; ktime_ns() < end; i++) {
		udelay(10);
		preempt_disable();
		rt.ops->unlock(rt.lock);
		bool again = rt.ops->trylock(rt.lock);
		preempt_enable();
		if (i == 0)
			WRITE_ONCE(rt.first_retake, again);
		if (!again) {
			WRITE_ONCE(rt.handed_over, 1);
			return 0;
		}
	}
	rt.ops->unlock(rt.lock);
	return 0;
}

static int retake_sleeper_fn(void *arg)
{
	rt.ops->lock(rt.lock);
	WRITE_ONCE(rt.sleeper_in, 1);
	rt.ops->unlock(rt.lock);
	return 0;
}

/* Run the race on lock; false if a thread could not be made or never ended. */
static bool retake_run(const struct retake_ops *ops, void *lock)
{
	rt.ops = ops;
	rt.lock = lock;
	init_completion(&rt.holds);
	rt.go = rt.first_retake = rt.handed_over = rt.sleeper_in = 0;
	struct task *hog = kthread_create(retake_hog_fn, NULL, "hog");
	struct task *sleeper = kthread_create(retake_sleeper_fn, NULL, "sleeper");
	if (!hog || !sleeper) {
		if (hog)
			kthread_discard(hog);
		if (sleeper)
			kthread_discard(sleeper);
		return false;
	}
	kthread_bind(hog, 0);
	kthread_bind(sleeper, 0);
	wake_up_process(hog);
	bool held = wait_for_completion_timeout(&rt.holds, 5000);
	wake_up_process(sleeper);
	/* Queued (asleep in the lock), or in at once if the lock is broken. */
	bool queued = WITHIN_MS(5000, __atomic_load_n(&sleeper->state, __ATOMIC_RELAXED) ==
					      TASK_SLEEPING || READ_ONCE(rt.sleeper_in));
	WRITE_ONCE(rt.go, 1);
	bool joined = join_within(hog, RETAKE_MS + 5000);
	joined = join_within(sleeper, 5000) && joined;
	return held && queued && joined;
}

static void mutex_op_lock(void *l) { mutex_lock(l); }
static bool mutex_op_trylock(void *l) { return mutex_trylock(l); }
static void mutex_op_unlock(void *l) { mutex_unlock(l); }
static const struct retake_ops mutex_ops = { mutex_op_lock, mutex_op_trylock, mutex_op_unlock };
static DEFINE_MUTEX(retake_mutex);

/* Broken variant: debug.broken_mutex=fifo (every unlock hands over) fails. */
KTEST(lock_mutex_task_retakes_it_past_a_woken_sleeper)
{
	KT_ASSERT(retake_run(&mutex_ops, &retake_mutex));
	KT_ASSERT(READ_ONCE(rt.sleeper_in));
	KT_ASSERT(READ_ONCE(rt.first_retake));
}

/* Broken variant: debug.broken_mutex=nohandoff (a sleeper may lose for ever) fails. */
KTEST(lock_mutex_sleeper_gets_it_from_a_task_that_retakes_it)
{
	KT_ASSERT(retake_run(&mutex_ops, &retake_mutex));
	KT_ASSERT(READ_ONCE(rt.sleeper_in));
	KT_ASSERT(READ_ONCE(rt.handed_over));
}

KTEST_EXPECT_PANIC(lock_mutex_recursive_lock_is_bug, "recursive lock")
{
	static DEFINE_MUTEX(m);

	mutex_lock(&m);
	mutex_lock(&m);
}

static DEFINE_MUTEX(owned);
static struct completion owned_taken;

static int owner_fn(void *arg)
{
	mutex_lock(&owned);
	complete(&owned_taken);
	msleep(5000);
	mutex_unlock(&owned);
	return 0;
}

KTEST_EXPECT_PANIC(lock_mutex_unlock_by_non_owner_is_bug, "unlocked by")
{
	init_completion(&owned_taken);
	KT_NOT_NULL(kthread_run(owner_fn, NULL, "owner"));
	KT_ASSERT(wait_for_completion_timeout(&owned_taken, 5000));
	mutex_unlock(&owned);
}

/* ---------------------------------------------------------------- rwsem */

/*
 * Two readers each wait, inside the semaphore, until both are inside.
 * Broken variant: debug.broken_rwsem=readers (one reader at a time) fails.
 */
static DEFINE_RWSEM(meet_sem);
static atomic_t meet_inside, meet_met;

static int meet_fn(void *arg)
{
	u64 end = ktime_ns() + 2000 * MS;

	down_read(&meet_sem);
	atomic_inc(&meet_inside);
	while (atomic_read(&meet_inside) < 2 && ktime_ns() < end)
		yield();
	if (atomic_read(&meet_inside) >= 2)
		atomic_inc(&meet_met);
	while (atomic_read(&meet_met) < 2 && ktime_ns() < end)	/* let the other look */
		yield();
	atomic_dec(&meet_inside);
	up_read(&meet_sem);
	return 0;
}

KTEST(lock_rwsem_readers_run_concurrently)
{
	struct task *t[2];

	atomic_set(&meet_inside, 0);
	atomic_set(&meet_met, 0);
	KT_ASSERT(start_threads(t, 2, meet_fn, "reader"));
	KT_ASSERT(join_all_within(t, 2, 10000));
	KT_EQ(atomic_read(&meet_met), 2);
}

/*
 * 4 readers and 2 writers go in and out, yielding and waiting 20 us
 * inside (as in lock_mutex_mutual_exclusion, so that threads of one CPU
 * and of different CPUs both overlap); every entry and exit checks the
 * others: a writer with anyone else inside is an overlap.
 * Broken variant: debug.broken_rwsem=writer (writers ignore readers) fails.
 */
#define RW_READERS 4
#define RW_WRITERS 2
#define RW_THREADS (RW_READERS + RW_WRITERS)
#define RW_ITERS 150
static DEFINE_RWSEM(rw_sem);
static atomic_t readers_inside, writers_inside, overlaps;

static void check_overlap(bool writer)
{
	int w = atomic_read(&writers_inside), r = atomic_read(&readers_inside);
	if (writer ? (w != 1 || r != 0) : w != 0)
		atomic_inc(&overlaps);
}

static int rw_reader_fn(void *arg)
{
	for (int i = 0; i < RW_ITERS; i++) {
		down_read(&rw_sem);
		atomic_inc(&readers_inside);
		check_overlap(false);
		yield();
		udelay(20);
		check_overlap(false);
		atomic_dec(&readers_inside);
		up_read(&rw_sem);
	}
	return 0;
}

static int rw_writer_fn(void *arg)
{
	for (int i = 0; i < RW_ITERS; i++) {
		down_write(&rw_sem);
		atomic_inc(&writers_inside);
		check_overlap(true);
		yield();
		udelay(20);
		check_overlap(true);
		atomic_dec(&writers_inside);
		up_write(&rw_sem);
		yield();
	}
	return 0;
}

/* Threads 0..RW_WRITERS-1 write, the others read. */
static int rw_fn(void *arg)
{
	return (long)arg < RW_WRITERS ? rw_writer_fn(arg) : rw_reader_fn(arg);
}

KTEST(lock_rwsem_writer_excludes_readers_and_writers)
{
	struct task *t[RW_THREADS];

	atomic_set(&readers_inside, 0);
	atomic_set(&writers_inside, 0);
	atomic_set(&overlaps, 0);
	KT_ASSERT(start_threads(t, RW_THREADS, rw_fn, "rwsem"));
	KT_ASSERT(join_all_within(t, RW_THREADS, 30000));
	KT_EQ(atomic_read(&overlaps), 0);
}

/*
 * The same rule with the interleaving forced rather than hoped for: while
 * this test holds the semaphore for reading, a writer arrives. It must
 * queue (the waiter count says so) and must not be inside. Waiting for
 * "queued or inside", whichever comes first, makes the verdict independent
 * of how busy the machine is.
 * Broken variant: debug.broken_rwsem=writer lets the writer straight in.
 */
static DEFINE_RWSEM(held_sem);
static atomic_t held_writer_in;

static int held_writer_fn(void *arg)
{
	down_write(&held_sem);
	atomic_set(&held_writer_in, 1);
	up_write(&held_sem);
	return 0;
}

KTEST(lock_rwsem_writer_waits_for_a_reader_inside)
{
	atomic_set(&held_writer_in, 0);
	down_read(&held_sem);
	struct task *w = kthread_run(held_writer_fn, NULL, "writer");
	bool settled = w && WITHIN_MS(5000, rwsem_nr_waiters(&held_sem) == 1 ||
					    atomic_read(&held_writer_in));
	bool writer_in_beside_reader = atomic_read(&held_writer_in) != 0;
	up_read(&held_sem);
	KT_ASSERT(w && join_within(w, 5000));
	KT_ASSERT(settled);
	KT_ASSERT(!writer_in_beside_reader);
	KT_EQ(atomic_read(&held_writer_in), 1);
}

/*
 * While we hold the semaphore for reading, a writer queues; a reader that
 * comes after it must queue behind it, and get in only after the writer.
 * Broken variant: debug.broken_rwsem=starve (new readers overtake a
 * waiting writer) fails.
 */
static DEFINE_RWSEM(fair_sem);
static atomic_t order_seq;
static int writer_order, reader_order;

static int fair_writer_fn(void *arg)
{
	down_write(&fair_sem);
	writer_order = atomic_inc_return(&order_seq);
	up_write(&fair_sem);
	return 0;
}

static int fair_reader_fn(void *arg)
{
	down_read(&fair_sem);
	reader_order = atomic_inc_return(&order_seq);
	up_read(&fair_sem);
	return 0;
}

KTEST(lock_rwsem_waiting_writer_blocks_new_readers)
{
	atomic_set(&order_seq, 0);
	writer_order = reader_order = 0;
	down_read(&fair_sem);
	struct task *w = kthread_run(fair_writer_fn, NULL, "writer");
	bool writer_queued = w && WITHIN_MS(2000, rwsem_nr_waiters(&fair_sem) == 1);
	struct task *r = writer_queued ? kthread_run(fair_reader_fn, NULL, "reader") : NULL;
	bool reader_queued = r && WITHIN_MS(500, rwsem_nr_waiters(&fair_sem) == 2);
	up_read(&fair_sem);
	KT_ASSERT(writer_queued);
	KT_ASSERT(w && join_within(w, 5000));
	KT_ASSERT(r && join_within(r, 5000));
	KT_ASSERT(reader_queued);
	KT_EQ(writer_order, 1);
	KT_EQ(reader_order, 2);
}

static void rwsem_op_lock(void *l) { down_write(l); }
static bool rwsem_op_trylock(void *l) { return down_write_trylock(l); }
static void rwsem_op_unlock(void *l) { up_write(l); }
static const struct retake_ops rwsem_ops = { rwsem_op_lock, rwsem_op_trylock, rwsem_op_unlock };
static DEFINE_RWSEM(retake_sem);

/*
 * The retake race (above, at the mutex) on the write side: a writer that
 * lets go takes the semaphore straight back past a woken writer.
 * Broken variant: debug.broken_rwsem=fifo (every release hands over) fails.
 */
KTEST(lock_rwsem_writer_retakes_it_past_a_woken_writer)
{
	KT_ASSERT(retake_run(&rwsem_ops, &retake_sem));
	KT_ASSERT(READ_ONCE(rt.sleeper_in));
	KT_ASSERT(READ_ONCE(rt.first_retake));
}

/*
 * ... and yet a woken writer that keeps losing is handed the semaphore.
 * Broken variant: debug.broken_rwsem=nohandoff (it may lose for ever) fails.
 */
KTEST(lock_rwsem_woken_writer_gets_it_from_a_writer_that_retakes_it)
{
	KT_ASSERT(retake_run(&rwsem_ops, &retake_sem));
	KT_ASSERT(READ_ONCE(rt.sleeper_in));
	KT_ASSERT(READ_ONCE(rt.handed_over));
}
