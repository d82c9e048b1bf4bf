/*
 * spinlock.c - test-and-test-and-set and ticket spinlocks, with debug checks.
 *
 * spinlock.h describes the two kinds and the lock word. Here:
 *
 *   TAS     try one lock xchg; when it fails, spin on plain reads (the line
 *           stays shared in the waiters' caches) and only try the xchg
 *           again once the lock looks free, pausing a little longer after
 *           each round, up to a cap, so a crowd of waiters does not keep
 *           the line bouncing (Anderson 1990).
 *   ticket  take a ticket with one lock xadd on the whole word (adding to
 *           the high half, tail; a carry out of it falls off the word),
 *           then spin until head reaches it. Only the holder writes head,
 *           so the release is a plain 16-bit store of head + 1.
 *
 * The ticket lock mixes a 32-bit xadd with 16-bit loads and stores of the
 * same bytes. x86-64 keeps naturally aligned accesses of any size to one
 * location coherent; C11 has no words for mixed-size atomics, so this is
 * an x86-64 fact, not a portable one.
 *
 * Debug state (owner, seq, irq_use, irq_on_site) is written with plain
 * stores by the holder only, inside the critical section, so it costs the
 * fast path a few movs to a line the lock already owns. The checks that run
 * before the lock is taken (recursion, the watchdog) read owner and seq
 * racily, with READ_ONCE; why that is sound is written beside each.
 *
 * Lock order: none; this file takes no lock but the one asked for (the
 * watchdog's report takes the console lock through printk).
 *
 * lockdep's hooks (kernel/lockdep.h): lockdep_acquire before waiting, so an
 * order inversion is reported instead of deadlocking; after a successful
 * trylock; lockdep_release before the lock is let go. With lockdep=off
 * each costs one load and a branch.
 */
#include "kernel/spinlock.h"
#include "kernel/rwlock.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/ksyms.h"
#include "kernel/string.h"

CMDLINE_KEY(lock_kind, "lock.kind", "spinlock kind for ordinary locks: tas (default) or ticket");
CMDLINE_KEY(broken_spinlock, "debug.broken_spinlock",
	    "1: break the test locks (plain read-then-write) so the lock tests must fail");

#define BACKOFF_MAX 256			/* pauses, the cap of a TAS waiter's backoff */
#define TICKET_CHECK_EVERY 64		/* ticket spins between watchdog checks */
#define WATCHDOG_NS 1000000000ULL	/* one second */
#define TICKET_ONE (1u << 16)		/* one ticket: tail is the high half */

/* [I] after spinlock_init_from_cmdline: what SPIN_DEFAULT means. */
static enum spin_kind default_kind = SPIN_TAS;
/* [I] after spinlock_init_from_cmdline: break locks marked test. */
static bool broken_test_locks;
/* [P] per CPU: a watchdog report is being printed (printk may spin too). */
static bool watchdog_busy[MAX_CPUS];
/* [A] reports printed since boot. */
static unsigned long watchdog_reports;

static const char *lock_name(const spinlock_t *l)
{
	return l->name ? l->name : "?";
}

void preempt_count_underflow(void)
{
	panic("preempt_enable: preempt_count underflow on cpu%d", smp_processor_id());
}

/* ------------------------------------------------------------ set-up */

void spin_lock_init_kind(spinlock_t *l, const char *name, enum spin_kind kind)
{
	*l = (spinlock_t)SPINLOCK_INIT_KIND(name, kind);
}

void spin_lock_init(spinlock_t *l, const char *name)
{
	spin_lock_init_kind(l, name, SPIN_DEFAULT);
}

void spin_lock_init_test(spinlock_t *l, const char *name, enum spin_kind kind)
{
	*l = (spinlock_t)SPINLOCK_INIT_TEST(name, kind);
}

enum spin_kind spin_lock_kind(const spinlock_t *l)
{
	return l->kind != SPIN_DEFAULT ? (enum spin_kind)l->kind : default_kind;
}

const char *spin_kind_name(enum spin_kind kind)
{
	return kind == SPIN_TICKET ? "ticket" : kind == SPIN_TAS ? "tas" : "default";
}

