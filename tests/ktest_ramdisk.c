/*
 * ktest_ramdisk.c - the root image as the block device ram0, through the
 * block layer and its cache (fs/blockdev.h). tools/run-tests boots every
 * normal batch with --image build/root.img and test.ramdisk=1;
 * tests/boots.txt has a boot without an image, where the first test
 * checks there is no root device.
 */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "fs/blockdev.h"
#include "mm/slab.h"

CMDLINE_KEY(test_ramdisk, "test.ramdisk", "tests: 1 if this boot has a root image");

KTEST(ramdisk_present_exactly_when_booted_with_an_image)
{
	bool want = cmdline_get_u64("test.ramdisk", 0) != 0;
	KT_EQ(bdev_lookup("ram0") != NULL, want);
}

KTEST(ramdisk_block_0_holds_the_ext2_superblock)
{
	KT_REQUIRE_RAMDISK();
	struct blockdev *bd = bdev_lookup("ram0");
	struct page *p = bdev_read_block(bd, 0);
	KT_VALID_PTR(p);
	const u8 *sb = (const u8 *)page_address(p) + 1024;	/* ext2: superblock at byte 1024 */
	u16 magic = sb[56] | sb[57] << 8;
	u32 log_block = sb[24] | sb[25] << 8 | sb[26] << 16 | (u32)sb[27] << 24;
	put_page(p);
	KT_EQ(magic, 0xef53);
	KT_EQ(1024u << log_block, BLOCK_SIZE);	/* made with mkfs.ext2 -b 4096 */
	u64 reads = bd->reads;
	p = bdev_read_block(bd, 0);	/* a second read is a cache hit */
	KT_VALID_PTR(p);
	put_page(p);
	KT_EQ(bd->reads, reads);
	KT_ERR_PTR(bdev_read_block(bd, bd->nblocks), -EINVAL);
}

/* The bytes at off as they are on the image itself (past the cache). */
static bool image_holds(struct blockdev *bd, u64 off, const void *want, size_t len)
{
	u8 *block = kmalloc(BLOCK_SIZE);
	bool same = block && bdev_read_raw(bd, off / BLOCK_SIZE, block) == 0 &&
		    !memcmp(block + off % BLOCK_SIZE, want, len);
	kfree(block);
	return same;
}

KTEST(ramdisk_writeback_reaches_the_image)
{
	KT_REQUIRE_RAMDISK();
	struct blockdev *bd = bdev_lookup("ram0");
	u64 last = bd->nblocks - 1, off = last * BLOCK_SIZE + 100;
	u8 old[8], got[8];
	KT_EQ(filemap_read(&bd->mapping, old, 8, off), 8);
	KT_ASSERT(image_holds(bd, off, old, 8));
	KT_EQ(filemap_write(&bd->mapping, "rdtest!", 8, off), 8);
	KT_ASSERT(image_holds(bd, off, old, 8));	/* dirty in the cache only */
	KT_EQ(filemap_write_and_wait(&bd->mapping), 0);
	KT_ASSERT(image_holds(bd, off, "rdtest!", 8));	/* now on the "disk" */
	KT_EQ(filemap_write(&bd->mapping, old, 8, off), 8);	/* put it back */
	KT_EQ(filemap_write_and_wait(&bd->mapping), 0);
	KT_EQ(filemap_read(&bd->mapping, got, 8, off), 8);
	KT_EQ(memcmp(got, old, 8), 0);
}
