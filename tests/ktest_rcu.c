/*
 * ktest_rcu.c - RCU, tested in the manner of Linux's rcutorture.
 *
 * rcutorture: updaters replace a published object and retire the old one
 * with call_rcu, whose callback poisons it. Readers on every CPU hold the
 * object for a while and check that it is not poisoned and that no more
 * than one grace period ended since it was retired (the "pipe" age: a
 * grace period already running when the object was retired may end, a
 * later one may not). With rcu.torture_broken=1 grace periods end early and
 * the test must report `not ok`, stopping at the first detection.
 */
#include "kernel/ktest.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/slab.h"
#include "mm/page.h"

CMDLINE_KEY(torture_secs, "test.rcutorture_seconds", "tests: how long rcutorture runs (default 3)");

#define LIVE 0x1177e0b1ec7ULL
#define DEAD 0xdeadbeefdeadULL

struct torture_obj {
	struct rcu_head rh;
	u64 magic;		/* [A] LIVE, DEAD once its grace period ended */
	u64 retire_gp;		/* [A] grace periods completed when it was unpublished */
	int retired;		/* [A] set with release after retire_gp */
};

static struct kmem_cache *obj_cache;
static struct torture_obj *cur;		/* [R] the published object */
static spinlock_t upd_lock = SPINLOCK_INIT("torture_upd");
static int stop;			/* [A] */
static int errors;			/* [A] */
static u64 reads, updates;		/* [A] */
static u64 age_hist[4];			/* [A] reader-observed ages 0, 1, 2, 3+ */
static char first_error[120];

static void torture_error(const char *what, u64 v)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_ACQ_REL) == 0)
		snprintf(first_error, sizeof(first_error), "%s (%llu) on cpu%d", what,
			 (unsigned long long)v, smp_processor_id());
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);	/* stop at the first one */
}

static void torture_free(struct rcu_head *rh)
{
	struct torture_obj *o = container_of(rh, struct torture_obj, rh);
	__atomic_store_n(&o->magic, DEAD, __ATOMIC_RELEASE);
	kmem_cache_free(obj_cache, o);
}

static struct torture_obj *new_obj(void)
{
	struct torture_obj *o = kmem_cache_alloc(obj_cache);
	if (o) {
		o->magic = LIVE;
		o->retired = 0;
	}
	return o;
}

static int torture_updater(void *arg)
{
	u64 seed = (u64)(long)arg * 7919 + 1;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct torture_obj *o = new_obj();
		if (!o) {
			msleep(1);
			continue;
		}
		unsigned long f = spin_lock_irqsave(&upd_lock);
		struct torture_obj *old = cur;
		rcu_assign_pointer(cur, o);
		spin_unlock_irqrestore(&upd_lock, f);
		old->retire_gp = rcu_gp_completed();
		__atomic_store_n(&old->retired, 1, __ATOMIC_RELEASE);
		call_rcu(&old->rh, torture_free);
		__atomic_add_fetch(&updates, 1, __ATOMIC_RELAXED);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		if ((seed >> 33) % 4 == 0)
			msleep(1);
		else
			yield();
	}
	return 0;
}

static int torture_reader(void *arg)
{
	u64 seed = (u64)(long)arg * 104729 + 3, n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		rcu_read_lock();
		struct torture_obj *p = rcu_dereference(cur);
		/* Mostly short readers; now and then one spanning a few ticks. */
		udelay((seed >> 40) % 64 == 0 ? 25000 : (seed >> 33) % 20);
		u64 magic = __atomic_load_n(&p->magic, __ATOMIC_ACQUIRE);
		if (magic != LIVE)
			torture_error("reader saw a freed (poisoned) object", magic);
		if (__atomic_load_n(&p->retired, __ATOMIC_ACQUIRE)) {
			u64 age = rcu_gp_completed() - p->retire_gp;
			__atomic_add_fetch(&age_hist[age > 3 ? 3 : age], 1, __ATOMIC_RELAXED);
			if (age > 1)
				torture_error("grace periods ended under a reader: age", age);
		}
		rcu_read_unlock();
		n++;
		if (n % 8 == 0)
			yield();
	}
	__atomic_add_fetch(&reads, n, __ATOMIC_RELAXED);
	return 0;
}

