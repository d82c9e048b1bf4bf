/*
 * names.c - the system calls on names and attributes: mkdir, rmdir,
 * unlink, rename, link, symlink, readlink, truncate, ftruncate, chmod and chown
 * (stored in the inode, on disk for ext2), umask (applied to every new file
 * and directory), and the
 * current directory (chdir, fchdir, getcwd).
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"
#include "drivers/rtc.h"
#include "kernel/time.h"

/* Run op(base, path) for a *at() call. */
static long with_path(int dirfd, u64 upath, int (*op)(struct inode *, const char *, u64), u64 arg)
{
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	struct inode *base = base_dir(dirfd, path);
	long err = PTR_ERR(base);
	if (!IS_ERR(base)) {
		err = op(base, path, arg);
		iput(base);
	}
	kfree(path);
	return err;
}

/* The inode (dirfd, path) names, held; or ERR_PTR(-errno). */
static struct inode *lookup_at(int dirfd, const char *path, unsigned lflags)
{
	struct inode *base = base_dir(dirfd, path);
	if (IS_ERR(base))
		return base;
	struct inode *inode = vfs_lookup_at(base, path, lflags);
	iput(base);
	return inode;
}

static int op_mkdir(struct inode *b, const char *p, u64 mode)
{
	return vfs_mkdir(b, p, (u32)mode & 07777 & ~current_umask());
}
static int op_rmdir(struct inode *b, const char *p, u64 unused) { return vfs_rmdir(b, p); }
static int op_unlink(struct inode *b, const char *p, u64 unused) { return vfs_unlink(b, p); }
static int op_truncate(struct inode *b, const char *p, u64 size)
{
	return (s64)size < 0 ? -EINVAL : vfs_truncate(b, p, size);
}

SYSCALL_DEFINE2(mkdir, uaddr_t, upath, u64, mode) { return with_path(AT_FDCWD, upath, op_mkdir, mode); }
SYSCALL_DEFINE3(mkdirat, int, dirfd, uaddr_t, upath, u64, mode) { return with_path(dirfd, upath, op_mkdir, mode); }
SYSCALL_DEFINE1(rmdir, uaddr_t, upath) { return with_path(AT_FDCWD, upath, op_rmdir, 0); }
SYSCALL_DEFINE1(unlink, uaddr_t, upath) { return with_path(AT_FDCWD, upath, op_unlink, 0); }
SYSCALL_DEFINE2(truncate, uaddr_t, upath, u64, length) { return with_path(AT_FDCWD, upath, op_truncate, length); }

SYSCALL_DEFINE3(unlinkat, int, dirfd, uaddr_t, upath, u64, flags)
{
	if (flags & ~(u64)AT_REMOVEDIR)
		return -EINVAL;
	return with_path(dirfd, upath, flags & AT_REMOVEDIR ? op_rmdir : op_unlink, 0);
}

#define AT_SYMLINK_FOLLOW 0x400

/* two_paths with both paths copied in: their base directories, then the call. */
static long two_bases(int olddirfd, const char *oldp, int newdirfd, const char *newp, bool link,
		      unsigned lflags)
{
	struct inode *ob = base_dir(olddirfd, oldp);
	if (IS_ERR(ob))
		return PTR_ERR(ob);
	struct inode *nb = base_dir(newdirfd, newp);
	long err = PTR_ERR(nb);
	if (!IS_ERR(nb)) {
		/* The VFS takes one base; give it absolute or same-base paths. */
		err = link ? vfs_link2(ob, oldp, nb, newp, lflags) : vfs_rename2(ob, oldp, nb, newp);
		iput(nb);
	}
	iput(ob);
	return err;
}

/* Two-path calls: rename and link, with their *at forms (link: lflags for the
 * old path). Both paths are copied in before either base is looked at, as Linux. */
static long two_paths(int olddirfd, u64 uold, int newdirfd, u64 unew, bool link, unsigned lflags)
{
	char *oldp = get_path(uold);
	if (IS_ERR(oldp))
		return PTR_ERR(oldp);
	char *newp = get_path(unew);
	long err = PTR_ERR(newp);
	if (!IS_ERR(newp)) {
		err = two_bases(olddirfd, oldp, newdirfd, newp, link, lflags);
		kfree(newp);
	}
	kfree(oldp);
	return err;
}

