/* iov_iter.c - copies between kernel memory and a user or kernel buffer (iov_iter.h). */
#include "mm/iov_iter.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/panic.h"
#include "mm/page.h"

size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it)
{
	n = MIN(n, iov_iter_count(it));
	u8 *dst = it->base + it->done;
	if (it->user)
		n = copy_to_user_partial(dst, src, n);	/* may fault, may sleep */
	else
		memcpy(dst, src, n);
	it->done += n;
	return n;
}

size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it)
{
	n = MIN(n, iov_iter_count(it));
	const u8 *src = it->base + it->done;
	if (it->user)
		n = copy_from_user_partial(dst, src, n);	/* may fault, may sleep */
	else
		memcpy(dst, src, n);
	it->done += n;
	return n;
}

size_t copy_page_to_iter(struct page *page, size_t off, size_t n, struct iov_iter *it)
{
	BUG_ON(off + n > PAGE_SIZE, "copy_page_to_iter: the range leaves the page");
	return copy_to_iter((const u8 *)page_address(page) + off, n, it);
}

size_t copy_page_from_iter_nofault(struct page *page, size_t off, size_t n, struct iov_iter *it)
{
	BUG_ON(off + n > PAGE_SIZE, "copy_page_from_iter_nofault: the range leaves the page");
	n = MIN(n, iov_iter_count(it));
	u8 *dst = (u8 *)page_address(page) + off;
	const u8 *src = it->base + it->done;
	if (it->user)
		n = copy_from_user_nofault(dst, src, n);	/* a fault ends it: never sleeps */
	else
		memcpy(dst, src, n);
	it->done += n;
	return n;
}

size_t iov_iter_fault_in_readable(struct iov_iter *it, size_t n)
{
	n = MIN(n, iov_iter_count(it));
	if (!it->user)
		return n;
	return fault_in_user_readable(it->base + it->done, n);
}