/*
 * Also reads the rwlock's switch (rwlock_init_from_cmdline) and lockdep's
 * (lockdep_init), so kmain has one call for the lock toolkit. lockdep may
 * start here because no lock is held (checked below).
 *
 * Changing what SPIN_DEFAULT means is safe only while no default-kind lock
 * is held, because a held TAS word (1) is not a held ticket word. Here the
 * boot CPU is the only CPU running and its preempt_count is 0, so it holds
 * no spinlock (every spin_lock raises the count). Until now SPIN_DEFAULT
 * meant tas, and a free TAS word is 0, which is also a free ticket word
 * (head == tail == 0); so every default-kind lock is free under either
 * meaning. The value is never changed again.
 */
void spinlock_init_from_cmdline(void)
{
	static bool done;
	const char *kind = cmdline_get("lock.kind");
	const char *broken = cmdline_get("debug.broken_spinlock");

	BUG_ON(done, "spinlock_init_from_cmdline called twice");
	BUG_ON(preempt_count() != 0, "spinlock kind chosen while a lock is held");
	BUG_ON(num_online_cpus() != 1, "spinlock kind chosen with other CPUs running");
	done = true;
	if (kind && strcmp(kind, "ticket") == 0)
		default_kind = SPIN_TICKET;
	else if (kind && strcmp(kind, "tas") != 0)
		pr_warn("spinlock: lock.kind=%s is neither tas nor ticket; using tas", kind);
	broken_test_locks = broken && strcmp(broken, "0") != 0;
	if (broken_test_locks)
		pr_warn("spinlock: debug.broken_spinlock: test locks are deliberately broken");
	if (kind)
		pr_info("spinlock: default kind %s", spin_kind_name(default_kind));
	rwlock_init_from_cmdline();
	lockdep_init();
}

unsigned long spin_watchdog_reports(void)
{
	return __atomic_load_n(&watchdog_reports, __ATOMIC_RELAXED);	/* plain mov */
}

/* ---------------------------------------------------------- watchdog */

/* A waiter's view of the holder: the acquisition it is waiting behind. */
struct spin_wait {
	u32 seq;		/* l->seq when this holder was first seen */
	u64 since_ns;		/* when it was first seen; 0 before the first check */
	bool reported;
};

static void watchdog_report(spinlock_t *l, int owner)
{
	int self = smp_processor_id();

	watchdog_busy[self] = true;
	/* Relaxed: a statistic for tests. x86-64: lock add. */
	__atomic_add_fetch(&watchdog_reports, 1, __ATOMIC_RELAXED);
	pr_err("spinlock '%s' held by cpu%d for over 1 s (cpu%d waiting)", lock_name(l), owner,
	       self);
	smp_send_nmi_backtrace(owner);	/* owner != self: see check_not_recursive */
	watchdog_busy[self] = false;
}

/*
 * Called now and then from a wait loop. The holder bumps seq at every
 * acquisition, so a seq unchanged for a second means one holder has kept
 * the lock that long. (A TAS waiter that merely keeps losing the race to
 * other CPUs is not reported: the message would be false.) seq and owner
 * are read racily, each an untorn 32-bit load; owner may be -1 for the
 * instant between a holder's atomic step and its store, and we then just
 * look again at the next check. Before the clock is calibrated, now is 0
 * and nothing is reported.
 */
static void watchdog_check(spinlock_t *l, struct spin_wait *w)
{
	u32 seq = READ_ONCE(l->seq);	/* plain mov */
	u64 now = ktime_ns();
	int owner;

	if (now == 0)
		return;
	if (w->since_ns == 0 || seq != w->seq) {
		w->seq = seq;
		w->since_ns = now;
		return;
	}
	if (w->reported || now - w->since_ns < WATCHDOG_NS)
		return;
	owner = READ_ONCE(l->owner);	/* plain mov */
	if (owner < 0 || owner >= MAX_CPUS || watchdog_busy[smp_processor_id()])
		return;
	w->reported = true;
	watchdog_report(l, owner);
}

/* ---------------------------------------------------- the two kinds */

static bool tas_try(spinlock_t *l)
{
	/* LAB 2 BEGIN tas_try: one atomic exchange (docs/labs/lab2.md) */
	/* Acquire: the critical section stays below. x86-64: xchg (implicitly locked). */
	return __atomic_exchange_n(&l->word, 1, __ATOMIC_ACQUIRE) == 0;
	/* LAB 2 END tas_try */
}

