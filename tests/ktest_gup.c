/*
 * ktest_gup.c - get_user_pages and get_user_pages_fast on an address space
 * the test builds itself (a kernel thread that borrows a user mm).
 */
#include "kernel/ktest.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/x86.h"
#include "mm/vm.h"
#include "mm/gup.h"
#include "mm/page.h"
#include "mm/paging.h"

#define AT 0x400000UL

/* Give the current kernel thread a fresh user address space with n pages at AT. */
static struct mm_struct *borrow_mm(unsigned long n, unsigned long vmflags)
{
	struct mm_struct *mm = mm_create();
	if (!mm)
		return NULL;
	down_write(&mm->mmap_lock);
	do_mmap(mm, AT, n * PAGE_SIZE, vmflags, true, NULL, 0);
	up_write(&mm->mmap_lock);
	unsigned long f = irq_save();
	current_task()->mm = mm;
	mm_activate(mm);
	irq_restore(f);
	return mm;
}

static void return_mm(struct mm_struct *mm)
{
	unsigned long f = irq_save();
	current_task()->mm = NULL;
	mm_activate(NULL);
	irq_restore(f);
	mm_put(mm);
}

KTEST(gup_fast_pins_touched_pages_and_slow_finishes_the_rest)
{
	struct mm_struct *mm = borrow_mm(8, VM_READ | VM_WRITE);
	KT_NOT_NULL(mm);
	u64 v = 0x1234;
	KT_EQ(copy_to_user((void *)AT, &v, 8), 0);		/* page 0 touched, the rest not */
	struct page *pages[8];
	unsigned long fast;
	long n = get_user_pages_fast(AT, 8, GUP_WRITE, pages, &fast);
	KT_EQ(n, 8);
	KT_EQ(fast, 1);						/* page 0 fast, 1-7 faulted */
	KT_EQ(*(u64 *)page_address(pages[0]), 0x1234);
	n = get_user_pages_fast(AT, 8, 0, pages + 0, &fast);	/* now all present */
	KT_EQ(fast, 8);
	unpin_user_pages(pages, 8, false);
	n = get_user_pages_fast(AT, 8, 0, pages, &fast);
	unpin_user_pages(pages, (unsigned long)n, false);
	return_mm(mm);
}

KTEST(gup_pinned_page_outlives_munmap)
{
	struct mm_struct *mm = borrow_mm(1, VM_READ | VM_WRITE);
	KT_NOT_NULL(mm);
	u64 v = 0xfeedface;
	KT_EQ(copy_to_user((void *)AT, &v, 8), 0);
	struct page *page;
	unsigned long fast;
	KT_EQ(get_user_pages_fast(AT, 1, 0, &page, &fast), 1);
	int refs = atomic_read(&page->refcount);
	KT_EQ(refs, 2);						/* the mapping's and the pin's */
	down_write(&mm->mmap_lock);
	KT_EQ(do_munmap(mm, AT, PAGE_SIZE), 0);
	up_write(&mm->mmap_lock);
	KT_EQ(atomic_read(&page->refcount), 1);			/* only the pin now */
	KT_EQ(*(u64 *)page_address(page), 0xfeedface);		/* still the data */
	KT_EQ(get_user_pages_fast(AT, 1, 0, &page + 0, &fast) < 0, 1);	/* unmapped: EFAULT */
	unpin_user_pages(&page, 1, false);			/* freed now */
	return_mm(mm);
}

KTEST(gup_refuses_write_pin_of_read_only_memory)
{
	struct mm_struct *mm = borrow_mm(1, VM_READ);
	KT_NOT_NULL(mm);
	struct page *page;
	unsigned long fast;
	KT_EQ(get_user_pages_fast(AT, 1, GUP_WRITE, &page, &fast), -EFAULT);
	KT_EQ(get_user_pages(mm, AT, 1, GUP_WRITE, &page), -EFAULT);
	KT_EQ(get_user_pages(mm, AT, 1, 0, &page), 1);		/* a read pin is fine */
	unpin_user_pages(&page, 1, false);
	KT_EQ(get_user_pages(mm, AT + PAGE_SIZE, 1, 0, &page), -EFAULT);	/* no VMA */
	return_mm(mm);
}
