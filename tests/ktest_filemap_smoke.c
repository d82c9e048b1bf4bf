/* ktest_filemap_smoke.c - the page cache's basic paths over a tiny in-memory store. */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "mm/pagecache.h"
#include "mm/vmscan.h"
#include "kernel/printk.h"

#define SMOKE_PAGES 8
static u8 store[SMOKE_PAGES][PAGE_SIZE];
static int reads, writes;

static int smoke_readpage(struct address_space *m, struct page *page)
{
	if (page->index < SMOKE_PAGES)
		memcpy(page_address(page), store[page->index], PAGE_SIZE);
	reads++;
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return 0;
}

static int smoke_writepage(struct address_space *m, struct page *page)
{
	if (page->index < SMOKE_PAGES)
		memcpy(store[page->index], page_address(page), PAGE_SIZE);
	writes++;
	return 0;
}

static const struct address_space_ops smoke_ops = {
	.readpage = smoke_readpage,
	.writepage = smoke_writepage,
};

KTEST(filemap_smoke_read_write_evict_truncate)
{
	struct address_space m;
	u8 buf[64];

	address_space_init(&m, &smoke_ops, NULL);
	for (int i = 0; i < SMOKE_PAGES; i++)
		memset(store[i], 'a' + i, PAGE_SIZE);
	m.size = SMOKE_PAGES * PAGE_SIZE;
	reads = writes = 0;
	KT_EQ(filemap_read(&m, buf, 10, 3 * PAGE_SIZE + 5), 10);
	KT_EQ(buf[0], 'd');
	int r = reads;
	KT_GT(r, 0);
	KT_EQ(filemap_read(&m, buf, 10, 3 * PAGE_SIZE + 5), 10);
	KT_EQ(reads, r);	/* a hit */
	KT_EQ(filemap_write(&m, "XYZ", 3, 2 * PAGE_SIZE + 1), 3);
	KT_ASSERT(radix_tree_tagged(&m.tree, RADIX_TREE_TAG_DIRTY));
	KT_EQ(filemap_write_and_wait(&m), 0);
	KT_ASSERT(!radix_tree_tagged(&m.tree, RADIX_TREE_TAG_DIRTY));
	KT_EQ(store[2][1], 'X');
	KT_EQ(store[2][0], 'c');
	struct page *p = find_get_page(&m, 3);
	KT_NOT_NULL(p);
	lru_del(p);	/* isolate it ourselves: refcount = cache + ours = 2 */
	lock_page(p);
	get_page(p);
	KT_ASSERT(!remove_mapping(&m, p));	/* a third reference: it stays */
	put_page(p);
	KT_ASSERT(remove_mapping(&m, p));
	KT_NULL(find_get_page(&m, 3));
	truncate_inode_pages(&m, 0);
	KT_EQ(m.nrpages, 0);
}
