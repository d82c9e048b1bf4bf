/*
 * lockdep.h (host shim) - the kernel's lock checker is not here: the host
 * tests have ThreadSanitizer instead. Every hook does nothing and every
 * assertion passes, as in a kernel booted with lockdep=off (a condition is
 * evaluated, so the functions it calls count as used, and ignored).
 */
#ifndef KERNEL_LOCKDEP_H
#define KERNEL_LOCKDEP_H

#include "kernel/types.h"

#define LOCKDEP_SLEEPING 1
#define LOCKDEP_READ 2
#define LOCKDEP_TRY 4
#define LOCKDEP_MAX_SUBCLASSES 4

static inline bool lockdep_enabled(void) { return false; }
static inline bool lockdep_is_held(const void *lock) { return true; }
static inline bool lockdep_is_held_exclusive(const void *lock) { return true; }
static inline void lockdep_page_acquire(const void *page, unsigned subclass, unsigned flags,
					unsigned long site) {}
static inline void lockdep_page_release(const void *page) {}

#define lockdep_assert(cond) ((void)(cond))
#define lockdep_assert_held(l) ((void)0)
#define LOCKDEP_SITE() ((unsigned long)__builtin_return_address(0))

#endif
