/*
 * iov_iter.h - the other side of a copy: a user buffer or a kernel one.
 *
 * The page cache moves file data between its pages and whoever asked: a
 * program's read() buffer, or a kernel buffer (exec reading an ELF header,
 * a ktest). An iov_iter names that buffer, says which kind it is, and
 * counts how much of it is done, so filemap_read copies each page straight
 * to its destination - one copy, no bounce buffer - without caring which
 * kind it is (xv6's either_copyout; Linux's iov_iter, with one segment).
 *
 * Every copy below moves at most n bytes, advances the iterator by what it
 * moved, and returns that number. A kernel buffer never faults. A user
 * buffer may end early: a copy stops at the first page that cannot be
 * mapped (kernel/uaccess.h) and returns the bytes before it, and the
 * caller reports a short count, or EFAULT if nothing moved.
 *
 * Faults and locks: copy_to_iter, copy_from_iter and copy_page_to_iter may
 * take a page fault on a user buffer, which sleeps and may lock a
 * page-cache page (mm/fault.c) - perhaps the very page being copied, when
 * the buffer is a shared mapping of the same file. So they run with no
 * page lock and no spinlock held. A caller that must hold a page lock
 * (filemap_write) faults the source in first, with
 * iov_iter_fault_in_readable, and then copies with
 * copy_page_from_iter_nofault, which never serves a fault.
 */
#ifndef MM_IOV_ITER_H
#define MM_IOV_ITER_H

#include "kernel/types.h"

struct page;

/* One iterator belongs to one call chain: every field is [P]. */
struct iov_iter {
	bool user;	/* [P] base is a user address (checked at each copy) */
	u8 *base;	/* [P] the buffer; a source is only ever read */
	size_t len;	/* [P] its length */
	size_t done;	/* [P] bytes copied so far: the next copy starts at base + done */
};

/* A user buffer of len bytes at ubuf (its range is checked at each copy). */
static inline void iov_iter_user(struct iov_iter *it, void *ubuf, size_t len)
{
	*it = (struct iov_iter){ .user = true, .base = ubuf, .len = len, .done = 0 };
}

/* A kernel buffer: a destination, or a source (then only read, whatever its type). */
static inline void iov_iter_kernel(struct iov_iter *it, const void *buf, size_t len)
{
	*it = (struct iov_iter){ .user = false, .base = (u8 *)buf, .len = len, .done = 0 };
}

/* Bytes left to copy. */
static inline size_t iov_iter_count(const struct iov_iter *it)
{
	return it->len - it->done;
}

/* Shorten what is left to at most max bytes (a file's size limit). */
static inline void iov_iter_truncate(struct iov_iter *it, size_t max)
{
	if (iov_iter_count(it) > max)
		it->len = it->done + max;
}

/* Step back n bytes: a copy whose bytes the caller could not use. */
static inline void iov_iter_revert(struct iov_iter *it, size_t n)
{
	it->done -= n;
}

/* From kernel memory to the iterator. Bytes copied. May fault (see the top). */
size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it);
/* From the iterator to kernel memory. Bytes copied. May fault. */
size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it);
/* n bytes of page at off (off + n <= PAGE_SIZE) to the iterator. The caller
 * holds a reference, not the page lock. Bytes copied. May fault. */
size_t copy_page_to_iter(struct page *page, size_t off, size_t n, struct iov_iter *it);
/* From the iterator into page at off, serving no fault: stops at the first
 * user page not mapped now. For a caller holding the page lock. Never sleeps. */
size_t copy_page_from_iter_nofault(struct page *page, size_t off, size_t n, struct iov_iter *it);
/* Fault in the next n bytes of a source; how many of them are readable
 * (n for a kernel buffer). A hint: call it before taking the page lock. */
size_t iov_iter_fault_in_readable(struct iov_iter *it, size_t n);

#endif
