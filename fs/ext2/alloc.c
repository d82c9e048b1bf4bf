/*
 * alloc.c - ext2 block and inode allocation, and what a damaged bitmap may
 * not make it do.
 *
 * A bitmap is the disk's word on what is free, and a damaged one lies. Two
 * lies would spread the damage: a block bitmap that calls the group's own
 * metadata (bitmaps, inode table, superblock and descriptor copies) free,
 * and an inode bitmap that calls a live inode free. Both are checked
 * before the allocation is used; either is reported (ext2_error: a log
 * line naming the group, block or inode) and the file system goes
 * read-only, as Linux's ext2 does with errors=remount-ro, so nothing more
 * is written to a disk known to be wrong. Reads keep working.
 *
 * Lock order: ext2.h. alloc_lock ('ext2_alloc') is taken under i_map
 * (blocks) or s_ns (inodes) and holds one metadata page lock at a time.
 */
#include "fs/ext2/ext2.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "drivers/rtc.h"

CMDLINE_KEY(ext2_racy, "ext2.debug_racy_bitmaps",
	    "test of the tests: allocate blocks without alloc_lock or the bitmap's page lock");

static bool racy_bitmaps;	/* [I] after the first mount */

void ext2_alloc_setup(void)
{
	racy_bitmaps = cmdline_get("ext2.debug_racy_bitmaps") != NULL;
	if (racy_bitmaps)
		pr_warn("ext2: deliberately racy block allocation (test of the tests)");
}

/* Does group g keep a copy of the superblock and descriptors (sparse_super)? */
static bool has_super_copy(struct ext2_sb_info *sbi, u32 g)
{
	if (!sbi->sparse_super || g <= 1)
		return true;
	for (u32 base = 3; base <= 7; base += 2) {
		u32 p = base;
		while (p < g)
			p *= base;
		if (p == g)
			return true;
	}
	return false;
}

bool ext2_meta_block(struct ext2_sb_info *sbi, u32 block)
{
	u32 g = (block - sbi->first_data_block) / sbi->blocks_per_group;
	u32 start = sbi->first_data_block + g * sbi->blocks_per_group;
	if (g >= sbi->groups)
		return false;
	if (has_super_copy(sbi, g) && block < start + 1 + sbi->gdt_blocks + sbi->reserved_gdt)
		return true;
	struct page *gp;
	struct ext2_group_desc *gd = ext2_gd(sbi, g, &gp);
	return block == gd->bg_block_bitmap || block == gd->bg_inode_bitmap ||
	       (block >= gd->bg_inode_table && block < gd->bg_inode_table + sbi->itb_per_group);
}

bool ext2_data_block_ok(struct ext2_sb_info *sbi, u32 block)
{
	return ext2_block_ok(sbi, block) && !ext2_meta_block(sbi, block);
}

/* A block bitmap must call its own group's bitmaps and inode table used. */
static bool block_bitmap_sane(struct ext2_sb_info *sbi, struct ext2_group_desc *gd, u32 g,
			      const u8 *map)
{
	u32 start = sbi->first_data_block + g * sbi->blocks_per_group;
	u32 need[3] = { gd->bg_block_bitmap, gd->bg_inode_bitmap, gd->bg_inode_table };
	for (int k = 0; k < 3; k++) {
		u32 n = k == 2 ? sbi->itb_per_group : 1;
		for (u32 b = need[k]; b < need[k] + n; b++) {
			u32 bit = b - start;	/* mount checked each lies in its group */
			if (!(map[bit / 8] & (1 << (bit & 7))))
				return false;
		}
	}
	return true;
}

/* Blocks group g holds (the last group may be short). */
static u32 group_blocks(struct ext2_sb_info *sbi, u32 g)
{
	u32 start = sbi->first_data_block + g * sbi->blocks_per_group;
	return MIN(sbi->blocks_per_group, sbi->blocks_count - start);
}

/* Find and set a clear bit in [from, limit) then [0, from); -1 if none. */
static int take_bit(u8 *map, u32 from, u32 limit)
{
	for (u32 pass = 0; pass < 2; pass++) {
		u32 lo = pass ? 0 : from, hi = pass ? from : limit;
		for (u32 i = lo; i < hi; i++) {
			if ((i & 7) == 0 && i + 8 <= hi && map[i / 8] == 0xff) {
				i += 7;		/* a full byte: skip it */
				continue;
			}
			if (!(map[i / 8] & (1 << (i & 7)))) {
				map[i / 8] |= 1 << (i & 7);
				return (int)i;
			}
		}
	}
	return -1;
}

