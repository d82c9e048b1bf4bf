/*
 * namespace.c - the mount table: mounting a file system on a directory,
 * and what the path walk asks of the table (fs/mount.h states how readers
 * and writers share it). The root file system is the first mount
 * (fs/super.c); boot then mounts /proc on the root's directory /proc
 * and /dev on /dev (vfs_mount_kernel_fs).
 *
 * Lock order (fs/vfs.h; quoted names are lockdep classes):
 *   'mount_lock' -> 'namespace_lock'  vfs_unmount_root forgets the mounts
 *                                     on the root file system
 *   'namespace_lock' -> 's_ns'        vfs_mount holds the mountpoint's name
 *                                     space for reading while it links the
 *                                     mount, so an rmdir of the directory
 *                                     (s_ns for writing) either finished
 *                                     first or sees the mount and says EBUSY;
 *                                     /proc/mounts finds each mountpoint's
 *                                     path (vfs_getcwd)
 * Path walks take no lock here (mount.h, steps 2 and 3).
 */
#include "fs/mount.h"
#include "mm/slab.h"
#include "kernel/rcu.h"
#include "kernel/mutex.h"
#include "kernel/lockdep.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"

static struct mount *mounts;		/* [R] the table, the root mount first */
static DEFINE_MUTEX(namespace_lock);

/* The mount on inode, or NULL. Under rcu_read_lock (mount.h, step 2). */
static struct mount *mount_on(struct inode *inode)
{
	for (struct mount *m = rcu_dereference(mounts); m; m = rcu_dereference(m->next))
		if (m->mountpoint == inode)
			return m;
	return NULL;
}

struct inode *follow_mount(struct inode *inode)
{
	for (;;) {
		rcu_read_lock();
		struct mount *m = mount_on(inode);
		struct inode *root = m ? igrab(m->sb->root) : NULL;	/* mount.h, step 2 */
		rcu_read_unlock();
		if (!root)
			return inode;
		iput(inode);
		inode = root;
	}
}

struct inode *mount_covered(struct inode *dir)
{
	struct inode *covered = NULL;
	rcu_read_lock();
	for (struct mount *m = rcu_dereference(mounts); m; m = rcu_dereference(m->next))
		if (m->sb->root == dir && m->mountpoint) {
			covered = igrab(m->mountpoint);		/* mount.h, step 2 */
			break;
		}
	rcu_read_unlock();
	return covered;
}

bool is_mountpoint(struct inode *inode)
{
	rcu_read_lock();
	bool mounted = mount_on(inode) != NULL;
	rcu_read_unlock();
	return mounted;
}

/* Is sb in the table? namespace_lock held: the writer's own view, no RCU needed. */
static bool sb_mounted(struct super_block *sb)
{
	lockdep_assert_held(&namespace_lock);
	for (struct mount *m = mounts; m; m = m->next)
		if (m->sb == sb)
			return true;
	return false;
}

/* Put a filled-in m at the end of the table (mount.h, step 1). namespace_lock held. */
static void link_mount(struct mount *m)
{
	lockdep_assert_held(&namespace_lock);
	struct mount **pp = &mounts;
	while (*pp)
		pp = &(*pp)->next;
	rcu_assign_pointer(*pp, m);	/* release: m's fields before the pointer */
}

int mount_add_root(struct super_block *sb, const char *source)
{
	struct mount *m = kzalloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct mount){ .sb = sb, .source = source };
	mutex_lock(&namespace_lock);
	BUG_ON(mounts, "vfs: a root mount while the table still has mounts");
	link_mount(m);
	mutex_unlock(&namespace_lock);
	return 0;
}

int vfs_mount(struct super_block *sb, const char *path, const char *source)
{
	struct inode *dir = vfs_lookup(NULL, path);	/* what is there now, mounts followed */
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	int err = 0;
	struct mount *m = kzalloc(sizeof(*m));
	if (!m)
		err = -ENOMEM;
	else if (!S_ISDIR(dir->mode))
		err = -ENOTDIR;
	else if (dir == dir->sb->root)
		err = -EBUSY;		/* "/", or the root of a mount already there */
	if (!err) {
		mutex_lock(&namespace_lock);
		down_read(&dir->sb->s_ns);
		if (dir->nlink == 0)
			err = -ENOENT;	/* removed since the lookup */
		else if (sb_mounted(sb))
			err = -EBUSY;
		else {
			*m = (struct mount){ .sb = sb, .mountpoint = dir, .source = source };
			link_mount(m);	/* keeps the lookup's reference on dir */
		}
		up_read(&dir->sb->s_ns);
		mutex_unlock(&namespace_lock);
	}
	if (err) {
		kfree(m);
		iput(dir);
	}
	return err;
}

/*
 * Unlink each mount pick() chooses, one at a time: unlink, wait for the
 * readers that may still be on it, then let go (mount.h, steps 1 and 3).
 */
static void forget(bool (*pick)(struct mount *m, void *arg), void *arg)
{
	for (;;) {
		mutex_lock(&namespace_lock);
		struct mount **pp = &mounts;
		while (*pp && !pick(*pp, arg))
			pp = &(*pp)->next;
		struct mount *m = *pp;
		if (m)
			WRITE_ONCE(*pp, m->next);	/* a reader on m still finds m->next */
		mutex_unlock(&namespace_lock);
		if (!m)
			return;
		synchronize_rcu();
		iput(m->mountpoint);
		kfree(m);
	}
}

static bool on_sb(struct mount *m, void *sb)
{
	return m->mountpoint && m->mountpoint->sb == sb;
}

static bool is_root_mount(struct mount *m, void *unused)
{
	return !m->mountpoint;
}

void mount_forget_below(struct super_block *sb)
{
	forget(on_sb, sb);
}

void mount_forget_root(void)
{
	forget(is_root_mount, NULL);
}

static const char *mount_error(int err)
{
	switch (err) {
	case -ENOENT:
		return "the root file system has no such directory";
	case -ENOTDIR:
		return "it is not a directory";
	case -EBUSY:
		return "something is mounted there already";
	default:
		return "it cannot be used";
	}
}

/* Mount sb on path; a failure is said, not fatal: the system runs without it. */
static int mount_kernel_fs(struct super_block *sb, const char *path, const char *source)
{
	int err = vfs_mount(sb, path, source);
	if (err)
		pr_err("vfs: cannot mount %s on %s: %s (error %d); running without %s",
		       source, path, mount_error(err), err, path);
	return err;
}

int vfs_mount_kernel_fs(void)
{
	int err = mount_kernel_fs(proc_super(), "/proc", "proc");
	int dev_err = mount_kernel_fs(devfs_super(), "/dev", "dev");
	return err ? err : dev_err;
}

int vfs_mounts_show(char *buf, int size)
{
	char *path = kmalloc(PATH_MAX);
	if (!path)
		return 0;
	int len = 0;
	mutex_lock(&namespace_lock);
	for (struct mount *m = mounts; m && len < size; m = m->next) {
		if (!m->mountpoint)
			strlcpy(path, "/", PATH_MAX);
		else if (vfs_getcwd(m->mountpoint, path, PATH_MAX) < 0)
			continue;	/* its directory cannot be named: no line */
		len += snprintf(buf + len, size - len, "%s %s %s %s 0 0\n", m->source, path,
				m->sb->type, READ_ONCE(m->sb->rdonly) ? "ro" : "rw");
	}
	mutex_unlock(&namespace_lock);
	kfree(path);
	return MIN(len, size - 1);
}