SYSCALL_DEFINE2(rename, uaddr_t, uold, uaddr_t, unew) { return two_paths(AT_FDCWD, uold, AT_FDCWD, unew, false, 0); }
SYSCALL_DEFINE4(renameat, int, olddirfd, uaddr_t, uold, int, newdirfd, uaddr_t, unew) { return two_paths(olddirfd, uold, newdirfd, unew, false, 0); }
SYSCALL_DEFINE5(renameat2, int, olddirfd, uaddr_t, uold, int, newdirfd, uaddr_t, unew, u64, flags) { return flags ? -EINVAL : two_paths(olddirfd, uold, newdirfd, unew, false, 0); }
SYSCALL_DEFINE2(link, uaddr_t, uold, uaddr_t, unew) { return two_paths(AT_FDCWD, uold, AT_FDCWD, unew, true, LOOKUP_NOFOLLOW); }

/* linkat: the old path's link itself, unless AT_SYMLINK_FOLLOW. */
SYSCALL_DEFINE5(linkat, int, olddirfd, uaddr_t, uold, int, newdirfd, uaddr_t, unew, u64, flags)
{
	if (flags & ~(u64)AT_SYMLINK_FOLLOW)
		return -EINVAL;
	return two_paths(olddirfd, uold, newdirfd, unew, true,
			 flags & AT_SYMLINK_FOLLOW ? 0 : LOOKUP_NOFOLLOW);
}

/* ------------------------------------------------------------ symbolic links */

/* symlinkat: a link at (dirfd, linkpath) holding target. */
static long do_symlinkat(u64 utarget, int dirfd, u64 ulink)
{
	char *target = get_path(utarget);
	if (IS_ERR(target))
		return PTR_ERR(target);
	char *link = get_path(ulink);
	long err = PTR_ERR(link);
	if (!IS_ERR(link)) {
		struct inode *base = base_dir(dirfd, link);
		err = PTR_ERR(base);
		if (!IS_ERR(base)) {
			err = vfs_symlink(base, target, link);
			iput(base);
		}
		kfree(link);
	}
	kfree(target);
	return err;
}

SYSCALL_DEFINE2(symlink, uaddr_t, utarget, uaddr_t, ulink) { return do_symlinkat(utarget, AT_FDCWD, ulink); }
SYSCALL_DEFINE3(symlinkat, uaddr_t, utarget, int, dirfd, uaddr_t, ulink) { return do_symlinkat(utarget, dirfd, ulink); }

/*
 * readlinkat: the link's target, cut to bufsize bytes with no NUL added,
 * as Linux; the count copied. EINVAL for bufsize <= 0 (as an int) or a
 * file that is not a link. An empty path with a dirfd reads the link the
 * descriptor names, which open never gives here: ENOENT, as Linux for a
 * descriptor that is no link.
 */
static long do_readlinkat(int dirfd, u64 upath, u64 ubuf, u64 bufsize)
{
	if ((int)bufsize <= 0)
		return -EINVAL;
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	char *buf = kmalloc(PATH_MAX);
	struct inode *base = buf ? base_dir(dirfd, path) : ERR_PTR(-ENOMEM);
	long r = PTR_ERR(base);
	if (!IS_ERR(base)) {
		r = vfs_readlink(base, path, buf);
		iput(base);
	}
	if (r > 0) {
		size_t n = (size_t)r < (size_t)(int)bufsize ? (size_t)r : (size_t)(int)bufsize;
		r = copy_to_user((void *)ubuf, buf, n) ? -EFAULT : (long)n;
	}
	kfree(buf);
	kfree(path);
	return r;
}

SYSCALL_DEFINE3(readlink, uaddr_t, upath, uaddr_t, ubuf, u64, bufsize) { return do_readlinkat(AT_FDCWD, upath, ubuf, bufsize); }
SYSCALL_DEFINE4(readlinkat, int, dirfd, uaddr_t, upath, uaddr_t, ubuf, u64, bufsize) { return do_readlinkat(dirfd, upath, ubuf, bufsize); }

/* ------------------------------------------------------------ modes and owners */

