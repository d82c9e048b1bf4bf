/*
 * ktest_truncate.c - truncation against writers that keep adding pages.
 *
 * truncate_inode_pages walks the file in batches of up to 16 pages. Each
 * batch must start past the highest index the last one saw: a walk that
 * starts every batch again at the truncation point finds the pages that
 * writers added meanwhile, and runs for as long as they keep writing
 * (vm.debug_truncate_restart builds that kernel). The test counts batches
 * through the page cache's statistics while two writers keep every index
 * of a 64-page file filled, and fails with a message once the count
 * passes what a single pass can take - instead of waiting for a timeout.
 * Between two batches (truncate_batch_hook) the test itself writes the
 * page at the truncation point again, so the broken walk always has a
 * page to find there, whatever the writers' timing.
 */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/atomic.h"
#include "mm/pagecache.h"
#include "mm/memfile.h"

#define TR_PAGES 64
/* One pass: every batch moves the cursor at least one index up, and the
 * indices lie below TR_PAGES; one more batch finds nothing. */
#define TR_BOUND (TR_PAGES + 1)

static struct {
	struct address_space *m;
	int stop;		/* [A] writers stop when set */
	int done;		/* [A] the truncation returned */
} tr;

/* Fill pages 1..TR_PAGES-1 again and again (page 0 stays: truncate from 1). */
static int tr_writer(void *arg)
{
	while (!READ_ONCE(tr.stop)) {
		for (unsigned long i = 1; i < TR_PAGES && !READ_ONCE(tr.stop); i++) {
			struct page *p = find_or_create_page(tr.m, i);
			if (p) {
				unlock_page(p);
				put_page(p);
			}
		}
		yield();
	}
	return 0;
}

/* Between two batches: write the first truncated page again. */
static void tr_between_batches(struct address_space *m)
{
	if (m != tr.m || READ_ONCE(tr.stop))
		return;
	struct page *p = find_or_create_page(m, 1);
	if (p) {
		unlock_page(p);
		put_page(p);
	}
}

static int tr_truncator(void *arg)
{
	truncate_inode_pages(tr.m, PAGE_SIZE);
	WRITE_ONCE(tr.done, 1);
	return 0;
}

static u64 truncate_batches(void)
{
	struct pagecache_stats s;
	pagecache_get_stats(&s);
	return s.truncate_batches;
}

KTEST(pagecache_truncate_finishes_while_writers_add_pages)
{
	struct memfile *mf = memfile_create(TR_PAGES * PAGE_SIZE);
	KT_NOT_NULL(mf);
	tr.m = &mf->mapping;
	tr.stop = tr.done = 0;
	struct task *w[2];
	for (int i = 0; i < 2; i++)
		w[i] = kthread_run(tr_writer, NULL, "tr_writer");
	msleep(20);			/* every index filled */
	u64 before = truncate_batches();
	truncate_batch_hook = tr_between_batches;
	struct task *t = kthread_run(tr_truncator, NULL, "tr_truncate");
	u64 batches = 0;
	for (int ms = 0; ms < 20000 && !READ_ONCE(tr.done); ms++) {
		batches = truncate_batches() - before;
		if (batches > TR_BOUND)
			break;		/* it is looping: stop the writers so it can end */
		msleep(1);
	}
	WRITE_ONCE(tr.stop, 1);
	for (int i = 0; i < 2; i++)
		kthread_join(w[i]);
	kthread_join(t);
	truncate_batch_hook = NULL;
	batches = MAX(batches, truncate_batches() - before);
	memfile_destroy(mf);
	if (batches > TR_BOUND)
		KT_FAIL("truncate_inode_pages took over %llu batches for %d pages (a pass "
			"takes at most %d): each batch must start past the last",
			(unsigned long long)batches, TR_PAGES, TR_BOUND);
	KT_ASSERT(READ_ONCE(tr.done));
}