/*
 * Move the free counts of group gd (in page gp) and of the superblock by
 * the given amounts, each under its page lock. alloc_lock held.
 */
static void count(struct ext2_sb_info *sbi, struct page *gp, struct ext2_group_desc *gd,
		  int blocks, int inodes, int dirs)
{
	meta_begin(gp);
	gd->bg_free_blocks_count += blocks;
	gd->bg_free_inodes_count += inodes;
	gd->bg_used_dirs_count += dirs;
	meta_end(gp);
	meta_begin(sbi->sb_page);
	sbi->es->s_free_blocks_count += blocks;
	sbi->es->s_free_inodes_count += inodes;
	meta_end(sbi->sb_page);
}

/* Clear bit `bit` of the bitmap in block `map`; true if it was set. alloc_lock held. */
static bool clear_map_bit(struct ext2_sb_info *sbi, u32 map, u32 bit)
{
	struct page *bp = bdev_read_block(sbi->bd, map);
	if (IS_ERR(bp))
		return false;
	u8 *bits = page_address(bp);
	meta_begin(bp);
	bool was_set = bits[bit / 8] & (1 << (bit & 7));
	bits[bit / 8] &= ~(1 << (bit & 7));
	meta_end(bp);
	put_page(bp);
	return was_set;
}

/*
 * The deliberately broken allocator (ext2.debug_racy_bitmaps): look for a
 * clear bit, wait, then set it, with no lock held - two allocators can
 * both find the same bit and hand out one block twice.
 */
static int take_bit_racy(u8 *map, u32 from, u32 limit)
{
	for (u32 i = from; i < limit; i++) {
		if (!(READ_ONCE(map[i / 8]) & (1 << (i & 7)))) {
			udelay(200);	/* widen the window between look and set */
			WRITE_ONCE(map[i / 8], READ_ONCE(map[i / 8]) | (1 << (i & 7)));
			return (int)i;
		}
	}
	return -1;
}

long ext2_balloc(struct ext2_sb_info *sbi, u32 goal)
{
	if (!ext2_block_ok(sbi, goal))
		goal = sbi->first_data_block + 1;
	u32 g0 = (goal - sbi->first_data_block) / sbi->blocks_per_group;
	if (READ_ONCE(sbi->sb->rdonly))
		return -EROFS;
	long err = -ENOSPC;	/* unless a bitmap cannot be read */
	mutex_lock(&sbi->alloc_lock);
	for (u32 k = 0; k < sbi->groups; k++) {
		u32 g = (g0 + k) % sbi->groups;
		struct page *gp;
		struct ext2_group_desc *gd = ext2_gd(sbi, g, &gp);
		if (!READ_ONCE(gd->bg_free_blocks_count))
			continue;
		struct page *bp = bdev_read_block(sbi->bd, gd->bg_block_bitmap);
		if (IS_ERR(bp)) {
			err = PTR_ERR(bp);
			break;
		}
		u32 from = k == 0 ? (goal - sbi->first_data_block) % sbi->blocks_per_group : 0;
		if (racy_bitmaps) {
			mutex_unlock(&sbi->alloc_lock);
			int bit = take_bit_racy(page_address(bp), from, group_blocks(sbi, g));
			set_page_dirty(bp);
			put_page(bp);
			mutex_lock(&sbi->alloc_lock);
			if (bit < 0)
				continue;
			gd->bg_free_blocks_count--;
			sbi->es->s_free_blocks_count--;
			set_page_dirty(gp);
			set_page_dirty(sbi->sb_page);
			mutex_unlock(&sbi->alloc_lock);
			return sbi->first_data_block + g * sbi->blocks_per_group + (u32)bit;
		}
		meta_begin(bp);
		bool sane = block_bitmap_sane(sbi, gd, g, page_address(bp));
		int bit = sane ? take_bit(page_address(bp), from, group_blocks(sbi, g)) : -1;
		u32 block = sbi->first_data_block + g * sbi->blocks_per_group + (u32)bit;
		if (bit >= 0)
			meta_end(bp);	/* set even if it is metadata: it is in use */
		else
			unlock_page(bp);
		put_page(bp);
		if (!sane || (bit >= 0 && ext2_meta_block(sbi, block))) {
			mutex_unlock(&sbi->alloc_lock);
			if (sane)
				ext2_error(sbi->sb, 0, "group %u's block bitmap (block %u) calls "
					   "metadata block %u free", g, gd->bg_block_bitmap, block);
			else
				ext2_error(sbi->sb, 0, "group %u's block bitmap (block %u) calls "
					   "the group's own bitmaps or inode table free", g,
					   gd->bg_block_bitmap);
			return -EIO;
		}
		if (bit < 0)
			continue;	/* the count said free, the bitmap full: trust the bitmap */
		count(sbi, gp, gd, -1, 0, 0);
		mutex_unlock(&sbi->alloc_lock);
		return block;
	}
	mutex_unlock(&sbi->alloc_lock);
	return err;
}

