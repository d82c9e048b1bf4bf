/*
 * ktest_vfs.c - the VFS and ext2 through the VFS API, on the root ramdisk.
 *
 * Each test works in its own directory and removes it at the end; several
 * unmount and mount again, so that what they read back comes from the
 * disk, not from pages still in the cache. The host judges the images
 * these leave with e2fsck (tests/disks.txt, tools/check-disk).
 */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "mm/slab.h"
#include "mm/vmscan.h"
#include "fs/vfs.h"

#define CHUNK 65536

static u8 pat(u64 seed, u64 off)
{
	u64 x = (off + 1) ^ (seed << 40);
	x *= 0x9E3779B97F4A7C15ULL;
	return (u8)(x >> 56);
}

static u64 free_blocks(void)
{
	struct kstatfs st;
	vfs_statfs(vfs_root_sb(), &st);
	return st.bfree;
}

static u64 free_inodes(void)
{
	struct kstatfs st;
	vfs_statfs(vfs_root_sb(), &st);
	return st.ffree;
}

/* Write size bytes of pattern `seed` to path (created or truncated). 0 or -errno. */
static int write_file(const char *path, u64 size, u64 seed)
{
	int err = 0;
	struct file *f = vfs_open(NULL, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (IS_ERR(f))
		return PTR_ERR(f);
	u8 *buf = kmalloc(CHUNK);
	for (u64 off = 0; off < size && !err;) {
		size_t n = MIN((u64)CHUNK, size - off);
		for (size_t i = 0; i < n; i++)
			buf[i] = pat(seed, off + i);
		ssize_t w = vfs_write(f, buf, n);
		if (w < 0)
			err = (int)w;
		else
			off += (u64)w;
	}
	kfree(buf);
	file_put(f);
	return err;
}

/* Does path hold exactly size bytes of pattern `seed`? 0, or a description. */
static const char *check_file(const char *path, u64 size, u64 seed)
{
	struct file *f = vfs_open(NULL, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return "cannot open";
	u8 *buf = kmalloc(CHUNK);
	const char *bad = NULL;
	u64 off = 0;
	for (;;) {
		ssize_t n = vfs_read(f, buf, CHUNK);
		if (n < 0) {
			bad = "read error";
			break;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n && !bad; i++)
			if (buf[i] != pat(seed, off + i))
				bad = "wrong byte";
		off += (u64)n;
		if (bad)
			break;
	}
	if (!bad && off != size)
		bad = "wrong length";
	kfree(buf);
	file_put(f);
	return bad;
}

/* Unmount and mount again: every later read comes from the disk. */
static int remount(void)
{
	int err = vfs_unmount_root();
	if (err)
		return err;
	err = vfs_mount_root();
	if (!err)
		vfs_mount_kernel_fs();	/* as boot does: /proc and /dev again */
	return err;
}

static bool exists(const char *path)
{
	struct kstat st;
	return vfs_stat(NULL, path, &st) == 0;
}

KTEST(vfs_root_is_mounted_ext2)
{
	KT_REQUIRE_ROOT();
	struct kstat st;
	KT_NOT_NULL(vfs_root_sb());
	KT_EQ(vfs_stat(NULL, "/", &st), 0);
	KT_ASSERT(S_ISDIR(st.mode));
	KT_EQ(st.ino, 2);
	KT_EQ(vfs_stat(NULL, "/README", &st), 0);	/* from user/root */
	KT_ASSERT(S_ISREG(st.mode));
	KT_GT(st.size, 0);
}

KTEST(vfs_path_walk_absolute_relative_dots_slashes)
{
	KT_REQUIRE_ROOT();
	KT_EQ(vfs_mkdir(NULL, "/pw", 0755), 0);
	KT_EQ(vfs_mkdir(NULL, "/pw/a", 0755), 0);
	KT_EQ(vfs_mkdir(NULL, "pw/a/b", 0755), 0);	/* relative to the root */
	KT_EQ(write_file("/pw/f", 10, 1), 0);
	struct inode *b = vfs_lookup(NULL, "/pw/a/b");
	KT_VALID_PTR(b);
	struct inode *x = vfs_lookup(NULL, "//pw///a/./b/../b/");
	KT_ASSERT(x == b);
	iput(x);
	struct inode *pw = vfs_lookup(NULL, "/pw");
	KT_VALID_PTR(pw);
	x = vfs_lookup(pw, "a/b");		/* relative to a directory */
	KT_ASSERT(x == b);
	iput(x);
	x = vfs_lookup(b, "../../..");		/* up to the root */
	KT_ASSERT(x == vfs_root_sb()->root);
	iput(x);
	x = vfs_lookup(NULL, "/../../pw");	/* ".." at the root stays there */
	KT_ASSERT(x == pw);
	iput(x);
	KT_ERR_PTR(vfs_lookup(NULL, "/pw/nothing"), -ENOENT);
	KT_ERR_PTR(vfs_lookup(NULL, "/pw/f/x"), -ENOTDIR);
	KT_ERR_PTR(vfs_lookup(NULL, "/pw/f/"), -ENOTDIR);
	KT_ERR_PTR(vfs_lookup(NULL, ""), -ENOENT);
	char *longname = kzalloc(PATH_MAX + 8);
	memset(longname, 'n', NAME_MAX + 1);
	KT_ERR_PTR(vfs_lookup(pw, longname), -ENAMETOOLONG);
	KT_EQ(vfs_mkdir(pw, longname, 0755), -ENAMETOOLONG);
	longname[NAME_MAX] = 0;				/* exactly 255: allowed */
	KT_EQ(write_file("/pw/f", 1, 1), 0);
	KT_EQ(vfs_mkdir(pw, longname, 0755), 0);
	KT_EQ(vfs_rmdir(pw, longname), 0);
	for (int i = 0; i < PATH_MAX; i += 2)
		longname[i] = '/', longname[i + 1] = 'a';
	longname[PATH_MAX] = 0;
	KT_ERR_PTR(vfs_lookup(NULL, longname), -ENAMETOOLONG);
	kfree(longname);
	iput(pw);
	iput(b);
	KT_EQ(vfs_unlink(NULL, "/pw/f"), 0);
	KT_EQ(vfs_rmdir(NULL, "/pw/a/b"), 0);
	KT_EQ(vfs_rmdir(NULL, "/pw/a"), 0);
	KT_EQ(vfs_rmdir(NULL, "/pw"), 0);
}

KTEST(vfs_errors_have_the_right_errno)
{
	KT_REQUIRE_ROOT();
	KT_EQ(vfs_mkdir(NULL, "/er", 0755), 0);
	KT_EQ(vfs_mkdir(NULL, "/er", 0755), -EEXIST);
	KT_EQ(vfs_mkdir(NULL, "/", 0755), -EEXIST);
	KT_EQ(write_file("/er/file", 5, 2), 0);
	KT_ERR_PTR(vfs_open(NULL, "/er/file", O_RDWR | O_CREAT | O_EXCL, 0644), -EEXIST);
	KT_ERR_PTR(vfs_open(NULL, "/er/none", O_RDONLY, 0), -ENOENT);
	KT_ERR_PTR(vfs_open(NULL, "/er/none/x", O_RDWR | O_CREAT, 0644), -ENOENT);
	KT_ERR_PTR(vfs_open(NULL, "/er/file/x", O_RDWR | O_CREAT, 0644), -ENOTDIR);
	KT_ERR_PTR(vfs_open(NULL, "/er", O_WRONLY, 0), -EISDIR);
	KT_ERR_PTR(vfs_open(NULL, "/er/file", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	KT_ERR_PTR(vfs_open(NULL, "/er/file", O_ACCMODE, 0), -EINVAL);
	KT_EQ(vfs_unlink(NULL, "/er/none"), -ENOENT);
	KT_EQ(vfs_unlink(NULL, "/er"), -EISDIR);
	KT_EQ(vfs_unlink(NULL, "/"), -EISDIR);
	KT_EQ(vfs_rmdir(NULL, "/er/file"), -ENOTDIR);
	KT_EQ(vfs_rmdir(NULL, "/er"), -ENOTEMPTY);
	KT_EQ(vfs_rmdir(NULL, "/"), -EBUSY);
	KT_EQ(vfs_rmdir(NULL, "/er/."), -EINVAL);
	KT_EQ(vfs_mkdir(NULL, "/er/d", 0755), 0);
	KT_EQ(vfs_rename(NULL, "/er", "/er/d/inside"), -EINVAL);	/* into itself */
	KT_EQ(vfs_rename(NULL, "/er/d", "/er/file"), -ENOTDIR);
	KT_EQ(vfs_rename(NULL, "/er/file", "/er/d"), -EISDIR);
	KT_EQ(vfs_rename(NULL, "/er/none", "/er/x"), -ENOENT);
	KT_EQ(vfs_link(NULL, "/er/d", "/er/dlink"), -EPERM);
	KT_EQ(vfs_link(NULL, "/er/file", "/er/d"), -EEXIST);
	KT_EQ(vfs_truncate(NULL, "/er/d", 0), -EISDIR);
	struct file *f = vfs_open(NULL, "/er/file", O_RDONLY, 0);
	KT_VALID_PTR(f);
	KT_EQ(vfs_write(f, "x", 1), -EBADF);
	KT_EQ(vfs_ftruncate(f, 0), -EINVAL);
	KT_EQ(vfs_lseek(f, -1, SEEK_SET), -EINVAL);
	KT_EQ(vfs_lseek(f, 0, 7), -EINVAL);
	file_put(f);
	f = vfs_open(NULL, "/er/file", O_WRONLY, 0);
	KT_VALID_PTR(f);
	char c;
	KT_EQ(vfs_read(f, &c, 1), -EBADF);
	file_put(f);
	KT_EQ(vfs_unlink(NULL, "/er/file"), 0);
	KT_EQ(vfs_rmdir(NULL, "/er/d"), 0);
	KT_EQ(vfs_rmdir(NULL, "/er"), 0);
}

static const u64 sizes[] = { 0, 1, 4095, 4096, 4097, 48 * 1024 + 1, 5 * 1024 * 1024 };

KTEST(vfs_file_sizes_read_back_after_remount)
{
	KT_REQUIRE_ROOT();
	char path[32];
	struct kstat st;
	u64 free0 = free_blocks(), ifree0 = free_inodes();
	KT_EQ(vfs_mkdir(NULL, "/sz", 0755), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(path, sizeof(path), "/sz/f%u", i);
		KT_EQ(write_file(path, sizes[i], 100 + i), 0);
		const char *bad = check_file(path, sizes[i], 100 + i);
		if (bad)
			KT_FAIL("%s (%llu bytes) before remount: %s", path,
				(unsigned long long)sizes[i], bad);
	}
	KT_EQ(remount(), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(path, sizeof(path), "/sz/f%u", i);
		const char *bad = check_file(path, sizes[i], 100 + i);
		if (bad)
			KT_FAIL("%s (%llu bytes) after remount: %s", path,
				(unsigned long long)sizes[i], bad);
		KT_EQ(vfs_stat(NULL, path, &st), 0);
		KT_EQ(st.size, sizes[i]);
	}
	/* Blocks: 48 KiB + 1 needs the single-indirect block; 5 MiB the double one. */
	KT_EQ(vfs_stat(NULL, "/sz/f5", &st), 0);
	KT_EQ(st.blocks, (13 + 1) * 8);
	KT_EQ(vfs_stat(NULL, "/sz/f6", &st), 0);
	KT_EQ(st.blocks, (1280 + 1 + 1 + 1) * 8);
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(path, sizeof(path), "/sz/f%u", i);
		KT_EQ(vfs_unlink(NULL, path), 0);
	}
	KT_EQ(vfs_rmdir(NULL, "/sz"), 0);
	KT_EQ(free_blocks(), free0);	/* every block came back */
	KT_EQ(free_inodes(), ifree0);
}

KTEST(vfs_holes_read_as_zeros_and_take_no_blocks)
{
	KT_REQUIRE_ROOT();
	u8 buf[4096];
	struct kstat st;
	u64 free0 = free_blocks();
	struct file *f = vfs_open(NULL, "/hole", O_RDWR | O_CREAT, 0644);
	KT_VALID_PTR(f);
	KT_EQ(vfs_pwrite(f, "end", 3, 5 * 1024 * 1024), 3);	/* past 4 MiB + 48 KiB: DIND */
	KT_EQ(vfs_pread(f, buf, sizeof(buf), 1024 * 1024), 4096);
	for (int i = 0; i < 4096; i++)
		KT_EQ(buf[i], 0);
	KT_EQ(vfs_ftruncate(f, 10 * 1024 * 1024), 0);		/* grow: a hole */
	KT_EQ(vfs_pread(f, buf, 3, 5 * 1024 * 1024), 3);
	KT_EQ(memcmp(buf, "end", 3), 0);
	KT_EQ(vfs_pread(f, buf, sizeof(buf), 8 * 1024 * 1024), 4096);
	for (int i = 0; i < 4096; i++)
		KT_EQ(buf[i], 0);
	KT_EQ(vfs_pwrite(f, "mid", 3, 4096 * 20 + 100), 3);	/* fill a hole */
	file_put(f);
	KT_EQ(remount(), 0);
	KT_EQ(vfs_stat(NULL, "/hole", &st), 0);
	KT_EQ(st.size, 10 * 1024 * 1024);
	KT_EQ(st.blocks, (2 + 1 + 1 + 1) * 8);	/* 2 data blocks, IND, DIND and its one IND */
	f = vfs_open(NULL, "/hole", O_RDONLY, 0);
	KT_VALID_PTR(f);
	KT_EQ(vfs_pread(f, buf, 4096, 4096 * 20), 4096);
	KT_EQ(memcmp(buf + 100, "mid", 3), 0);
	KT_EQ(buf[99], 0);
	KT_EQ(buf[103], 0);
	file_put(f);
	KT_EQ(vfs_unlink(NULL, "/hole"), 0);
	KT_EQ(free_blocks(), free0);
}

KTEST(vfs_truncate_shrinks_and_grows_with_zeros)
{
	KT_REQUIRE_ROOT();
	u8 buf[8192];
	u64 free0 = free_blocks();
	KT_EQ(write_file("/tr", 100000, 7), 0);
	KT_EQ(vfs_truncate(NULL, "/tr", 5000), 0);
	const char *bad = check_file("/tr", 5000, 7);
	if (bad)
		KT_FAIL("after shrinking: %s", bad);
	KT_EQ(vfs_truncate(NULL, "/tr", 20000), 0);
	KT_EQ(remount(), 0);		/* the zeros must be on the disk too */
	struct file *f = vfs_open(NULL, "/tr", O_RDONLY, 0);
	KT_VALID_PTR(f);
	KT_EQ(vfs_pread(f, buf, sizeof(buf), 4096), 8192);
	for (int i = 0; i < 8192; i++) {
		u8 want = 4096 + i < 5000 ? pat(7, 4096 + i) : 0;
		if (buf[i] != want)
			KT_FAIL("byte %d after shrink and grow: %u, not %u", 4096 + i, buf[i], want);
	}
	file_put(f);
	KT_EQ(vfs_truncate(NULL, "/tr", 0), 0);
	struct kstat st;
	KT_EQ(vfs_stat(NULL, "/tr", &st), 0);
	KT_EQ(st.blocks, 0);
	KT_EQ(vfs_unlink(NULL, "/tr"), 0);
	KT_EQ(free_blocks(), free0);
}

struct count_ctx {
	int n;
	bool saw_dot, saw_dotdot;
};

static int count_fill(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	struct count_ctx *c = ctx;
	if (len == 1 && name[0] == '.')
		c->saw_dot = true;
	else if (len == 2 && name[0] == '.' && name[1] == '.')
		c->saw_dotdot = true;
	else
		c->n++;
	return 0;
}

KTEST(vfs_directory_with_1000_entries)
{
	KT_REQUIRE_ROOT();
	char path[48];
	u64 free0 = free_blocks(), ifree0 = free_inodes();
	KT_EQ(vfs_mkdir(NULL, "/many", 0755), 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/many/entry-with-a-longish-name-%04d", i);
		struct file *f = vfs_open(NULL, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (IS_ERR(f))
			KT_FAIL("create %s: %ld", path, PTR_ERR(f));
		file_put(f);
	}
	KT_EQ(remount(), 0);
	struct file *d = vfs_open(NULL, "/many", O_RDONLY | O_DIRECTORY, 0);
	KT_VALID_PTR(d);
	struct count_ctx c = { 0 };
	KT_EQ(vfs_readdir(d, count_fill, &c), 0);
	file_put(d);
	KT_EQ(c.n, 1000);
	KT_ASSERT(c.saw_dot && c.saw_dotdot);
	struct kstat st;
	KT_EQ(vfs_stat(NULL, "/many", &st), 0);
	KT_GT(st.size, 4096);		/* more than one block of entries */
	for (int i = 0; i < 1000; i += 7) {
		snprintf(path, sizeof(path), "/many/entry-with-a-longish-name-%04d", i);
		KT_EQ(vfs_stat(NULL, path, &st), 0);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/many/entry-with-a-longish-name-%04d", i);
		KT_EQ(vfs_unlink(NULL, path), 0);
	}
	KT_EQ(vfs_rmdir(NULL, "/many"), 0);
	KT_EQ(free_blocks(), free0);
	KT_EQ(free_inodes(), ifree0);
}

KTEST(vfs_rename_within_across_and_over)
{
	KT_REQUIRE_ROOT();
	int err = 0;
	struct kstat st, st2;
	u64 free0 = free_blocks(), ifree0 = free_inodes();
	KT_EQ(vfs_mkdir(NULL, "/rn", 0755), 0);
	KT_EQ(vfs_mkdir(NULL, "/rn/a", 0755), 0);
	KT_EQ(vfs_mkdir(NULL, "/rn/b", 0755), 0);
	KT_EQ(write_file("/rn/a/one", 3000, 11), 0);
	KT_EQ(write_file("/rn/a/two", 9000, 12), 0);
	KT_EQ(vfs_rename(NULL, "/rn/a/one", "/rn/a/uno"), 0);	/* same directory */
	KT_ASSERT(!exists("/rn/a/one"));
	KT_NULL(check_file("/rn/a/uno", 3000, 11));
	KT_EQ(vfs_rename(NULL, "/rn/a/uno", "/rn/b/one"), 0);	/* other directory */
	KT_NULL(check_file("/rn/b/one", 3000, 11));
	KT_EQ(vfs_rename(NULL, "/rn/a/two", "/rn/b/one"), 0);	/* over a file: its blocks go */
	KT_NULL(check_file("/rn/b/one", 9000, 12));
	KT_ASSERT(!exists("/rn/a/two"));
	KT_EQ(vfs_stat(NULL, "/rn", &st), 0);
	KT_EQ(st.nlink, 4);				/* ., and a/.. and b/.. */
	KT_EQ(vfs_mkdir(NULL, "/rn/a/sub", 0755), 0);
	KT_EQ(vfs_rename(NULL, "/rn/a/sub", "/rn/b/sub"), 0);	/* a directory moves */
	KT_EQ(vfs_stat(NULL, "/rn/b/sub/..", &st), 0);
	KT_EQ(vfs_stat(NULL, "/rn/b", &st2), 0);
	KT_EQ(st.ino, st2.ino);				/* its ".." follows it */
	KT_EQ(st2.nlink, 3);
	KT_EQ(vfs_stat(NULL, "/rn/a", &st), 0);
	KT_EQ(st.nlink, 2);
	KT_EQ(vfs_mkdir(NULL, "/rn/a/empty", 0755), 0);
	KT_EQ(write_file("/rn/b/sub/x", 1, 1), 0);
	KT_EQ(vfs_rename(NULL, "/rn/a/empty", "/rn/b/sub"), -ENOTEMPTY);
	KT_EQ(vfs_unlink(NULL, "/rn/b/sub/x"), 0);
	KT_EQ(vfs_rename(NULL, "/rn/a/empty", "/rn/b/sub"), 0);	/* over an empty directory */
	KT_EQ(vfs_stat(NULL, "/rn/b", &st2), 0);
	KT_EQ(st2.nlink, 3);
	KT_EQ(vfs_stat(NULL, "/rn/a", &st), 0);
	KT_EQ(st.nlink, 2);
	KT_EQ(vfs_link(NULL, "/rn/b/one", "/rn/a/hard"), 0);
	KT_EQ(vfs_rename(NULL, "/rn/a/hard", "/rn/b/one"), 0);	/* same inode: nothing happens */
	KT_ASSERT(exists("/rn/a/hard"));
	KT_EQ(remount(), 0);
	KT_EQ(vfs_stat(NULL, "/rn/b/one", &st), 0);
	KT_EQ(st.nlink, 2);
	KT_NULL(check_file("/rn/a/hard", 9000, 12));
	KT_EQ(vfs_unlink(NULL, "/rn/a/hard"), 0);
	KT_EQ(vfs_unlink(NULL, "/rn/b/one"), 0);
	KT_EQ(vfs_rmdir(NULL, "/rn/b/sub"), 0);
	KT_EQ(vfs_rmdir(NULL, "/rn/a"), 0);
	KT_EQ(vfs_rmdir(NULL, "/rn/b"), 0);
	KT_EQ(vfs_rmdir(NULL, "/rn"), 0);
	KT_EQ(free_blocks(), free0);
	KT_EQ(free_inodes(), ifree0);
	(void)err;
}

KTEST(vfs_link_counts_and_unlink_while_open)
{
	KT_REQUIRE_ROOT();
	struct kstat st;
	u64 free0 = free_blocks();
	KT_EQ(vfs_mkdir(NULL, "/lk", 0755), 0);
	KT_EQ(vfs_stat(NULL, "/lk", &st), 0);
	KT_EQ(st.nlink, 2);
	KT_EQ(write_file("/lk/f", 50000, 21), 0);
	KT_EQ(vfs_link(NULL, "/lk/f", "/lk/g"), 0);
	KT_EQ(vfs_stat(NULL, "/lk/g", &st), 0);
	KT_EQ(st.nlink, 2);
	KT_EQ(vfs_unlink(NULL, "/lk/f"), 0);
	KT_EQ(vfs_stat(NULL, "/lk/g", &st), 0);
	KT_EQ(st.nlink, 1);
	struct file *f = vfs_open(NULL, "/lk/g", O_RDWR, 0);
	KT_VALID_PTR(f);
	KT_EQ(vfs_unlink(NULL, "/lk/g"), 0);	/* still open: still readable */
	KT_ASSERT(!exists("/lk/g"));
	u8 buf[16];
	KT_EQ(vfs_pread(f, buf, 16, 40000), 16);
	KT_EQ(buf[3], pat(21, 40003));
	KT_EQ(vfs_pwrite(f, "more", 4, 60000), 4);
	KT_LT(free_blocks(), free0);		/* its blocks are still held */
	file_put(f);				/* the last reference frees it */
	KT_EQ(vfs_rmdir(NULL, "/lk"), 0);
	KT_EQ(free_blocks(), free0);
}

KTEST(vfs_lseek_append_and_descriptor_table)
{
	KT_REQUIRE_ROOT();
	char buf[16];
	struct file *f = vfs_open(NULL, "/ap", O_RDWR | O_CREAT | O_TRUNC, 0644);
	KT_VALID_PTR(f);
	KT_EQ(vfs_write(f, "hello", 5), 5);
	KT_EQ(vfs_lseek(f, 0, SEEK_END), 5);
	KT_EQ(vfs_lseek(f, -2, SEEK_CUR), 3);
	KT_EQ(vfs_read(f, buf, 16), 2);
	KT_EQ(memcmp(buf, "lo", 2), 0);
	struct file *a = vfs_open(NULL, "/ap", O_WRONLY | O_APPEND, 0);
	KT_VALID_PTR(a);
	KT_EQ(vfs_write(a, "!!", 2), 2);
	KT_EQ(vfs_pread(f, buf, 16, 0), 7);
	KT_EQ(memcmp(buf, "hello!!", 7), 0);

	struct files_struct *files = files_alloc();
	KT_NOT_NULL(files);
	KT_EQ(fd_install(files, f, 0, false), 0);
	KT_EQ(fd_install(files, a, 0, true), 1);
	KT_EQ(fd_dup2(files, 0, 5, false), 5);
	KT_EQ(fd_dup2(files, 7, 6, false), -EBADF);
	struct file *g = fd_get(files, 5);
	KT_ASSERT(g == f);
	file_put(g);
	KT_NULL(fd_get(files, 4));
	KT_NULL(fd_get(files, -1));
	KT_NULL(fd_get(files, FD_MAX));
	struct files_struct *copy = files_dup(files);
	files_close_on_exec(files);
	KT_NULL(fd_get(files, 1));		/* close-on-exec went */
	g = fd_get(copy, 1);
	KT_ASSERT(g == a);			/* the copy kept it */
	file_put(g);
	KT_EQ(fd_close(files, 0), 0);
	KT_EQ(fd_close(files, 0), -EBADF);
	KT_EQ(fd_close(files, 300), -EBADF);
	files_put(files);
	files_put(copy);			/* the last references to f and a */
	KT_EQ(vfs_unlink(NULL, "/ap"), 0);
}

KTEST(vfs_full_disk_gives_enospc_and_frees_cleanly)
{
	KT_REQUIRE_ROOT();
	u64 free0 = free_blocks();
	struct file *f = vfs_open(NULL, "/fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	KT_VALID_PTR(f);
	u8 *buf = kmalloc(CHUNK);
	memset(buf, 0x5a, CHUNK);
	ssize_t w;
	u64 total = 0;
	while ((w = vfs_write(f, buf, CHUNK)) > 0)
		total += (u64)w;
	kfree(buf);
	KT_EQ(w, -ENOSPC);
	KT_EQ(free_blocks(), 0);
	KT_GT(total, (free0 - 1300) * 4096);	/* the disk really filled (less indirect blocks) */
	KT_EQ(vfs_mkdir(NULL, "/fill-dir", 0755), -ENOSPC);
	struct kstat st;
	KT_EQ(vfs_stat(NULL, "/fill", &st), 0);
	KT_EQ(st.size, total);
	file_put(f);
	KT_EQ(vfs_unlink(NULL, "/fill"), 0);
	KT_EQ(free_blocks(), free0);
	KT_EQ(write_file("/after-full", 10000, 3), 0);	/* and it works again */
	KT_NULL(check_file("/after-full", 10000, 3));
	KT_EQ(vfs_unlink(NULL, "/after-full"), 0);
}

KTEST(vfs_evicted_pages_read_back_from_disk)
{
	KT_REQUIRE_ROOT();
	struct pagecache_stats before, after;
	KT_EQ(write_file("/ev", 2 * 1024 * 1024, 31), 0);
	vfs_sync_all();
	pagecache_get_stats(&before);
	vmscan_direct_reclaim(100000);		/* evict what can be evicted */
	vmscan_direct_reclaim(100000);
	pagecache_get_stats(&after);
	KT_GT(after.evictions, before.evictions + 256);
	const char *bad = check_file("/ev", 2 * 1024 * 1024, 31);
	if (bad)
		KT_FAIL("after eviction: %s", bad);
	KT_EQ(vfs_unlink(NULL, "/ev"), 0);
}

CMDLINE_KEY(test_readers_seconds, "test.readers_seconds",
	    "vfs_concurrent_readers_while_evicting: how long to evict at most (default 2)");

/* Readers on every CPU read one file through the lockless cache while it is evicted. */
static atomic_t reader_errors;
static bool readers_stop;	/* [A] READ_ONCE/WRITE_ONCE */
static long reader_first;	/* the first error: a short count or -errno, or 1000000 + the bad byte */

static int reader_thread(void *arg)
{
	u8 buf[512];
	struct file *f = vfs_open(NULL, "/shared", O_RDONLY, 0);
	if (IS_ERR(f)) {
		atomic_inc(&reader_errors);
		return 0;
	}
	u64 x = (uintptr_t)arg * 7919 + 1;
	while (!READ_ONCE(readers_stop)) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		u64 off = (x >> 20) % (1024 * 1024 - sizeof(buf));
		ssize_t n = vfs_pread(f, buf, sizeof(buf), off);
		if (n != sizeof(buf)) {
			if (atomic_inc_return(&reader_errors) == 1)
				reader_first = n;
			continue;
		}
		for (unsigned i = 0; i < sizeof(buf); i++)
			if (buf[i] != pat(41, off + i)) {
				if (atomic_inc_return(&reader_errors) == 1)
					reader_first = 1000000 + (long)i;
				break;
			}
	}
	file_put(f);
	return 0;
}

KTEST(vfs_concurrent_readers_while_evicting)
{
	KT_REQUIRE_ROOT();
	struct task *t[8];
	KT_EQ(write_file("/shared", 1024 * 1024, 41), 0);
	atomic_set(&reader_errors, 0);
	WRITE_ONCE(readers_stop, false);
	for (int i = 0; i < 8; i++)
		t[i] = kthread_run(reader_thread, (void *)(uintptr_t)i, "reader");
	/* 2 s by default; a broken-variant boot gives more (test.readers_seconds)
	 * and the loop ends at the first wrong read, so a busy machine only
	 * makes the catch slower, never absent. */
	u64 secs = cmdline_get_u64("test.readers_seconds", 2);
	u64 end = ktime_ns() + secs * 1000000000ULL;
	unsigned long evicted = 0;
	while (ktime_ns() < end && !atomic_read(&reader_errors)) {
		evicted += vmscan_direct_reclaim(64);
		msleep(5);
	}
	WRITE_ONCE(readers_stop, true);
	for (int i = 0; i < 8; i++)
		kthread_join(t[i]);
	if (atomic_read(&reader_errors))
		KT_FAIL("%d reads went wrong; the first: %ld", atomic_read(&reader_errors), reader_first);
	KT_GT(evicted, 0);
	KT_EQ(vfs_unlink(NULL, "/shared"), 0);
}

/*
 * Eight threads create, write, rename, truncate and unlink files in one
 * shared directory at once: the name space (s_ns), the allocator and the
 * page cache all see concurrent users. Each thread checks its own files'
 * contents; afterwards every block and inode must be free again. With
 * ext2.debug_racy_bitmaps the allocator loses updates (two files share a
 * block) and this test sees wrong bytes or wrong free counts.
 */
#define CC_THREADS 8
#define CC_ROUNDS 40
static atomic_t cc_errors;
static char cc_why[96];

static void cc_fail(const char *what, int thread, int round)
{
	if (atomic_inc_return(&cc_errors) == 1)
		snprintf(cc_why, sizeof(cc_why), "thread %d round %d: %s", thread, round, what);
}

static int cc_thread(void *arg)
{
	int me = (int)(uintptr_t)arg;
	char a[40], b[40];
	for (int r = 0; r < CC_ROUNDS; r++) {
		u64 seed = (u64)me * 1000 + r, size = 1000 + (seed * 7919) % 70000;
		snprintf(a, sizeof(a), "/cc/t%d-%d", me, r);
		snprintf(b, sizeof(b), "/cc/moved-t%d-%d", me, r);
		if (write_file(a, size, seed)) {
			cc_fail("write", me, r);
			continue;
		}
		if (vfs_rename(NULL, a, b)) {
			cc_fail("rename", me, r);
			continue;
		}
		if (check_file(b, size, seed))
			cc_fail("content after rename", me, r);
		if (r % 3 == 0 && (vfs_truncate(NULL, b, size / 2) || check_file(b, size / 2, seed)))
			cc_fail("truncate", me, r);
		if (r % 2 == 0 && vfs_unlink(NULL, b))
			cc_fail("unlink", me, r);
	}
	for (int r = 0; r < CC_ROUNDS; r++) {	/* what is left must still be right */
		u64 seed = (u64)me * 1000 + r, size = 1000 + (seed * 7919) % 70000;
		snprintf(b, sizeof(b), "/cc/moved-t%d-%d", me, r);
		if (r % 2 == 0)
			continue;
		if (check_file(b, r % 3 == 0 ? size / 2 : size, seed))
			cc_fail("content at the end", me, r);
		if (vfs_unlink(NULL, b))
			cc_fail("final unlink", me, r);
	}
	return 0;
}

KTEST(vfs_concurrent_creates_renames_and_writes)
{
	KT_REQUIRE_ROOT();
	struct task *t[CC_THREADS];
	u64 free0 = free_blocks(), ifree0 = free_inodes();
	KT_EQ(vfs_mkdir(NULL, "/cc", 0755), 0);
	atomic_set(&cc_errors, 0);
	for (int i = 0; i < CC_THREADS; i++)
		t[i] = kthread_run(cc_thread, (void *)(uintptr_t)i, "cc");
	for (int i = 0; i < CC_THREADS; i++)
		kthread_join(t[i]);
	if (atomic_read(&cc_errors))
		KT_FAIL("%d errors; first: %s", atomic_read(&cc_errors), cc_why);
	KT_EQ(vfs_rmdir(NULL, "/cc"), 0);
	/* The flusher holds a reference to every cached inode while it writes
	 * them back (fs/super.c, sync_sb), so the last iput of a file unlinked
	 * meanwhile - and the freeing of its blocks - may be the flusher's and
	 * come a moment later. Give it 2 s; a real leak stays. */
	for (int ms = 0; ms < 2000 && (free_blocks() != free0 || free_inodes() != ifree0); ms += 10)
		msleep(10);
	KT_EQ(free_blocks(), free0);
	KT_EQ(free_inodes(), ifree0);
}

#include "fs/blockdev.h"

/* The bytes of file block `index` as they are on the disk itself. */
static bool disk_block_matches(struct inode *inode, u64 index, u64 seed)
{
	struct page *page = find_get_page(&inode->mapping, index);
	if (!page)
		return false;
	unsigned long blk = page->private;	/* ext2: the disk block + 1 */
	put_page(page);
	struct blockdev *bd = bdev_lookup("ram0");
	u8 *disk = kmalloc(BLOCK_SIZE);
	bool same = blk && disk && bdev_read_raw(bd, blk - 1, disk) == 0;	/* past the cache */
	for (u64 i = 0; same && i < BLOCK_SIZE; i++)
		same = disk[i] == pat(seed, index * BLOCK_SIZE + i);
	kfree(disk);
	return same;
}

KTEST(vfs_fsync_puts_data_on_the_disk)
{
	KT_REQUIRE_ROOT();
	struct file *f = vfs_open(NULL, "/fs", O_RDWR | O_CREAT | O_TRUNC, 0644);
	KT_VALID_PTR(f);
	u8 *buf = kmalloc(3 * BLOCK_SIZE);
	for (u64 i = 0; i < 3 * BLOCK_SIZE; i++)
		buf[i] = pat(51, i);
	KT_EQ(vfs_write(f, buf, 3 * BLOCK_SIZE), 3 * BLOCK_SIZE);
	kfree(buf);
	KT_ASSERT(radix_tree_tagged(&f->inode->mapping.tree, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(!disk_block_matches(f->inode, 1, 51));	/* only in the cache so far */
	KT_EQ(vfs_fsync(f), 0);
	KT_ASSERT(!radix_tree_tagged(&f->inode->mapping.tree, RADIX_TREE_TAG_DIRTY));
	for (u64 i = 0; i < 3; i++)
		KT_ASSERT(disk_block_matches(f->inode, i, 51));
	file_put(f);
	KT_EQ(vfs_unlink(NULL, "/fs"), 0);
}

KTEST_BOOT(vfs_flusher_cleans_dirty_pages)
{
	KT_REQUIRE_ROOT();
	KT_EQ(write_file("/fl", 20000, 61), 0);
	struct inode *inode = vfs_lookup(NULL, "/fl");
	KT_VALID_PTR(inode);
	KT_ASSERT(radix_tree_tagged(&inode->mapping.tree, RADIX_TREE_TAG_DIRTY));
	u64 end = ktime_ns() + 3000000000ULL;	/* vfs.flush_ms=200: well within */
	while (radix_tree_tagged(&inode->mapping.tree, RADIX_TREE_TAG_DIRTY) && ktime_ns() < end)
		msleep(50);
	KT_ASSERT(!radix_tree_tagged(&inode->mapping.tree, RADIX_TREE_TAG_DIRTY));
	KT_ASSERT(disk_block_matches(inode, 3, 61));
	iput(inode);
	KT_EQ(vfs_unlink(NULL, "/fl"), 0);
}
