/*
 * rwsem.h - reader-writer semaphores: many readers or one writer, sleeping.
 *
 * Readers share the semaphore; a writer has it alone. Sleepers queue in
 * FIFO order, and the rule that keeps writers from starving is: once
 * anybody waits, a new reader queues behind them instead of joining the
 * readers inside. When the semaphore comes free, the head of the queue is
 * served: every reader up to the next writer is let in together; a writer
 * at the head is woken to take it itself.
 *
 * Writers steal. A running writer may take a free semaphore before the
 * woken writer at the head does, and a writer that finds a running writer
 * inside spins a little instead of queueing (as mutex.h). Strict FIFO
 * hand-over made a convoy: each writer that let go and wanted the
 * semaphore back at once - create then unlink, on sb->s_ns - found it
 * given to a sleeper and had to sleep too, so every operation cost a
 * context switch (2 threads creating files ran slower than 1). So that
 * nobody starves, a woken writer that lost to a running writer, after it
 * has waited about a millisecond, is marked for hand-off: the next release
 * lets it in outright, and no writer may take the semaphore past it (the
 * ideas of Linux's rwsem: write-lock stealing, Lespinasse 2013; the
 * hand-off, Waiman Long 2019).
 *
 * The command-line word debug.broken_rwsem=MODE (a test of the tests)
 * breaks it on purpose: `writer` lets a writer in beside readers,
 * `readers` lets only one reader in at a time, `starve` lets new readers
 * overtake a waiting writer, `nohandoff` lets running writers take the
 * semaphore past a woken writer for ever, `fifo` makes every release hand
 * it to the waiting writer (the convoy). Each lock_rwsem_* test must catch
 * one of them.
 *
 * lockdep (kernel/lockdep.h) keeps a held semaphore, either side, on the
 * task's stack of held locks. A reader can queue behind a waiting writer,
 * so for deadlocks the read side orders like the write side, and a task
 * that takes the read side twice is reported (a writer arriving between
 * the two would deadlock it).
 *
 * The read side's common case takes no spinlock (as Linux's rwsem): while
 * no writer holds the semaphore and nobody waits, `count`'s SLOW bit is
 * clear and a reader enters and leaves with one lock cmpxchg / lock xadd
 * on `count`. Everything else - a writer, a sleeper, a broken mode - sets
 * SLOW and goes through wait_lock. The rules, kept under wait_lock:
 *   R1. SLOW is set whenever a writer is inside or the queue is not empty
 *       (it may stay set a moment longer; never the other way round).
 *   R2. A reader enters without wait_lock only by a cmpxchg that finds
 *       SLOW clear, so no reader slips in past a writer or a sleeper.
 *   R3. A writer enters only by a cmpxchg from "no readers" to SLOW, so
 *       no fast reader can have slipped in between its check and its entry.
 *   R4. A reader leaving sees, in the value its xadd returns, whether it
 *       was the last with SLOW set: then it takes wait_lock and lets the
 *       queue's head in. A sleeper sets SLOW before it last looks, so either
 *       it sees the reader gone or the reader sees SLOW (no lost wake-up).
 *
 * Lock legend: [L:wait_lock] the semaphore's spinlock, [A] atomic, [I] immutable.
 */
#ifndef KERNEL_RWSEM_H
#define KERNEL_RWSEM_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"

struct task;

struct rw_semaphore {
	spinlock_t wait_lock;		/* guards the fields below */
	long count;			/* [A] readers inside << 1, | RWSEM_SLOW (R1-R4) */
	struct task *writer;		/* [L:wait_lock] the writer inside, or NULL; read
					 * without the lock by spinning writers */
	struct list_head waiters;	/* [L:wait_lock] sleepers, oldest first */
	const char *name;		/* [I] for reports; its lockdep class */
	u16 dep_class;			/* [A] lockdep's class, cached at first use */
};

#define RWSEM_SLOW 1L		/* a writer inside or sleepers: take wait_lock */
#define RWSEM_INIT(s, n) \
	{ SPINLOCK_INIT("rwsem.wait_lock"), 0, NULL, LIST_HEAD_INIT((s).waiters), n, 0 }
#define DEFINE_RWSEM(s) struct rw_semaphore s = RWSEM_INIT(s, #s)

void init_rwsem(struct rw_semaphore *sem, const char *name);
/* down_read / down_write: return holding sem shared / exclusive. May sleep. */
void down_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
/* The same without waiting: true if taken (a writer may take it past a woken
 * sleeper, as down_write may). Never sleep. */
bool down_read_trylock(struct rw_semaphore *sem);
bool down_write_trylock(struct rw_semaphore *sem);
/* up_read / up_write: release what down_read / down_write took. Never sleep. */
void up_read(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
/* Racy snapshots, for assertions and tests. */
int rwsem_nr_waiters(struct rw_semaphore *sem);
bool rwsem_is_write_locked(struct rw_semaphore *sem);

#endif
