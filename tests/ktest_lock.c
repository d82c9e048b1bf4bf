/*
 * ktest_lock.c - spinlocks and the reader-writer lock exclude, share,
 * do not starve, and report their misuse.
 *
 * The counting tests are the heart: every CPU adds 1 to a plain counter
 * 100,000 times under the lock (or until a time budget runs out), with a
 * separate load and store (READ_ONCE, WRITE_ONCE: never an atomic add), so
 * two CPUs inside at once lose an update and the total comes out short.
 * They also print how long each kind took, for docs/locks.md.
 *
 * Tests of the tests (tests/boots.txt): debug.broken_spinlock=1 and
 * debug.broken_rwlock=1 break the locks made with the _test initialisers
 * (and only those), and the counting, half-a-write and starvation tests
 * must then say "not ok". Every wait below has a deadline, so a broken
 * lock fails a test instead of hanging the boot.
 */
#include "kernel/ktest.h"
#include "kernel/spinlock.h"
#include "kernel/rwlock.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/x86.h"

#define COUNT_PER_CPU 100000
#define SHARE_WAIT_NS 3000000000ULL	/* readers wait this long for each other */
#define STARVE_LIMIT_NS 5000000000ULL	/* readers give up keeping a writer out */
#define PAIR_ROUNDS 20000
#define HOLD_US 2000000			/* well past the 1 s spinlock watchdog */

/* Run fn(arg) on every CPU at once (interrupt context); returns the time taken. */
static u64 on_every_cpu(void (*fn)(void *), void *arg)
{
	u64 t0 = ktime_ns();

	smp_call_function(CALL_ALL, fn, arg, true);
	return ktime_ns() - t0;
}

