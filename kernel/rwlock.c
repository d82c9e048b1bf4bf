/*
 * rwlock.c - the reader-writer spinlock; rwlock.h states the protocol
 * (steps R1, R2, W1, W2) and why it excludes and does not starve.
 *
 * Lock order: none; this file takes no lock but the one asked for (a wait
 * report takes the console lock through printk). lockdep's hooks sit where
 * spinlock.c's do: before waiting, and before letting go.
 */
#include "kernel/rwlock.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"

CMDLINE_KEY(broken_rwlock, "debug.broken_rwlock",
	    "1: break the test rwlocks (no writer preference, racy writers) so the tests must fail");

#define RW_BUSY (RW_WRITER | RW_WAITING)	/* either bit stops a reader */
#define BACKOFF_MAX 256				/* pauses */
#define WAIT_REPORT_NS 1000000000ULL		/* one second */

/* [I] after rwlock_init_from_cmdline: break the locks marked test. */
static bool broken_test_locks;

static const char *rw_name(const rwlock_t *l)
{
	return l->name ? l->name : "?";
}

void rwlock_init(rwlock_t *l, const char *name)
{
	*l = (rwlock_t)RWLOCK_INIT(name);
}

void rwlock_init_test(rwlock_t *l, const char *name)
{
	*l = (rwlock_t)RWLOCK_INIT_TEST(name);
}

void rwlock_init_from_cmdline(void)
{
	const char *broken = cmdline_get("debug.broken_rwlock");

	broken_test_locks = broken && strcmp(broken, "0") != 0;
	if (broken_test_locks)
		pr_warn("rwlock: debug.broken_rwlock: test rwlocks are deliberately broken");
}

static bool is_broken(const rwlock_t *l)
{
	return unlikely(l->test) && broken_test_locks;
}

/* Relaxed snapshot of the word, for waiting and for reports. x86-64: mov. */
static u32 rw_peek(const rwlock_t *l)
{
	return READ_ONCE(l->word);
}

unsigned rwlock_readers(const rwlock_t *l)
{
	return rw_peek(l) / RW_READER;
}

bool rwlock_is_write_held(const rwlock_t *l)
{
	return (rw_peek(l) & RW_WRITER) && READ_ONCE(l->writer) == smp_processor_id();
}

/* ------------------------------------------------------- slow waiting */

/* A waiter's clock, for the one report of a wait of over a second. */
struct rw_wait {
	u64 since_ns;		/* 0 until the first look */
	bool reported;
};

static void rw_wait_check(const rwlock_t *l, struct rw_wait *w, const char *side)
{
	u64 now = ktime_ns();
	int writer;

	if (now == 0 || w->reported)
		return;
	if (w->since_ns == 0) {
		w->since_ns = now;
		return;
	}
	if (now - w->since_ns < WAIT_REPORT_NS)
		return;
	w->reported = true;
	writer = READ_ONCE(l->writer);	/* racy, plain mov: only for the report */
	pr_err("rwlock '%s': cpu%d has waited over 1 s for the %s side (word %#x: %u readers%s)",
	       rw_name(l), smp_processor_id(), side, rw_peek(l), rwlock_readers(l),
	       writer >= 0 ? ", a writer" : "");
	if (writer >= 0 && writer < MAX_CPUS && writer != smp_processor_id()) {
		pr_err("rwlock '%s': the writer is cpu%d", rw_name(l), writer);
		smp_send_nmi_backtrace(writer);
	}
}

/* Pause for *delay rounds, doubling it up to the cap. */
static void backoff(unsigned *delay)
{
	for (unsigned i = 0; i < *delay; i++)
		cpu_relax();
	if (*delay < BACKOFF_MAX)
		*delay <<= 1;
}

/* --------------------------------------------------------------- readers */

/* What keeps a reader out: RW_BUSY, or only RW_WRITER when deliberately broken. */
static u32 reader_stoppers(const rwlock_t *l)
{
	return is_broken(l) ? RW_WRITER : RW_BUSY;
}

/* R1: one lock xadd; true when no writer held or awaited the lock. */
static bool read_try(rwlock_t *l, u32 stop)
{
	/* Acquire: the critical section's reads stay below. x86-64: lock xadd. */
	u32 old = __atomic_fetch_add(&l->word, RW_READER, __ATOMIC_ACQUIRE);

	if (likely(!(old & stop)))
		return true;
	/* Relaxed: we read nothing under the lock. x86-64: lock xadd. */
	__atomic_fetch_sub(&l->word, RW_READER, __ATOMIC_RELAXED);
	return false;
}