void ext2_bfree(struct ext2_sb_info *sbi, u32 block)
{
	if (!ext2_block_ok(sbi, block))
		return;
	if (ext2_meta_block(sbi, block)) {	/* callers check; a last guard */
		ext2_error(sbi->sb, 0, "not freeing block %u: it is the group's metadata", block);
		return;
	}
	u32 g = (block - sbi->first_data_block) / sbi->blocks_per_group;
	u32 bit = (block - sbi->first_data_block) % sbi->blocks_per_group;
	mutex_lock(&sbi->alloc_lock);
	struct page *gp;
	struct ext2_group_desc *gd = ext2_gd(sbi, g, &gp);
	bool was_used = clear_map_bit(sbi, gd->bg_block_bitmap, bit);
	if (was_used)
		count(sbi, gp, gd, 1, 0, 0);
	mutex_unlock(&sbi->alloc_lock);
	/* A file owned a block its bitmap called free: the bitmap lies, and
	 * may have handed the block to another file too. */
	if (!was_used)
		ext2_error(sbi->sb, 0, "freeing block %u, which group %u's block bitmap (block %u) "
			   "calls free", block, g, gd->bg_block_bitmap);
}

/* Directories go to the group with the most free inodes (spreading them);
 * files stay in their parent's group when they can (keeping them close). */
static u32 pick_group(struct ext2_sb_info *sbi, u32 parent_group, bool dir)
{
	u32 best = parent_group % sbi->groups, best_free = 0;
	for (u32 k = 0; k < sbi->groups; k++) {
		u32 g = (parent_group + k) % sbi->groups;
		struct page *gp;
		u32 f = READ_ONCE(ext2_gd(sbi, g, &gp)->bg_free_inodes_count);
		if (!dir && f)
			return g;
		if (f > best_free)
			best = g, best_free = f;
	}
	return best;
}

long ext2_ialloc(struct ext2_sb_info *sbi, u32 parent_group, bool dir)
{
	if (READ_ONCE(sbi->sb->rdonly))
		return -EROFS;
	long err = -ENOSPC;	/* unless a bitmap cannot be read */
	mutex_lock(&sbi->alloc_lock);
	u32 g0 = pick_group(sbi, parent_group, dir);
	for (u32 k = 0; k < sbi->groups; k++) {
		u32 g = (g0 + k) % sbi->groups;
		struct page *gp;
		struct ext2_group_desc *gd = ext2_gd(sbi, g, &gp);
		if (!gd->bg_free_inodes_count)
			continue;
		struct page *bp = bdev_read_block(sbi->bd, gd->bg_inode_bitmap);
		if (IS_ERR(bp)) {
			err = PTR_ERR(bp);
			break;
		}
		u32 from = g == 0 ? sbi->first_ino - 1 : 0;	/* reserved inodes */
		meta_begin(bp);
		int bit = from < sbi->inodes_per_group ?
				  take_bit(page_address(bp), from, sbi->inodes_per_group) : -1;
		if (bit >= 0 && g == 0 && (u32)bit < from) {	/* wrapped into the reserved ones */
			((u8 *)page_address(bp))[bit / 8] &= ~(1 << (bit & 7));
			bit = -1;
		}
		if (bit >= 0)
			meta_end(bp);
		else
			unlock_page(bp);
		put_page(bp);
		if (bit < 0)
			continue;
		count(sbi, gp, gd, 0, -1, dir ? 1 : 0);
		mutex_unlock(&sbi->alloc_lock);
		return g * sbi->inodes_per_group + (u32)bit + 1;
	}
	mutex_unlock(&sbi->alloc_lock);
	return err;
}