/*
 * The inode an attribute call names, held: (dirfd, path), following a
 * last link unless lflags say LOOKUP_NOFOLLOW; with no path (by_fd, or an
 * empty one and fd_if_empty) the file dirfd is open on; a NULL path is
 * EFAULT. ERR_PTR(-errno) on failure. A pipe or the console has no inode:
 * NULL, which is no error, and the call changes nothing.
 */
static struct inode *attr_inode(int dirfd, u64 upath, bool by_fd, unsigned lflags, bool fd_if_empty)
{
	char *path = NULL;
	if (!by_fd) {
		path = get_path(upath);
		if (IS_ERR(path))
			return ERR_CAST(path);
	}
	if (path && (path[0] || !fd_if_empty)) {
		struct inode *inode = lookup_at(dirfd, path, lflags);
		kfree(path);
		return inode;
	}
	kfree(path);
	struct file *f = fd_get(current_files(), dirfd);
	if (!f)
		return ERR_PTR(-EBADF);
	struct inode *inode = f->inode ? igrab(f->inode) : NULL;
	file_put(f);
	return inode;
}

#define NO_ID 0xffffffffu	/* chown's "leave this one as it is" */

/*
 * Change a file's permission bits (mode != NO_ID) and owners (uid, gid
 * != NO_ID) and set its ctime, as Linux's chmod and chown: the type bits
 * stay, and a change of owner on anything but a directory drops set-uid,
 * and set-gid where group execute makes it mean set-gid (not a lock
 * mark). Everyone is root here, so no change is refused for permission;
 * a read-only file system refuses all (EROFS).
 */
static int set_attr(struct inode *inode, u32 mode, u32 uid, u32 gid, bool owner_call)
{
	if (inode->sb->rdonly)
		return -EROFS;
	mutex_lock(&inode->i_mutex);
	u32 m = inode->mode;
	if (mode != NO_ID)
		m = (m & S_IFMT) | (mode & 07777);
	if (owner_call && !S_ISDIR(m)) {
		m &= ~(u32)S_ISUID;
		if (m & S_IXGRP)
			m &= ~(u32)S_ISGID;
	}
	WRITE_ONCE(inode->mode, m);
	if (uid != NO_ID)
		inode->uid = uid;
	if (gid != NO_ID)
		inode->gid = gid;
	inode->ctime = wall_seconds();
	int err = mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	return err;
}

static long do_chmod(int dirfd, u64 upath, u64 mode, bool by_fd)
{
	struct inode *inode = attr_inode(dirfd, upath, by_fd, 0, false);
	if (IS_ERR_OR_NULL(inode))	/* NULL: no inode, nothing to change */
		return inode ? PTR_ERR(inode) : 0;
	int err = set_attr(inode, (u32)mode & 07777, NO_ID, NO_ID, false);
	iput(inode);
	return err;
}

static long do_chown(int dirfd, u64 upath, u64 owner, u64 group, unsigned lflags, bool by_fd,
		     bool fd_if_empty)
{
	struct inode *inode = attr_inode(dirfd, upath, by_fd, lflags, fd_if_empty);
	if (IS_ERR_OR_NULL(inode))	/* NULL: no inode, nothing to change */
		return inode ? PTR_ERR(inode) : 0;
	int err = set_attr(inode, NO_ID, (u32)owner, (u32)group, true);
	iput(inode);
	return err;
}

SYSCALL_DEFINE2(chmod, uaddr_t, upath, u64, mode) { return do_chmod(AT_FDCWD, upath, mode, false); }
SYSCALL_DEFINE3(fchmodat, int, dirfd, uaddr_t, upath, u64, mode) { return do_chmod(dirfd, upath, mode, false); }
SYSCALL_DEFINE2(fchmod, int, fd, u64, mode) { return do_chmod(fd, 0, mode, true); }
SYSCALL_DEFINE3(chown, uaddr_t, upath, u64, owner, u64, group) { return do_chown(AT_FDCWD, upath, owner, group, 0, false, false); }
SYSCALL_DEFINE3(lchown, uaddr_t, upath, u64, owner, u64, group) { return do_chown(AT_FDCWD, upath, owner, group, LOOKUP_NOFOLLOW, false, false); }
SYSCALL_DEFINE3(fchown, int, fd, u64, owner, u64, group) { return do_chown(fd, 0, owner, group, 0, true, false); }

