/*
 * rwsem.c - reader-writer semaphores (the rules are in kernel/rwsem.h).
 *
 * Readers usually take no spinlock at all (rwsem.h, R1-R4). Each sleeper
 * has an entry on its stack. A reader is let in by whoever releases (up_read,
 * up_write): it counts the reader as inside, unlinks it, sets `granted` and
 * wakes it. A writer at the head is only woken (`woken`) and lets itself in
 * under wait_lock, unlinking its own entry - unless it holds the hand-off
 * (`handoff`), when the releaser lets it in like a reader. Every flag is
 * read and written under wait_lock, so, as in mutex.c, no wake-up is lost
 * and no entry is used after its owner has left.
 *
 * Lock order: 'rwsem.wait_lock' -> 'rq' (up_read, up_write -> wake_up_process).
 */
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/panic.h"
#include "kernel/time.h"

CMDLINE_KEY(broken_rwsem, "debug.broken_rwsem",
	    "tests of tests: break rw-semaphores on purpose (writer, readers, starve, "
	    "nohandoff or fifo)");

struct rwsem_waiter {
	struct task *task;		/* [I] */
	bool write;			/* [I] waits to write */
	u64 since;			/* [I] when it queued (ktime_ns) */
	bool granted;			/* [L:wait_lock] let in by up_read/up_write */
	bool woken;			/* [L:wait_lock] a writer woken to try for itself */
	bool handoff;			/* [L:wait_lock] a writer that was woken and lost:
					 * the next release lets it in, and no writer
					 * may take the semaphore past it */
	struct list_head link;		/* [L:wait_lock] on sem->waiters */
};

enum broken_mode { BROKEN_UNKNOWN = -1, BROKEN_NONE, BROKEN_WRITER, BROKEN_READERS, BROKEN_STARVE,
		   BROKEN_NOHANDOFF, BROKEN_FIFO };

/* The debug.broken_rwsem mode, parsed once (racing first users agree). */
static enum broken_mode broken_mode(void)
{
	static int cached = BROKEN_UNKNOWN;	/* [A] */
	int m = READ_ONCE(cached);
	if (m == BROKEN_UNKNOWN) {
		const char *v = cmdline_get("debug.broken_rwsem");
		m = !v ? BROKEN_NONE : !strcmp(v, "writer") ? BROKEN_WRITER :
		    !strcmp(v, "readers") ? BROKEN_READERS :
		    !strcmp(v, "starve") ? BROKEN_STARVE :
		    !strcmp(v, "nohandoff") ? BROKEN_NOHANDOFF :
		    !strcmp(v, "fifo") ? BROKEN_FIFO : BROKEN_NONE;
		WRITE_ONCE(cached, m);
	}
	return m;
}

static bool broken(enum broken_mode mode)
{
	return broken_mode() == mode;
}

void init_rwsem(struct rw_semaphore *sem, const char *name)
{
	spin_lock_init(&sem->wait_lock, "rwsem.wait_lock");
	sem->count = 0;
	sem->writer = NULL;
	list_init(&sem->waiters);
	sem->name = name;
	sem->dep_class = 0;
}

/* Readers inside now (a snapshot unless wait_lock and SLOW keep it still). */
static long readers_inside(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_ACQUIRE) >> 1;
}

/* R1: set SLOW (lock or: a full barrier, so our next look at count is fresh). */
static void set_slow(struct rw_semaphore *sem)
{
	__atomic_or_fetch(&sem->count, RWSEM_SLOW, __ATOMIC_SEQ_CST);
}

/* R1: clear SLOW once no writer is inside and nobody waits; wait_lock held. */
static void update_slow(struct rw_semaphore *sem)
{
	if (!sem->writer && list_empty(&sem->waiters) && broken_mode() == BROKEN_NONE)
		__atomic_and_fetch(&sem->count, ~RWSEM_SLOW, __ATOMIC_RELEASE);
}

/* May a reader enter now, ignoring the queue? wait_lock held. (A writer: writer_enter.) */
static bool reader_fits(struct rw_semaphore *sem)
{
	return !sem->writer && (readers_inside(sem) == 0 || !broken(BROKEN_READERS));
}

/* A reader in by the slow path; wait_lock held. */
static void reader_enter(struct rw_semaphore *sem)
{
	__atomic_add_fetch(&sem->count, 2, __ATOMIC_ACQUIRE);
}

/*
 * A writer in, if it fits; wait_lock held. R3: from "no readers" straight
 * to SLOW in one cmpxchg (a fast reader arriving in between makes it fail).
 */
