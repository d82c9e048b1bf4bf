/*
 * read_write.c - read, write, pread64, pwrite64, readv, writev, preadv,
 * pwritev and lseek: the Linux ABI on top of fs/vfs.h.
 *
 * The user's buffer becomes an iov_iter (mm/iov_iter.h) that the VFS
 * passes down, so a regular file's data is copied once, between the
 * page-cache page and the user's memory (mm/filemap.c), with no kernel
 * buffer in between and nothing allocated. A buffer that becomes invalid
 * part-way gives what Linux gives: the bytes done so far, or EFAULT if
 * none were; a read's offset moves only as far as the bytes that reached
 * the user. Pipes, the terminal and /proc take or give all of a bad
 * buffer or none of it (vfs_read_iter). An O_DIRECT file goes to
 * fs/direct-io.c instead.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "mm/iov_iter.h"
#include "kernel/sched.h"

static long do_read(int fd, u64 ubuf, size_t len, bool positioned, u64 pos)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = 0;
	if (file_is_direct(f)) {
		r = direct_rw(f, ubuf, len, positioned, pos, false);
	} else if (len && !access_ok((void *)ubuf, len)) {
		r = -EFAULT;
	} else if (len) {
		struct iov_iter to;
		iov_iter_user(&to, (void *)ubuf, len);
		r = positioned ? vfs_pread_iter(f, &to, pos) : vfs_read_iter(f, &to);
	}
	file_put(f);
	return r;
}

static long do_write(int fd, u64 ubuf, size_t len, bool positioned, u64 pos)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = 0;
	if (file_is_direct(f)) {
		r = direct_rw(f, ubuf, len, positioned, pos, true);
	} else if (len && !access_ok((void *)ubuf, len)) {
		r = -EFAULT;
	} else if (len) {
		struct iov_iter from;
		iov_iter_user(&from, (void *)ubuf, len);
		r = positioned ? vfs_pwrite_iter(f, &from, pos) : vfs_write_iter(f, &from);
	}
	file_put(f);
	if (r == -EPIPE) {
		struct ksiginfo info = user_sender();	/* as Linux: from the writer itself */
		send_signal_info(current_proc(), SIGPIPE, &info);
	}
	return r;
}

SYSCALL_DEFINE3(read, int, fd, uaddr_t, ubuf, u64, count) { return do_read(fd, ubuf, count, false, 0); }
SYSCALL_DEFINE3(write, int, fd, uaddr_t, ubuf, u64, count) { return do_write(fd, ubuf, count, false, 0); }

SYSCALL_DEFINE4(pread64, int, fd, uaddr_t, ubuf, u64, count, u64, pos)
{
	if ((s64)pos < 0)
		return -EINVAL;
	return do_read(fd, ubuf, count, true, pos);
}

SYSCALL_DEFINE4(pwrite64, int, fd, uaddr_t, ubuf, u64, count, u64, pos)
{
	if ((s64)pos < 0)
		return -EINVAL;
	return do_write(fd, ubuf, count, true, pos);
}

struct iovec { u64 base, len; };

/* readv/writev, and preadv/pwritev when positional (at pos, which advances). */
static long do_iov(int fd, u64 uiov, u64 cnt, bool write, bool positional, u64 pos)
{
	if (positional && (s64)pos < 0)
		return -EINVAL;
	if (cnt > 1024)
		return -EINVAL;
	/* Like Linux, check every buffer's range before moving any data
	 * (a NULL base is in range: only the copy finds it). */
	u64 sum = 0;
	for (u64 i = 0; i < cnt; i++) {
		struct iovec v;
		if (copy_from_user(&v, (void *)(uiov + i * sizeof(v)), sizeof(v)))
			return -EFAULT;
		if ((s64)v.len < 0)
			return -EINVAL;
		sum += v.len;
		if (sum > USER_TOP || (v.len && !access_ok((void *)v.base, v.len)))
			return -EFAULT;
	}
	long total = 0;
	for (u64 i = 0; i < cnt; i++) {
		struct iovec v;
		if (copy_from_user(&v, (void *)(uiov + i * sizeof(v)), sizeof(v)))
			return total ? total : -EFAULT;
		if ((s64)v.len < 0)
			return -EINVAL;
		if (!v.len)
			continue;
		long r = write ? do_write(fd, v.base, v.len, positional, pos + total)
			       : do_read(fd, v.base, v.len, positional, pos + total);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((u64)r < v.len)
			break;
	}
	return total;
}

SYSCALL_DEFINE3(readv, int, fd, uaddr_t, uiov, u64, iovcnt) { return do_iov(fd, uiov, iovcnt, false, false, 0); }
SYSCALL_DEFINE3(writev, int, fd, uaddr_t, uiov, u64, iovcnt) { return do_iov(fd, uiov, iovcnt, true, false, 0); }
SYSCALL_DEFINE4(preadv, int, fd, uaddr_t, uiov, u64, iovcnt, u64, pos) { return do_iov(fd, uiov, iovcnt, false, true, pos); }
SYSCALL_DEFINE4(pwritev, int, fd, uaddr_t, uiov, u64, iovcnt, u64, pos) { return do_iov(fd, uiov, iovcnt, true, true, pos); }

SYSCALL_DEFINE3(lseek, int, fd, s64, offset, int, whence)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	s64 r = vfs_lseek(f, offset, whence);
	file_put(f);
	return r;
}
