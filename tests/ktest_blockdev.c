/*
 * ktest_blockdev.c - the block layer with a second driver: a device of
 * eight blocks in kernel memory, registered by the test, read and written
 * through bdev_* only. What it checks is what any driver gets: its read
 * and write called for cache misses, writeback and raw transfers, a
 * window that shifts block numbers, and a driver's error reaching the
 * caller. It needs no root image.
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "fs/blockdev.h"
#include "mm/slab.h"

#define MEM_BLOCKS 8

/* The driver: one kmalloc'd page per block, a count of calls, a block that fails. */
struct memdev {
	u8 *block[MEM_BLOCKS];
	int reads, writes;
	u64 bad;		/* reads and writes of this block give -EIO */
};

static int mem_read(struct blockdev *bd, u64 n, void *buf)
{
	struct memdev *m = bd->private;
	m->reads++;
	if (n == m->bad)
		return -EIO;
	memcpy(buf, m->block[n], BLOCK_SIZE);
	return 0;
}

static int mem_write(struct blockdev *bd, u64 n, const void *buf)
{
	struct memdev *m = bd->private;
	m->writes++;
	if (n == m->bad)
		return -EIO;
	memcpy(m->block[n], buf, BLOCK_SIZE);
	return 0;
}

static u64 mem_nr_blocks(struct blockdev *bd)
{
	return MEM_BLOCKS;
}

static const struct block_device_ops mem_ops = {
	.read = mem_read, .write = mem_write, .nr_blocks = mem_nr_blocks,
};

/* Register it as name, with block n filled with the byte 'A' + n; false if out of memory. */
static bool mem_register(struct blockdev *bd, struct memdev *m, const char *name)
{
	*m = (struct memdev){ .bad = ~0ULL };
	for (int n = 0; n < MEM_BLOCKS; n++) {
		if (!(m->block[n] = kmalloc(BLOCK_SIZE)))
			return false;
		memset(m->block[n], 'A' + n, BLOCK_SIZE);
	}
	*bd = (struct blockdev){ .name = name, .ops = &mem_ops, .private = m };
	return bdev_register(bd) == 0;
}

static void mem_unregister(struct blockdev *bd, struct memdev *m)
{
	truncate_inode_pages(&bd->mapping, 0);
	bdev_unregister(bd);
	for (int n = 0; n < MEM_BLOCKS; n++)
		kfree(m->block[n]);
}

KTEST(bdev_second_driver_serves_reads_writes_and_windows)
{
	static struct blockdev bd;
	static struct memdev m;
	KT_ASSERT(mem_register(&bd, &m, "ktmem0"));
	KT_ASSERT(bdev_lookup("ktmem0") == &bd);
	KT_EQ(bdev_capacity(&bd), MEM_BLOCKS);
	KT_EQ(bd.dev >> 8, BDEV_MAJOR);				/* a device number of its own */
	struct blockdev *ram0 = bdev_lookup("ram0");
	if (ram0)
		KT_NE(bd.dev, ram0->dev);
	struct page *p = bdev_read_block(&bd, 2);		/* a miss: the driver reads */
	KT_VALID_PTR(p);
	KT_EQ(((u8 *)page_address(p))[100], 'C');
	put_page(p);
	int reads = m.reads;
	p = bdev_read_block(&bd, 2);				/* a hit: it does not */
	KT_VALID_PTR(p);
	put_page(p);
	KT_EQ(m.reads, reads);
	KT_ERR_PTR(bdev_read_block(&bd, MEM_BLOCKS), -EINVAL);

	KT_EQ(filemap_write(&bd.mapping, "xyz", 3, 2 * BLOCK_SIZE + 10), 3);
	KT_EQ(memcmp(m.block[2] + 10, "CCC", 3), 0);		/* in the cache only */
	KT_EQ(filemap_write_and_wait(&bd.mapping), 0);
	KT_EQ(memcmp(m.block[2] + 10, "xyz", 3), 0);		/* writeback called write */

	u8 *buf = kmalloc(BLOCK_SIZE);
	KT_NOT_NULL(buf);
	memset(buf, 'z', BLOCK_SIZE);
	KT_EQ(bdev_write_raw(&bd, 5, buf), 0);
	KT_EQ(m.block[5][0], 'z');
	KT_EQ(bdev_read_raw(&bd, MEM_BLOCKS, buf), -EIO);

	KT_EQ(bdev_set_window(&bd, 4, 4), -EBUSY);		/* block 2 is cached */
	truncate_inode_pages(&bd.mapping, 0);
	KT_EQ(bdev_set_window(&bd, 4, 5), -EINVAL);		/* past the end */
	KT_EQ(bdev_set_window(&bd, 4, 4), 0);
	KT_EQ(bdev_read_raw(&bd, 1, buf), 0);			/* block 1 of the window is 5 */
	KT_EQ(buf[7], 'z');
	KT_EQ(bdev_read_raw(&bd, 4, buf), -EIO);		/* past the window */
	kfree(buf);
	mem_unregister(&bd, &m);
	KT_NULL(bdev_lookup("ktmem0"));
}

KTEST(bdev_driver_error_reaches_the_reader)
{
	static struct blockdev bd;
	static struct memdev m;
	KT_ASSERT(mem_register(&bd, &m, "ktmem1"));
	m.bad = 3;
	KT_ERR_PTR(bdev_read_block(&bd, 3), -EIO);
	u8 *buf = kmalloc(BLOCK_SIZE);
	KT_NOT_NULL(buf);
	KT_EQ(bdev_read_raw(&bd, 3, buf), -EIO);
	KT_EQ(bdev_write_raw(&bd, 3, buf), -EIO);
	kfree(buf);
	KT_EQ(bd.reads, 0);					/* only transfers that worked count */
	mem_unregister(&bd, &m);
}