static bool writer_enter(struct rw_semaphore *sem, struct task *t)
{
	if (sem->writer)
		return false;
	if (broken(BROKEN_WRITER)) {		/* deliberately broken: readers or not */
		set_slow(sem);
		sem->writer = t;
		return true;
	}
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	if ((c >> 1) != 0 ||
	    !__atomic_compare_exchange_n(&sem->count, &c, RWSEM_SLOW, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	sem->writer = t;
	return true;
}

/* The fast read side (R2): SLOW clear and no broken mode. x86-64: lock cmpxchg. */
static bool read_fast(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
	while (!(c & RWSEM_SLOW) && broken_mode() == BROKEN_NONE)
		if (__atomic_compare_exchange_n(&sem->count, &c, c + 2, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * A writer that finds another writer inside, running, spins before it
 * queues, at most RWSEM_SPIN_NS a try (sched_spin_on_owner, as in
 * mutex.c). A queued writer that was woken and lost to a running writer
 * takes the hand-off once it has waited RWSEM_HANDOFF_NS since it queued.
 */
#define RWSEM_SPIN_NS 50000
#define RWSEM_HANDOFF_NS 1000000

/* The oldest sleeper, or NULL; wait_lock held. */
static struct rwsem_waiter *first_waiter(struct rw_semaphore *sem)
{
	return list_empty(&sem->waiters) ? NULL
					 : list_first_entry(&sem->waiters, struct rwsem_waiter, link);
}

/*
 * Does the first sleeper, a writer, hold the hand-off? (Under
 * debug.broken_rwsem=fifo, every one does: strict FIFO, the convoy.)
 * wait_lock held.
 */
static bool handoff_due(struct rwsem_waiter *w)
{
	return w && (w->handoff || broken(BROKEN_FIFO));
}

/* May a running writer take a free semaphore past the sleepers? wait_lock held. */
static bool may_steal(struct rw_semaphore *sem)
{
	return !handoff_due(first_waiter(sem));
}

/*
 * Queue behind everybody and sleep until inside; wait_lock held, dropped.
 * A reader is let in by whoever releases (granted). A writer is let in
 * only once it holds the hand-off; before that a release just wakes it
 * (woken) and it enters by itself, if no running writer took the
 * semaphore first.
 */
static void wait_inside(struct rw_semaphore *sem, bool write)
{
	struct rwsem_waiter w = { current_task(), write, ktime_ns(), false, false, false,
				  { NULL, NULL } };

	list_add_tail(&w.link, &sem->waiters);
	for (;;) {
		if (w.granted)
			break;			/* let in and unlinked by the releaser */
		if (write && first_waiter(sem) == &w && writer_enter(sem, w.task)) {
			list_del(&w.link);	/* SLOW stays set: a writer is inside (R1) */
			break;
		}
		if (w.woken && ktime_ns() - w.since >= RWSEM_HANDOFF_NS &&
		    !broken(BROKEN_NOHANDOFF))
			w.handoff = true;	/* lost to running writers for too long */
		set_current_state(TASK_SLEEPING);
		spin_unlock(&sem->wait_lock);
		schedule();
		spin_lock(&sem->wait_lock);
	}
	spin_unlock(&sem->wait_lock);
}

/* lockdep's view (kernel/lockdep.h): taken before waiting, or after a trylock. */
static void dep_acquire(struct rw_semaphore *sem, unsigned flags, unsigned long site)
{
	if (lockdep_enabled())
		lockdep_acquire(sem, sem->name, &sem->dep_class, 0, flags | LOCKDEP_SLEEPING, site);
}

static void dep_release(struct rw_semaphore *sem)
{
	if (lockdep_enabled())
		lockdep_release(sem, LOCKDEP_SLEEPING);
}

void down_read(struct rw_semaphore *sem)
{
	might_sleep();
	dep_acquire(sem, LOCKDEP_READ, LOCKDEP_SITE());
	if (read_fast(sem))
		return;
	spin_lock(&sem->wait_lock);
	/* Anyone waiting (a writer, or readers behind one) goes first. */
	if (reader_fits(sem) && (list_empty(&sem->waiters) || broken(BROKEN_STARVE))) {
		reader_enter(sem);
		spin_unlock(&sem->wait_lock);
		return;
	}
	set_slow(sem);		/* R1 before we queue (R4's other half) */
	wait_inside(sem, false);
}

void down_write(struct rw_semaphore *sem)
{
	struct task *me = current_task();

	might_sleep();
	dep_acquire(sem, 0, LOCKDEP_SITE());
	spin_lock(&sem->wait_lock);
	if (sem->writer == me)
		panic("BUG: rwsem '%s': recursive down_write by '%s' (tid %d)", sem->name,
		      me->name, me->tid);
	for (int tries = 0; sem->writer && tries < 4; tries++) {
		spin_unlock(&sem->wait_lock);
		bool moved = sched_spin_on_owner(&sem->writer, RWSEM_SPIN_NS);
		spin_lock(&sem->wait_lock);
		if (!moved)
			break;
	}
	if (may_steal(sem)) {
		if (writer_enter(sem, me)) {
			spin_unlock(&sem->wait_lock);
			return;
		}
		/* Readers inside: stop new fast ones, then look once more (R4). */
		set_slow(sem);
		if (writer_enter(sem, me)) {
			spin_unlock(&sem->wait_lock);
			return;
		}
	}
	set_slow(sem);
	wait_inside(sem, true);
}

bool down_read_trylock(struct rw_semaphore *sem)
{
	bool got = read_fast(sem);
	if (!got) {
		spin_lock(&sem->wait_lock);
		got = reader_fits(sem) && list_empty(&sem->waiters);
		if (got)
			reader_enter(sem);
		spin_unlock(&sem->wait_lock);
	}
	if (got)
		dep_acquire(sem, LOCKDEP_READ | LOCKDEP_TRY, LOCKDEP_SITE());
	return got;
}

bool down_write_trylock(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	bool got = may_steal(sem) && writer_enter(sem, current_task());
	update_slow(sem);	/* a failed try leaves SLOW as it found it */
	spin_unlock(&sem->wait_lock);
	if (got)
		dep_acquire(sem, LOCKDEP_TRY, LOCKDEP_SITE());
	return got;
}

/* Let w in (already counted inside), unlink and wake it; wait_lock held. */
static void grant(struct rw_semaphore *sem, struct rwsem_waiter *w)
{
	list_del(&w->link);
	w->granted = true;
	wake_up_process(w->task);
}

/*
 * The semaphore was released: let in the readers at the head of the queue
 * that fit, or, for a writer at the head, wake it to take the semaphore
 * itself (let it in outright if it holds the hand-off). wait_lock held.
 */
static void grant_waiters(struct rw_semaphore *sem)
{
	while (!list_empty(&sem->waiters)) {
		struct rwsem_waiter *w = list_first_entry(&sem->waiters, struct rwsem_waiter, link);
		if (w->write) {
			if (handoff_due(w)) {
				if (writer_enter(sem, w->task))
					grant(sem, w);
			} else if (!sem->writer && readers_inside(sem) == 0) {
				w->woken = true;	/* free: it may take it itself */
				wake_up_process(w->task);
			}
			return;		/* no reader overtakes a waiting writer */
		}
		if (!reader_fits(sem))
			return;
		reader_enter(sem);
		grant(sem, w);
	}
}

void up_read(struct rw_semaphore *sem)
{
	dep_release(sem);
	/* Release: our reads inside happen before a writer's entry. x86-64: lock xadd. */
	long c = __atomic_sub_fetch(&sem->count, 2, __ATOMIC_RELEASE);
	if (c < 0)
		panic("BUG: rwsem '%s': up_read without down_read", sem->name);
	if (!(c & RWSEM_SLOW))
		return;			/* nobody waits (R4) */
	spin_lock(&sem->wait_lock);
	grant_waiters(sem);
	update_slow(sem);
	spin_unlock(&sem->wait_lock);
}

void up_write(struct rw_semaphore *sem)
{
	struct task *me = current_task();

	spin_lock(&sem->wait_lock);
	if (sem->writer != me)
		panic("BUG: rwsem '%s': up_write by '%s' (tid %d), writer '%s'", sem->name,
		      me->name, me->tid, sem->writer ? sem->writer->name : "(none)");
	dep_release(sem);
	sem->writer = NULL;
	grant_waiters(sem);
	update_slow(sem);
	spin_unlock(&sem->wait_lock);
}

int rwsem_nr_waiters(struct rw_semaphore *sem)
{
	int n = 0;
	struct list_head *p;

	spin_lock(&sem->wait_lock);
	list_for_each(p, &sem->waiters)
		n++;
	spin_unlock(&sem->wait_lock);
	return n;
}

bool rwsem_is_write_locked(struct rw_semaphore *sem)
{
	return READ_ONCE(sem->writer) != NULL;
}
