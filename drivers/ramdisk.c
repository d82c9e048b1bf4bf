/*
 * ramdisk.c - the root image as a block device: a block driver.
 *
 * mm_init reserved the module's frames, so the image stays put; a block
 * read copies 4 KiB out of it and a write copies 4 KiB back (the image is
 * the "disk"). The block layer (fs/block_dev.c) caches, counts and checks
 * block numbers; this file only moves bytes, and calls nothing above it
 * (boot hands what ramdisk_probe returns to bdev_register). ramdisk.delay_us=N makes each
 * transfer take N us, so a student can see what the cache saves.
 */
#include "drivers/ramdisk.h"
#include "fs/blockdev.h"
#include "kernel/multiboot.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/time.h"

CMDLINE_KEY(rd_delay, "ramdisk.delay_us", "ramdisk: delay each block read or write by N us");

/* Lock legend: [I] immutable after ramdisk_probe. */
struct ramdisk {
	u8 *base;		/* [I] the module, in the direct map */
	u64 blocks;		/* [I] its whole 4 KiB blocks */
	unsigned delay_us;	/* [I] ramdisk.delay_us: imitate a slow disk */
};

static struct ramdisk rd;
static struct blockdev ram0;

static int ramdisk_read(struct blockdev *bd, u64 block, void *buf)
{
	struct ramdisk *r = bd->private;
	if (r->delay_us)
		udelay(r->delay_us);
	memcpy(buf, r->base + block * BLOCK_SIZE, BLOCK_SIZE);
	return 0;
}

static int ramdisk_write(struct blockdev *bd, u64 block, const void *buf)
{
	struct ramdisk *r = bd->private;
	if (r->delay_us)
		udelay(r->delay_us);
	memcpy(r->base + block * BLOCK_SIZE, buf, BLOCK_SIZE);
	return 0;
}

static u64 ramdisk_nr_blocks(struct blockdev *bd)
{
	return ((struct ramdisk *)bd->private)->blocks;
}

static const struct block_device_ops ramdisk_ops = {
	.read = ramdisk_read,
	.write = ramdisk_write,
	.nr_blocks = ramdisk_nr_blocks,
};

struct blockdev *ramdisk_probe(void)
{
	for (int i = 0; i < boot_info.nmods; i++) {
		const struct boot_module *mod = &boot_info.mods[i];
		if (strcmp(mod->name, "root.img"))
			continue;
		rd.base = __va(mod->start);
		rd.blocks = (mod->end - mod->start) / BLOCK_SIZE;
		rd.delay_us = (unsigned)cmdline_get_u64("ramdisk.delay_us", 0);
		ram0 = (struct blockdev){ .name = "ram0", .ops = &ramdisk_ops, .private = &rd };
		return &ram0;
	}
	return NULL;
}

bool ramdisk_extent(u64 *phys, u64 *bytes)
{
	if (!rd.base)
		return false;
	*phys = __pa(rd.base);
	*bytes = rd.blocks * BLOCK_SIZE;
	return true;
}
