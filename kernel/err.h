/*
 * err.h - an error number carried in a pointer (docs/architecture.md,
 * "Errors").
 *
 * A function that returns a pointer and can fail returns ERR_PTR(-errno)
 * on failure, so the caller learns why without a second out-parameter.
 * The values -1 .. -MAX_ERRNO, read as addresses, are the last 4095 bytes
 * of the address space: 0xfffffffffffff001 and up. That page lies in the
 * kernel image's slot (KERNEL_VMA, the top 2 GiB), but the image is linked
 * at KERNEL_VMA + 1 MiB, is a few MiB long, and paging_init maps only
 * __kernel_start .. __kernel_end there (linker.ld asserts the image ends
 * below the last page). The direct map and the vmap area lie far lower.
 * So no object the kernel allocates, maps or links can have an address in
 * that page, and a pointer there is always an error. The idea is Linux's
 * (include/linux/err.h).
 *
 * A function's contract says whether it may also return NULL; most say
 * "never NULL", so IS_ERR is the one test its callers make.
 */
#ifndef KERNEL_ERR_H
#define KERNEL_ERR_H

#include "kernel/types.h"

/* The largest errno a pointer can carry; every -E... in types.h is below it. */
#define MAX_ERRNO 4095

/* ERR_PTR: the pointer that carries err, a negative errno (-MAX_ERRNO .. -1). */
static inline void *ERR_PTR(long err)
{
	return (void *)err;
}

/* PTR_ERR: the negative errno an IS_ERR pointer carries (meaningless otherwise). */
static inline long PTR_ERR(const void *p)
{
	return (long)p;
}

/* IS_ERR: whether p is an error (one of the last MAX_ERRNO addresses), not an object. */
static inline bool IS_ERR(const void *p)
{
	return unlikely((unsigned long)p >= (unsigned long)-MAX_ERRNO);
}

/* IS_ERR_OR_NULL: for the few results that may be NULL as well as an error. */
static inline bool IS_ERR_OR_NULL(const void *p)
{
	return unlikely(!p) || IS_ERR(p);
}

/* ERR_CAST: pass an error pointer on as another pointer type, unchanged. */
static inline void *ERR_CAST(const void *p)
{
	return (void *)p;
}

#endif