KTEST(rcutorture)
{
	struct task *t[MAX_CPUS + 4];
	int nt = 0, ncpu = num_online_cpus();
	u64 secs = cmdline_get_u64("test.rcutorture_seconds", 3);
	struct rcu_stats before, after;

	if (!obj_cache)
		obj_cache = kmem_cache_create("torture_obj", sizeof(struct torture_obj), 0);
	KT_NOT_NULL(obj_cache);
	stop = errors = 0;
	reads = updates = 0;
	memset(age_hist, 0, sizeof(age_hist));
	cur = new_obj();
	KT_NOT_NULL(cur);
	rcu_get_stats(&before);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		t[nt] = kthread_create(torture_reader, (void *)(long)cpu, "torture_rd");
		KT_NOT_NULL(t[nt]);
		kthread_bind(t[nt], cpu);
		wake_up_process(t[nt++]);
	}
	for (int i = 0; i < 2; i++) {
		t[nt] = kthread_create(torture_updater, (void *)(long)i, "torture_up");
		KT_NOT_NULL(t[nt]);
		kthread_bind(t[nt], (ncpu - 1 - i + ncpu) % ncpu);
		wake_up_process(t[nt++]);
	}
	u64 end = ktime_ns() + secs * 1000000000ULL;
	while (ktime_ns() < end && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		msleep(10);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nt; i++)
		kthread_join(t[i]);
	struct torture_obj *last = cur;
	cur = NULL;
	call_rcu(&last->rh, torture_free);
	rcu_barrier();
	rcu_get_stats(&after);
	pr_info("rcutorture: %llu reads, %llu updates, %llu grace periods (avg %llu us); ages 0:%llu 1:%llu 2:%llu 3+:%llu",
		(unsigned long long)reads, (unsigned long long)updates,
		(unsigned long long)(after.gp_completed - before.gp_completed),
		(unsigned long long)after.gp_avg_ns / 1000,
		(unsigned long long)age_hist[0], (unsigned long long)age_hist[1],
		(unsigned long long)age_hist[2], (unsigned long long)age_hist[3]);
	if (errors)
		KT_FAIL("%d errors; first: %s", errors, first_error);
	KT_GT(reads, 0);
	KT_GT(updates, 0);
	KT_GT(after.gp_completed, before.gp_completed);
	KT_EQ(after.cbs_queued, after.cbs_invoked);
}

/* synchronize_rcu must wait for a reader that began before it. */
static int reader_done;		/* [A] */
static int reader_started;	/* [A] */

static int slow_reader(void *arg)
{
	rcu_read_lock();
	__atomic_store_n(&reader_started, 1, __ATOMIC_RELEASE);
	udelay(50000);
	__atomic_store_n(&reader_done, 1, __ATOMIC_RELEASE);
	rcu_read_unlock();
	return 0;
}

KTEST(rcu_synchronize_waits_for_preexisting_reader)
{
	/* With one CPU the reader runs to its end before we run again: the
	 * check then holds trivially; with more it is a real race. */
	reader_done = reader_started = 0;
	struct task *t = kthread_create(slow_reader, NULL, "slow_reader");
	KT_NOT_NULL(t);
	kthread_bind(t, num_online_cpus() > 1 ? 1 : 0);
	wake_up_process(t);
	while (!__atomic_load_n(&reader_started, __ATOMIC_ACQUIRE))
		yield();
	synchronize_rcu();
	KT_EQ(__atomic_load_n(&reader_done, __ATOMIC_ACQUIRE), 1);
	kthread_join(t);
}

static int barrier_hits;	/* [A] */

static void count_cb(struct rcu_head *h)
{
	__atomic_add_fetch(&barrier_hits, 1, __ATOMIC_RELAXED);
	kfree(h);
}

static void queue_some(void *arg)
{
	for (int i = 0; i < 10; i++) {
		struct rcu_head *h = kmalloc(sizeof(*h));
		if (h)
			call_rcu(h, count_cb);
		else
			__atomic_add_fetch(&barrier_hits, 1, __ATOMIC_RELAXED);
	}
}

KTEST(rcu_barrier_waits_for_every_queued_callback)
{
	barrier_hits = 0;
	smp_call_function(CALL_ALL, queue_some, NULL, true);
	rcu_barrier();
	KT_EQ(__atomic_load_n(&barrier_hits, __ATOMIC_ACQUIRE), 10 * num_online_cpus());
}

static void free_cb(struct rcu_head *h)
{
	kfree(h);
}

KTEST(rcu_call_rcu_flood_returns_memory)
{
	rcu_barrier();
	drain_all_pages();
	unsigned long free0 = nr_free_pages();
	for (int i = 0; i < 100000; i++) {
		struct rcu_head *h = kmalloc(sizeof(*h));
		KT_NOT_NULL(h);
		call_rcu(h, free_cb);
		if (i % 1000 == 0)
			yield();
	}
	rcu_barrier();
	drain_all_pages();
	/* Slab may keep a few empty pages per cache; nearly all must be back. */
	KT_GE(nr_free_pages() + 64, free0);
}

KTEST_EXPECT_PANIC(rcu_synchronize_inside_reader_is_bug, "synchronize_rcu inside a read-side critical section")
{
	rcu_read_lock();
	synchronize_rcu();
	rcu_read_unlock();
}
