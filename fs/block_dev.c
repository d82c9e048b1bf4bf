/*
 * block_dev.c - the block layer: registered block devices and their cache.
 *
 * Each device has an address_space whose page n is block n (blockdev.h):
 * the readpage and writepage below are the only places that call down
 * into a driver for metadata, and bdev_read_raw/bdev_write_raw the only
 * ones for file data. A driver sees block numbers of its whole device;
 * the window (start, nblocks) is applied here, so every driver gets
 * partition-like windows for free.
 *
 * Locks: 'bdev_lock' (spinlock: the ramdisk registers before interrupts
 * are on) the list of devices; a leaf, taken only by register,
 * unregister and lookup. The cache's own locks are the page
 * cache's (mm/pagecache.h); a device's pages are metadata, lockdep
 * subclass 1, locked inside a file page's lock (fs/ext2/ext2.h).
 */
#include "fs/blockdev.h"
#include "kernel/spinlock.h"
#include "kernel/lockdep.h"
#include "kernel/string.h"
#include "kernel/printk.h"

static LIST_HEAD(bdevs);		/* [L:bdev_lock] */
static spinlock_t bdev_lock = SPINLOCK_INIT("bdev_lock");
static u32 next_minor;			/* [L:bdev_lock] */

/* One block through the driver, counted. Block n of the window, already checked. */
static int driver_rw(struct blockdev *bd, u64 n, void *buf, bool write)
{
	int err = write ? bd->ops->write(bd, bd->start + n, buf) : bd->ops->read(bd, bd->start + n, buf);
	if (!err)
		__atomic_add_fetch(write ? &bd->writes : &bd->reads, 1, __ATOMIC_RELAXED);
	return err;
}

static int bdev_readpage(struct address_space *m, struct page *page)
{
	struct blockdev *bd = m->host;
	int err = 0;

	if (page->index < bd->nblocks)
		err = driver_rw(bd, page->index, page_address(page), false);
	else
		memset(page_address(page), 0, BLOCK_SIZE);	/* past the end reads as zeros */
	if (!err)
		set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return err;
}

static int bdev_writepage(struct address_space *m, struct page *page)
{
	struct blockdev *bd = m->host;

	if (page->index >= bd->nblocks)
		return -ENOSPC;
	return driver_rw(bd, page->index, page_address(page), true);
}

static const struct address_space_ops bdev_aops = {
	.readpage = bdev_readpage,
	.writepage = bdev_writepage,
};

static struct blockdev *__bdev_lookup(const char *name)
{
	lockdep_assert(spin_is_held(&bdev_lock));
	struct list_head *p;
	list_for_each(p, &bdevs) {
		struct blockdev *bd = list_entry(p, struct blockdev, link);
		if (!strcmp(bd->name, name))
			return bd;
	}
	return NULL;
}

int bdev_register(struct blockdev *bd)
{
	spin_lock(&bdev_lock);
	if (__bdev_lookup(bd->name)) {
		spin_unlock(&bdev_lock);
		return -EEXIST;
	}
	bd->dev = BDEV_MAJOR << 8 | next_minor++;	/* Linux's encoding for small numbers */
	bd->start = 0;
	bd->nblocks = bd->ops->nr_blocks(bd);
	bd->reads = bd->writes = 0;
	address_space_init(&bd->mapping, &bdev_aops, bd);
	bd->mapping.size = bd->nblocks * BLOCK_SIZE;
	bd->mapping.page_lock_subclass = 1;	/* metadata (pagecache.h) */
	list_add_tail(&bd->link, &bdevs);
	spin_unlock(&bdev_lock);
	printk("block: %s, %llu blocks of 4 KiB", bd->name, (unsigned long long)bd->nblocks);
	return 0;
}

int bdev_unregister(struct blockdev *bd)
{
	if (READ_ONCE(bd->mapping.nrpages))
		return -EBUSY;
	spin_lock(&bdev_lock);
	list_del(&bd->link);
	spin_unlock(&bdev_lock);
	return 0;
}

struct blockdev *bdev_lookup(const char *name)
{
	spin_lock(&bdev_lock);
	struct blockdev *bd = __bdev_lookup(name);
	spin_unlock(&bdev_lock);
	return bd;
}

u64 bdev_capacity(struct blockdev *bd)
{
	return bd->ops->nr_blocks(bd);
}

int bdev_set_window(struct blockdev *bd, u64 first, u64 n)
{
	u64 all = bdev_capacity(bd);
	if (!n || first > all || n > all - first)
		return -EINVAL;
	if (READ_ONCE(bd->mapping.nrpages))
		return -EBUSY;		/* still mounted, or pages left behind */
	bd->start = first;
	bd->nblocks = n;
	bd->mapping.size = n * BLOCK_SIZE;
	return 0;
}

struct page *bdev_read_block(struct blockdev *bd, u64 n)
{
	if (n >= bd->nblocks)
		return ERR_PTR(-EINVAL);
	return read_mapping_page(&bd->mapping, n);
}

/*
 * File data moves between a file's own page and the disk without a stop in
 * the device's cache (each block is cached once, under the file).
 */
int bdev_read_raw(struct blockdev *bd, u64 n, void *buf)
{
	if (n >= bd->nblocks)
		return -EIO;
	return driver_rw(bd, n, buf, false);
}

int bdev_write_raw(struct blockdev *bd, u64 n, const void *buf)
{
	if (n >= bd->nblocks)
		return -EIO;
	return driver_rw(bd, n, (void *)buf, true);
}

/*
 * A metadata block was freed: drop it from the device's cache, so that a
 * stale dirty copy is never written over the block's next owner.
 */
void bdev_forget_block(struct blockdev *bd, u64 n)
{
	struct page *page = find_lock_page(&bd->mapping, n);
	if (!page)
		return;
	wait_on_page_writeback(page);
	if (page->mapping == &bd->mapping)
		delete_from_page_cache(page);
	unlock_page(page);
	put_page(page);
}

/* A new metadata block: a zeroed, uptodate, locked cache page, never read from disk. */
struct page *bdev_new_block(struct blockdev *bd, u64 n)
{
	if (n >= bd->nblocks)
		return NULL;
	struct page *page = find_or_create_page(&bd->mapping, n);
	if (!page)
		return NULL;
	wait_on_page_writeback(page);
	memset(page_address(page), 0, BLOCK_SIZE);
	set_bit(PG_uptodate, &page->flags);
	return page;
}
