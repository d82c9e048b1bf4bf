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

SYSCALL(dup)
{
	struct file *f = fd_get(current_files(), (int)a0);
	if (!f)
		return -EBADF;
	int fd = fd_install(current_files(), f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL(dup2)
{
	if (a0 == a1) {		/* dup2(fd, fd): fd if it is open */
		struct file *f = fd_get(current_files(), (int)a0);
		if (!f)
			return -EBADF;
		file_put(f);
		return (long)a1;
	}
	return fd_dup2(current_files(), (int)a0, (int)a1, false);
}

SYSCALL(dup3)
{
	if (a0 == a1 || (a2 & ~(u64)O_CLOEXEC))
		return -EINVAL;
	return fd_dup2(current_files(), (int)a0, (int)a1, a2 & O_CLOEXEC);
}

SYSCALL(fcntl)
{
	struct files_struct *fs = current_files();
	int fd = (int)a0;
	struct file *f = fd_get(fs, fd);
	if (!f)
		return -EBADF;
	long r;
	switch (a1) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		r = fd_install(fs, file_get(f), (int)a2, a1 == F_DUPFD_CLOEXEC);
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
		if (a2 & FD_CLOEXEC)
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
		WRITE_ONCE(f->flags, (f->flags & ~O_SETTABLE) | ((unsigned)a2 & O_SETTABLE));
		r = 0;
		break;
	case F_GETLK: case F_SETLK: case F_SETLKW: {
		/* One user, no locks to conflict with; struct flock is read and
		 * F_GETLK answers F_UNLCK (2) in l_type, as Linux would here. */
		u8 lock[32];
		r = copy_from_user(lock, (void *)a2, sizeof(lock));
		if (!r && a1 == F_GETLK)
			r = copy_to_user((void *)a2, &(u16){ 2 }, 2);
		break;
	}
	default:
		r = -EINVAL;
	}
	file_put(f);
	return r;
}

SYSCALL(ioctl)
{
	struct file *f = fd_get(current_files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = f->fop && f->fop->ioctl ? f->fop->ioctl(f, (unsigned)a1, a2) : -ENOTTY;
	file_put(f);
	return r;
}