/* Relaxed atomic add for the tests' own statistics. x86-64: lock add. */
static void stat_inc(int *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ counting tests */

/*
 * Each CPU stops early if the time budget runs out: under TCG with more
 * vCPUs than host cores the ticket lock manages only a few hundred
 * handoffs a second (docs/locks.md), and 8 x 100,000 would take about
 * 40 minutes. The check stays exact: the counter must equal the sum of the
 * increments the CPUs made.
 *
 * A minimum time (test.lock_min_ms) keeps the CPUs counting past 100,000
 * until it is up. A broken lock loses updates only while two vCPUs really
 * run at once, and an overcommitted host may run a whole 100,000 of each
 * one after another; the boots that test the tests ask for seconds of it.
 */
CMDLINE_KEY(test_lock_budget, "test.lock_budget_ms",
	    "tests: time budget of each lock counting test (default 3000)");
CMDLINE_KEY(test_lock_min, "test.lock_min_ms",
	    "tests: each lock counting test counts for at least this long (default 0)");

struct count_job {
	spinlock_t spin;	/* the lock under test, or */
	rwlock_t rw;		/* its write side */
	u64 counter;		/* [L:spin or rw] plain load and store */
	u64 deadline;		/* [I] ktime_ns at which CPUs stop early */
	u64 min_end;		/* [I] ktime_ns before which none stops (0: none) */
	int done[MAX_CPUS];	/* [P] increments each CPU made */
};

/* One increment a lost update can undo: a load, then a store. */
static void bump(struct count_job *j)
{
	WRITE_ONCE(j->counter, READ_ONCE(j->counter) + 1);
}

/* Whether this CPU should go on to its i-th increment: COUNT_PER_CPU of
 * them, or more until min_end, never past the deadline (the clock is read
 * at every 64th). */
static bool keep_counting(const struct count_job *j, int i)
{
	if ((i & 63) != 0)
		return i < COUNT_PER_CPU || j->min_end != 0;
	u64 now = ktime_ns();
	return now < j->deadline && (i < COUNT_PER_CPU || now < j->min_end);
}

static void count_under_spinlock(void *arg)
{
	struct count_job *j = arg;
	int i;

	for (i = 0; keep_counting(j, i); i++) {
		spin_lock(&j->spin);
		bump(j);
		spin_unlock(&j->spin);
	}
	j->done[smp_processor_id()] = i;
}

static void count_under_write_lock(void *arg)
{
	struct count_job *j = arg;
	int i;

	for (i = 0; keep_counting(j, i); i++) {
		write_lock(&j->rw);
		bump(j);
		write_unlock(&j->rw);
	}
	j->done[smp_processor_id()] = i;
}

static struct count_job count_job;

/* Run fn on every CPU; print how far they got in how long; return the sum of done. */
static u64 count_on_every_cpu(void (*fn)(void *), const char *what)
{
	int n = num_online_cpus();
	u64 budget_ms = cmdline_get_u64("test.lock_budget_ms", 3000), ns, sum = 0;
	u64 min_ms = cmdline_get_u64("test.lock_min_ms", 0), t0 = ktime_ns();

	count_job.deadline = t0 + budget_ms * 1000000;
	count_job.min_end = min_ms ? t0 + min_ms * 1000000 : 0;
	ns = on_every_cpu(fn, &count_job);
	for (int cpu = 0; cpu < n; cpu++)
		sum += count_job.done[cpu];
	pr_info("lock: %s: %d CPUs, %llu of %d x %d increments in %llu ms%s", what, n,
		(unsigned long long)sum, n, COUNT_PER_CPU, (unsigned long long)(ns / 1000000),
		sum < (u64)n * COUNT_PER_CPU ? " (stopped by the time budget)" : "");
	return sum;
}

static void count_with_spinlock(enum spin_kind kind)
{
	char what[32];
	u64 sum;

	memset(&count_job, 0, sizeof(count_job));
	spin_lock_init_test(&count_job.spin, "test_count", kind);
	snprintf(what, sizeof(what), "%s spinlock", spin_kind_name(kind));
	sum = count_on_every_cpu(count_under_spinlock, what);
	KT_EQ(count_job.counter, sum);
	/* Free: a TAS word is 0; a ticket word has head == tail == the tickets drawn. */
	KT_EQ(count_job.spin.word, kind == SPIN_TICKET ? (u16)sum * 0x10001u : 0);
}

KTEST(lock_spin_tas_loses_no_increment)
{
	count_with_spinlock(SPIN_TAS);
}

KTEST(lock_spin_ticket_loses_no_increment)
{
	count_with_spinlock(SPIN_TICKET);
}

KTEST(lock_rw_write_side_loses_no_increment)
{
	u64 sum;

	memset(&count_job, 0, sizeof(count_job));
	rwlock_init_test(&count_job.rw, "test_count");
	sum = count_on_every_cpu(count_under_write_lock, "rwlock write side");
	KT_EQ(count_job.counter, sum);
	KT_EQ(count_job.rw.word, 0);
}

/* ---------------------------------------------- single-CPU behaviour */

static const enum spin_kind both_kinds[] = { SPIN_TAS, SPIN_TICKET };

KTEST(lock_spin_trylock_fails_while_held)
{
	for (unsigned k = 0; k < ARRAY_SIZE(both_kinds); k++) {
		spinlock_t l;
		bool first, held, second;

		spin_lock_init_kind(&l, "test_try", both_kinds[k]);
		first = spin_trylock(&l);
		held = spin_is_held(&l);
		second = first && spin_trylock(&l);
		if (first)
			spin_unlock(&l);
		KT_ASSERT(first);
		KT_ASSERT(held);
		KT_ASSERT(!second);
		KT_ASSERT(!spin_is_held(&l));
	}
}

KTEST(lock_spin_holds_preemption_off)
{
	for (unsigned k = 0; k < ARRAY_SIZE(both_kinds); k++) {
		spinlock_t l;
		int before = preempt_count(), during;

		spin_lock_init_kind(&l, "test_preempt", both_kinds[k]);
		spin_lock(&l);
		during = preempt_count();
		spin_unlock(&l);
		KT_EQ(during, before + 1);
		KT_EQ(preempt_count(), before);
	}
}

KTEST(lock_spin_irqsave_disables_and_restores_interrupts)
{
	spinlock_t l = SPINLOCK_INIT("test_irqsave");
	bool on_before = !irqs_disabled(), off_inside;
	unsigned long f = spin_lock_irqsave(&l);

	off_inside = irqs_disabled();
	spin_unlock_irqrestore(&l, f);
	KT_ASSERT(on_before);	/* ktests run with interrupts on */
	KT_ASSERT(off_inside);
	KT_ASSERT(!irqs_disabled());
}

/* The tail half overflows out of the word, the head half wraps by itself. */
KTEST(lock_spin_ticket_survives_wraparound)
{
	spinlock_t l;
	int held = 0;

	spin_lock_init_kind(&l, "test_wrap", SPIN_TICKET);
	l.t.head = l.t.tail = 0xfffe;
	for (int i = 0; i < 4; i++) {
		spin_lock(&l);
		held += spin_is_held(&l);
		spin_unlock(&l);
	}
	KT_EQ(held, 4);
	KT_EQ(l.t.head, 2);
	KT_EQ(l.t.tail, 2);
}

KTEST(lock_spin_default_kind_follows_cmdline)
{
	spinlock_t l = SPINLOCK_INIT("test_default");
	const char *word = cmdline_get("lock.kind");
	enum spin_kind want = word && strcmp(word, "ticket") == 0 ? SPIN_TICKET : SPIN_TAS;

	KT_EQ(spin_lock_kind(&l), want);
	spin_lock(&l);
	spin_unlock(&l);
	KT_EQ(l.word, want == SPIN_TICKET ? 0x10001 : 0);
}

KTEST(lock_rw_sides_report_who_holds_them)
{
	rwlock_t l = RWLOCK_INIT("test_rw_sides");
	unsigned readers_in;
	bool write_held_by_reader, write_held;

	read_lock(&l);
	readers_in = rwlock_readers(&l);
	write_held_by_reader = rwlock_is_write_held(&l);
	read_unlock(&l);
	write_lock(&l);
	write_held = rwlock_is_write_held(&l);
	write_unlock(&l);
	KT_EQ(readers_in, 1);
	KT_ASSERT(!write_held_by_reader);
	KT_ASSERT(write_held);
	KT_ASSERT(!rwlock_is_write_held(&l));
	KT_EQ(l.word, 0);
}

/* ------------------------------------------------------------ watchdog */

struct hold_job {
	spinlock_t lock;
	int held;		/* [A] the holder has the lock */
};

static struct hold_job hold_job;

static void hold_for_over_a_second(void *arg)
{
	struct hold_job *j = arg;

	spin_lock(&j->lock);
	smp_store_release(&j->held, 1);		/* mov: the lock is taken first */
	udelay(HOLD_US);
	spin_unlock(&j->lock);
}

KTEST(lock_spin_watchdog_reports_a_long_hold_once)
{
	int n = num_online_cpus(), other = (smp_processor_id() + 1) % n;
	unsigned long before = spin_watchdog_reports();

	if (n < 2) {
		pr_info("lock: watchdog test needs two CPUs; nothing to check");
		return;
	}
	memset(&hold_job, 0, sizeof(hold_job));
	spin_lock_init_kind(&hold_job.lock, "test_watchdog", SPIN_TAS);
	smp_call_function(other, hold_for_over_a_second, &hold_job, false);
	while (!smp_load_acquire(&hold_job.held))	/* mov: pairs with the store */
		cpu_relax();
	/* Interrupts off: the holder takes the lock in an interrupt handler
	 * (the call-function IPI), so it must never be taken with them on. */
	unsigned long f = spin_lock_irqsave(&hold_job.lock);
	spin_unlock_irqrestore(&hold_job.lock, f);
	KT_EQ(spin_watchdog_reports() - before, 1);
}

/* ------------------------------------------------------ rwlock sharing */

struct share_job {
	rwlock_t lock;
	int arrived;			/* [A] readers that got in */
	int seen[MAX_CPUS];		/* [P] arrived, as each reader left */
	u64 deadline;			/* [I] */
};

static struct share_job share_job;

/* Get in, then stay until every CPU is in too (or the deadline passes). */
static void read_and_wait_for_all(void *arg)
{
	struct share_job *j = arg;
	int n = num_online_cpus(), in;

	read_lock(&j->lock);
	stat_inc(&j->arrived);
	/* Relaxed: a count, ordering nothing. x86-64: plain mov. */
	while ((in = READ_ONCE(j->arrived)) < n && ktime_ns() < j->deadline)
		cpu_relax();
	j->seen[smp_processor_id()] = in;
	read_unlock(&j->lock);
}

/* Nobody leaves before all are in, so each seeing n means n inside at once. */
KTEST(lock_rw_readers_are_inside_together)
{
	int n = num_online_cpus();

	memset(&share_job, 0, sizeof(share_job));
	rwlock_init_test(&share_job.lock, "test_share");
	share_job.deadline = ktime_ns() + SHARE_WAIT_NS;
	on_every_cpu(read_and_wait_for_all, &share_job);
	for (int cpu = 0; cpu < n; cpu++)
		KT_EQ(share_job.seen[cpu], n);
	KT_EQ(share_job.lock.word, 0);
}

struct pair_job {
	rwlock_t lock;
	u64 a, b;		/* [L:lock] equal whenever the lock is free */
	int torn;		/* [A] times a reader saw them differ */
	int writes;		/* [A] */
};

static struct pair_job pair_job;

static void read_or_write_pair(void *arg)
{
	struct pair_job *j = arg;
	int cpu = smp_processor_id();

	for (int i = 0; i < PAIR_ROUNDS; i++) {
		if ((i + cpu) % 4 == 0) {
			write_lock(&j->lock);
			WRITE_ONCE(j->a, j->a + 1);
			cpu_relax();	/* widen the window a reader must not see */
			WRITE_ONCE(j->b, j->b + 1);
			write_unlock(&j->lock);
			stat_inc(&j->writes);
		} else {
			read_lock(&j->lock);
			if (READ_ONCE(j->a) != READ_ONCE(j->b))
				stat_inc(&j->torn);
			read_unlock(&j->lock);
		}
	}
}

KTEST(lock_rw_readers_never_see_half_a_write)
{
	memset(&pair_job, 0, sizeof(pair_job));
	rwlock_init_test(&pair_job.lock, "test_pair");
	on_every_cpu(read_or_write_pair, &pair_job);
	KT_EQ(pair_job.torn, 0);
	KT_EQ(pair_job.a, pair_job.writes);
	KT_EQ(pair_job.b, pair_job.writes);
}

struct starve_job {
	rwlock_t lock;
	int writer_cpu;		/* [I] */
	int readers_in;		/* [A] read sections entered */
	int writer_done;	/* [A] */
	u64 deadline;		/* [I] readers give up here */
	u64 writer_wait_ns;	/* [P] the writer's */
};

static struct starve_job starve_job;

static void starve_writer(struct starve_job *j)
{
	int warm_up = 2 * (num_online_cpus() - 1);
	u64 t0;

	/* Relaxed: we only want the readers to be going. x86-64: plain mov. */
	while (READ_ONCE(j->readers_in) < warm_up && ktime_ns() < j->deadline)
		cpu_relax();
	t0 = ktime_ns();
	write_lock(&j->lock);
	j->writer_wait_ns = ktime_ns() - t0;
	write_unlock(&j->lock);
	WRITE_ONCE(j->writer_done, 1);	/* relaxed: the readers' stop sign; mov */
}

/* Readers that overlap, so the read side is never empty, until the writer is done. */
static void starve_reader(struct starve_job *j)
{
	/* Relaxed: a stop sign, ordering nothing. x86-64: plain mov. */
	while (!READ_ONCE(j->writer_done) && ktime_ns() < j->deadline) {
		read_lock(&j->lock);
		stat_inc(&j->readers_in);
		udelay(20);
		read_unlock(&j->lock);
	}
}

static void starve_role(void *arg)
{
	struct starve_job *j = arg;

	if (smp_processor_id() == j->writer_cpu)
		starve_writer(j);
	else
		starve_reader(j);
}

KTEST(lock_rw_readers_do_not_starve_a_writer)
{
	memset(&starve_job, 0, sizeof(starve_job));
	rwlock_init_test(&starve_job.lock, "test_starve");
	starve_job.writer_cpu = smp_processor_id();
	starve_job.deadline = ktime_ns() + STARVE_LIMIT_NS;
	on_every_cpu(starve_role, &starve_job);
	pr_info("lock: rwlock writer waited %llu us behind %d readers",
		(unsigned long long)(starve_job.writer_wait_ns / 1000), num_online_cpus() - 1);
	KT_ASSERT(starve_job.writer_done);
	KT_LT(starve_job.writer_wait_ns, STARVE_LIMIT_NS / 2);
}

/* ------------------------------------------------------ expected panics */

KTEST_EXPECT_PANIC(lock_spin_recursive_lock_panics, "recursive lock on cpu")
{
	spinlock_t l = SPINLOCK_INIT("test_recursive");

	spin_lock(&l);
	spin_lock(&l);
}

KTEST_EXPECT_PANIC(lock_spin_unlock_by_non_owner_panics, "unlock by non-owner")
{
	spinlock_t l = SPINLOCK_INIT("test_non_owner");

	spin_unlock(&l);
}

KTEST_EXPECT_PANIC(lock_spin_plain_lock_of_irq_safe_lock_panics,
		   "spin_lock with interrupts enabled")
{
	spinlock_t l = SPINLOCK_INIT("test_irq_safe");
	unsigned long f = spin_lock_irqsave(&l);

	spin_unlock_irqrestore(&l, f);
	spin_lock(&l);		/* interrupts are on: an interrupt handler could deadlock */
}

KTEST_EXPECT_PANIC(lock_spin_irqsave_of_irqs_on_lock_panics, "taken with interrupts enabled before")
{
	spinlock_t l = SPINLOCK_INIT("test_irqs_on");
	unsigned long f;

	spin_lock(&l);		/* interrupts are on */
	spin_unlock(&l);
	f = spin_lock_irqsave(&l);
	spin_unlock_irqrestore(&l, f);
}

KTEST_EXPECT_PANIC(lock_rw_recursive_write_lock_panics, "recursive write lock on cpu")
{
	rwlock_t l = RWLOCK_INIT("test_rw_recursive");

	write_lock(&l);
	write_lock(&l);
}
