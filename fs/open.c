/*
 * open.c - open, openat, creat, close, pipe and pipe2; and what every file
 * system call shares: the caller's descriptor table, a path copied from
 * user memory, and the directory a *at() path starts from (fs/syscalls.h).
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

u32 current_umask(void)
{
	return __atomic_load_n(&current_proc()->umask, __ATOMIC_RELAXED);
}

struct files_struct *current_files(void)
{
	return current_proc()->files;
}

char *get_path(u64 upath)
{
	char *p = kmalloc(PATH_MAX);
	if (!p)
		return ERR_PTR(-ENOMEM);
	long n = strncpy_from_user(p, (const char *)upath, PATH_MAX);
	if (n < 0) {
		kfree(p);
		return ERR_PTR(n);
	}
	return p;
}

struct inode *base_dir(int dirfd, const char *path)
{
	struct process *p = current_proc();
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return igrab(p->cwd);	/* the process holds its cwd: never NULL */
	struct file *f = fd_get(p->files, dirfd);
	if (!f)
		return ERR_PTR(-EBADF);
	struct inode *dir = f->inode ? igrab(f->inode) : NULL;
	file_put(f);
	if (!dir || !S_ISDIR(dir->mode)) {
		iput(dir);
		return ERR_PTR(-ENOTDIR);
	}
	return dir;
}

static long do_openat(int dirfd, u64 upath, unsigned flags, u32 mode)
{
	char *path = get_path(upath);
	if (IS_ERR(path))
		return PTR_ERR(path);
	struct inode *base = base_dir(dirfd, path);
	struct file *f = ERR_CAST(base);
	if (!IS_ERR(base)) {
		f = vfs_open(base, path, flags, mode & 07777 & ~current_umask());
		iput(base);
	}
	kfree(path);
	if (IS_ERR(f))
		return PTR_ERR(f);
	int fd = fd_install(current_files(), f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL_DEFINE3(open, uaddr_t, upath, unsigned int, flags, u32, mode) { return do_openat(AT_FDCWD, upath, flags, mode); }
SYSCALL_DEFINE4(openat, int, dirfd, uaddr_t, upath, unsigned int, flags, u32, mode) { return do_openat(dirfd, upath, flags, mode); }
SYSCALL_DEFINE2(creat, uaddr_t, upath, u32, mode) { return do_openat(AT_FDCWD, upath, O_WRONLY | O_CREAT | O_TRUNC, mode); }
SYSCALL_DEFINE1(close, int, fd) { return fd_close(current_files(), fd); }

static long pipe_fds(u64 ufds, unsigned flags)
{
	if (flags & ~(unsigned)(O_CLOEXEC | 04000))
		return -EINVAL;
	struct file *w, *r = pipe_create(&w, flags);
	if (!r)
		return -ENOMEM;
	int fds[2];
	fds[0] = fd_install(current_files(), r, 0, flags & O_CLOEXEC);
	fds[1] = fds[0] < 0 ? -EMFILE : fd_install(current_files(), w, 0, flags & O_CLOEXEC);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			fd_close(current_files(), fds[0]);
		else
			file_put(r);
		file_put(w);
		return -EMFILE;
	}
	if (copy_to_user((void *)ufds, fds, sizeof(fds))) {
		fd_close(current_files(), fds[0]);
		fd_close(current_files(), fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE1(pipe, uaddr_t, ufds) { return pipe_fds(ufds, 0); }
SYSCALL_DEFINE2(pipe2, uaddr_t, ufds, unsigned int, flags) { return pipe_fds(ufds, flags); }
