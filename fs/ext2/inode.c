/*
 * inode.c - ext2 inodes: reading and writing them, the block map, file
 * data through the page cache, truncation.
 *
 * The block map. File block n lives in i_block[n] for n < 12; then in the
 * single-indirect block (1024 pointers), the double-indirect block (1024
 * single-indirect blocks) and the triple-indirect one. ext2_get_block
 * walks it, allocating on the way when asked. Every pointer read from the
 * disk is checked: a block number past the end, one in a group's metadata
 * (a write there would spread the damage), or one that points back at a
 * block already on the path (a cycle), is damage - EUCLEAN - and the walk
 * stops before it reads or writes anything through it.
 *
 * Lock order: ext2.h ('page_lock' -> 'i_map' -> 'ext2_alloc' ->
 * 'page_lock/1'); write_inode takes i_map before the inode table's page.
 */
#include "fs/ext2/ext2.h"
#include "mm/iov_iter.h"
#include "mm/slab.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "drivers/rtc.h"
#include "kernel/cmdline.h"

#define MAX_FILE_SIZE (1ULL << 41)	/* i_blocks counts 512-byte units in 32 bits */

CMDLINE_KEY(ext2_fresh_clean, "ext2.debug_fresh_block_clean",
	    "test of the tests: a page given a new block stays clean until stored to");

static bool fresh_block_clean;	/* [I] set at each mount (ext2_inode_setup) */

void ext2_inode_setup(void)
{
	fresh_block_clean = cmdline_get("ext2.debug_fresh_block_clean") != NULL;
	if (fresh_block_clean)
		pr_warn("ext2: pages given new blocks stay clean (test of the tests)");
}

static struct kmem_cache *inode_cache;

struct inode *ext2_alloc_inode(struct super_block *sb)
{
	if (!inode_cache)
		inode_cache = kmem_cache_create("ext2_inode", sizeof(struct ext2_inode_info), 8);
	struct ext2_inode_info *ei = inode_cache ? kmem_cache_zalloc(inode_cache) : NULL;
	if (!ei)
		return NULL;
	init_rwsem(&ei->i_map, "i_map");
	address_space_init(&ei->vfs.mapping, &ext2_aops, &ei->vfs);
	return &ei->vfs;
}

void ext2_destroy_inode(struct inode *inode)
{
	kmem_cache_free(inode_cache, EI(inode));
}

int ext2_inode_loc(struct ext2_sb_info *sbi, u32 ino, u32 *block, u32 *off)
{
	if (ino < 1 || ino > sbi->inodes_count)
		return -EUCLEAN;
	u32 g = (ino - 1) / sbi->inodes_per_group, i = (ino - 1) % sbi->inodes_per_group;
	struct page *gp;
	u64 byte = (u64)i * sbi->inode_size;
	*block = ext2_gd(sbi, g, &gp)->bg_inode_table + (u32)(byte / BLOCK_SIZE);
	*off = (u32)(byte % BLOCK_SIZE);
	return 0;
}

/* Does this inode's i_block hold block numbers? (Devices and fast symlinks keep other things there.) */
static bool has_blocks(struct inode *inode)
{
	if (S_ISREG(inode->mode) || S_ISDIR(inode->mode))
		return true;
	if (S_ISLNK(inode->mode))	/* slow symlink: its target is in a block */
		return !ext2_link_is_fast(inode);
	return false;
}

void ext2_set_ops(struct inode *inode)
{
	if (S_ISDIR(inode->mode))
		inode->op = &ext2_dir_iops;
	else if (S_ISREG(inode->mode))
		inode->op = &ext2_file_iops;
	else if (S_ISLNK(inode->mode))
		inode->op = &ext2_symlink_iops;
	else
		inode->op = &ext2_special_iops;
}

