/*
 * uaccess.h - the only way the kernel touches user memory.
 *
 * A user pointer is a number the program chose: it may be NULL, point into
 * the kernel, at nothing, or at memory another thread unmaps while we
 * copy. So every access (1) checks that the whole range lies in the user
 * half, (2) opens SMAP's window with stac only for the copy itself and
 * closes it with clac, and (3) runs on instructions listed in the exception
 * table: a fault the page-fault handler cannot satisfy (mm/fault.c) resumes
 * at a fixup that makes the copy return -EFAULT. No user pointer can crash
 * the kernel or make it read its own memory. Every copy may sleep (the
 * fault handler takes mmap_lock and reads pages in): never copy under a
 * spinlock or with interrupts off (might_sleep checks).
 */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include "kernel/types.h"

/* One past the highest user address: the lower canonical half, less a guard page. */
#define USER_TOP 0x00007ffffffff000UL

/* [I] uaccess.debug_no_range_check: access_ok says yes to every range, so
 * a kernel address is copied to or from like a user one (a deliberately
 * broken kernel, for t_kernel_hash to catch). */
extern bool uaccess_no_range_check;

static inline bool access_ok(const void *uptr, size_t len)
{
	unsigned long a = (unsigned long)uptr;
	if (unlikely(uaccess_no_range_check))
		return true;
	return len <= USER_TOP && a <= USER_TOP - len;
}

/* 0, or -EFAULT (nothing, or part of it, was copied). */
int copy_from_user(void *dst, const void *usrc, size_t len);
int copy_to_user(void *udst, const void *src, size_t len);
int clear_user(void *udst, size_t len);
/* Copy a NUL-terminated string of at most max-1 bytes: its length, -EFAULT,
 * or -ENAMETOOLONG if no NUL came within max bytes. */
long strncpy_from_user(char *dst, const char *usrc, size_t max);
/* Read or write one u32/u64 at a user address. 0 or -EFAULT. */
int get_user_u32(u32 *out, const void *uptr);
int put_user_u32(void *uptr, u32 v);
int get_user_u64(u64 *out, const void *uptr);
int put_user_u64(void *uptr, u64 v);
/*
 * The partial copies move what they can before the first address that
 * faults and return the bytes copied: len when all of it was, 0 when none.
 * Unlike copy_to_user they are not all-or-nothing: read() and write()
 * report a short count. A destination range that is not wholly in user
 * space copies nothing; a source range is cut at USER_TOP.
 */
size_t copy_to_user_partial(void *udst, const void *src, size_t len);
size_t copy_from_user_partial(void *dst, const void *usrc, size_t len);
/*
 * copy_from_user_nofault: copy_from_user_partial, except that a fault is
 * never served (extable.h, EX_NOFAULT): the copy stops at the first page
 * that is not mapped readable right now. Never sleeps, so it may run with
 * a page locked, where a served fault could need that very page.
 */
size_t copy_from_user_nofault(void *dst, const void *usrc, size_t len);
/*
 * fault_in_user_readable: touch each page of [usrc, usrc+len) in turn,
 * faulting it in as a read by the program would. Returns how many bytes
 * from usrc on are readable (up to the first page that is not; len if all
 * are). Only a hint: the pages may be gone again a moment later. May sleep.
 */
size_t fault_in_user_readable(const void *usrc, size_t len);

/* uaccess_init: at boot, once the CPU features are known (SMAP). */
void uaccess_init(void);

#endif
