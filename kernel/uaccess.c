/*
 * uaccess.c - copies to and from user memory (kernel/uaccess.h).
 *
 * The copy is one `rep movsb` between stac and clac. If it faults and
 * mm/fault.c cannot map the page, the exception table sends the CPU to the
 * fixup with rcx still counting the bytes not copied.
 */
#include "kernel/uaccess.h"
#include "kernel/extable.h"
#include "mm/paging.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"

static bool smap;	/* [I] the CPU has SMAP: stac/clac are needed (and exist) */
bool uaccess_no_range_check;	/* [I] uaccess.h */

CMDLINE_KEY(no_range_check, "uaccess.debug_no_range_check",
	    "BROKEN: user copies skip the range check, so a kernel address passes");

void uaccess_init(void)
{
	smap = paging_features.smap;
	uaccess_no_range_check = cmdline_get("uaccess.debug_no_range_check") != NULL;
	if (uaccess_no_range_check)
		pr_warn("uaccess: debug_no_range_check: system calls may touch kernel memory");
}

static inline void user_open(void)
{
	if (smap)
		__asm__ __volatile__("stac" ::: "memory");
}

static inline void user_close(void)
{
	if (smap)
		__asm__ __volatile__("clac" ::: "memory");
}

/*
 * Copy len bytes; returns the number NOT copied (0 on success). Every user
 * access may fault, and the fault handler takes mmap_lock and may allocate
 * and read pages in: it may sleep, so every user copy says so first.
 */
static size_t raw_copy(void *dst, const void *src, size_t len)
{
	might_sleep();
	user_open();
	__asm__ __volatile__("1: rep movsb\n"
			     "2:\n"
			     _ASM_EXTABLE(1b, 2b)
			     : "+D"(dst), "+S"(src), "+c"(len)
			     :
			     : "memory");
	user_close();
	return len;
}

/* raw_copy whose fault is never served (extable.h, EX_NOFAULT). Never sleeps. */
static size_t raw_copy_nofault(void *dst, const void *src, size_t len)
{
	user_open();
	__asm__ __volatile__("1: rep movsb\n"
			     "2:\n"
			     _ASM_EXTABLE_TYPE(1b, 2b, 2)
			     : "+D"(dst), "+S"(src), "+c"(len)
			     :
			     : "memory");
	user_close();
	return len;
}

static size_t raw_clear(void *dst, size_t len)
{
	might_sleep();
	user_open();
	__asm__ __volatile__("1: rep stosb\n"
			     "2:\n"
			     _ASM_EXTABLE(1b, 2b)
			     : "+D"(dst), "+c"(len)
			     : "a"(0)
			     : "memory");
	user_close();
	return len;
}

int copy_from_user(void *dst, const void *usrc, size_t len)
{
	if (!access_ok(usrc, len))
		return -EFAULT;
	return raw_copy(dst, usrc, len) ? -EFAULT : 0;
}

size_t copy_from_user_partial(void *dst, const void *usrc, size_t len)
{
	if (!access_ok(usrc, len)) {
		if ((unsigned long)usrc >= USER_TOP)
			return 0;
		len = USER_TOP - (unsigned long)usrc;
	}
	return len - raw_copy(dst, usrc, len);
}

size_t copy_from_user_nofault(void *dst, const void *usrc, size_t len)
{
	if (!access_ok(usrc, len)) {
		if ((unsigned long)usrc >= USER_TOP)
			return 0;
		len = USER_TOP - (unsigned long)usrc;
	}
	return len - raw_copy_nofault(dst, usrc, len);
}

size_t fault_in_user_readable(const void *usrc, size_t len)
{
	unsigned long a = (unsigned long)usrc, end = a + len;
	u8 byte;

	if (!len)
		return 0;
	if (!access_ok(usrc, len))
		end = a < USER_TOP ? USER_TOP : a;
	/* One byte of each page: the first, then each page start after it. */
	for (unsigned long p = a; p < end; p = (p & PAGE_MASK) + PAGE_SIZE)
		if (copy_from_user_partial(&byte, (const void *)p, 1) != 1)
			return p - a;
	return end - a;
}

size_t copy_to_user_partial(void *udst, const void *src, size_t len)
{
	if (!access_ok(udst, len))
		return 0;
	return len - raw_copy(udst, src, len);
}

int copy_to_user(void *udst, const void *src, size_t len)
{
	if (!access_ok(udst, len))
		return -EFAULT;
	return raw_copy(udst, src, len) ? -EFAULT : 0;
}

int clear_user(void *udst, size_t len)
{
	if (!access_ok(udst, len))
		return -EFAULT;
	return raw_clear(udst, len) ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		if (!access_ok(usrc + i, 1) || raw_copy(dst + i, usrc + i, 1))
			return -EFAULT;
		if (!dst[i])
			return (long)i;
	}
	return -ENAMETOOLONG;
}

int get_user_u32(u32 *out, const void *uptr)
{
	return copy_from_user(out, uptr, 4);
}

int put_user_u32(void *uptr, u32 v)
{
	return copy_to_user(uptr, &v, 4);
}

int get_user_u64(u64 *out, const void *uptr)
{
	return copy_from_user(out, uptr, 8);
}

int put_user_u64(void *uptr, u64 v)
{
	return copy_to_user(uptr, &v, 8);
}
