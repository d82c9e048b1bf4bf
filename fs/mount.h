/*
 * mount.h - the mount table (fs/namespace.c): which file system is
 * mounted on which directory. The VFS's own header; file systems and
 * system calls use vfs_mount (fs/vfs.h).
 *
 * The table is a list that path walks read under RCU, without a lock:
 *   1. A writer (vfs_mount, the root's mount and unmount) holds
 *      'namespace_lock' and links a filled-in mount with one
 *      rcu_assign_pointer (release: a reader that sees the pointer sees
 *      the fields), or unlinks one with a plain store.
 *   2. A reader, under rcu_read_lock, follows the list with
 *      rcu_dereference and takes a reference on the inode it wants
 *      (igrab) before rcu_read_unlock.
 *   3. After unlinking, the writer waits for a grace period
 *      (synchronize_rcu) before it lets go of the mount's inodes and
 *      frees it: a reader still inside step 2 finishes with both intact.
 * A mount never changes once linked; there is no umount(2): the only
 * mounts that go are the root's and those on it, with the root file system
 * (vfs_unmount_root, for tests that read back what they wrote).
 */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include "fs/vfs.h"

/* Lock legend: [I] immutable once linked, [R] RCU-published, written under namespace_lock. */
struct mount {
	struct super_block *sb;		/* [I] the mounted file system; its root is what the
					 * walk finds in place of the mountpoint */
	struct inode *mountpoint;	/* [I] the directory it covers, held; NULL: the root mount */
	const char *source;		/* [I] the device as /proc/mounts names it: "ram0", "proc" */
	struct mount *next;		/* [R] the next mount, in the order they were made */
};

/*
 * follow_mount: inode (a reference) if nothing is mounted on it, else the
 * root of what is (the reference moves to it; mounts on mounts are
 * followed to the top). Never sleeps but in iput.
 */
struct inode *follow_mount(struct inode *inode);
/*
 * mount_covered: dir is the root of a mounted file system: the directory
 * it is mounted on, with a reference; NULL for the root mount or a file
 * system that is not mounted. Never sleeps.
 */
struct inode *mount_covered(struct inode *dir);
/* is_mountpoint: something is mounted on inode (rmdir and rename say EBUSY). Never sleeps. */
bool is_mountpoint(struct inode *inode);
/* The root mount: sb mounted at "/" (fs/super.c, vfs_mount_root). 0 or -ENOMEM. May sleep. */
int mount_add_root(struct super_block *sb, const char *source);
/*
 * Unmounting the root (fs/super.c): mount_forget_below forgets the mounts
 * on sb's directories (their mountpoints are let go), mount_forget_root
 * the root mount itself. Both wait for a grace period. May sleep.
 */
void mount_forget_below(struct super_block *sb);
void mount_forget_root(void);

#endif
