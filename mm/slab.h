/*
 * slab.h - object caches and kmalloc.
 *
 * A kmem_cache hands out fixed-size objects carved from whole pages. Freed
 * objects are poisoned (0x6b) so a use-after-free shows up as a pattern in
 * the debugger; allocation checks the poison and panics if a freed object
 * was written to. kmalloc rounds up to a power-of-two size class (8 bytes to
 * 2 KiB); larger requests get whole pages from the buddy allocator.
 */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include "kernel/types.h"

struct kmem_cache;

/*
 * kmem_cache_create: a cache of objects of `size` bytes aligned to `align`
 * (0 = 8; a power of two up to a page, else a BUG). NULL for size 0, for
 * objects bigger than a MAX_ORDER block, or when memory is exhausted.
 * The name is copied. Never sleeps.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align);
/*
 * kmem_cache_alloc: an object, or NULL when memory is exhausted. Never
 * sleeps; may be called with interrupts off. A freed object found written
 * to is a BUG ("slab: use after free").
 */
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c);
/*
 * kmem_cache_free: return obj to c. Freeing into the wrong cache or twice
 * ("slab: double free") is a BUG. Never sleeps.
 */
void kmem_cache_free(struct kmem_cache *c, void *obj);

/*
 * kmalloc: size bytes aligned to their size class (at most a page), or NULL
 * when memory is exhausted. kmalloc(0) returns NULL: there is no special
 * zero-size pointer, and kfree(NULL) is a no-op. Never sleeps.
 */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
/* kfree: NULL is a no-op; a pointer kmalloc did not return is a BUG ("kfree: bad pointer"). */
void kfree(const void *p);
/* Bytes usable at p (its size class). */
size_t ksize(const void *p);

#define SLAB_POISON 0x6b
/* Empty slabs a cache keeps; it gives further ones back to the buddy allocator. */
#define SLAB_EMPTY_KEPT 1

void slab_init(void);

#endif