static void tas_acquire(spinlock_t *l)
{
	/* LAB 2 BEGIN tas_acquire: test, and test-and-set with backoff (docs/labs/lab2.md) */
	struct spin_wait w = { 0 };
	unsigned delay = 1;

	while (!tas_try(l)) {
		do {
			for (unsigned i = 0; i < delay; i++)
				cpu_relax();
			if (delay < BACKOFF_MAX)
				delay <<= 1;
			watchdog_check(l, &w);
			/* Relaxed: only a hint; tas_try orders. x86-64: plain mov. */
		} while (READ_ONCE(l->word) != 0);
	}
	/* LAB 2 END tas_acquire */
}

static bool ticket_try(spinlock_t *l)
{
	/* Relaxed: a first look; the cmpxchg below decides. x86-64: plain mov. */
	u32 old = READ_ONCE(l->word);

	if ((u16)old != (u16)(old >> 16))
		return false;
	/* Acquire on success. x86-64: lock cmpxchg. */
	return __atomic_compare_exchange_n(&l->word, &old, old + TICKET_ONE, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void ticket_acquire(spinlock_t *l)
{
	struct spin_wait w = { 0 };
	/* Acquire (matters when the ticket is served at once). x86-64: lock xadd. */
	u32 old = __atomic_fetch_add(&l->word, TICKET_ONE, __ATOMIC_ACQUIRE);
	u16 ticket = (u16)(old >> 16);

	if ((u16)old == ticket)
		return;
	/* Acquire: pairs with the previous holder's release of head. x86-64: mov. */
	for (unsigned n = 1; __atomic_load_n(&l->t.head, __ATOMIC_ACQUIRE) != ticket; n++) {
		cpu_relax();
		if (n % TICKET_CHECK_EVERY == 0)
			watchdog_check(l, &w);
	}
}

static void ticket_release(spinlock_t *l)
{
	/* Only the holder writes head, so this read is exact. x86-64: movzwl. */
	u16 next = (u16)(READ_ONCE(l->t.head) + 1);

	/* Release: the critical section is visible first. x86-64: movw. */
	__atomic_store_n(&l->t.head, next, __ATOMIC_RELEASE);
}

/*
 * The deliberate bug (debug.broken_spinlock, test locks only): the test and
 * the set are two separate accesses, so two CPUs can both see 0 and both
 * enter. Either kind of test lock breaks this way, as a TAS flag; release
 * still stores 0, so a broken lock can let too many in but never hangs.
 */
static void broken_acquire(spinlock_t *l)
{
	while (READ_ONCE(l->word) != 0)	/* plain mov */
		cpu_relax();
	cpu_relax();			/* widen the window, so tests see the race */
	WRITE_ONCE(l->word, 1);		/* plain mov: the race is here */
}

static bool broken_try(spinlock_t *l)
{
	if (READ_ONCE(l->word) != 0)	/* plain mov */
		return false;
	WRITE_ONCE(l->word, 1);		/* plain mov: the same race */
	return true;
}

static bool is_broken(const spinlock_t *l)
{
	return unlikely(l->test) && broken_test_locks;
}

static bool word_says_held(const spinlock_t *l)
{
	u32 v = READ_ONCE(l->word);	/* relaxed: plain mov */

	if (is_broken(l) || spin_lock_kind(l) == SPIN_TAS)
		return v != 0;
	return (u16)v != (u16)(v >> 16);
}

/* ------------------------------------------------------- debug checks */

/*
 * Before spinning: only this CPU ever stores its own number into owner, and
 * it stores -1 before releasing, so reading our own number back (however
 * racily) means we hold l already; spinning would deadlock.
 */
static void check_not_recursive(const spinlock_t *l)
{
	int self = smp_processor_id();

	if (unlikely(READ_ONCE(l->owner) == self))
		panic("spinlock '%s': recursive lock on cpu%d", lock_name(l), self);
}

static void irq_misuse(const spinlock_t *l, bool irqsave)
{
	char site[96];

	if (!irqsave)
		panic("spinlock '%s': spin_lock with interrupts enabled on cpu%d, but the lock "
		      "is irq-safe (taken with spin_lock_irqsave before)",
		      lock_name(l), smp_processor_id());
	ksym_format(site, sizeof(site), l->irq_on_site);
	panic("spinlock '%s': spin_lock_irqsave on cpu%d, but the lock was taken with "
	      "interrupts enabled before, at %s",
	      lock_name(l), smp_processor_id(), site);
}

/*
 * Holder only. A lock taken from interrupt handlers must never be held with
 * interrupts enabled, or the handler, arriving on the holder's CPU, spins
 * on it forever. We take spin_lock_irqsave as the sign of the first, and
 * report the two uses meeting on one lock, whichever comes second.
 */
static void note_irq_use(spinlock_t *l, bool irqsave, unsigned long site)
{
	u8 use = irqsave ? SPIN_USED_IRQSAVE : irqs_disabled() ? 0 : SPIN_USED_IRQS_ON;
	u8 seen = l->irq_use | use;

	if (likely(seen == l->irq_use))
		return;
	if (seen == (SPIN_USED_IRQSAVE | SPIN_USED_IRQS_ON))
		irq_misuse(l, irqsave);
	if (use == SPIN_USED_IRQS_ON)
		l->irq_on_site = site;
	l->irq_use = seen;
}

/* Holder only, right after the atomic step: the plain stores of the debug state. */
static void note_acquired(spinlock_t *l, bool irqsave, unsigned long site)
{
	WRITE_ONCE(l->owner, smp_processor_id());	/* plain mov */
	WRITE_ONCE(l->seq, l->seq + 1);			/* plain mov */
	note_irq_use(l, irqsave, site);
}

/* ------------------------------------------------------------ the API */

static void lock_common(spinlock_t *l, bool irqsave, unsigned subclass, unsigned long site)
{
	preempt_disable();
	check_not_recursive(l);
	if (lockdep_enabled())	/* before waiting: an inversion is reported, not hung on */
		lockdep_acquire(l, l->name, &l->dep_class, subclass, 0, site);
	if (is_broken(l))
		broken_acquire(l);
	else if (spin_lock_kind(l) == SPIN_TICKET)
		ticket_acquire(l);
	else
		tas_acquire(l);
	note_acquired(l, irqsave, site);
}

void spin_lock(spinlock_t *l)
{
	lock_common(l, false, 0, LOCKDEP_SITE());
}

void spin_lock_nested(spinlock_t *l, unsigned subclass)
{
	lock_common(l, false, subclass, LOCKDEP_SITE());
}

unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long f = irq_save();

	lock_common(l, true, 0, LOCKDEP_SITE());
	return f;
}

bool spin_trylock(spinlock_t *l)
{
	bool got;

	preempt_disable();
	if (is_broken(l))
		got = broken_try(l);
	else if (spin_lock_kind(l) == SPIN_TICKET)
		got = ticket_try(l);
	else
		got = tas_try(l);
	if (!got) {
		preempt_enable();
		return false;
	}
	note_acquired(l, false, LOCKDEP_SITE());
	if (lockdep_enabled())
		lockdep_acquire(l, l->name, &l->dep_class, 0, LOCKDEP_TRY, LOCKDEP_SITE());
	return true;
}

void spin_unlock(spinlock_t *l)
{
	int self = smp_processor_id(), owner = READ_ONCE(l->owner);	/* plain mov */

	/* A broken lock can have two holders at once: its owner means nothing. */
	if (unlikely(owner != self) && !is_broken(l)) {
		if (owner < 0)
			panic("spinlock '%s': unlock by non-owner cpu%d (the lock is not held)",
			      lock_name(l), self);
		panic("spinlock '%s': unlock by non-owner cpu%d (owner cpu%d)", lock_name(l), self,
		      owner);
	}
	if (lockdep_enabled())
		lockdep_release(l, 0);
	WRITE_ONCE(l->owner, -1);	/* plain mov, before the release below */
	if (is_broken(l) || spin_lock_kind(l) == SPIN_TAS)
		/* Release: the critical section is visible first. x86-64: mov. */
		__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
	else
		ticket_release(l);
	preempt_enable();
}

bool spin_is_held(const spinlock_t *l)
{
	return word_says_held(l) && READ_ONCE(l->owner) == smp_processor_id();
}