int ext2_read_inode(struct inode *inode)
{
	struct ext2_sb_info *sbi = SBI(inode->sb);
	struct ext2_inode_info *ei = EI(inode);
	u32 block, off;

	if (ext2_inode_loc(sbi, inode->ino, &block, &off)) {
		ext2_damage(inode->sb, NULL, "a directory entry names inode %u, past the inode count",
			    inode->ino);
		return -EUCLEAN;
	}
	struct page *page = bdev_read_block(sbi->bd, block);
	if (IS_ERR(page))
		return PTR_ERR(page);
	struct ext2_inode *raw = (struct ext2_inode *)((u8 *)page_address(page) + off);
	inode->mode = raw->i_mode;
	inode->uid = raw->i_uid | (u32)raw->i_uid_high << 16;
	inode->gid = raw->i_gid | (u32)raw->i_gid_high << 16;
	inode->nlink = raw->i_links_count;
	inode->atime = raw->i_atime;
	inode->mtime = raw->i_mtime;
	inode->ctime = raw->i_ctime;
	inode->blocks = raw->i_blocks;
	u64 size = raw->i_size;
	if (S_ISREG(inode->mode))
		size |= (u64)raw->i_size_high << 32;
	inode->mapping.size = size;
	memcpy(ei->i_block, raw->i_block, sizeof(ei->i_block));
	ei->i_flags = raw->i_flags;
	ei->i_dtime = raw->i_dtime;
	ei->i_generation = raw->i_generation;
	ei->i_file_acl = raw->i_file_acl;
	put_page(page);

	if (inode->nlink == 0 || !inode->mode) {
		ext2_damage(inode->sb, NULL, "inode %u is in use by name but has %s", inode->ino,
			    inode->mode ? "no links" : "no type");
		return -EUCLEAN;
	}
	if ((S_ISDIR(inode->mode) && (size % BLOCK_SIZE || !size)) || size > MAX_FILE_SIZE) {
		ext2_damage(inode->sb, NULL, "inode %u has an impossible size %llu", inode->ino,
			    (unsigned long long)size);
		return -EUCLEAN;
	}
	ext2_set_ops(inode);
	return 0;
}

