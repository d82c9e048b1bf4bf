/*
 * ramdisk.h - a block device over the root image GRUB loaded as a module.
 *
 * Blocks are 4 KiB, one page each, so block n of the device is page n of
 * its address_space: metadata reads go through the same lockless page
 * cache as file data (the buffer-cache role).
 */
#ifndef FS_BLOCKDEV_H
#define FS_BLOCKDEV_H

#include "kernel/types.h"
#include "mm/pagecache.h"

#define BLOCK_SIZE PAGE_SIZE

/* Lock legend: [I] immutable, [A] atomic, [W] changed only by
 * ramdisk_set_window, while nothing is mounted on the device. */
struct blockdev {
	const char *name;		/* [I] */
	u8 *base;			/* [W] the image, in the direct map */
	u64 nblocks;			/* [W] whole 4 KiB blocks */
	u8 *module;			/* [I] the whole module GRUB loaded */
	u64 module_blocks;		/* [I] its whole 4 KiB blocks */
	struct address_space mapping;	/* its page cache */
	unsigned delay_us;		/* [I] ramdisk.delay_us: imitate a slow disk */
	u64 reads, writes;		/* [A] blocks moved to and from the image */
};

/* Find the module named root.img and make it a block device; NULL if none. */
struct blockdev *ramdisk_init(void);
/* The root device, or NULL if the boot had no image. */
struct blockdev *ramdisk_root(void);
/*
 * Make the device blocks [first, first + n) of the module (which may hold
 * several images back to back; tests/ktest_ext2_fuzz.c). Only while nothing
 * is mounted on it: 0, -EBUSY if its cache holds pages, -EINVAL if out of range.
 */
int ramdisk_set_window(struct blockdev *bd, u64 first, u64 n);
/* bdev_read_block: block n, uptodate, with a reference (put_page when done); NULL + *err. */
struct page *bdev_read_block(struct blockdev *bd, u64 n, int *err);

/* Whole-block transfers that bypass the device's cache (file data). 0 or -EIO. */
int bdev_read_raw(struct blockdev *bd, u64 n, void *buf);
int bdev_write_raw(struct blockdev *bd, u64 n, const void *buf);
/* Drop block n from the device's cache (it was freed). May sleep. */
void bdev_forget_block(struct blockdev *bd, u64 n);
/* Block n as a new zeroed metadata block: locked, uptodate, with a reference. */
struct page *bdev_new_block(struct blockdev *bd, u64 n);

#endif
