/*
 * roundabout.h - Roundabout's own system calls for user programs.
 *
 * Everything else a program uses is the Linux x86-64 ABI, so the same
 * binary runs on Linux; these calls exist only on Roundabout (on Linux
 * they fail with ENOSYS). Their numbers lie outside Linux's range.
 *
 * SYS_rb_pin: pin user pages, the teaching interface to get_user_pages()
 * and get_user_pages_fast() (in the spirit of Linux's gup_test).
 *
 *   struct rb_pin args = { .addr = a, .len = n, .flags = RB_PIN_WRITE | RB_PIN_FAST };
 *   long pinned = syscall(SYS_rb_pin, &args);
 *
 * The kernel pins every page of [addr, addr + len) - for writing with
 * RB_PIN_WRITE (then a read-only mapping is an error, and copy-on-write
 * is broken first) - through the fast path (RB_PIN_FAST), the slow path
 * (RB_PIN_SLOW), or the kernel's default (neither: fast unless booted
 * with gup=slow). It holds the pins hold_us microseconds, then releases
 * them (pages pinned for writing are marked dirty). It returns the number
 * of pages pinned, and fills in the out fields:
 *   pinned      pages pinned (the return value)
 *   fast        how many of them the fast path pinned (the rest: slow)
 *   first_word  the first 8 bytes of the first pinned page, read through
 *               the pin just before the release (after the hold)
 *   changed     pages whose first 8 bytes differ between pin time and
 *               release time, as read through the pins
 * Errors (-1 and errno), checked in this order:
 *   EFAULT  args not readable (its out fields are written after the hold)
 *   EINVAL  len 0; an unknown flag; both RB_PIN_FAST and RB_PIN_SLOW;
 *           addr + len overflows
 *   EFAULT  addr in the kernel half or the non-canonical hole
 *           (at or above 0x7ffffffff000, the end of the user half)
 *   EINVAL  addr + len runs past the end of the user half
 *   ENOMEM  more than RB_PIN_MAX_PAGES pages
 *   EFAULT  any page of the range unmapped or PROT_NONE; RB_PIN_WRITE
 *           on memory that is not writable
 * first_word is the word at the start of the first page (not at addr).
 * Holding pins takes no lock a munmap needs: the process runs on.
 *
 * /proc/gup counts fast pins, slow pins and the fast path's fallbacks
 * (PTE changed under it, not present, not permitted).
 */
#ifndef USER_INCLUDE_ROUNDABOUT_H
#define USER_INCLUDE_ROUNDABOUT_H

#include <stdint.h>

#define SYS_rb_pin 1000

#define RB_PIN_WRITE 0x1
#define RB_PIN_FAST 0x2
#define RB_PIN_SLOW 0x4

#define RB_PIN_MAX_PAGES 65536	/* 256 MiB in one call */

struct rb_pin {
	uint64_t addr;		/* in: first byte (any alignment) */
	uint64_t len;		/* in: bytes */
	uint32_t flags;		/* in: RB_PIN_* */
	uint32_t hold_us;	/* in: keep the pins this long */
	uint64_t pinned;	/* out */
	uint64_t fast;		/* out */
	uint64_t first_word;	/* out */
	uint64_t changed;	/* out */
};

#endif