int ext2_write_inode(struct inode *inode)
{
	struct ext2_sb_info *sbi = SBI(inode->sb);
	struct ext2_inode_info *ei = EI(inode);
	u32 block, off;

	if (ext2_inode_loc(sbi, inode->ino, &block, &off))
		return -EUCLEAN;
	struct page *page = bdev_read_block(sbi->bd, block);
	if (IS_ERR(page))
		return PTR_ERR(page);
	struct ext2_inode *raw = (struct ext2_inode *)((u8 *)page_address(page) + off);
	down_read(&ei->i_map);	/* for i_block; before the metadata page lock (ext2.h) */
	meta_begin(page);
	raw->i_mode = (u16)inode->mode;
	raw->i_uid = (u16)inode->uid;
	raw->i_uid_high = (u16)(inode->uid >> 16);
	raw->i_gid = (u16)inode->gid;
	raw->i_gid_high = (u16)(inode->gid >> 16);
	raw->i_links_count = (u16)inode->nlink;
	raw->i_atime = (u32)inode->atime;
	raw->i_mtime = (u32)inode->mtime;
	raw->i_ctime = (u32)inode->ctime;
	raw->i_dtime = ei->i_dtime;
	raw->i_blocks = (u32)inode->blocks;
	u64 size = i_size(inode);
	raw->i_size = (u32)size;
	raw->i_size_high = S_ISREG(inode->mode) ? (u32)(size >> 32) : 0;
	raw->i_flags = ei->i_flags;
	raw->i_generation = ei->i_generation;
	raw->i_file_acl = ei->i_file_acl;
	memcpy(raw->i_block, ei->i_block, sizeof(ei->i_block));
	meta_end(page);
	up_read(&ei->i_map);
	put_page(page);
	if (size > 0x7fffffffULL && S_ISREG(inode->mode)) {
		struct ext2_super *es = sbi->es;
		if (!(es->s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_LARGE_FILE)) {
			meta_begin(sbi->sb_page);	/* a file over 2 GiB: say so, as Linux does */
			es->s_feature_ro_compat |= EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
			meta_end(sbi->sb_page);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the block map */

/*
 * The path to file block index: how many levels (1 = direct) and the slot
 * at each level. -EFBIG past what the triple-indirect block reaches.
 */
static int block_path(u64 index, u32 slots[4])
{
	const u64 p = EXT2_PTRS;
	if (index < EXT2_NDIR) {
		slots[0] = (u32)index;
		return 1;
	}
	index -= EXT2_NDIR;
	if (index < p) {
		slots[0] = EXT2_IND, slots[1] = (u32)index;
		return 2;
	}
	index -= p;
	if (index < p * p) {
		slots[0] = EXT2_DIND, slots[1] = (u32)(index / p), slots[2] = (u32)(index % p);
		return 3;
	}
	index -= p * p;
	if (index < p * p * p) {
		slots[0] = EXT2_TIND, slots[1] = (u32)(index / (p * p));
		slots[2] = (u32)(index / p % p), slots[3] = (u32)(index % p);
		return 4;
	}
	return -EFBIG;
}

/* A new block for inode, near the last one it got: its number, or -errno. */
static long alloc_block(struct inode *inode)
{
	struct ext2_inode_info *ei = EI(inode);
	struct ext2_sb_info *sbi = SBI(inode->sb);
	u32 goal = ei->last_alloc ? ei->last_alloc + 1 : 0;
	if (!goal) {	/* first block: the inode's own group */
		u32 g = (inode->ino - 1) / sbi->inodes_per_group;
		goal = sbi->first_data_block + g * sbi->blocks_per_group;
	}
	long b = ext2_balloc(sbi, goal);
	if (b > 0) {
		ei->last_alloc = (u32)b;
		inode->blocks += BLOCK_SIZE / 512;
	}
	return b;
}

/* Free a block the map no longer needs (the caller has checked it is ours). */
static void free_block(struct inode *inode, u32 b, bool metadata)
{
	struct ext2_sb_info *sbi = SBI(inode->sb);
	if (metadata)
		bdev_forget_block(sbi->bd, b);
	ext2_bfree(sbi, b);
	inode->blocks -= MIN(inode->blocks, (u64)(BLOCK_SIZE / 512));
}

/*
 * Map file block `index` to a disk block (*block, 0 for a hole). With
 * create, fill holes along the way: new indirect blocks start zeroed in
 * the device's cache; a new data block is left as the disk has it, and
 * *fresh (if not NULL) says so - the caller owes it its contents. i_map
 * must be held: for reading without create, for writing with it. 0,
 * -EUCLEAN (damage), -ENOSPC, -EFBIG, -ENOMEM.
 */
static int map_locked(struct inode *inode, u64 index, bool create, u32 *block, bool *fresh)
{
	struct ext2_sb_info *sbi = SBI(inode->sb);
	struct ext2_inode_info *ei = EI(inode);
	u32 slots[4], path[4];
	int depth = block_path(index, slots);
	if (depth < 0)
		return depth;

	u32 b = ei->i_block[slots[0]];
	if (b && !ext2_data_block_ok(sbi, b)) {
		ext2_damage(inode->sb, inode, "block %u past the end of the disk or metadata", b);
		return -EUCLEAN;
	}
	if (!b) {
		if (!create) {
			*block = 0;
			return 0;
		}
		long nb = alloc_block(inode);
		if (nb < 0)
			return (int)nb;
		b = (u32)nb;
		if (depth > 1) {
			struct page *np = bdev_new_block(sbi->bd, b);
			if (!np) {
				free_block(inode, b, false);
				return -ENOMEM;
			}
			meta_end(np);
			put_page(np);
		}
		ei->i_block[slots[0]] = b;
		if (depth == 1 && fresh)
			*fresh = true;
	}
	path[0] = b;
	for (int level = 1; level < depth; level++) {
		struct page *page = bdev_read_block(sbi->bd, path[level - 1]);
		if (IS_ERR(page))
			return PTR_ERR(page);
		u32 *ptrs = page_address(page);
		u32 next = READ_ONCE(ptrs[slots[level]]);
		bool bad = next && !ext2_data_block_ok(sbi, next);
		for (int k = 0; k < level && next && !bad; k++)
			bad = next == path[k];		/* points back up the path: a cycle */
		if (bad) {
			put_page(page);
			ext2_damage(inode->sb, inode, "indirect block %u holds %u: %s", path[level - 1],
				    next, ext2_data_block_ok(sbi, next) ? "a cycle in the block map"
								    : "past the end of the disk or metadata");
			return -EUCLEAN;
		}
		if (!next && create) {
			long nb = alloc_block(inode);
			if (nb < 0) {
				put_page(page);
				return (int)nb;
			}
			next = (u32)nb;
			if (level + 1 < depth) {
				struct page *np = bdev_new_block(sbi->bd, next);
				if (!np) {
					put_page(page);
					free_block(inode, next, false);
					return -ENOMEM;
				}
				meta_end(np);
				put_page(np);
			}
			meta_begin(page);
			ptrs[slots[level]] = next;
			meta_end(page);
			if (level + 1 == depth && fresh)
				*fresh = true;
		}
		put_page(page);
		if (!next) {
			*block = 0;
			return 0;
		}
		path[level] = next;
	}
	*block = path[depth - 1];
	return 0;
}

/* map_locked under i_map; *fresh as there (create only; may be NULL). */
static int get_block(struct inode *inode, u64 index, bool create, u32 *block, bool *fresh)
{
	struct ext2_inode_info *ei = EI(inode);
	int err;
	if (create) {
		down_write(&ei->i_map);
		err = map_locked(inode, index, true, block, fresh);
		up_write(&ei->i_map);
	} else {
		down_read(&ei->i_map);
		err = map_locked(inode, index, false, block, NULL);
		up_read(&ei->i_map);
	}
	return err;
}

int ext2_get_block(struct inode *inode, u64 index, bool create, u32 *block)
{
	return get_block(inode, index, create, block, NULL);
}

/* ------------------------------------------------------------ file data */

static int ext2_readpage(struct address_space *m, struct page *page)
{
	struct inode *inode = m->host;
	struct ext2_sb_info *sbi = SBI(inode->sb);
	u32 block = 0;
	int err = 0;

	if ((u64)page->index << PAGE_SHIFT < i_size(inode))
		err = ext2_get_block(inode, page->index, false, &block);
	if (!err && block)
		err = bdev_read_raw(sbi->bd, block, page_address(page));
	else if (!err)
		memset(page_address(page), 0, PAGE_SIZE);	/* a hole, or past the end */
	if (!err) {
		page->private = block ? block + 1UL : 0;
		set_bit(PG_uptodate, &page->flags);
	}
	unlock_page(page);
	return err;
}

static int ext2_writepage(struct address_space *m, struct page *page)
{
	struct inode *inode = m->host;
	struct ext2_sb_info *sbi = SBI(inode->sb);
	if (!page->private) {
		/* Only write_begin dirties a page, and it gives it a block. */
		pr_warn("%s: inode %u: dirty page %lu has no block; not written", sbi->name,
			inode->ino, page->index);
		return 0;
	}
	return bdev_write_raw(sbi->bd, page->private - 1, page_address(page));
}

/*
 * Give a page its block. A block new to the file still holds whatever its
 * last owner wrote there, so from the moment the map names it, the page is
 * the only true copy of those bytes (zeros, for a hole) and must reach the
 * disk before it may leave the cache: it is dirtied here, not left to the
 * caller's store. A caller may yet not store - a fault whose PTE was
 * zapped meanwhile, a copy from a user buffer that went bad - and a clean
 * page would be evicted and read back as the old owner's data (Linux's
 * block_page_mkwrite and page_zero_new_buffers keep the same rule).
 * ext2.debug_fresh_block_clean leaves the page clean: a test of the tests.
 */
static int ext2_write_begin(struct address_space *m, struct page *page)
{
	if (page->private)
		return 0;
	u32 block;
	bool fresh = false;
	int err = get_block(m->host, page->index, true, &block, &fresh);
	if (err)
		return err;
	page->private = block + 1UL;
	if (fresh && !fresh_block_clean) {
		if (!test_bit(PG_uptodate, &page->flags)) {	/* a hole: its bytes are zeros */
			memset(page_address(page), 0, PAGE_SIZE);
			set_bit(PG_uptodate, &page->flags);
		}
		set_page_dirty(page);
	}
	return 0;
}

const struct address_space_ops ext2_aops = {
	.readpage = ext2_readpage,
	.writepage = ext2_writepage,
	.write_begin = ext2_write_begin,
};

static ssize_t ext2_file_write(struct inode *inode, struct iov_iter *from, u64 pos)
{
	if (pos >= MAX_FILE_SIZE)
		return -EFBIG;
	iov_iter_truncate(from, MAX_FILE_SIZE - pos);
	return filemap_write_iter(&inode->mapping, from, pos);
}

/* ------------------------------------------------------------ truncation */

struct trunc {
	struct inode *inode;
	u64 first;		/* first file block to free */
	bool apply;		/* false: only check that every pointer is sound */
	u32 path[4];
};

/*
 * Free (or, with !apply, check) the blocks under indirect block `b` at
 * `level` (1: its entries are data blocks) that cover file blocks from
 * `base` on. Returns true if `b` itself is now unneeded.
 */
static int trunc_tree(struct trunc *t, u32 b, int level, u64 base, int depth, bool *empty)
{
	struct ext2_sb_info *sbi = SBI(t->inode->sb);
	u64 span = 1;
	for (int i = 1; i < level; i++)
		span *= EXT2_PTRS;
	for (int k = 0; k < depth; k++)
		if (t->path[k] == b) {
			ext2_damage(t->inode->sb, t->inode, "block %u appears twice in the block map", b);
			return -EUCLEAN;
		}
	t->path[depth] = b;
	struct page *page = bdev_read_block(sbi->bd, b);
	if (IS_ERR(page))
		return PTR_ERR(page);
	u32 *ptrs = page_address(page);
	bool any_left = false;
	int err = 0;
	for (u32 i = 0; i < EXT2_PTRS; i++) {
		u32 c = READ_ONCE(ptrs[i]);
		u64 cbase = base + i * span;
		if (!c)
			continue;
		if (cbase + span <= t->first) {
			any_left = true;	/* wholly kept */
			continue;
		}
		if (!ext2_data_block_ok(sbi, c)) {
			ext2_damage(t->inode->sb, t->inode,
				    "block %u past the end of the disk or metadata", c);
			err = -EUCLEAN;
			break;
		}
		bool child_empty = true;
		if (level > 1) {
			err = trunc_tree(t, c, level - 1, cbase, depth + 1, &child_empty);
			if (err)
				break;
		} else {
			for (int k = 0; k <= depth && !err; k++)
				if (t->path[k] == c) {
					ext2_damage(t->inode->sb, t->inode, "block %u is both data and "
						    "an indirect block", c);
					err = -EUCLEAN;
				}
			if (err)
				break;
		}
		if (!child_empty) {
			any_left = true;
			continue;
		}
		if (t->apply) {
			free_block(t->inode, c, level > 1);
			meta_begin(page);
			ptrs[i] = 0;
			meta_end(page);
		}
	}
	put_page(page);
	*empty = !any_left;
	return err;
}

/* Free every block at file block `first` or beyond; with !apply, only check. */
static int trunc_blocks(struct inode *inode, u64 first, bool apply)
{
	struct ext2_inode_info *ei = EI(inode);
	struct ext2_sb_info *sbi = SBI(inode->sb);
	struct trunc t = { .inode = inode, .first = first, .apply = apply };
	static const u64 starts[3] = { EXT2_NDIR, EXT2_NDIR + EXT2_PTRS,
				       EXT2_NDIR + EXT2_PTRS + (u64)EXT2_PTRS * EXT2_PTRS };

	for (u32 i = 0; i < EXT2_NDIR; i++) {
		u32 b = ei->i_block[i];
		if (!b || i < first)
			continue;
		if (!ext2_data_block_ok(sbi, b)) {
			ext2_damage(inode->sb, inode, "block %u past the end of the disk or metadata", b);
			return -EUCLEAN;
		}
		if (apply) {
			free_block(inode, b, false);
			ei->i_block[i] = 0;
		}
	}
	for (int lvl = 1; lvl <= 3; lvl++) {
		u32 b = ei->i_block[EXT2_NDIR + lvl - 1];
		if (!b)
			continue;
		if (!ext2_data_block_ok(sbi, b)) {
			ext2_damage(inode->sb, inode, "block %u past the end of the disk or metadata", b);
			return -EUCLEAN;
		}
		bool empty;
		int err = trunc_tree(&t, b, lvl, starts[lvl - 1], 0, &empty);
		if (err)
			return err;
		if (empty && apply) {
			free_block(inode, b, true);
			ei->i_block[EXT2_NDIR + lvl - 1] = 0;
		}
	}
	if (apply)
		ei->last_alloc = 0;
	return 0;
}

/*
 * Change the size: shrinking drops the cached pages past the end, zeroes
 * the tail of the last page (on disk too, so a later grow reads zeros),
 * then frees the blocks - after a dry run has checked that every block it
 * would free really is the file's, so damage is never spread, and after
 * every O_DIRECT read in flight has finished (fs/vfs.h, dio steps T1-T5:
 * it may have looked up a block under the old size). Growing leaves a
 * hole. i_mutex held.
 */
int ext2_setsize(struct inode *inode, u64 size)
{
	struct ext2_inode_info *ei = EI(inode);
	if (size > MAX_FILE_SIZE)
		return -EFBIG;
	u64 old = i_size(inode);
	u64 first = (size + BLOCK_SIZE - 1) / BLOCK_SIZE;
	if (size < old && has_blocks(inode)) {
		down_read(&ei->i_map);
		int err = trunc_blocks(inode, first, false);
		up_read(&ei->i_map);
		if (err)
			return err;
	}
	WRITE_ONCE(inode->mapping.size, size);		/* fs/vfs.h, dio step T1 */
	if (size < old) {
		inode_dio_block(inode);		/* steps T2-T3: no direct I/O in flight */
		truncate_inode_pages(&inode->mapping, size);
		if (size % BLOCK_SIZE && has_blocks(inode)) {
			struct page *page = read_mapping_page(&inode->mapping, size / BLOCK_SIZE);
			if (!IS_ERR(page)) {
				lock_page(page);
				if (page->mapping == &inode->mapping && page->private) {
					wait_on_page_writeback(page);
					memset((u8 *)page_address(page) + size % BLOCK_SIZE, 0,
					       BLOCK_SIZE - size % BLOCK_SIZE);
					set_page_dirty(page);
				}
				unlock_page(page);
				put_page(page);
			}
		}
		if (has_blocks(inode)) {
			down_write(&ei->i_map);
			trunc_blocks(inode, first, true);
			up_write(&ei->i_map);
		}
		inode_dio_unblock(inode);	/* step T5 */
	}
	inode->mtime = inode->ctime = wall_seconds();
	return mark_inode_dirty(inode);
}

/* Release the extended-attribute block (mkfs -d copies host xattrs into one). */
static void release_xattr_block(struct inode *inode)
{
	struct ext2_inode_info *ei = EI(inode);
	struct ext2_sb_info *sbi = SBI(inode->sb);
	u32 b = ei->i_file_acl;
	if (!b)
		return;
	ei->i_file_acl = 0;
	if (!ext2_data_block_ok(sbi, b))
		return;
	struct page *page = bdev_read_block(sbi->bd, b);
	if (IS_ERR(page))
		return;
	u32 *hdr = page_address(page);	/* h_magic, h_refcount, ... */
	if (hdr[0] != 0xEA020000) {
		put_page(page);
		ext2_damage(inode->sb, inode, "attribute block %u has a bad magic number", b);
		return;
	}
	meta_begin(page);
	bool last = hdr[1] <= 1;
	if (!last)
		hdr[1]--;		/* shared with other inodes: one fewer */
	meta_end(page);
	put_page(page);
	if (last)
		free_block(inode, b, true);
	else
		inode->blocks -= MIN(inode->blocks, (u64)(BLOCK_SIZE / 512));
}

/* The last reference to an inode with no links: free its blocks and itself. */
void ext2_evict_inode(struct inode *inode)
{
	struct ext2_inode_info *ei = EI(inode);
	struct ext2_sb_info *sbi = SBI(inode->sb);
	mutex_lock(&inode->i_mutex);
	if (has_blocks(inode)) {
		down_write(&ei->i_map);
		if (trunc_blocks(inode, 0, false) == 0)
			trunc_blocks(inode, 0, true);
		up_write(&ei->i_map);
	}
	release_xattr_block(inode);
	inode->mapping.size = 0;
	ei->i_dtime = (u32)wall_seconds();
	ext2_write_inode(inode);
	mutex_unlock(&inode->i_mutex);
	ext2_ifree(sbi, inode->ino, S_ISDIR(inode->mode));
}

static int special_setsize(struct inode *inode, u64 size)
{
	return -EINVAL;
}

static ssize_t special_write(struct inode *inode, struct iov_iter *from, u64 pos)
{
	return -EINVAL;
}

/*
 * O_DIRECT: one block between the disk and a pinned page, no cache.
 *
 * A block enters the map before its data reaches it - the cached write
 * path allocates it in write_begin and the data follows at writeback - and
 * until then it holds its last owner's bytes. A direct read holds no inode
 * lock (fs/vfs.h, dio steps), so it may look up such a block; it must not
 * read it. So after the lookup it settles the cached page of the index
 * (filemap_write_page), then reads the disk. That is enough: a block
 * without its data has its page in the cache from allocation until
 * writeback - write_begin allocates with the page locked there, reclaim
 * evicts only clean pages, and truncation, which drops dirty ones, waits
 * for this read first (step T3 before T4). A direct write fills a hole
 * the other way round: it holds i_map for writing from the allocation
 * until the data is on the disk, so no lookup - a direct read's or
 * readpage's - finds the block before.
 */
static int ext2_direct_block(struct inode *inode, u64 index, bool write, void *page)
{
	struct ext2_sb_info *sbi = SBI(inode->sb);
	struct ext2_inode_info *ei = EI(inode);
	u32 block;
	int err;
	if (write) {
		down_write(&ei->i_map);
		err = map_locked(inode, index, true, &block, NULL);	/* the data goes there now */
		if (!err)
			err = bdev_write_raw(sbi->bd, block, page);
		up_write(&ei->i_map);
		return err;
	}
	err = ext2_get_block(inode, index, false, &block);
	if (err)
		return err;
	if (!block) {			/* a hole reads as zeros */
		memset(page, 0, BLOCK_SIZE);
		return 0;
	}
	inode_dio_debug_window();	/* dio.debug_delay_ms: truncation lands here */
	err = filemap_write_page(&inode->mapping, index);
	return err ? err : bdev_read_raw(sbi->bd, block, page);
}

const struct inode_operations ext2_file_iops = {
	.write = ext2_file_write,
	.setsize = ext2_setsize,
	.direct_block = ext2_direct_block,
};

const struct inode_operations ext2_special_iops = {
	.write = special_write,
	.setsize = special_setsize,
};
