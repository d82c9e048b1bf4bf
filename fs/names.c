/*
 * names.c - the system calls on names and attributes: mkdir, rmdir,
 * unlink, rename, link, readlink, truncate, ftruncate, chmod and chown
 * (accepted, not stored: ext2 here keeps no owners), umask, and the
 * current directory (chdir, fchdir, getcwd).
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

/* Run op(base, path) for a *at() call. */
static long with_path(int dirfd, u64 upath, int (*op)(struct inode *, const char *, u64), u64 arg)
{
	int err = 0;
	char *path = get_path(upath, &err);
	if (!path)
		return err;
	struct inode *base = base_dir(dirfd, path, &err);
	if (base)
		err = op(base, path, arg);
	iput(base);
	kfree(path);
	return err;
}

static int op_mkdir(struct inode *b, const char *p, u64 mode) { return vfs_mkdir(b, p, (u32)mode & ~022); }
static int op_rmdir(struct inode *b, const char *p, u64 unused) { return vfs_rmdir(b, p); }
static int op_unlink(struct inode *b, const char *p, u64 unused) { return vfs_unlink(b, p); }
static int op_truncate(struct inode *b, const char *p, u64 size)
{
	return (s64)size < 0 ? -EINVAL : vfs_truncate(b, p, size);
}

SYSCALL(mkdir) { return with_path(AT_FDCWD, a0, op_mkdir, a1); }
SYSCALL(mkdirat) { return with_path((int)a0, a1, op_mkdir, a2); }
SYSCALL(rmdir) { return with_path(AT_FDCWD, a0, op_rmdir, 0); }
SYSCALL(unlink) { return with_path(AT_FDCWD, a0, op_unlink, 0); }
SYSCALL(truncate) { return with_path(AT_FDCWD, a0, op_truncate, a1); }

SYSCALL(unlinkat)
{
	if (a2 & ~(u64)AT_REMOVEDIR)
		return -EINVAL;
	return with_path((int)a0, a1, a2 & AT_REMOVEDIR ? op_rmdir : op_unlink, 0);
}

/* Two-path calls: rename and link, with their *at forms. */
static long two_paths(int olddirfd, u64 uold, int newdirfd, u64 unew, bool link)
{
	int err = 0;
	char *oldp = get_path(uold, &err), *newp = oldp ? get_path(unew, &err) : NULL;
	struct inode *ob = newp ? base_dir(olddirfd, oldp, &err) : NULL;
	struct inode *nb = ob ? base_dir(newdirfd, newp, &err) : NULL;
	if (nb) {
		/* The VFS takes one base; give it absolute or same-base paths. */
		err = link ? vfs_link2(ob, oldp, nb, newp) : vfs_rename2(ob, oldp, nb, newp);
	}
	iput(nb);
	iput(ob);
	kfree(newp);
	kfree(oldp);
	return err;
}

SYSCALL(rename) { return two_paths(AT_FDCWD, a0, AT_FDCWD, a1, false); }
SYSCALL(renameat) { return two_paths((int)a0, a1, (int)a2, a3, false); }
SYSCALL(renameat2) { return a4 ? -EINVAL : two_paths((int)a0, a1, (int)a2, a3, false); }
SYSCALL(link) { return two_paths(AT_FDCWD, a0, AT_FDCWD, a1, true); }
SYSCALL(linkat) { return two_paths((int)a0, a1, (int)a2, a3, true); }

static int op_exists(struct inode *b, const char *p, u64 unused)
{
	struct kstat k;
	int err = vfs_stat(b, p, &k);
	return err ? err : -EINVAL;	/* it exists, and is not a symbolic link */
}

SYSCALL(readlink) { return with_path(AT_FDCWD, a0, op_exists, 0); }
SYSCALL(readlinkat) { return with_path((int)a0, a1, op_exists, 0); }

/* Permissions: one user (root), so mode and owner changes are accepted
 * only in the sense that the file exists; they are not stored yet. */
static int op_stat_only(struct inode *b, const char *p, u64 unused)
{
	struct kstat k;
	return vfs_stat(b, p, &k);
}

SYSCALL(chmod) { return with_path(AT_FDCWD, a0, op_stat_only, 0); }
SYSCALL(fchmodat) { return with_path((int)a0, a1, op_stat_only, 0); }
SYSCALL(chown) { return with_path(AT_FDCWD, a0, op_stat_only, 0); }
SYSCALL(fchownat) { return with_path((int)a0, a1, op_stat_only, 0); }

SYSCALL(fchmod)
{
	struct file *f = fd_get(current_files(), (int)a0);
	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}

SYSCALL(umask) { return 022; }

SYSCALL(ftruncate)
{
	struct file *f = fd_get(current_files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = (s64)a1 < 0 ? -EINVAL : vfs_ftruncate(f, a1);
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

SYSCALL(chdir)
{
	int err = 0;
	char *path = get_path(a0, &err);
	if (!path)
		return err;
	struct inode *dir = vfs_lookup(current_proc()->cwd, path, &err);
	kfree(path);
	return dir ? set_cwd(dir) : err;
}

SYSCALL(fchdir)
{
	struct file *f = fd_get(current_files(), (int)a0);
	if (!f)
		return -EBADF;
	struct inode *dir = f->inode ? igrab(f->inode) : NULL;
	file_put(f);
	return dir ? set_cwd(dir) : -ENOTDIR;
}

SYSCALL(getcwd)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	int n = vfs_getcwd(current_proc()->cwd, buf, PATH_MAX);
	long r = n;
	if (n >= 0) {
		if ((u64)n + 1 > a1)
			r = -ERANGE;
		else if (copy_to_user((void *)a0, buf, (size_t)n + 1))
			r = -EFAULT;
		else
			r = n + 1;
	}
	kfree(buf);
	return r;
}
