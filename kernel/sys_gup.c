/*
 * sys_gup.c - SYS_rb_pin (1000): pin a user range through the fast or the
 * slow path, hold the pins, release them. The teaching interface to
 * mm/gup.c; its contract is in user/include/roundabout.h.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/uaccess.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/time.h"
#include "kernel/string.h"
#include "mm/gup.h"
#include "mm/page.h"
#include "mm/slab.h"

#define RB_PIN_WRITE 0x1
#define RB_PIN_FAST 0x2
#define RB_PIN_SLOW 0x4
#define RB_PIN_MAX_PAGES 65536

struct rb_pin {
	u64 addr, len;
	u32 flags, hold_us;
	u64 pinned, fast, first_word, changed;
};

SYSCALL_DEFINE1(rb_pin, uaddr_t, uargs)
{
	struct rb_pin a;
	if (copy_from_user(&a, (void *)uargs, sizeof(a)))
		return -EFAULT;
	if (!a.len || (a.flags & ~7U) ||
	    (a.flags & (RB_PIN_FAST | RB_PIN_SLOW)) == (RB_PIN_FAST | RB_PIN_SLOW))
		return -EINVAL;
	/* Which rule wins when several are broken: the range's shape (EINVAL),
	 * then its size (ENOMEM), then what is mapped there (EFAULT). */
	if (a.addr + a.len < a.addr)
		return -EINVAL;		/* the length overflows */
	if (a.addr >= USER_TOP)
		return -EFAULT;		/* starts in the kernel half (or the hole) */
	if (a.addr + a.len > USER_TOP)
		return -EINVAL;		/* runs past the end of the user half */
	u64 first = a.addr & PAGE_MASK, last = (a.addr + a.len - 1) & PAGE_MASK;
	u64 nr = ((last - first) >> PAGE_SHIFT) + 1;
	if (nr > RB_PIN_MAX_PAGES)
		return -ENOMEM;
	struct page **pages = kmalloc(nr * sizeof(*pages));
	u64 *words = kmalloc(nr * sizeof(*words));
	if (!pages || !words) {
		kfree(pages);
		kfree(words);
		return -ENOMEM;
	}
	bool slow = (a.flags & RB_PIN_SLOW) || (!(a.flags & RB_PIN_FAST) && gup_slow_default());
	unsigned gflags = (a.flags & RB_PIN_WRITE) ? GUP_WRITE : 0;
	unsigned long nr_fast = 0;
	long r = slow ? get_user_pages(current_task()->mm, a.addr, nr, gflags, pages)
		      : get_user_pages_fast(a.addr, nr, gflags, pages, &nr_fast);
	if (r >= 0 && (u64)r < nr) {	/* all or nothing */
		unpin_user_pages(pages, (unsigned long)r, false);
		r = -EFAULT;
	}
	if (r < 0) {
		kfree(pages);
		kfree(words);
		return r;
	}
	for (u64 i = 0; i < nr; i++)
		words[i] = *(u64 *)page_address(pages[i]);
	if (a.hold_us) {
		if (a.hold_us >= 1000)
			msleep(a.hold_us / 1000);
		udelay(a.hold_us % 1000);
	}
	a.changed = 0;
	for (u64 i = 0; i < nr; i++)
		a.changed += *(u64 *)page_address(pages[i]) != words[i];
	a.first_word = *(u64 *)page_address(pages[0]);
	a.pinned = nr;
	a.fast = nr_fast;
	unpin_user_pages(pages, nr, a.flags & RB_PIN_WRITE);
	kfree(pages);
	kfree(words);
	if (copy_to_user((void *)uargs, &a, sizeof(a)))
		return -EFAULT;
	return (long)nr;
}
