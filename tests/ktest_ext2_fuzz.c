/*
 * ktest_ext2_fuzz.c - a batch of randomly damaged ext2 images in one boot
 * (tools/fuzz-images builds them with tools/corrupt-image fuzz and drives
 * the boots): each is mounted, walked, read, changed, synced and unmounted
 * in turn, and none may crash, hang or leak the kernel's hold on it.
 *
 * The module holds the images back to back, test.fuzz_blocks blocks each;
 * this boot starts at image test.fuzz_first, so the driver can go on past
 * one that took the kernel down. Each image gives two lines:
 *   fuzz-image N: begin
 *   fuzz-image N: ok | refused (-ERR) | errors (K failed, first: OP -ERR)
 * "refused" is a mount that said no (the mount printed why); "errors" a
 * mount whose damage some operations reported (EUCLEAN, EIO, EROFS after
 * ext2 went read-only, ENOENT for a name the damage took). The test fails
 * only for what a damaged disk must never cause: an unmount that finds
 * inodes still held (a reference leaked on an error path), or an image
 * that cannot be put on the device.
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "fs/vfs.h"
#include "fs/blockdev.h"

CMDLINE_KEY(test_fuzz_blocks, "test.fuzz_blocks", "ext2_fuzz_batch: blocks per image in the module");
CMDLINE_KEY(test_fuzz_first, "test.fuzz_first", "ext2_fuzz_batch: the image to start at");

#define FUZZ_NAMES 48		/* entries looked at per directory */
#define FUZZ_DEPTH 4		/* a directory cycle must not recurse forever */
#define FUZZ_READ_MAX (256 * 1024)

struct fuzz {
	int failed;		/* operations that returned an error */
	char first[64];		/* the first of them */
};

static void note(struct fuzz *z, const char *op, long err)
{
	if (err >= 0)
		return;
	if (!z->failed++)
		snprintf(z->first, sizeof(z->first), "%s %ld", op, err);
}

struct names {
	int n;
	char name[FUZZ_NAMES][32];
};

static int collect(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	struct names *v = ctx;
	if (v->n == FUZZ_NAMES)
		return 1;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	len = MIN(len, 31);
	memcpy(v->name[v->n], name, len);
	v->name[v->n++][len] = 0;
	return 0;
}

static void read_file(struct fuzz *z, const char *path, u64 size)
{
	static char buf[4096];
	struct file *f = vfs_open(NULL, path, O_RDONLY, 0);
	if (IS_ERR(f)) {
		note(z, "open", PTR_ERR(f));
		return;
	}
	for (u64 off = 0; off < MIN(size, (u64)FUZZ_READ_MAX); off += sizeof(buf)) {
		ssize_t n = vfs_pread(f, buf, sizeof(buf), off);
		note(z, "read", n);
		if (n <= 0)
			break;
	}
	if (size > FUZZ_READ_MAX)	/* and the last block, wherever it lies */
		note(z, "read", vfs_pread(f, buf, sizeof(buf), size - 1));
	file_put(f);
}

/* Read every file under dir (a path of at most 200 bytes), depth levels down. */
static void walk(struct fuzz *z, const char *dir, int depth)
{
	static struct names levels[FUZZ_DEPTH + 1];
	struct names *v = &levels[depth];
	struct file *d = vfs_open(NULL, dir, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(d)) {
		note(z, "opendir", PTR_ERR(d));
		return;
	}
	v->n = 0;
	note(z, "readdir", vfs_readdir(d, collect, v));
	file_put(d);
	for (int i = 0; i < v->n; i++) {
		char path[256];
		struct kstat st;
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", v->name[i]);
		int err = vfs_stat(NULL, path, &st);
		note(z, "stat", err);
		if (err)
			continue;
		if (S_ISDIR(st.mode) && depth < FUZZ_DEPTH)
			walk(z, path, depth + 1);
		else if (S_ISREG(st.mode))
			read_file(z, path, st.size);
	}
}

static void write_file(struct fuzz *z, const char *path, unsigned flags, u64 off, int blocks)
{
	static char buf[4096];
	struct file *f = vfs_open(NULL, path, O_WRONLY | flags, 0644);
	if (IS_ERR(f)) {
		note(z, "create", PTR_ERR(f));
		return;
	}
	memset(buf, 'z', sizeof(buf));
	for (int i = 0; i < blocks; i++) {
		ssize_t n = vfs_pwrite(f, buf, sizeof(buf), off + (u64)i * sizeof(buf));
		note(z, "write", n);
		if (n < 0)
			break;
	}
	file_put(f);
}

