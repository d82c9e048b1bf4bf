/*
 * slab.h (host shim) - object caches over malloc. Like the kernel's slab,
 * a newly allocated object is full of SLAB_POISON (0x6b) and a freed one is
 * poisoned before it goes back, so code that reads an object it has not
 * initialised reads the same pattern as in the kernel. host_slab_fail_after
 * makes allocations fail on demand (the kernel's slab fails only when
 * memory runs out).
 */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include "kernel/types.h"

#define SLAB_POISON 0x6b

struct kmem_cache;

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align);
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c);
void kmem_cache_free(struct kmem_cache *c, void *obj);

/* Let n more allocations succeed, then fail every one; n < 0: never fail. */
void host_slab_fail_after(long n);

#endif
