/*
 * stat.c - stat, lstat, fstat, newfstatat, access, faccessat and
 * faccessat2: Linux's struct stat filled from the VFS's struct kstat;
 * statfs and fstatfs: struct statfs from struct kstatfs.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

struct linux_stat {
	u64 dev, ino, nlink;
	u32 mode, uid, gid, pad0;
	u64 rdev;
	s64 size, blksize, blocks;
	u64 atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
	s64 reserved[3];
};

static long put_stat(u64 ubuf, struct kstat *k)
{
	struct linux_stat st = {
		.dev = k->dev, .ino = k->ino, .nlink = k->nlink, .mode = k->mode, .uid = k->uid,
		.gid = k->gid, .rdev = k->rdev, .size = (s64)k->size, .blksize = k->blksize,
		.blocks = (s64)k->blocks, .atime = k->atime, .mtime = k->mtime, .ctime = k->ctime,
	};
	return copy_to_user((void *)ubuf, &st, sizeof(st));
}

static long stat_file(struct file *f, u64 ubuf)
{
	struct kstat k = { 0 };
	if (f->inode) {
		vfs_getattr(f->inode, &k);
	} else {		/* a terminal or a pipe */
		k.mode = file_is_tty(f) ? (S_IFCHR | 0620) : (S_IFIFO | 0600);
		k.nlink = 1;
		k.blksize = PAGE_SIZE;
	}
	return put_stat(ubuf, &k);
}

/* stat of the file descriptor fd is open on, to ubuf. */
static long stat_fd(int fd, u64 ubuf)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = stat_file(f, ubuf);
	file_put(f);
	return r;
}

/* stat of path, from dirfd as *at() calls start, into *k; lflags: LOOKUP_NOFOLLOW
 * for the link itself (lstat). 0 or -errno. */
static int stat_path(int dirfd, const char *path, unsigned lflags, struct kstat *k)
{
	struct inode *base = base_dir(dirfd, path);
	if (IS_ERR(base))
		return PTR_ERR(base);
	int err = vfs_stat_at(base, path, lflags, k);
	iput(base);
	return err;
}

static long do_fstatat(int dirfd, u64 upath, u64 ubuf, int flags)
{
	char *path = upath || !(flags & AT_EMPTY_PATH) ? get_path(upath) : kzalloc(1);
	if (IS_ERR_OR_NULL(path))	/* get_path's error, or kzalloc's NULL */
		return path ? PTR_ERR(path) : -ENOMEM;
	if (!path[0] && (flags & AT_EMPTY_PATH)) {
		kfree(path);
		return stat_fd(dirfd, ubuf);
	}
	struct kstat k;
	int err = stat_path(dirfd, path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0, &k);
	kfree(path);
	return err ? err : put_stat(ubuf, &k);
}

SYSCALL_DEFINE2(stat, uaddr_t, upath, uaddr_t, ustat) { return do_fstatat(AT_FDCWD, upath, ustat, 0); }
SYSCALL_DEFINE2(lstat, uaddr_t, upath, uaddr_t, ustat) { return do_fstatat(AT_FDCWD, upath, ustat, AT_SYMLINK_NOFOLLOW); }
SYSCALL_DEFINE4(newfstatat, int, dirfd, uaddr_t, upath, uaddr_t, ustat, int, flags) { return do_fstatat(dirfd, upath, ustat, flags); }

SYSCALL_DEFINE2(fstat, int, fd, uaddr_t, ustat) { return stat_fd(fd, ustat); }

static long do_faccessat(int dirfd, u64 upath, int mode)
{
	if (mode & ~7)
		return -EINVAL;
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	struct kstat k;
	int err = stat_path(dirfd, path, 0, &k);
	kfree(path);
	if (!err && (mode & 1) && !(k.mode & 0111) && !S_ISDIR(k.mode))
		err = -EACCES;		/* root may execute only what some x bit allows */
	return err;
}

SYSCALL_DEFINE2(access, uaddr_t, upath, int, mode) { return do_faccessat(AT_FDCWD, upath, mode); }
SYSCALL_DEFINE3(faccessat, int, dirfd, uaddr_t, upath, int, mode) { return do_faccessat(dirfd, upath, mode); }
SYSCALL_DEFINE4(faccessat2, int, dirfd, uaddr_t, upath, int, mode, u64, flags) { return do_faccessat(dirfd, upath, mode); }

/* ------------------------------------------------------------ statfs */

#define PIPEFS_MAGIC 0x50495045
#define ST_RDONLY 1
#define ST_VALID 0x20		/* f_flags is meaningful (Linux sets it always) */

struct linux_statfs {
	s64 type, bsize;
	u64 blocks, bfree, bavail, files, ffree;
	s32 fsid[2];
	s64 namelen, frsize, flags, spare[4];
};

static long put_statfs(u64 ubuf, const struct kstatfs *k, bool rdonly)
{
	struct linux_statfs st = {
		.type = (s64)k->magic, .bsize = (s64)k->bsize, .blocks = k->blocks,
		.bfree = k->bfree, .bavail = k->bavail, .files = k->files, .ffree = k->ffree,
		.fsid = { (s32)k->fsid, (s32)(k->fsid >> 32) }, .namelen = (s64)k->namelen,
		.frsize = (s64)k->bsize, .flags = ST_VALID | (rdonly ? ST_RDONLY : 0),
	};
	return copy_to_user((void *)ubuf, &st, sizeof(st)) ? -EFAULT : 0;
}

static long statfs_sb(struct super_block *sb, u64 ubuf)
{
	struct kstatfs k;
	vfs_statfs(sb, &k);
	return put_statfs(ubuf, &k, READ_ONCE(sb->rdonly));
}

SYSCALL_DEFINE2(statfs, uaddr_t, upath, uaddr_t, ubuf)
{
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	struct inode *inode = vfs_lookup(current_proc()->cwd, path);
	kfree(path);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	long r = statfs_sb(inode->sb, ubuf);
	iput(inode);
	return r;
}

/* fstatfs: the file system of the file fd is open on; a pipe is pipefs,
 * the console /dev's (devtmpfs), as on Linux. */
SYSCALL_DEFINE2(fstatfs, int, fd, uaddr_t, ubuf)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r;
	if (f->inode)
		r = statfs_sb(f->inode->sb, ubuf);
	else if (file_is_tty(f))
		r = statfs_sb(devfs_super(), ubuf);
	else {
		struct kstatfs k = { .magic = PIPEFS_MAGIC, .bsize = PAGE_SIZE, .namelen = NAME_MAX };
		r = put_statfs(ubuf, &k, false);
	}
	file_put(f);
	return r;
}
