/*
 * blockdev.h - block devices: what a driver provides, and the cached
 * device that file systems read and write (fs/block_dev.c).
 *
 * A driver (drivers/ramdisk.c, or a test's memory device) fills a struct
 * blockdev with its name and a struct block_device_ops - read a block,
 * write a block, say how many there are - and the device is registered
 * (bdev_register: by boot for the ramdisk, since drivers sit below fs/
 * and call nothing here; by the test itself for its own). Everything
 * above the driver goes through the bdev_* functions here, never through
 * the driver: a second driver needs no change in ext2.
 *
 * Blocks are 4 KiB, one page each, so block n of the device is page n of
 * its address_space: metadata reads go through the same lockless page
 * cache as file data (the buffer-cache role), while file data moves
 * between a file's own page and the device with bdev_read_raw and
 * bdev_write_raw, cached once, under the file.
 */
#ifndef FS_BLOCKDEV_H
#define FS_BLOCKDEV_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "mm/pagecache.h"

#define BLOCK_SIZE PAGE_SIZE

/* Block devices are numbered 1:N in the order they register (Linux's RAM-disk major). */
#define BDEV_MAJOR 1

struct blockdev;

/*
 * A driver's operations. Each moves one whole BLOCK_SIZE block, numbered
 * from 0 on the driver's whole device, between the device and a kernel
 * buffer; the block layer has checked the number. May sleep.
 */
struct block_device_ops {
	int (*read)(struct blockdev *bd, u64 block, void *buf);		/* 0 or -EIO */
	int (*write)(struct blockdev *bd, u64 block, const void *buf);	/* 0 or -EIO */
	u64 (*nr_blocks)(struct blockdev *bd);		/* the whole device; fixed */
};

/*
 * Lock legend: [I] immutable once registered, [A] atomic, [W] changed
 * only by bdev_set_window, while the device's cache is empty (nothing is
 * mounted on it), [L:bdev_lock] the list of devices.
 */
struct blockdev {
	const char *name;			/* [I] "ram0", set by the driver */
	const struct block_device_ops *ops;	/* [I] set by the driver */
	void *private;				/* [I] the driver's own */
	u32 dev;				/* [I] device number, as st_dev gives it */
	u64 start;				/* [W] the window: first block of the driver's */
	u64 nblocks;				/* [W] blocks in the window (all, at first) */
	struct address_space mapping;		/* the cached device (metadata) */
	u64 reads, writes;			/* [A] blocks moved by the driver */
	struct list_head link;			/* [L:bdev_lock] every registered device */
};

/*
 * bdev_register: bd->name, ops and private filled in by the driver; give it
 * a number and an empty cache and make bdev_lookup find it. 0, or -EEXIST
 * if the name is taken. Never sleeps (ram0 registers before interrupts are on).
 */
int bdev_register(struct blockdev *bd);
/* bdev_unregister: forget bd; its cache must be empty. 0 or -EBUSY. */
int bdev_unregister(struct blockdev *bd);
/*
 * bdev_lookup: the registered device of that name, or NULL. No reference:
 * a device lives until its driver unregisters it, which only a test does,
 * with nothing mounted on it.
 */
struct blockdev *bdev_lookup(const char *name);
/* Blocks on the driver's whole device (the window may show fewer). */
u64 bdev_capacity(struct blockdev *bd);
/*
 * bdev_set_window: make the device show blocks [first, first + n) of the
 * driver's, as a partition does (a module holding several images back to
 * back: tests/ktest_ext2_fuzz.c). Only while its cache is empty: 0,
 * -EBUSY if the cache holds pages, -EINVAL if out of range.
 */
int bdev_set_window(struct blockdev *bd, u64 first, u64 n);

/* bdev_read_block: block n, uptodate, with a reference (put_page when done);
 * or ERR_PTR(-EINVAL) past the end, ERR_PTR(-EIO), ERR_PTR(-ENOMEM); never
 * NULL. May sleep. */
struct page *bdev_read_block(struct blockdev *bd, u64 n);
/* Whole-block transfers that bypass the device's cache (file data). 0 or -EIO. May sleep. */
int bdev_read_raw(struct blockdev *bd, u64 n, void *buf);
int bdev_write_raw(struct blockdev *bd, u64 n, const void *buf);
/* Drop block n from the device's cache (it was freed). May sleep. */
void bdev_forget_block(struct blockdev *bd, u64 n);
/* Block n as a new zeroed metadata block: locked, uptodate, with a reference. */
struct page *bdev_new_block(struct blockdev *bd, u64 n);

#endif
