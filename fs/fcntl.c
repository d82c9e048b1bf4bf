/*
 * fcntl.c - dup, dup2, dup3, fcntl and ioctl: operations on a descriptor
 * rather than on the file's data.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_GETLK 5
#define F_SETLK 6
#define F_SETLKW 7
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
#define O_SETTABLE (O_APPEND | 04000 /* O_NONBLOCK */ | O_DIRECT)

SYSCALL_DEFINE1(dup, int, oldfd)
{
	struct file *f = fd_get(current_files(), oldfd);
	if (!f)
		return -EBADF;
	int fd = fd_install(current_files(), f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL_DEFINE2(dup2, u64, oldfd, u64, newfd)
{
	if (oldfd == newfd) {		/* dup2(fd, fd): fd if it is open */
		struct file *f = fd_get(current_files(), (int)oldfd);
		if (!f)
			return -EBADF;
		file_put(f);
		return (long)newfd;
	}
	return fd_dup2(current_files(), (int)oldfd, (int)newfd, false);
}

SYSCALL_DEFINE3(dup3, u64, oldfd, u64, newfd, u64, flags)
{
	if (oldfd == newfd || (flags & ~(u64)O_CLOEXEC))
		return -EINVAL;
	return fd_dup2(current_files(), (int)oldfd, (int)newfd, flags & O_CLOEXEC);
}

SYSCALL_DEFINE3(fcntl, int, fd, u64, cmd, u64, arg)
{
	struct files_struct *fs = current_files();
	struct file *f = fd_get(fs, fd);
	if (!f)
		return -EBADF;
	long r;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		r = fd_install(fs, file_get(f), (int)arg, cmd == F_DUPFD_CLOEXEC);
		if (r < 0)
			file_put(f);
		break;
	case F_GETFD:
		spin_lock(&fs->lock);
		r = (fs->cloexec[fd / 64] >> (fd % 64)) & 1;
		spin_unlock(&fs->lock);
		break;
	case F_SETFD:
		spin_lock(&fs->lock);
		if (arg & FD_CLOEXEC)
			fs->cloexec[fd / 64] |= 1ULL << (fd % 64);
		else
			fs->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
		spin_unlock(&fs->lock);
		r = 0;
		break;
	case F_GETFL:
		r = READ_ONCE(f->flags) & ~O_CLOEXEC;
		break;
	case F_SETFL:
		WRITE_ONCE(f->flags, (f->flags & ~O_SETTABLE) | ((unsigned)arg & O_SETTABLE));
		r = 0;
		break;
	case F_GETLK: case F_SETLK: case F_SETLKW: {
		/* One user, no locks to conflict with; struct flock is read and
		 * F_GETLK answers F_UNLCK (2) in l_type, as Linux would here. */
		u8 lock[32];
		r = copy_from_user(lock, (void *)arg, sizeof(lock));
		if (!r && cmd == F_GETLK)
			r = copy_to_user((void *)arg, &(u16){ 2 }, 2);
		break;
	}
	default:
		r = -EINVAL;
	}
	file_put(f);
	return r;
}

SYSCALL_DEFINE3(ioctl, int, fd, unsigned int, cmd, u64, arg)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = f->fop && f->fop->ioctl ? f->fop->ioctl(f, cmd, arg) : -ENOTTY;
	file_put(f);
	return r;
}