/* Every kind of change, on the base image's names (tools/corrupt-image stage). */
static void change(struct fuzz *z)
{
	write_file(z, "/fz-new", O_CREAT | O_TRUNC, 0, 20);	/* past the 12 direct blocks */
	write_file(z, "/ok", O_APPEND, 0, 1);
	write_file(z, "/big", 0, 13 * 4096, 2);			/* through its indirect block */
	write_file(z, "/sparse", 0, 4096, 1);			/* into its hole */
	note(z, "mkdir", vfs_mkdir(NULL, "/fz-dir", 0755));
	note(z, "rename", vfs_rename(NULL, "/fz-new", "/fz-dir/moved"));
	note(z, "rename", vfs_rename(NULL, "/dir/b", "/dir/b2"));
	note(z, "mkdir", vfs_mkdir(NULL, "/fz-sub", 0755));
	note(z, "rename", vfs_rename(NULL, "/fz-sub", "/dir/fz-sub"));	/* walks ".." up */
	int e = vfs_rename(NULL, "/dir", "/dir/fz-sub/dir");	/* into itself: EINVAL */
	note(z, "rename", e == -EINVAL ? 0 : (e ? e : -EEXIST));
	note(z, "rmdir", vfs_rmdir(NULL, "/dir/fz-sub"));
	note(z, "link", vfs_link(NULL, "/dir/c", "/fz-dir/c"));
	note(z, "truncate", vfs_truncate(NULL, "/big", 5000));
	note(z, "unlink", vfs_unlink(NULL, "/small"));
	note(z, "unlink", vfs_unlink(NULL, "/dir/a"));
	for (int i = 0; i < 3; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/dir/fz-%d", i);
		write_file(z, path, O_CREAT | O_EXCL, 0, 1);
	}
	note(z, "unlink", vfs_unlink(NULL, "/dir/fz-1"));
	note(z, "unlink", vfs_unlink(NULL, "/fz-dir/moved"));
	note(z, "unlink", vfs_unlink(NULL, "/fz-dir/c"));
	note(z, "rmdir", vfs_rmdir(NULL, "/fz-dir"));
	note(z, "truncate", vfs_truncate(NULL, "/sparse", 0));
}

/* One image: false if it left the kernel unable to go on to the next. */
static bool one_image(struct blockdev *bd, u64 i, u64 blocks)
{
	struct fuzz z = { 0 };
	printk_raw("fuzz-image %llu: begin", (unsigned long long)i);
	int err = bdev_set_window(bd, i * blocks, blocks);
	if (err) {
		printk_raw("fuzz-image %llu: cannot be put on the device (%d)",
			   (unsigned long long)i, err);
		return false;
	}
	err = vfs_mount_root();
	if (err) {
		printk_raw("fuzz-image %llu: refused (%d)", (unsigned long long)i, err);
		return true;
	}
	walk(&z, "/", 0);
	change(&z);
	walk(&z, "/", 0);
	vfs_sync_all();
	err = vfs_unmount_root();
	if (err) {
		printk_raw("fuzz-image %llu: unmount failed (%d): inodes still held",
			   (unsigned long long)i, err);
		return false;
	}
	if (z.failed)
		printk_raw("fuzz-image %llu: errors (%d failed, first: %s)",
			   (unsigned long long)i, z.failed, z.first);
	else
		printk_raw("fuzz-image %llu: ok", (unsigned long long)i);
	return true;
}

KTEST_BOOT(ext2_fuzz_batch)
{
	KT_REQUIRE_RAMDISK();
	struct blockdev *bd = bdev_lookup("ram0");
	u64 blocks = cmdline_get_u64("test.fuzz_blocks", 0);
	u64 first = cmdline_get_u64("test.fuzz_first", 0);
	KT_NULL(vfs_root_sb());			/* booted with vfs.noroot */
	KT_GT(blocks, 0);
	KT_EQ(bdev_capacity(bd) % blocks, 0);
	u64 count = bdev_capacity(bd) / blocks;
	for (u64 i = first; i < count; i++)
		KT_ASSERT(one_image(bd, i, blocks));
	printk_raw("fuzz-batch: images %llu to %llu done", (unsigned long long)first,
		   (unsigned long long)count - 1);
}
