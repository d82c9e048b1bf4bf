/*
 * ktest_mount.c - the mount table (fs/namespace.c): /proc mounted on the
 * root's directory /proc, the path walk crossing it both ways, the
 * directory held while mounted on, /proc/mounts, a remount of the root,
 * and a boot whose image has no /proc directory (tests/disks.txt).
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "mm/slab.h"
#include "fs/vfs.h"

/* Does the text hay (len bytes) contain needle? */
static bool contains(const char *hay, int len, const char *needle)
{
	int n = (int)strlen(needle);
	for (int i = 0; i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return true;
	return false;
}

/* The inode path names, or NULL: the tests compare what they get and iput it. */
static struct inode *lookup(const char *path)
{
	struct inode *inode = vfs_lookup(NULL, path);
	return IS_ERR(inode) ? NULL : inode;
}

KTEST(mount_walk_crosses_into_proc_and_back_out)
{
	KT_REQUIRE_ROOT();
	struct inode *root = lookup("/"), *proc = lookup("/proc"), *up = lookup("/proc/..");
	KT_NOT_NULL(proc);
	KT_ASSERT(proc->sb == proc_super());		/* the mounted root, not ext2's directory */
	KT_ASSERT(proc == proc->sb->root);
	KT_ASSERT(up == root);
	iput(up);
	up = lookup("/proc/../proc/./..//");
	KT_ASSERT(up == root);
	iput(up);
	up = vfs_lookup(proc, "..");	/* relative, from inside */
	KT_ASSERT(up == root);
	iput(up);
	struct inode *x = vfs_lookup(proc, "../proc/meminfo");
	KT_VALID_PTR(x);
	KT_ASSERT(x->sb == proc_super());
	iput(x);
	char path[64];
	KT_EQ(vfs_getcwd(proc, path, sizeof(path)), 5);
	KT_EQ(strcmp(path, "/proc"), 0);
	struct kstat a, b;
	KT_EQ(vfs_stat(NULL, "/proc", &a), 0);
	KT_EQ(vfs_stat(NULL, "/", &b), 0);
	KT_NE(a.dev, b.dev);
	iput(proc);
	iput(root);
}

KTEST(mount_point_is_busy_while_mounted_on)
{
	KT_REQUIRE_ROOT();
	KT_EQ(vfs_rmdir(NULL, "/proc"), -EBUSY);
	KT_EQ(vfs_rename(NULL, "/proc", "/mnt-moved"), -EBUSY);
	KT_EQ(vfs_mkdir(NULL, "/mnt-over", 0755), 0);
	KT_EQ(vfs_rename(NULL, "/mnt-over", "/proc"), -EBUSY);	/* nor replaced */
	KT_EQ(vfs_mount(proc_super(), "/mnt-over", "proc"), -EBUSY);	/* mounted already */
	KT_EQ(vfs_rmdir(NULL, "/mnt-over"), 0);
	KT_EQ(vfs_mount(proc_super(), "/proc", "proc"), -EBUSY);
	KT_EQ(vfs_mount(proc_super(), "/no-such-dir", "proc"), -ENOENT);
	KT_EQ(vfs_mount(proc_super(), "/README", "proc"), -ENOTDIR);
	struct inode *proc = lookup("/proc");
	KT_NOT_NULL(proc);
	KT_ASSERT(proc->sb == proc_super());		/* still there */
	iput(proc);
}

KTEST(mount_table_shows_in_proc_mounts)
{
	KT_REQUIRE_ROOT();
	char *buf = kmalloc(4096);
	KT_NOT_NULL(buf);
	int len = vfs_mounts_show(buf, 4096);
	buf[len] = 0;
	const char *want = vfs_root_sb()->rdonly ? "ram0 / ext2 ro 0 0\nproc /proc proc rw 0 0\n"
						  "dev /dev devfs rw 0 0\n"
						: "ram0 / ext2 rw 0 0\nproc /proc proc rw 0 0\n"
						  "dev /dev devfs rw 0 0\n";
	bool same = !strcmp(buf, want);
	if (!same)
		KT_FAIL("/proc/mounts is \"%s\", want \"%s\"", buf, want);
	kfree(buf);
}

KTEST(mount_proc_comes_back_after_a_root_remount)
{
	KT_REQUIRE_ROOT();
	KT_EQ(vfs_unmount_root(), 0);
	KT_NULL(lookup("/proc"));
	KT_EQ(vfs_mount_root(), 0);
	KT_EQ(vfs_mount_kernel_fs(), 0);
	struct inode *proc = lookup("/proc");
	KT_NOT_NULL(proc);
	KT_ASSERT(proc->sb == proc_super());
	iput(proc);
}

/* tests/disks.txt: an image made with mkimage --no-mount-points. */
KTEST_BOOT(mount_proc_without_its_directory_is_reported_not_fatal)
{
	KT_REQUIRE_ROOT();				/* the root mounted all the same */
	KT_ERR_PTR(vfs_lookup(NULL, "/proc"), -ENOENT);
	char *log = kmalloc(65536);
	KT_NOT_NULL(log);
	int len = printk_log_read(log, 65536);
	bool said = contains(log, len, "vfs: cannot mount proc on /proc: the root file system has "
				       "no such directory");
	bool said_dev = contains(log, len, "vfs: cannot mount dev on /dev: the root file system has "
					   "no such directory");
	len = vfs_mounts_show(log, 4096);
	log[len] = 0;
	bool root_only = !strcmp(log, "ram0 / ext2 rw 0 0\n");
	kfree(log);
	KT_ASSERT(said);
	KT_ASSERT(said_dev);
	KT_ASSERT(root_only);
	KT_EQ(vfs_mkdir(NULL, "/proc", 0555), 0);	/* a directory made later serves */
	KT_EQ(vfs_mkdir(NULL, "/dev", 0755), 0);
	KT_EQ(vfs_mount_kernel_fs(), 0);
	struct inode *proc = vfs_lookup(NULL, "/proc/meminfo");
	KT_VALID_PTR(proc);
	iput(proc);
	struct inode *null = vfs_lookup(NULL, "/dev/null");
	KT_VALID_PTR(null);
	iput(null);
	KT_EQ(vfs_unmount_root(), 0);			/* lets go of /proc and /dev: nothing held */
	KT_EQ(vfs_mount_root(), 0);
	KT_EQ(vfs_rmdir(NULL, "/proc"), 0);		/* not mounted on now: the disk as it was */
	KT_EQ(vfs_rmdir(NULL, "/dev"), 0);
}
