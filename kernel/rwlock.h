/*
 * rwlock.h - reader-writer spinlock with writer preference (docs/locks.md).
 *
 * Many readers or one writer. Readers share the lock with one atomic
 * operation each way and never wait for one another; a writer waits for
 * the readers inside to leave. Writer preference: a writer that is waiting
 * sets a bit that stops new readers at the door, so a stream of readers
 * cannot starve it. (Writers can starve readers instead; a writer may also
 * lose the lock to another writer, so writers among themselves are not
 * FIFO.)
 *
 * The word, 32 bits:
 *
 *   bit 0       RW_WRITER   a writer holds the lock
 *   bit 1       RW_WAITING  a writer is waiting: new readers stay out
 *   bits 2..31  readers inside, in units of RW_READER (4)
 *
 * The protocol, each step with its order and its x86-64 instruction:
 *
 *   R1. read_lock: when the word shows neither RW_WRITER nor RW_WAITING
 *       (relaxed load, mov), add RW_READER (acquire, lock xadd). If the
 *       value before the add had RW_WRITER or RW_WAITING, a writer got
 *       there first: take the reader back out (relaxed, lock xadd) and go
 *       back to waiting at R1.
 *   R2. read_unlock: subtract RW_READER (release, lock xadd): the reads of
 *       the critical section happen before a writer can see the count drop.
 *   W1. write_lock: when the word is 0 apart from RW_WAITING, compare-and-
 *       swap it to RW_WRITER (acquire, lock cmpxchg), which also clears
 *       RW_WAITING. Otherwise set RW_WAITING (relaxed, lock or) and wait.
 *   W2. write_unlock: clear RW_WRITER (release, lock and). An atomic
 *       operation rather than a store, because waiting writers may be
 *       setting RW_WAITING and readers briefly adding and removing
 *       themselves (R1) while the writer holds the lock.
 *
 * Why writers exclude readers: a reader is inside only if its R1 add saw
 * neither bit, and a writer is inside only if its W1 cmpxchg saw no
 * readers. Both are read-modify-writes of the same word, so one comes
 * first in its order: if the reader's add came first the writer's cmpxchg
 * sees its count and fails; if the writer's came first the reader's add
 * sees RW_WRITER and backs out.
 *
 * Why a stream of readers cannot starve a writer: a waiting writer sets
 * RW_WAITING at each look at the word, and no reader passes R1 while it is
 * set, so from the writer's first look the reader count only falls. Only a
 * writer taking the lock (W1) clears the bit, and then a writer, not a
 * reader, is inside; the writers still waiting set the bit again at their
 * next look, so readers can slip in only in the gap between that writer's
 * release and the next look. Writers race one another like a TAS lock
 * (not FIFO), and a steady stream of writers starves readers.
 *
 * Do not take read_lock recursively: with a writer waiting in between the
 * inner read_lock waits for the writer, which waits for the outer reader.
 *
 * Holding either side disables preemption; never sleep while holding it.
 * Debug checks: a recursive write_lock on one CPU, and write_unlock by a
 * CPU that is not the writer, panic with the lock's name; a wait of over
 * a second is reported once (with the writer's NMI backtrace when a writer
 * holds it). lockdep (kernel/lockdep.h) checks both sides like a spinlock:
 * a reader can wait behind a waiting writer, so for deadlocks the read side
 * orders like the write side, and a recursive read_lock is reported.
 */
#ifndef KERNEL_RWLOCK_H
#define KERNEL_RWLOCK_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/x86.h"
#include "kernel/preempt.h"
#include "kernel/lockdep.h"

#define RW_WRITER 1u
#define RW_WAITING 2u
#define RW_READER 4u

/* Legend: [I] fixed at init, [A] atomic, [L:self] written only by the writer. */
typedef struct {
	u32 word;		/* [A] RW_WRITER | RW_WAITING | readers * RW_READER */
	int writer;		/* [L:self] CPU holding the write side, -1 if none */
	bool test;		/* [I] broken by debug.broken_rwlock */
	const char *name;	/* [I] for reports; its lockdep class */
	u16 dep_class;		/* [A] lockdep's class, cached at first use */
} rwlock_t;

#define RWLOCK_INIT(n) { .word = 0, .writer = -1, .name = (n) }
#define RWLOCK_INIT_TEST(n) { .word = 0, .writer = -1, .test = true, .name = (n) }

/* Initialise l, free. */
void rwlock_init(rwlock_t *l, const char *name);
/*
 * As rwlock_init, for a test lock. The command-line word debug.broken_rwlock=1
 * breaks test locks, and only them, for the tests of the tests: readers then
 * ignore RW_WAITING (no writer preference), and a writer tests for a free
 * word and sets RW_WRITER as two separate steps (two writers can get in).
 */
void rwlock_init_test(rwlock_t *l, const char *name);
/* Read debug.broken_rwlock. Boot CPU, once (spinlock_init_from_cmdline calls it). */
void rwlock_init_from_cmdline(void);

/* read_lock: returns with the read side held and preemption off; spins. */
void read_lock(rwlock_t *l);
/* read_unlock: leave the read side; re-enables preemption. */
void read_unlock(rwlock_t *l);
/* write_lock: returns with the lock held alone and preemption off; spins. */
void write_lock(rwlock_t *l);
/* write_unlock: this CPU must hold the write side; re-enables preemption. */
void write_unlock(rwlock_t *l);

/* The _irqsave variants disable interrupts first and return the old flags. */
static inline unsigned long read_lock_irqsave(rwlock_t *l)
{
	unsigned long f = irq_save();
	read_lock(l);
	return f;
}

static inline void read_unlock_irqrestore(rwlock_t *l, unsigned long f)
{
	read_unlock(l);
	irq_restore(f);
}

static inline unsigned long write_lock_irqsave(rwlock_t *l)
{
	unsigned long f = irq_save();
	write_lock(l);
	return f;
}

static inline void write_unlock_irqrestore(rwlock_t *l, unsigned long f)
{
	write_unlock(l);
	irq_restore(f);
}

/* True if the calling CPU holds the write side (for assertions). */
bool rwlock_is_write_held(const rwlock_t *l);
/* Readers inside now (a snapshot, for assertions and tests). */
unsigned rwlock_readers(const rwlock_t *l);

#endif