SYSCALL_DEFINE5(fchownat, int, dirfd, uaddr_t, upath, u64, owner, u64, group, u64, flags)
{
	if (flags & ~(u64)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return do_chown(dirfd, upath, owner, group, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0,
			false, flags & AT_EMPTY_PATH);
}

SYSCALL_DEFINE1(umask, u32, mask)
{
	return __atomic_exchange_n(&current_proc()->umask, mask & 0777, __ATOMIC_RELAXED);
}

SYSCALL_DEFINE2(ftruncate, int, fd, u64, length)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = (s64)length < 0 ? -EINVAL : vfs_ftruncate(f, length);
	file_put(f);
	return r;
}

static long set_cwd(struct inode *dir)
{
	if (!S_ISDIR(dir->mode)) {
		iput(dir);
		return -ENOTDIR;
	}
	struct process *p = current_proc();
	struct inode *old = p->cwd;
	p->cwd = dir;		/* only this process's threads look at it */
	iput(old);
	return 0;
}

SYSCALL_DEFINE1(chdir, uaddr_t, upath)
{
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	struct inode *dir = vfs_lookup(current_proc()->cwd, path);
	kfree(path);
	return IS_ERR(dir) ? PTR_ERR(dir) : set_cwd(dir);
}

SYSCALL_DEFINE1(fchdir, int, fd)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	struct inode *dir = f->inode ? igrab(f->inode) : NULL;
	file_put(f);
	return dir ? set_cwd(dir) : -ENOTDIR;
}

SYSCALL_DEFINE2(getcwd, uaddr_t, ubuf, u64, size)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	int n = vfs_getcwd(current_proc()->cwd, buf, PATH_MAX);
	long r = n;
	if (n >= 0) {
		if ((u64)n + 1 > size)
			r = -ERANGE;
		else if (copy_to_user((void *)ubuf, buf, (size_t)n + 1))
			r = -EFAULT;
		else
			r = n + 1;
	}
	kfree(buf);
	return r;
}

/* ------------------------------------------------------------ file times */

#define UTIME_NOW ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)

/* One of utimensat's two times: *out, or false if it is left as it is. */
static bool pick_time(const struct timespec *t, u64 now, u64 *out)
{
	if (!t || t->nsec == UTIME_NOW) {
		*out = now;
		return true;
	}
	if (t->nsec == UTIME_OMIT)
		return false;
	*out = (u64)t->sec;
	return true;
}

/*
 * utimensat: set a file's access and modification times (touch). times
 * NULL: both now; each may be UTIME_NOW or UTIME_OMIT. A NULL path means
 * the file dirfd is open on (futimens). Times are kept in whole seconds,
 * as ext2 keeps them. AT_SYMLINK_NOFOLLOW sets a link's own times.
 */
SYSCALL_DEFINE4(utimensat, int, dirfd, uaddr_t, upath, uaddr_t, utimes, int, flags)
{
	struct timespec ts[2];
	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return -EINVAL;
	if (utimes) {
		if (copy_from_user(ts, (void *)utimes, sizeof(ts)))
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			if ((ts[i].nsec < 0 || ts[i].nsec >= 1000000000) &&
			    ts[i].nsec != UTIME_NOW && ts[i].nsec != UTIME_OMIT)
				return -EINVAL;
	}
	struct inode *inode;
	if (!upath) {
		struct file *f = fd_get(current_files(), dirfd);
		if (!f)
			return -EBADF;
		inode = f->inode ? igrab(f->inode) : NULL;
		file_put(f);
		if (!inode)
			return -EPERM;		/* a pipe or the console: no times to set here */
	} else {
		char *path = get_path(upath);
		if (IS_ERR(path))
			return PTR_ERR(path);
		inode = lookup_at(dirfd, path, flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0);
		kfree(path);
		if (IS_ERR(inode))
			return PTR_ERR(inode);
	}
	if (inode->sb->rdonly) {
		iput(inode);
		return -EROFS;
	}
	u64 now = wall_seconds(), t;
	mutex_lock(&inode->i_mutex);
	if (pick_time(utimes ? &ts[0] : NULL, now, &t))
		inode->atime = t;
	if (pick_time(utimes ? &ts[1] : NULL, now, &t))
		inode->mtime = t;
	inode->ctime = now;
	int err = mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	iput(inode);
	return err;
}
