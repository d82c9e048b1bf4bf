/*
 * gup.h - pinning user pages (mm/gup.c states the fast path's guarantee
 * and its steps).
 */
#ifndef MM_GUP_H
#define MM_GUP_H

#include "kernel/types.h"

struct mm_struct;
struct page;

#define GUP_WRITE 0x1	/* the kernel will write the pages (they must be writable) */

/* Pin nr pages from the page holding start, under mmap_lock, faulting them
 * in (copy-on-write broken first). Pages pinned (< nr: the first failure
 * stops it), or -EFAULT / -ENOMEM if none. May sleep. */
long get_user_pages(struct mm_struct *mm, unsigned long start, unsigned long nr, unsigned flags,
		    struct page **pages);
/* The same for the current mm without its lock where the page tables allow
 * (*nr_fast of them), the rest through get_user_pages. */
long get_user_pages_fast(unsigned long start, unsigned long nr, unsigned flags,
			 struct page **pages, unsigned long *nr_fast);
/* Release pins; with dirty, file pages are marked dirty first. */
void unpin_user_pages(struct page **pages, unsigned long nr, bool dirty);

struct gup_stats {
	u64 fast_pins, slow_pins;
	u64 fallback_changed;		/* step 4: the PTE changed under the walk */
	u64 fallback_fork;		/* steps 0 and 6: a fork ran beside the walk */
	u64 fallback_not_present;	/* a level or the PTE not present */
	u64 fallback_permission;	/* not user, not writable, or maybe COW-shared */
};
extern struct gup_stats gup_stats;

void gup_init(void);
/* Is this CPU inside a fast walk (between steps 1 and 5)? For the TLB
 * shootdown's check: with interrupts off, as they must be, never. */
bool gup_fast_walking_here(void);
/* The default path (gup=slow at boot; /proc/gup_mode changes it). */
bool gup_slow_default(void);
void gup_set_slow_default(bool slow);

#endif