void read_lock(rwlock_t *l)
{
	struct rw_wait w = { 0 };
	unsigned delay = 1;
	u32 stop = reader_stoppers(l);

	preempt_disable();
	if (lockdep_enabled())
		lockdep_acquire(l, l->name, &l->dep_class, 0, LOCKDEP_READ, LOCKDEP_SITE());
	/* The first look is the R1 add itself: no writer about, one atomic op. */
	while (!read_try(l, stop)) {
		while (rw_peek(l) & stop) {
			backoff(&delay);
			rw_wait_check(l, &w, "read");
		}
	}
}

void read_unlock(rwlock_t *l)
{
	if (lockdep_enabled())
		lockdep_release(l, 0);
	/* R2. Release: the critical section's reads come first. x86-64: lock xadd. */
	u32 old = __atomic_fetch_sub(&l->word, RW_READER, __ATOMIC_RELEASE);

	if (unlikely(old < RW_READER))
		panic("rwlock '%s': read_unlock on cpu%d with no reader inside (word %#x)",
		      rw_name(l), smp_processor_id(), old);
	preempt_enable();
}

/* --------------------------------------------------------------- writers */

/*
 * The deliberate bug (debug.broken_rwlock, test locks only): the test for a
 * free word and the setting of RW_WRITER are two steps, so two writers (or
 * a writer and a late reader) can both get in. The set is still a lock or,
 * so the reader count stays whole and every writer's W2 clears what it set,
 * and RW_WAITING is cleared as W1's cmpxchg clears it: the lock lets too
 * many in but never hangs, and the word ends as a sound lock's would, so
 * what the tests see is the lost update itself. The window between the
 * look and the set is 20 us wide, so that two writers meet in it even on a
 * loaded host, where a vCPU may run only now and then.
 */
static bool broken_write_try(rwlock_t *l, u32 seen)
{
	if (seen & ~RW_WAITING)
		return false;
	udelay(20);	/* widen the window, so tests see the race */
	/* The race is between the look above and this. x86-64: lock or. */
	__atomic_fetch_or(&l->word, RW_WRITER, __ATOMIC_ACQUIRE);
	__atomic_fetch_and(&l->word, ~RW_WAITING, __ATOMIC_RELAXED);
	return true;
}

/* W1: true when the word held no writer and no reader, and is now ours. */
static bool write_try(rwlock_t *l, u32 seen)
{
	if (is_broken(l))
		return broken_write_try(l, seen);
	if (seen & ~RW_WAITING)
		return false;
	/* Acquire on success; also clears RW_WAITING. x86-64: lock cmpxchg. */
	return __atomic_compare_exchange_n(&l->word, &seen, RW_WRITER, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

void write_lock(rwlock_t *l)
{
	struct rw_wait w = { 0 };
	unsigned delay = 1;
	int self = smp_processor_id();
	u32 seen;

	preempt_disable();
	/* Only this CPU stores its own number into writer, and clears it
	 * before W2: reading it back means we hold the lock already. */
	if (unlikely(READ_ONCE(l->writer) == self))
		panic("rwlock '%s': recursive write lock on cpu%d", rw_name(l), self);
	if (lockdep_enabled())
		lockdep_acquire(l, l->name, &l->dep_class, 0, 0, LOCKDEP_SITE());
	while (!write_try(l, seen = rw_peek(l))) {
		if (!(seen & RW_WAITING))
			/* Relaxed: a flag for readers, no data. x86-64: lock or. */
			__atomic_fetch_or(&l->word, RW_WAITING, __ATOMIC_RELAXED);
		backoff(&delay);
		rw_wait_check(l, &w, "write");
	}
	WRITE_ONCE(l->writer, self);	/* plain mov, under the lock */
}

void write_unlock(rwlock_t *l)
{
	int self = smp_processor_id(), writer = READ_ONCE(l->writer);	/* plain mov */

	/* A broken lock can have two writers at once: its writer means nothing. */
	if (unlikely(writer != self) && !is_broken(l))
		panic("rwlock '%s': write_unlock by non-owner cpu%d (writer cpu%d)", rw_name(l),
		      self, writer);
	if (lockdep_enabled())
		lockdep_release(l, 0);
	WRITE_ONCE(l->writer, -1);	/* plain mov, before W2 */
	/* W2. Release: the critical section comes first. x86-64: lock and. */
	__atomic_fetch_and(&l->word, ~RW_WRITER, __ATOMIC_RELEASE);
	preempt_enable();
}
