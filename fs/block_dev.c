/*
 * ramdisk.c - the root image as a block device, cached by the page cache.
 *
 * mm_init reserved the module's frames, so the image stays put; readpage
 * copies a block from it, writepage copies a block back (the image is the
 * "disk"). ramdisk.delay_us=N makes each block transfer take N us, so a
 * student can see what the cache saves.
 */
#include "fs/blockdev.h"
#include "kernel/multiboot.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/time.h"

CMDLINE_KEY(rd_delay, "ramdisk.delay_us", "ramdisk: delay each block read or write by N us");

static struct blockdev root;
static bool have_root;	/* [I] after ramdisk_init */

static struct blockdev *bdev_of(struct address_space *m)
{
	return m->host;
}

static int ramdisk_readpage(struct address_space *m, struct page *page)
{
	struct blockdev *bd = bdev_of(m);

	if (page->index < bd->nblocks) {
		if (bd->delay_us)
			udelay(bd->delay_us);
		memcpy(page_address(page), bd->base + page->index * BLOCK_SIZE, BLOCK_SIZE);
		__atomic_add_fetch(&bd->reads, 1, __ATOMIC_RELAXED);
	} else {
		memset(page_address(page), 0, BLOCK_SIZE);	/* past the end reads as zeros */
	}
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return 0;
}

static int ramdisk_writepage(struct address_space *m, struct page *page)
{
	struct blockdev *bd = bdev_of(m);

	if (page->index >= bd->nblocks)
		return -ENOSPC;
	if (bd->delay_us)
		udelay(bd->delay_us);
	memcpy(bd->base + page->index * BLOCK_SIZE, page_address(page), BLOCK_SIZE);
	__atomic_add_fetch(&bd->writes, 1, __ATOMIC_RELAXED);
	return 0;
}

static const struct address_space_ops ramdisk_ops = {
	.readpage = ramdisk_readpage,
	.writepage = ramdisk_writepage,
};

struct blockdev *ramdisk_init(void)
{
	for (int i = 0; i < boot_info.nmods; i++) {
		const struct boot_module *mod = &boot_info.mods[i];
		if (strcmp(mod->name, "root.img"))
			continue;
		root.name = "ram0";
		root.module = root.base = __va(mod->start);
		root.module_blocks = root.nblocks = (mod->end - mod->start) / BLOCK_SIZE;
		root.delay_us = (unsigned)cmdline_get_u64("ramdisk.delay_us", 0);
		address_space_init(&root.mapping, &ramdisk_ops, &root);
		root.mapping.size = root.nblocks * BLOCK_SIZE;
		root.mapping.page_lock_subclass = 1;	/* metadata (pagecache.h) */
		have_root = true;
		printk("ramdisk: ram0 is root.img, %llu blocks of 4 KiB",
		       (unsigned long long)root.nblocks);
		return &root;
	}
	return NULL;
}

struct blockdev *ramdisk_root(void)
{
	return have_root ? &root : NULL;
}

int ramdisk_set_window(struct blockdev *bd, u64 first, u64 n)
{
	if (!n || first > bd->module_blocks || n > bd->module_blocks - first)
		return -EINVAL;
	if (READ_ONCE(bd->mapping.nrpages))
		return -EBUSY;		/* still mounted, or pages left behind */
	bd->base = bd->module + first * BLOCK_SIZE;
	bd->nblocks = n;
	bd->mapping.size = n * BLOCK_SIZE;
	return 0;
}

struct page *bdev_read_block(struct blockdev *bd, u64 n, int *err)
{
	if (n >= bd->nblocks) {
		*err = -EINVAL;
		return NULL;
	}
	return read_mapping_page(&bd->mapping, n, err);
}

/*
 * File data moves between a file's own page and the disk without a stop in
 * the device's cache (each block is cached once, under the file).
 */
int bdev_read_raw(struct blockdev *bd, u64 n, void *buf)
{
	if (n >= bd->nblocks)
		return -EIO;
	if (bd->delay_us)
		udelay(bd->delay_us);
	memcpy(buf, bd->base + n * BLOCK_SIZE, BLOCK_SIZE);
	__atomic_add_fetch(&bd->reads, 1, __ATOMIC_RELAXED);
	return 0;
}

int bdev_write_raw(struct blockdev *bd, u64 n, const void *buf)
{
	if (n >= bd->nblocks)
		return -EIO;
	if (bd->delay_us)
		udelay(bd->delay_us);
	memcpy(bd->base + n * BLOCK_SIZE, buf, BLOCK_SIZE);
	__atomic_add_fetch(&bd->writes, 1, __ATOMIC_RELAXED);
	return 0;
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
