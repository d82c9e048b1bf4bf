/*
 * rwlock.h (host shim) - the kernel's reader-writer spinlock as a POSIX
 * rwlock that prefers writers (as the kernel's does: a waiting writer stops
 * new readers), so ThreadSanitizer knows what it orders. Like the kernel's,
 * holding either side counts as preemption off (the checked count of
 * preempt.h); the _irqsave variants have no interrupts to disable.
 */
#ifndef KERNEL_RWLOCK_H
#define KERNEL_RWLOCK_H

#include <pthread.h>
#include "kernel/types.h"

/* Legend: [I] fixed at init, [A] atomic. */
typedef struct {
	pthread_rwlock_t rw;	/* the lock itself */
	pthread_t writer;	/* [A] valid while writer_held */
	int writer_held;	/* [A] for rwlock_is_write_held */
	const char *name;	/* [I] for reports */
} rwlock_t;

void rwlock_init(rwlock_t *l, const char *name);
void read_lock(rwlock_t *l);
void read_unlock(rwlock_t *l);
void write_lock(rwlock_t *l);
/* Aborts unless the calling thread holds the write side. */
void write_unlock(rwlock_t *l);
bool rwlock_is_write_held(const rwlock_t *l);

static inline unsigned long read_lock_irqsave(rwlock_t *l) { read_lock(l); return 0; }
static inline void read_unlock_irqrestore(rwlock_t *l, unsigned long f) { read_unlock(l); }
static inline unsigned long write_lock_irqsave(rwlock_t *l) { write_lock(l); return 0; }
static inline void write_unlock_irqrestore(rwlock_t *l, unsigned long f) { write_unlock(l); }

#endif
