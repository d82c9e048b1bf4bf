/*
 * ktest_ext2_corrupt.c - damaged images (tools/corrupt-image) give clean
 * errors, never a crash, and never a write that spreads the damage.
 *
 * Booted once per kind (tests/boots.txt) with test.corrupt=KIND on the
 * image build/corrupt/KIND.img. The healthy files of the base image
 * (tests/corrupt/corrupt.mk) must still read correctly where the damage
 * leaves the file system mounted.
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "fs/vfs.h"
#include "fs/blockdev.h"
#include "mm/slab.h"

CMDLINE_KEY(test_corrupt, "test.corrupt", "ext2_corrupt_image: which damage the image has");

static u64 free_blocks(void)
{
	struct kstatfs st;
	vfs_statfs(vfs_root_sb(), &st);
	return st.bfree;
}

/* Read len bytes at off of path: bytes read, or -errno. */
static ssize_t read_at(const char *path, void *buf, size_t len, u64 off)
{
	struct file *f = vfs_open(NULL, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ssize_t n = vfs_pread(f, buf, len, off);
	file_put(f);
	return n;
}

static int ignore_entry(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	return 0;
}

static bool is(const char *kind, const char *name)
{
	return !strcmp(kind, name);
}

KTEST_BOOT(ext2_corrupt_image)
{
	KT_REQUIRE_RAMDISK();
	const char *kind = cmdline_get("test.corrupt");
	char buf[4096];
	struct kstat st;
	KT_NOT_NULL(kind);

	if (is(kind, "bad-magic") || is(kind, "inode-count-lie") || is(kind, "blocks-count-lie") ||
	    is(kind, "unknown-incompat") || is(kind, "bad-group-desc")) {
		KT_NULL(vfs_root_sb());			/* refused at boot */
		KT_EQ(vfs_mount_root(), -EINVAL);	/* and again, the same way */
		KT_NULL(vfs_root_sb());
		KT_EQ(vfs_stat(NULL, "/", &st), -ENOENT);
		KT_ERR_PTR(vfs_open(NULL, "/ok", O_RDONLY, 0), -ENOENT);	/* no root */
		return;
	}

	KT_NOT_NULL(vfs_root_sb());
	if (!is(kind, "dir-inode-zero-links")) {
		KT_EQ(read_at("/ok", buf, sizeof(buf), 0), 6);	/* the healthy file */
		KT_EQ(memcmp(buf, "hello\n", 6), 0);
	}
	u64 free0 = free_blocks();

	if (is(kind, "unknown-rocompat")) {
		KT_ASSERT(vfs_root_sb()->rdonly);
		KT_EQ(vfs_mkdir(NULL, "/new", 0755), -EROFS);
		KT_ERR_PTR(vfs_open(NULL, "/ok", O_WRONLY, 0), -EROFS);
		KT_ERR_PTR(vfs_open(NULL, "/newfile", O_WRONLY | O_CREAT, 0644), -EROFS);
		KT_EQ(vfs_unlink(NULL, "/ok"), -EROFS);
		KT_EQ(read_at("/big", buf, 4096, 12 * 4096), 4096);
		KT_EQ((u8)buf[5], (u8)((12 * 4096 + 5) * 7 + 3));
	} else if (is(kind, "block-past-end")) {
		KT_EQ(read_at("/small", buf, 4096, 0), -EUCLEAN);
		KT_EQ(read_at("/small", buf, 4096, 0), -EUCLEAN);	/* every time */
		KT_EQ(vfs_truncate(NULL, "/small", 0), -EUCLEAN);	/* frees nothing it should not */
		KT_EQ(free_blocks(), free0);
		KT_EQ(read_at("/big", buf, 4096, 0), 4096);		/* the rest still works */
	} else if (is(kind, "rec-len-overrun") || is(kind, "rec-len-zero")) {
		KT_EQ(vfs_stat(NULL, "/dir/c", &st), -EUCLEAN);
		KT_ERR_PTR(vfs_open(NULL, "/dir/new", O_WRONLY | O_CREAT, 0644), -EUCLEAN);
		KT_EQ(vfs_mkdir(NULL, "/dir/sub", 0755), -EUCLEAN);
		/* "a" comes before the damage in one image (so not empty), is it in the other. */
		KT_EQ(vfs_rmdir(NULL, "/dir"), is(kind, "rec-len-zero") ? -EUCLEAN : -ENOTEMPTY);
		struct file *d = vfs_open(NULL, "/dir", O_RDONLY | O_DIRECTORY, 0);
		KT_VALID_PTR(d);
		KT_EQ(vfs_readdir(d, ignore_entry, NULL), -EUCLEAN);
		file_put(d);
		KT_EQ(free_blocks(), free0);
		KT_EQ(vfs_mkdir(NULL, "/elsewhere", 0755), 0);	/* the rest still works */
	} else if (is(kind, "indirect-cycle")) {
		KT_EQ(read_at("/sparse", buf, 4096, 5 * 1024 * 1024), -EUCLEAN);
		KT_EQ(read_at("/sparse", buf, 4096, 0), 4096);		/* the hole before it */
		KT_EQ(buf[0], 0);
		KT_EQ(vfs_truncate(NULL, "/sparse", 0), -EUCLEAN);
		KT_EQ(free_blocks(), free0);
	} else if (is(kind, "indirect-self")) {
		KT_EQ(read_at("/big", buf, 4096, 12 * 4096), -EUCLEAN);
		KT_EQ(read_at("/big", buf, 4096, 0), 4096);		/* direct blocks are fine */
		KT_EQ((u8)buf[1], (u8)(1 * 7 + 3));
		KT_EQ(vfs_truncate(NULL, "/big", 0), -EUCLEAN);
		KT_EQ(free_blocks(), free0);
	} else if (is(kind, "dir-inode-zero-links")) {
		KT_EQ(vfs_stat(NULL, "/dir", &st), -EUCLEAN);
		KT_EQ(vfs_stat(NULL, "/dir/a", &st), -EUCLEAN);
		KT_EQ(vfs_rmdir(NULL, "/dir"), -EUCLEAN);
		KT_EQ(read_at("/ok", buf, sizeof(buf), 0), 6);
	} else if (is(kind, "inode-bitmap-moved")) {
		/* The bitmap hands out inode 11, lost+found's: cached by this stat. */
		KT_EQ(vfs_stat(NULL, "/lost+found", &st), 0);
		KT_ERR_PTR(vfs_open(NULL, "/new", O_WRONLY | O_CREAT, 0644), -EIO);				/* refused, not a BUG */
		KT_ASSERT(vfs_root_sb()->rdonly);		/* errors=remount-ro */
		KT_EQ(vfs_mkdir(NULL, "/new", 0755), -EROFS);
		KT_ERR_PTR(vfs_open(NULL, "/ok", O_WRONLY, 0), -EROFS);
		KT_EQ(vfs_stat(NULL, "/lost+found", &st), 0);	/* untouched */
		KT_ASSERT(S_ISDIR(st.mode));
		KT_EQ(read_at("/big", buf, 4096, 12 * 4096), 4096);	/* reads keep working */
		KT_EQ((u8)buf[5], (u8)((12 * 4096 + 5) * 7 + 3));
		KT_EQ(free_blocks(), free0);
	} else {
		KT_FAIL("unknown test.corrupt=%s", kind);
	}
	vfs_sync_all();
}

/*
 * mkfs.ext2 -d copies a host file's extended attributes; with 128-byte
 * inodes they go to a block of their own (i_file_acl). Unlinking the file
 * must release that block too, or e2fsck finds it leaked (tests/disks.txt
 * runs this on an image from tests/xattr/ and checks the disk after).
 */
#include "fs/ext2/ext2.h"

KTEST_BOOT(ext2_unlink_releases_xattr_block)
{
	KT_REQUIRE_ROOT();
	u64 free0 = free_blocks();
	struct inode *inode = vfs_lookup(NULL, "/xattr/with-attr");
	KT_VALID_PTR(inode);
	u32 acl = EI(inode)->i_file_acl;
	u64 blocks = inode->blocks;
	iput(inode);
	KT_NE(acl, 0);
	KT_EQ(blocks, 2 * 8);			/* one data block, one attribute block */
	KT_EQ(vfs_unlink(NULL, "/xattr/with-attr"), 0);
	KT_EQ(free_blocks(), free0 + 2);
	KT_EQ(vfs_unlink(NULL, "/xattr/plain"), 0);
	KT_EQ(vfs_rmdir(NULL, "/xattr"), 0);
	vfs_sync_all();
	printk_raw("manifest end 0 0");		/* tools/check-disk: only e2fsck's verdict */
}

/*
 * A damaged symbolic link is EUCLEAN for that link, never a crash or a
 * read of some other block (fs/ext2/symlink.c). The damage is made in the
 * cached inode (the size, i_blocks) and undone before the links go, so the
 * disk stays clean.
 */
static int readlink_with(const char *path, u64 size, u64 blocks)
{
	struct inode *inode = vfs_lookup_at(NULL, path, LOOKUP_NOFOLLOW);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	u64 size0 = i_size(inode), blocks0 = inode->blocks;
	inode->mapping.size = size;
	inode->blocks = blocks;
	char *buf = kmalloc(PATH_MAX);
	int n = buf ? vfs_readlink(NULL, path, buf) : -ENOMEM;
	struct kstat st;
	int walked = vfs_stat(NULL, path, &st);	/* through the walk: the same error */
	inode->mapping.size = size0;
	inode->blocks = blocks0;
	kfree(buf);
	iput(inode);
	return n == walked || n >= 0 ? n : -EXDEV;	/* the walk disagreed */
}

KTEST(ext2_damaged_symlinks_give_euclean)
{
	KT_REQUIRE_ROOT();
	char *slow = kzalloc(200);
	KT_NOT_NULL(slow);
	memset(slow, 'x', 150);
	KT_EQ(vfs_mkdir(NULL, "/symdmg", 0755), 0);
	KT_EQ(vfs_symlink(NULL, "target", "/symdmg/fast"), 0);
	KT_EQ(vfs_symlink(NULL, slow, "/symdmg/slow"), 0);
	KT_EQ(readlink_with("/symdmg/fast", 6, 0), 6);			/* undamaged */
	KT_EQ(readlink_with("/symdmg/fast", 60, 0), -EUCLEAN);		/* past i_block */
	KT_EQ(readlink_with("/symdmg/fast", 0, 0), -EUCLEAN);		/* empty */
	KT_EQ(readlink_with("/symdmg/fast", 10, 0), -EUCLEAN);		/* a NUL inside */
	KT_EQ(readlink_with("/symdmg/fast", 6, 8), -EUCLEAN);		/* "blocks" of text */
	KT_EQ(readlink_with("/symdmg/slow", 150, 8), 150);
	KT_EQ(readlink_with("/symdmg/slow", 5000, 8), -EUCLEAN);	/* more than its block */
	KT_EQ(readlink_with("/symdmg/slow", 151, 8), -EUCLEAN);	/* the zeros after it */
	KT_EQ(vfs_unlink(NULL, "/symdmg/fast"), 0);
	KT_EQ(vfs_unlink(NULL, "/symdmg/slow"), 0);
	KT_EQ(vfs_rmdir(NULL, "/symdmg"), 0);
	kfree(slow);
}
