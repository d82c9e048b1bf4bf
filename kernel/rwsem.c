/*
 * rwsem.c - reader-writer semaphores (the rules are in kernel/rwsem.h).
 *
 * Each sleeper has an entry on its stack with a `granted` flag. Whoever
 * lets it in (up_read, up_write) counts it as inside, unlinks it, sets
 * granted and wakes it, all under wait_lock; the sleeper reads granted only
 * under wait_lock. So, as in mutex.c, no wake-up is lost and no entry is
 * used after its owner has left.
 *
 * Lock order: 'rwsem.wait_lock' -> 'rq' (up_read, up_write -> wake_up_process).
 */
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/panic.h"

CMDLINE_KEY(broken_rwsem, "debug.broken_rwsem",
	    "tests of tests: break rw-semaphores on purpose (writer, readers or starve)");

struct rwsem_waiter {
	struct task *task;		/* [I] */
	bool write;			/* [I] waits to write */
	bool granted;			/* [L:wait_lock] let in by up_read/up_write */
	struct list_head link;		/* [L:wait_lock] on sem->waiters */
};

enum broken_mode { BROKEN_UNKNOWN = -1, BROKEN_NONE, BROKEN_WRITER, BROKEN_READERS, BROKEN_STARVE };

/* The debug.broken_rwsem mode, parsed once (racing first users agree). */
static enum broken_mode broken_mode(void)
{
	static int cached = BROKEN_UNKNOWN;	/* [A] */
	int m = READ_ONCE(cached);
	if (m == BROKEN_UNKNOWN) {
		const char *v = cmdline_get("debug.broken_rwsem");
		m = !v ? BROKEN_NONE : !strcmp(v, "writer") ? BROKEN_WRITER :
		    !strcmp(v, "readers") ? BROKEN_READERS :
		    !strcmp(v, "starve") ? BROKEN_STARVE : BROKEN_NONE;
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
	sem->readers = 0;
	sem->writer = NULL;
	list_init(&sem->waiters);
	sem->name = name;
	sem->dep_class = 0;
}

/* May a reader / writer enter now, ignoring the queue? wait_lock held. */
static bool reader_fits(struct rw_semaphore *sem)
{
	return !sem->writer && (sem->readers == 0 || !broken(BROKEN_READERS));
}

static bool writer_fits(struct rw_semaphore *sem)
{
	return !sem->writer && (sem->readers == 0 || broken(BROKEN_WRITER));
}

/* Queue behind everybody and sleep until granted; wait_lock held, dropped. */
static void wait_granted(struct rw_semaphore *sem, bool write)
{
	struct rwsem_waiter w = { current_task(), write, false, { NULL, NULL } };

	list_add_tail(&w.link, &sem->waiters);
	while (!w.granted) {
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
	spin_lock(&sem->wait_lock);
	/* Anyone waiting (a writer, or readers behind one) goes first. */
	if (reader_fits(sem) && (list_empty(&sem->waiters) || broken(BROKEN_STARVE))) {
		sem->readers++;
		spin_unlock(&sem->wait_lock);
		return;
	}
	wait_granted(sem, false);
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
	if (writer_fits(sem) && list_empty(&sem->waiters)) {
		sem->writer = me;
		spin_unlock(&sem->wait_lock);
		return;
	}
	wait_granted(sem, true);
}

bool down_read_trylock(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	bool got = reader_fits(sem) && list_empty(&sem->waiters);
	if (got)
		sem->readers++;
	spin_unlock(&sem->wait_lock);
	if (got)
		dep_acquire(sem, LOCKDEP_READ | LOCKDEP_TRY, LOCKDEP_SITE());
	return got;
}

bool down_write_trylock(struct rw_semaphore *sem)
{
	spin_lock(&sem->wait_lock);
	bool got = writer_fits(sem) && list_empty(&sem->waiters);
	if (got)
		sem->writer = current_task();
	spin_unlock(&sem->wait_lock);
	if (got)
		dep_acquire(sem, LOCKDEP_TRY, LOCKDEP_SITE());
	return got;
}

static void grant(struct rw_semaphore *sem, struct rwsem_waiter *w)
{
	list_del(&w->link);
	w->granted = true;
	wake_up_process(w->task);
}

/* Let in the waiters at the head of the queue that fit; wait_lock held. */
static void grant_waiters(struct rw_semaphore *sem)
{
	while (!list_empty(&sem->waiters)) {
		struct rwsem_waiter *w = list_first_entry(&sem->waiters, struct rwsem_waiter, link);
		if (w->write) {
			if (writer_fits(sem)) {
				sem->writer = w->task;
				grant(sem, w);
			}
			return;		/* nobody overtakes a waiting writer */
		}
		if (!reader_fits(sem))
			return;
		sem->readers++;
		grant(sem, w);
	}
}

void up_read(struct rw_semaphore *sem)
{
	dep_release(sem);
	spin_lock(&sem->wait_lock);
	BUG_ON(sem->readers <= 0, "up_read without down_read");
	sem->readers--;
	grant_waiters(sem);
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
