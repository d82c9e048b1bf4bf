/*
 * symlink.c - ext2's symbolic links.
 *
 * A link's inode (S_IFLNK, mode 0777) holds its target, the bytes given
 * to symlink(2) without a NUL, and i_size is their count. A target of up
 * to 59 bytes is a "fast" link: it lies in the inode's i_block array
 * itself (60 bytes, NUL-padded), which then holds no block numbers and
 * i_blocks is 0. A longer one is a "slow" link: file block 0 holds it,
 * written and read through the inode's page cache like a file's data,
 * and the rest of the block is zero. Which one an inode is follows from
 * i_blocks alone (data blocks beyond an extended-attribute block), as
 * Linux and e2fsck decide it, so links made by mke2fs -d or debugfs read
 * back the same.
 *
 * Damage is an error for that link, never a crash: a fast link whose size
 * does not fit i_block, a slow one of a block or more, a hole where its
 * block should be, or a NUL inside the target give EUCLEAN, logged once.
 */
#include "fs/ext2/ext2.h"
#include "mm/iov_iter.h"
#include "kernel/string.h"

#define FAST_MAX ((int)sizeof(((struct ext2_inode_info *)0)->i_block))	/* 60 */

static int fast_readlink(struct inode *link, char *buf, u64 size)
{
	struct ext2_inode_info *ei = EI(link);
	if (size >= FAST_MAX) {
		ext2_damage(link->sb, link, "fast symbolic link of %llu bytes (at most %d fit)",
			    (unsigned long long)size, FAST_MAX - 1);
		return -EUCLEAN;
	}
	down_read(&ei->i_map);
	memcpy(buf, ei->i_block, size);
	up_read(&ei->i_map);
	return 0;
}

static int slow_readlink(struct inode *link, char *buf, u64 size)
{
	if (size >= BLOCK_SIZE) {
		ext2_damage(link->sb, link, "symbolic link of %llu bytes, more than its block",
			    (unsigned long long)size);
		return -EUCLEAN;
	}
	u32 block = 0;
	int err = ext2_get_block(link, 0, false, &block);
	if (!err && !block) {
		ext2_damage(link->sb, link, "symbolic link with no block for its target");
		err = -EUCLEAN;
	}
	if (err)
		return err;
	struct iov_iter it;
	iov_iter_kernel(&it, buf, size);
	ssize_t n = filemap_read_iter(&link->mapping, &it, 0);
	return n < 0 ? (int)n : n == (ssize_t)size ? 0 : -EIO;
}

/* inode_operations.readlink: the target into buf (PATH_MAX bytes); its length or -errno. */
static int ext2_readlink(struct inode *link, char *buf)
{
	u64 size = i_size(link);
	if (!size) {
		ext2_damage(link->sb, link, "symbolic link with an empty target");
		return -EUCLEAN;
	}
	int err = ext2_link_is_fast(link) ? fast_readlink(link, buf, size)
					  : slow_readlink(link, buf, size);
	if (!err && strnlen(buf, size) != size) {
		ext2_damage(link->sb, link, "symbolic link target with a NUL byte");
		err = -EUCLEAN;
	}
	return err ? err : (int)size;
}

/*
 * Fill a new link's inode (just made, no name yet, i_mutex not held) with
 * target: in i_block if it fits, else in a block of its own. 0 or -errno
 * (ENOSPC for the block); on failure the caller drops the inode.
 */
int ext2_set_link(struct inode *link, const char *target, int tlen)
{
	struct ext2_inode_info *ei = EI(link);
	int err = 0;
	mutex_lock(&link->i_mutex);
	if (tlen < FAST_MAX) {
		down_write(&ei->i_map);
		memset(ei->i_block, 0, sizeof(ei->i_block));
		memcpy(ei->i_block, target, tlen);
		up_write(&ei->i_map);
		link->mapping.size = tlen;
	} else {
		struct iov_iter it;
		iov_iter_kernel(&it, target, tlen);
		ssize_t n = filemap_write_iter(&link->mapping, &it, 0);
		err = n < 0 ? (int)n : n == tlen ? 0 : -ENOSPC;
	}
	int e = mark_inode_dirty(link);
	mutex_unlock(&link->i_mutex);
	return err ? err : e;
}

static int link_setsize(struct inode *inode, u64 size)
{
	return -EINVAL;
}

static ssize_t link_write(struct inode *inode, struct iov_iter *from, u64 pos)
{
	return -EINVAL;
}

const struct inode_operations ext2_symlink_iops = {
	.write = link_write,
	.setsize = link_setsize,
	.readlink = ext2_readlink,
};
