/*
 * read_write.c - read, write, pread64, pwrite64, readv, writev, preadv,
 * pwritev and lseek: the Linux ABI on top of fs/vfs.h.
 *
 * Every user pointer goes through kernel/uaccess.h. Data moves through a
 * kernel bounce buffer of at most CHUNK bytes at a time (the VFS works on
 * kernel buffers), so a huge length is never a huge allocation, and a
 * buffer that becomes invalid part-way gives what Linux gives: the bytes
 * done so far, or EFAULT if none were. An O_DIRECT file goes to
 * fs/direct-io.c instead.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"
#include "kernel/sched.h"

#define CHUNK 65536

/*
 * read: a regular file copies up to the first bad page and returns that
 * short count, its offset moving only as far (as Linux does); a pipe or
 * the terminal checks the whole buffer first, so a bad one takes no data.
 */

static long do_read(int fd, u64 ubuf, size_t len, bool positioned, u64 pos)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	if (file_is_direct(f)) {
		long r = direct_rw(f, ubuf, len, positioned, pos, false);
		file_put(f);
		return r;
	}
	if (len && !access_ok((void *)ubuf, len)) {
		file_put(f);
		return -EFAULT;
	}
	void *buf = kmalloc(MIN(len, (size_t)CHUNK) + 1);
	if (!buf) {
		file_put(f);
		return -ENOMEM;
	}
	long done = 0;
	while ((size_t)done < len) {
		size_t n = MIN(len - done, (size_t)CHUNK);
		if (f->fop && clear_user((void *)(ubuf + done), n)) {
			done = done ? done : -EFAULT;
			break;
		}
		ssize_t r = positioned ? vfs_pread(f, buf, n, pos + done) : vfs_read(f, buf, n);
		if (r <= 0) {
			if (!done)
				done = r;
			break;
		}
		size_t copied = copy_to_user_partial((void *)(ubuf + done), buf, (size_t)r);
		if (copied < (size_t)r && !positioned && f->inode) {
			mutex_lock(&f->pos_lock);	/* give back what did not reach the user */
			f->pos -= (size_t)r - copied;
			mutex_unlock(&f->pos_lock);
		}
		done += (long)copied;
		if (copied < (size_t)r) {
			if (!done)
				done = -EFAULT;
			break;
		}
		if ((size_t)r < n || f->fop)
			break;		/* short read: the end, or a terminal line or pipe */
	}
	kfree(buf);
	file_put(f);
	return done;
}

static long do_write(int fd, u64 ubuf, size_t len, bool positioned, u64 pos)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	if (file_is_direct(f)) {
		long r = direct_rw(f, ubuf, len, positioned, pos, true);
		file_put(f);
		return r;
	}
	if (len && !access_ok((void *)ubuf, len)) {
		file_put(f);
		return -EFAULT;
	}
	void *buf = kmalloc(MIN(len, (size_t)CHUNK) + 1);
	if (!buf) {
		file_put(f);
		return -ENOMEM;
	}
	long done = 0;
	while ((size_t)done < len) {
		size_t n = MIN(len - done, (size_t)CHUNK);
		size_t got = copy_from_user_partial(buf, (void *)(ubuf + done), n);
		if (!got || (got < n && f->fop)) {	/* a pipe takes all of it or nothing */
			done = done ? done : -EFAULT;
			break;
		}
		ssize_t r = positioned ? vfs_pwrite(f, buf, got, pos + done) : vfs_write(f, buf, got);
		if (r <= 0) {
			if (!done)
				done = r;
			break;
		}
		done += r;
		if ((size_t)r < got || got < n)
			break;		/* partly written, or the buffer ran into a hole */
	}
	kfree(buf);
	file_put(f);
	if (done == -EPIPE)
		send_signal(current_proc(), SIGPIPE);
	return done;
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
