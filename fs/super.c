/*
 * super.c - the root mount, sync, unmount and the flusher thread. The
 * mount table itself, and the mounts on the root, are fs/namespace.c's.
 *
 * Dirty data reaches the disk four ways: the flusher thread every
 * vfs.flush_ms, sync (vfs_sync_all), fsync on one file, and reclaim (which
 * writes a dirty page back before it may evict it, mm/vmscan.c).
 */
#include "fs/vfs.h"
#include "fs/mount.h"
#include "fs/ext2/ext2.h"
#include "fs/blockdev.h"
#include "mm/slab.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

CMDLINE_KEY(vfs_flush_ms, "vfs.flush_ms", "flusher: write dirty pages back every N ms (default 5000; 0: never)");
CMDLINE_KEY(vfs_noroot, "vfs.noroot", "do not mount the root ramdisk at boot");

/* The block device the root file system is on: the ramdisk (drivers/ramdisk.c). */
#define ROOT_DEVICE "ram0"

static struct super_block *root_sb;	/* [A] NULL when nothing is mounted */
static DEFINE_MUTEX(mount_lock);	/* mount, unmount and sync are serial */

void vfs_init(void)
{
	vfs_icache_init();
	proc_init();
	devfs_init();
	shmem_init();
}

void vfs_statfs(struct super_block *sb, struct kstatfs *st)
{
	*st = (struct kstatfs){ .namelen = NAME_MAX, .fsid = sb->dev, .bsize = PAGE_SIZE };
	if (sb->s_op->statfs)
		sb->s_op->statfs(sb, st);
}

struct super_block *vfs_root_sb(void)
{
	return smp_load_acquire(&root_sb);
}

u32 vfs_anon_dev(void)
{
	static u32 last;	/* [A] relaxed: only uniqueness matters */
	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

int vfs_mount_root(void)
{
	struct blockdev *bd = bdev_lookup(ROOT_DEVICE);
	if (!bd)
		return -ENXIO;
	mutex_lock(&mount_lock);
	if (root_sb) {
		mutex_unlock(&mount_lock);
		return -EBUSY;
	}
	struct super_block *sb = kzalloc(sizeof(*sb));
	if (!sb) {
		mutex_unlock(&mount_lock);
		return -ENOMEM;
	}
	init_rwsem(&sb->s_ns, "s_ns");
	list_init(&sb->inodes);
	sb->dev = bd->dev;
	int err = ext2_fill_super(sb, bd);
	if (!err) {
		struct inode *root = iget(sb, EXT2_ROOT_INO);
		sb->root = IS_ERR(root) ? NULL : root;	/* the checks below test for NULL */
		err = IS_ERR(root) ? PTR_ERR(root) : 0;
		if (sb->root && !S_ISDIR(sb->root->mode)) {
			pr_err("ext2: the root inode is not a directory; not mounted");
			iput(sb->root);
			sb->root = NULL;
			err = -EUCLEAN;
		}
		if (sb->root && (err = mount_add_root(sb, bd->name))) {
			iput(sb->root);
			sb->root = NULL;
		}
		if (!sb->root) {
			icache_prune_sb(sb);
			sb->s_op->put_super(sb);
		}
	}
	if (err) {
		kfree(sb);
		mutex_unlock(&mount_lock);
		return err;
	}
	smp_store_release(&root_sb, sb);
	mutex_unlock(&mount_lock);
	printk("vfs: mounted %s on /%s", sb->name, sb->rdonly ? " (read-only)" : "");
	return 0;
}

/* Write back every dirty page and inode of sb, then its metadata. */
static int sync_sb(struct super_block *sb)
{
	unsigned long n;
	int err = 0;
	struct inode **v = icache_grab_all(sb, &n);
	for (unsigned long i = 0; i < n; i++) {
		int e = filemap_write_and_wait(&v[i]->mapping);
		err = err ? err : e;
		iput(v[i]);
	}
	kfree(v);
	int e = sb->s_op->sync_fs(sb);
	return err ? err : e;
}

void vfs_sync_all(void)
{
	mutex_lock(&mount_lock);
	if (root_sb && !root_sb->rdonly)
		sync_sb(root_sb);
	mutex_unlock(&mount_lock);
}

int vfs_unmount_root(void)
{
	mutex_lock(&mount_lock);
	struct super_block *sb = root_sb;
	if (!sb) {
		mutex_unlock(&mount_lock);
		return -ENXIO;
	}
	mount_forget_below(sb);		/* /proc lets go of its directory */
	if (!sb->rdonly)
		sync_sb(sb);
	/* Only the mount's own reference on the root may remain. */
	unsigned long busy = icache_prune_sb(sb);
	if (busy > 1 || atomic_read(&sb->root->count) != 1) {
		mutex_unlock(&mount_lock);
		return -EBUSY;
	}
	mount_forget_root();
	smp_store_release(&root_sb, NULL);
	iput(sb->root);
	icache_prune_sb(sb);
	sb->s_op->put_super(sb);
	kfree(sb);
	mutex_unlock(&mount_lock);
	return 0;
}

static unsigned flush_ms;	/* [I] */

static int flusher_main(void *unused)
{
	for (;;) {
		msleep(flush_ms);
		vfs_sync_all();
	}
	return 0;
}

void vfs_start_flusher(void)
{
	flush_ms = (unsigned)cmdline_get_u64("vfs.flush_ms", 5000);
	if (flush_ms)
		kthread_run(flusher_main, NULL, "flusher");
}

/* Boot: mount the root ramdisk unless told not to, then /proc on it. */
void vfs_boot(void)
{
	vfs_init();
	if (cmdline_get("vfs.noroot") || !bdev_lookup(ROOT_DEVICE))
		return;
	int err = vfs_mount_root();
	if (err)
		pr_err("vfs: the root file system did not mount (error %d); running without one", err);
	else
		vfs_mount_kernel_fs();
	vfs_start_flusher();
}
