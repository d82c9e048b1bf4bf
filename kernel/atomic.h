/*
 * atomic.h - memory-ordering primitives (DESIGN.md section 4, STYLE.md rule 4).
 *
 * Everything is written with C11 __atomic builtins so the same code compiles
 * on the host under ThreadSanitizer. Each wrapper states the order it gives
 * and what it costs on x86-64 (TSO: loads are not reordered with loads,
 * stores not with stores, a store may pass a later load).
 */
#ifndef KERNEL_ATOMIC_H
#define KERNEL_ATOMIC_H

#include "kernel/types.h"

/* Compiler barrier: stops the compiler moving memory accesses across it. */
#define barrier() __asm__ __volatile__("" ::: "memory")

/* One untorn access the compiler may not merge, split or re-read.
 * x86-64: a plain mov. No ordering with other locations. */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Acquire load: later accesses stay after it. x86-64: mov + compiler barrier. */
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* Release store: earlier accesses stay before it. x86-64: mov + compiler barrier. */
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Full fence. x86-64: mfence (orders a store before a later load). */
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
/* Read and write fences are free under TSO: compiler barriers only. */
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(v) { (v) }

/* Relaxed read/set: no ordering. x86-64: plain mov. */
static inline int atomic_read(const atomic_t *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void atomic_set(atomic_t *a, int v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

/* Fully ordered read-modify-writes. x86-64: lock xadd / lock add. */
static inline int atomic_add_return(atomic_t *a, int v)
{
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}

static inline void atomic_inc(atomic_t *a) { atomic_add_return(a, 1); }
static inline void atomic_dec(atomic_t *a) { atomic_add_return(a, -1); }
static inline int atomic_inc_return(atomic_t *a) { return atomic_add_return(a, 1); }
static inline int atomic_dec_return(atomic_t *a) { return atomic_add_return(a, -1); }
static inline bool atomic_dec_and_test(atomic_t *a) { return atomic_add_return(a, -1) == 0; }

/*
 * atomic_cmpxchg: if *a == old, set it to new. Returns the value found.
 * Fully ordered. x86-64: lock cmpxchg.
 */
static inline int atomic_cmpxchg(atomic_t *a, int old, int new)
{
	__atomic_compare_exchange_n(&a->counter, &old, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return old;
}

/*
 * atomic_inc_not_zero: increment unless the value is 0; true if it
 * incremented. Fully ordered on success (Piggin's speculative reference
 * relies on that). x86-64: a lock cmpxchg loop.
 */
static inline bool atomic_inc_not_zero(atomic_t *a)
{
	int c = atomic_read(a);
	while (c != 0) {
		if (__atomic_compare_exchange_n(&a->counter, &c, c + 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

/* Bit operations on an unsigned long word, fully ordered (lock bts/btr). */
static inline bool test_and_set_bit(int nr, unsigned long *w)
{
	unsigned long m = 1UL << nr;
	return (__atomic_fetch_or(w, m, __ATOMIC_SEQ_CST) & m) != 0;
}

static inline bool test_and_clear_bit(int nr, unsigned long *w)
{
	unsigned long m = 1UL << nr;
	return (__atomic_fetch_and(w, ~m, __ATOMIC_SEQ_CST) & m) != 0;
}

static inline void set_bit(int nr, unsigned long *w) { (void)test_and_set_bit(nr, w); }
static inline void clear_bit(int nr, unsigned long *w) { (void)test_and_clear_bit(nr, w); }

/* Relaxed test: no ordering. x86-64: plain mov. */
static inline bool test_bit(int nr, const unsigned long *w)
{
	return (__atomic_load_n(w, __ATOMIC_RELAXED) >> nr) & 1;
}

static inline void cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }

#endif