void ext2_ifree(struct ext2_sb_info *sbi, u32 ino, bool dir)
{
	if (ino < sbi->first_ino || ino > sbi->inodes_count)
		return;
	u32 g = (ino - 1) / sbi->inodes_per_group, bit = (ino - 1) % sbi->inodes_per_group;
	mutex_lock(&sbi->alloc_lock);
	struct page *gp;
	struct ext2_group_desc *gd = ext2_gd(sbi, g, &gp);
	if (clear_map_bit(sbi, gd->bg_inode_bitmap, bit))
		count(sbi, gp, gd, 0, 1, dir ? -1 : 0);
	mutex_unlock(&sbi->alloc_lock);
}

/*
 * The inode bitmap handed out ino: check it really is free - not cached
 * (new_inode) and with no links on disk - before it is reused. The new
 * inode (I_NEW), or ERR_PTR(-errno). A live inode keeps its bit (it is in
 * use), the disk goes read-only, and the answer is -EIO.
 */
static struct inode *claim_inode(struct ext2_sb_info *sbi, u32 ino, bool dir)
{
	struct inode *inode = new_inode(sbi->sb, ino);
	if (IS_ERR(inode)) {
		if (PTR_ERR(inode) != -EEXIST) {
			ext2_ifree(sbi, ino, dir);
			return inode;
		}
		ext2_error(sbi->sb, ino, "the inode bitmap calls it free, but it is in use");
		return ERR_PTR(-EIO);
	}
	u32 block, off;
	u16 links = 0;
	struct page *page = ERR_PTR(-EIO);	/* past the inode tables: the bitmap lies */
	if (!ext2_inode_loc(sbi, ino, &block, &off))
		page = bdev_read_block(sbi->bd, block);
	if (!IS_ERR(page)) {
		links = ((struct ext2_inode *)((u8 *)page_address(page) + off))->i_links_count;
		put_page(page);
		if (!links)
			return inode;
		ext2_error(sbi->sb, ino, "the inode bitmap calls it free, but it has %u links", links);
	}
	/* Drop the unused in-memory inode. With links (now read-only) its
	 * eviction leaves the disk alone; else eviction gives the number back. */
	inode->nlink = 0;
	inode_publish(inode);
	iput(inode);
	return links ? ERR_PTR(-EIO) : ERR_CAST(page);
}

/* A new inode for create and mkdir, in the cache and on disk. */
struct inode *ext2_new_inode(struct inode *dir, u32 mode)
{
	struct ext2_sb_info *sbi = SBI(dir->sb);
	long r = ext2_ialloc(sbi, (dir->ino - 1) / sbi->inodes_per_group, S_ISDIR(mode));
	if (r < 0)
		return ERR_PTR(r);
	u32 ino = (u32)r;
	struct inode *inode = claim_inode(sbi, ino, S_ISDIR(mode));
	if (IS_ERR(inode))
		return inode;
	struct ext2_inode_info *ei = EI(inode);
	inode->mode = mode;
	inode->nlink = 1;
	inode->uid = inode->gid = 0;
	inode->atime = inode->mtime = inode->ctime = wall_seconds();
	inode->blocks = 0;
	inode->mapping.size = 0;
	ei->i_flags = 0;
	ei->i_generation = (u32)(ino * 2654435761u ^ inode->ctime);
	ext2_set_ops(inode);

	/* Start from a clean record: a freed inode's old bytes must not show through. */
	u32 block, off;
	struct page *page;
	if (!ext2_inode_loc(sbi, ino, &block, &off) &&
	    !IS_ERR(page = bdev_read_block(sbi->bd, block))) {
		meta_begin(page);
		memset((u8 *)page_address(page) + off, 0, sbi->inode_size);
		if (sbi->inode_size > 128)
			((struct ext2_inode *)((u8 *)page_address(page) + off))->i_extra_isize =
				sbi->extra_isize;
		meta_end(page);
		put_page(page);
	}
	ext2_write_inode(inode);
	return inode;
}

