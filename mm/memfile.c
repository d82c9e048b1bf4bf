/*
 * memfile.c - a memory-backed file: the page cache's backing store for
 * tests, until a disk file system provides one (mm/memfile.h).
 *
 * Lock order: page lock -> memfile lock. readpage and writepage run with
 * the cache page locked and take the memfile lock only around the copy;
 * the memfile lock is a leaf (nothing is taken, and nothing sleeps, under
 * it). The slow-disk delay is spent outside it.
 */
#include "mm/memfile.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/panic.h"

CMDLINE_KEY(memfile_read_delay, "memfile.read_delay_us",
	    "memfile: every readpage waits N us first, like a slow disk (default 0)");

/* ---------------------------------------------------------------- the store */

/* Bytes in the store's array of page pointers, and the order of a block
 * big enough for it when it does not fit a kmalloc (one page at most). */
static size_t store_array_bytes(unsigned long nr)
{
	return nr * sizeof(struct page *);
}

static unsigned store_array_order(unsigned long nr)
{
	unsigned order = 0;

	while (((size_t)PAGE_SIZE << order) < store_array_bytes(nr))
		order++;
	return order;
}

static struct page **store_array_alloc(unsigned long nr)
{
	if (store_array_bytes(nr) <= PAGE_SIZE)
		return kzalloc(store_array_bytes(nr));
	struct page *block = alloc_pages(store_array_order(nr));
	if (!block)
		return NULL;
	memset(page_address(block), 0, (size_t)PAGE_SIZE << store_array_order(nr));
	return page_address(block);
}

static void store_array_free(struct page **array, unsigned long nr)
{
	if (store_array_bytes(nr) <= PAGE_SIZE)
		kfree(array);
	else
		free_pages(virt_to_page(array), store_array_order(nr));
}

/* Free the store's pages (any not yet allocated are NULL) and the array. */
static void store_free(struct memfile *mf)
{
	for (unsigned long i = 0; i < mf->nr_store; i++)
		if (mf->store[i])
			put_page(mf->store[i]);
	store_array_free(mf->store, mf->nr_store);
}

/* The store page holding file page `index`, or NULL past the end. */
static u8 *store_page(struct memfile *mf, unsigned long index)
{
	return index < mf->nr_store ? page_address(mf->store[index]) : NULL;
}

/* ---------------------------------------------------------------- address_space ops */

/* readpage: the page is locked and not uptodate (pagecache.h's contract). */
static int memfile_readpage(struct address_space *m, struct page *page)
{
	struct memfile *mf = memfile_of(m);

	if (mf->read_delay_us)
		udelay(mf->read_delay_us);	/* the "disk", outside every lock */
	spin_lock(&mf->lock);
	u8 *src = store_page(mf, page->index);
	if (src)
		memcpy(page_address(page), src, PAGE_SIZE);
	else
		memset(page_address(page), 0, PAGE_SIZE);	/* a hole past the store */
	spin_unlock(&mf->lock);
	__atomic_add_fetch(&mf->reads, 1, __ATOMIC_RELAXED);	/* a statistic: no order */
	/* The contents before the flag: set_bit is a lock bts, a full barrier. */
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return 0;
}

/* writepage: the page is locked with PG_writeback set; the caller ends the
 * writeback (write_one_page) and unlocks. */
static int memfile_writepage(struct address_space *m, struct page *page)
{
	struct memfile *mf = memfile_of(m);
	int err = 0;

	spin_lock(&mf->lock);
	u8 *dst = store_page(mf, page->index);
	if (dst)
		memcpy(dst, page_address(page), PAGE_SIZE);
	else
		err = -ENOSPC;
	spin_unlock(&mf->lock);
	if (!err)
		__atomic_add_fetch(&mf->writes, 1, __ATOMIC_RELAXED);
	return err;
}

static const struct address_space_ops memfile_aops = {
	.readpage = memfile_readpage,
	.writepage = memfile_writepage,
};

/* ---------------------------------------------------------------- create, destroy */

struct memfile *memfile_create(u64 size)
{
	struct memfile *mf = kzalloc(sizeof(*mf));
	if (!mf)
		return NULL;
	mf->nr_store = (unsigned long)((size + PAGE_SIZE - 1) >> PAGE_SHIFT);
	if (mf->nr_store) {
		mf->store = store_array_alloc(mf->nr_store);
		if (!mf->store) {
			kfree(mf);
			return NULL;
		}
	}
	for (unsigned long i = 0; i < mf->nr_store; i++) {
		mf->store[i] = alloc_page_zeroed();
		if (!mf->store[i]) {
			store_free(mf);
			kfree(mf);
			return NULL;
		}
	}
	spin_lock_init(&mf->lock, "memfile");
	mf->read_delay_us = (unsigned)cmdline_get_u64("memfile.read_delay_us", 0);
	address_space_init(&mf->mapping, &memfile_aops, mf);
	mf->mapping.size = size;
	return mf;
}

void memfile_destroy(struct memfile *mf)
{
	truncate_inode_pages(&mf->mapping, 0);
	BUG_ON(READ_ONCE(mf->mapping.nrpages) != 0,
	       "memfile_destroy: pages still cached after truncation to 0");
	if (mf->nr_store)
		store_free(mf);
	kfree(mf);
}

/* ---------------------------------------------------------------- direct access */

/* Copy len bytes between buf and the store at off; to_store says which way.
 * The memfile lock is taken per page so no copy holds it long. */
static ssize_t store_copy(struct memfile *mf, u64 off, void *buf, size_t len, bool to_store)
{
	size_t done = 0;

	if (off > (u64)mf->nr_store << PAGE_SHIFT ||
	    len > ((u64)mf->nr_store << PAGE_SHIFT) - off)
		return -EINVAL;
	while (done < len) {
		u64 p = off + done;
		size_t in = p & (PAGE_SIZE - 1), n = MIN(len - done, PAGE_SIZE - in);
		u8 *sp = store_page(mf, p >> PAGE_SHIFT) + in;
		spin_lock(&mf->lock);
		if (to_store)
			memcpy(sp, (u8 *)buf + done, n);
		else
			memcpy((u8 *)buf + done, sp, n);
		spin_unlock(&mf->lock);
		done += n;
	}
	return (ssize_t)len;
}

ssize_t memfile_store_read(struct memfile *mf, u64 off, void *buf, size_t len)
{
	return store_copy(mf, off, buf, len, false);
}

ssize_t memfile_store_write(struct memfile *mf, u64 off, const void *buf, size_t len)
{
	return store_copy(mf, off, (void *)buf, len, true);
}

u64 memfile_reads(struct memfile *mf)
{
	return __atomic_load_n(&mf->reads, __ATOMIC_ACQUIRE);
}

u64 memfile_writes(struct memfile *mf)
{
	return __atomic_load_n(&mf->writes, __ATOMIC_ACQUIRE);
}
