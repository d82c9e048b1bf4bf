/*
 * spinlock.h - busy-wait locks (DESIGN.md section 4; docs/locks.md).
 *
 * Two kinds share one layout, chosen per lock when it is initialised:
 *
 *   SPIN_TAS     test-and-test-and-set with exponential backoff (Anderson
 *                1990). Unfair, but it tolerates preempted waiters: under
 *                QEMU TCG our vCPUs outnumber the host's cores, and whichever
 *                waiter happens to be running takes a freed lock.
 *   SPIN_TICKET  a FIFO ticket lock (Mellor-Crummey and Scott 1991 call it
 *                the "ticket lock"): fair, but it hands the lock to the next
 *                ticket even when that vCPU is descheduled, and everyone
 *                behind it waits too.
 *   SPIN_DEFAULT follows the boot command line, lock.kind=tas|ticket (tas
 *                when absent). Locks made with SPINLOCK_INIT or
 *                spin_lock_init are of this kind.
 *
 * The lock word, 32 bits, is either a TAS flag (0 free, 1 held) or two
 * 16-bit ticket halves (head: the ticket now served, low half; tail: the
 * next ticket to hand out, high half; free when head == tail). A free lock
 * of either kind may hold 0, which is why the default kind can be fixed at
 * boot (spinlock_init_from_cmdline explains when that is safe).
 *
 * Ordering: every acquire is an acquire operation (x86-64: lock xchg,
 * lock xadd or lock cmpxchg, each also a full barrier), every release a
 * store-release (a plain mov under TSO, plus a compiler barrier). The
 * critical section therefore cannot leak out of the lock in either
 * direction.
 *
 * Holding a spinlock disables preemption (kernel/preempt.h). Never sleep
 * while holding one.
 *
 * Debug checks, always on (each is a panic naming the lock and the CPU):
 * recursion on the same CPU, unlock by a CPU that does not hold the lock,
 * and a lock that is taken both with spin_lock_irqsave (so presumably from
 * interrupt handlers too) and with plain spin_lock while interrupts are
 * enabled, the pattern that deadlocks when the interrupt arrives on the
 * holder's CPU. A watchdog in the wait loops reports, once per wait, a
 * holder that has kept the lock for over a second and asks it for an NMI
 * backtrace. These look at one lock; lockdep (kernel/lockdep.h, on unless
 * lockdep=off) looks at classes of locks: their order, same-class nesting,
 * and a class really taken inside an interrupt handler and elsewhere with
 * interrupts on.
 *
 * Tests of the tests: locks made with SPINLOCK_INIT_TEST/spin_lock_init_test
 * are deliberately broken by the command-line word debug.broken_spinlock=1
 * (a plain read-then-write instead of the atomic step), so a counting test
 * can show that it catches lost updates. The kernel's own locks are never
 * broken, so such a boot still runs to its test results.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/x86.h"
#include "kernel/preempt.h"
#include "kernel/lockdep.h"

enum spin_kind { SPIN_DEFAULT = 0, SPIN_TAS = 1, SPIN_TICKET = 2 };

/* Bits of irq_use: how the lock has been taken so far. */
#define SPIN_USED_IRQSAVE 1	/* with spin_lock_irqsave */
#define SPIN_USED_IRQS_ON 2	/* with interrupts enabled */

/* Legend: [I] fixed at init, [A] atomic, [L:self] written only by the holder. */
typedef struct {
	union {
		u32 word;		/* [A] TAS: 0 free, 1 held */
		struct {
			u16 head;	/* [A] ticket: now serving (holder writes) */
			u16 tail;	/* [A] ticket: next ticket to hand out */
		} t;
	};
	u8 kind;			/* [I] enum spin_kind */
	u8 test;			/* [I] broken by debug.broken_spinlock */
	u8 irq_use;			/* [L:self] SPIN_USED_* seen so far */
	int owner;			/* [L:self] CPU holding it, -1 if none (racy reads: checks) */
	u32 seq;			/* [L:self] acquisitions so far (racy reads: watchdog) */
	unsigned long irq_on_site;	/* [L:self] first caller with interrupts on */
	const char *name;		/* [I] for reports; its lockdep class */
	u16 dep_class;			/* [A] lockdep's class, cached at first use */
} spinlock_t;

#define SPINLOCK_INIT_KIND(n, k) { .kind = (k), .owner = -1, .name = (n) }
#define SPINLOCK_INIT(n) SPINLOCK_INIT_KIND(n, SPIN_DEFAULT)
#define SPINLOCK_INIT_TEST(n, k) { .kind = (k), .test = 1, .owner = -1, .name = (n) }

/* Initialise l, free, of the default kind. */
void spin_lock_init(spinlock_t *l, const char *name);
/* Initialise l, free, of the given kind. */
void spin_lock_init_kind(spinlock_t *l, const char *name, enum spin_kind kind);
/* As spin_lock_init_kind, for a test lock (broken by debug.broken_spinlock). */
void spin_lock_init_test(spinlock_t *l, const char *name, enum spin_kind kind);

/*
 * spin_lock: returns with l held and preemption disabled; spins, never
 * sleeps. Panics if this CPU already holds l.
 */
void spin_lock(spinlock_t *l);
/*
 * spin_lock_nested: spin_lock, for the inner of two locks of one class
 * held together; subclass (1..LOCKDEP_MAX_SUBCLASSES-1) names its place
 * in their order for lockdep (kernel/lockdep.h).
 */
void spin_lock_nested(spinlock_t *l, unsigned subclass);
/* spin_trylock: true with l held and preemption off, or false at once with neither. */
bool spin_trylock(spinlock_t *l);
/* spin_unlock: releases l, which this CPU must hold; re-enables preemption. */
void spin_unlock(spinlock_t *l);
/* True if the calling CPU holds l (for assertions). */
bool spin_is_held(const spinlock_t *l);

/*
 * spin_lock_irqsave: disable interrupts, then take l; returns the old flags
 * for spin_unlock_irqrestore. Marks l as a lock interrupt handlers may take.
 */
unsigned long spin_lock_irqsave(spinlock_t *l);

/* Release l, then put the interrupt flag back as spin_lock_irqsave found it. */
static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long f)
{
	spin_unlock(l);
	irq_restore(f);
}

/* The kind l actually uses (SPIN_DEFAULT resolved), and its name. */
enum spin_kind spin_lock_kind(const spinlock_t *l);
const char *spin_kind_name(enum spin_kind kind);

/*
 * spinlock_init_from_cmdline: read lock.kind, debug.broken_spinlock,
 * debug.broken_rwlock and lockdep.
 * Boot CPU only, once, right after cmdline_init, while it holds no lock and
 * no other CPU runs.
 */
void spinlock_init_from_cmdline(void);

/* How many watchdog reports there have been since boot (for tests). */
unsigned long spin_watchdog_reports(void);

#endif
