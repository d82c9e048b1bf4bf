/*
 * sys_fs.c - file system calls: the Linux ABI on top of fs/vfs.h.
 *
 * Every user pointer goes through kernel/uaccess.h. Data moves through a
 * kernel bounce buffer of at most CHUNK bytes at a time (the VFS works on
 * kernel buffers), so a huge length is never a huge allocation, and a
 * buffer that becomes invalid part-way gives what Linux gives: the bytes
 * done so far, or EFAULT if none were.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "mm/slab.h"
#include "fs/vfs.h"
#include "mm/gup.h"
#include "mm/page.h"
#include "kernel/sched.h"

#define CHUNK 65536
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000
#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_SETLK 6
#define F_SETLKW 7
#define F_GETLK 5
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
#define O_SETTABLE (O_APPEND | 04000 /* O_NONBLOCK */ | O_DIRECT)

bool file_is_tty(struct file *f);
struct file *pipe_create(struct file **write_end, unsigned flags);

static struct files_struct *files(void)
{
	return current_proc()->files;
}

/* Copy a path from user memory: a kmalloc'd string, or NULL and *err. */
static char *get_path(u64 upath, int *err)
{
	char *p = kmalloc(PATH_MAX);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	long n = strncpy_from_user(p, (const char *)upath, PATH_MAX);
	if (n < 0) {
		kfree(p);
		*err = (int)n;
		return NULL;
	}
	return p;
}

/* The directory a *at() path starts from (held), or NULL and *err. */
static struct inode *base_dir(int dirfd, const char *path, int *err)
{
	struct process *p = current_proc();
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return igrab(p->cwd);
	struct file *f = fd_get(p->files, dirfd);
	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	struct inode *dir = f->inode ? igrab(f->inode) : NULL;
	file_put(f);
	if (!dir || !S_ISDIR(dir->mode)) {
		iput(dir);
		*err = -ENOTDIR;
		return NULL;
	}
	return dir;
}

/* ------------------------------------------------------------ read and write */

/*
 * read: a regular file copies up to the first bad page and returns that
 * short count, its offset moving only as far (as Linux does); a pipe or
 * the terminal checks the whole buffer first, so a bad one takes no data.
 */
static bool is_direct(struct file *f);
static long direct_rw(struct file *f, u64 ubuf, size_t len, bool positioned, u64 pos, bool write);

static long do_read(int fd, u64 ubuf, size_t len, bool positioned, u64 pos)
{
	struct file *f = fd_get(files(), fd);
	if (!f)
		return -EBADF;
	if (is_direct(f)) {
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
		size_t copied = (size_t)r - copy_to_user_partial((void *)(ubuf + done), buf, (size_t)r);
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
	struct file *f = fd_get(files(), fd);
	if (!f)
		return -EBADF;
	if (is_direct(f)) {
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

/*
 * O_DIRECT: the user's buffer is pinned (get_user_pages_fast, mm/gup.c)
 * and the disk blocks move straight between the block device (the file
 * system's direct_block, bdev_read_raw/bdev_write_raw) and the pinned
 * pages, past the page cache - after writing back and dropping any
 * cached pages of the range, so cached and direct I/O stay coherent.
 * Offset, length and buffer must be 4096-aligned (the device's logical
 * block size), as Linux requires on a 4 KiB-sector device: else EINVAL.
 */
#define DIRECT_CHUNK 64		/* pages pinned at a time */

static long direct_chunk(struct inode *inode, u64 ubuf, u64 pos, u64 n, bool write)
{
	struct page *pages[DIRECT_CHUNK];
	unsigned long fast;
	long got = gup_slow_default()
			   ? get_user_pages(current_task()->mm, ubuf, n, write ? 0 : GUP_WRITE, pages)
			   : get_user_pages_fast(ubuf, n, write ? 0 : GUP_WRITE, pages, &fast);
	if (got < (long)n) {
		if (got > 0)
			unpin_user_pages(pages, (unsigned long)got, false);
		return -EFAULT;
	}
	mutex_lock(&inode->i_mutex);
	long done = 0;
	int err = invalidate_mapping_range(&inode->mapping, pos >> PAGE_SHIFT,
					   (pos >> PAGE_SHIFT) + n - 1);
	for (u64 k = 0; k < n && !err; k++) {
		u64 off = pos + k * PAGE_SIZE, size = i_size(inode);
		if (!write && off >= size)
			break;
		err = inode->op->direct_block(inode, off >> PAGE_SHIFT, write, page_address(pages[k]));
		if (err)
			break;
		u64 bytes = write ? PAGE_SIZE : MIN((u64)PAGE_SIZE, size - off);
		done += (long)bytes;
		if (write && off + PAGE_SIZE > size)
			WRITE_ONCE(inode->mapping.size, off + PAGE_SIZE);
	}
	if (write && done)
		mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	unpin_user_pages(pages, n, !write);	/* a read wrote into the pages */
	return done ? done : err;
}

static long do_direct(struct file *f, u64 ubuf, size_t len, u64 pos, bool write)
{
	struct inode *inode = f->inode;
	if (!inode->op->direct_block)
		return -EINVAL;
	if (!len)
		return 0;		/* Linux: even misaligned */
	if ((ubuf | len | pos) & (PAGE_SIZE - 1))
		return -EINVAL;
	if (len && !access_ok((void *)ubuf, len))
		return -EFAULT;
	long done = 0;
	while ((u64)done < len) {
		u64 n = MIN((len - done) >> PAGE_SHIFT, (u64)DIRECT_CHUNK);
		long r = direct_chunk(inode, ubuf + done, pos + done, n, write);
		if (r <= 0)
			return done ? done : r;
		done += r;
		if ((u64)r < n * PAGE_SIZE)
			break;		/* the end of the file */
	}
	return done;
}

static bool is_direct(struct file *f)
{
	return f->inode && S_ISREG(f->inode->mode) && (READ_ONCE(f->flags) & O_DIRECT);
}

/* read/write/pread/pwrite on an O_DIRECT file: the offset moves as for cached I/O. */
static long direct_rw(struct file *f, u64 ubuf, size_t len, bool positioned, u64 pos, bool write)
{
	unsigned acc = f->flags & O_ACCMODE;
	if (write ? acc == O_RDONLY : acc == O_WRONLY)
		return -EBADF;
	if (positioned)
		return do_direct(f, ubuf, len, pos, write);
	mutex_lock(&f->pos_lock);
	if (write && (f->flags & O_APPEND))
		f->pos = i_size(f->inode);
	long r = do_direct(f, ubuf, len, f->pos, write);
	if (r > 0)
		f->pos += (u64)r;
	mutex_unlock(&f->pos_lock);
	return r;
}

SYSCALL(read) { return do_read((int)a0, a1, a2, false, 0); }
SYSCALL(write) { return do_write((int)a0, a1, a2, false, 0); }

SYSCALL(pread64)
{
	if ((s64)a3 < 0)
		return -EINVAL;
	return do_read((int)a0, a1, a2, true, a3);
}

SYSCALL(pwrite64)
{
	if ((s64)a3 < 0)
		return -EINVAL;
	return do_write((int)a0, a1, a2, true, a3);
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

SYSCALL(readv) { return do_iov((int)a0, a1, a2, false, false, 0); }
SYSCALL(writev) { return do_iov((int)a0, a1, a2, true, false, 0); }
SYSCALL(preadv) { return do_iov((int)a0, a1, a2, false, true, a3); }
SYSCALL(pwritev) { return do_iov((int)a0, a1, a2, true, true, a3); }

SYSCALL(lseek)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	s64 r = vfs_lseek(f, (s64)a1, (int)a2);
	file_put(f);
	return r;
}

/* ------------------------------------------------------------ open and close */

static long do_openat(int dirfd, u64 upath, unsigned flags, u32 mode)
{
	int err = 0;
	char *path = get_path(upath, &err);
	if (!path)
		return err;
	struct inode *base = base_dir(dirfd, path, &err);
	struct file *f = base ? vfs_open(base, path, flags, mode & ~022, &err) : NULL;
	iput(base);
	kfree(path);
	if (!f)
		return err;
	int fd = fd_install(files(), f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL(open) { return do_openat(AT_FDCWD, a0, (unsigned)a1, (u32)a2); }
SYSCALL(openat) { return do_openat((int)a0, a1, (unsigned)a2, (u32)a3); }
SYSCALL(creat) { return do_openat(AT_FDCWD, a0, O_WRONLY | O_CREAT | O_TRUNC, (u32)a1); }
SYSCALL(close) { return fd_close(files(), (int)a0); }

SYSCALL(dup)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	int fd = fd_install(files(), f, 0, false);
	if (fd < 0)
		file_put(f);
	return fd;
}

SYSCALL(dup2)
{
	if (a0 == a1) {		/* dup2(fd, fd): fd if it is open */
		struct file *f = fd_get(files(), (int)a0);
		if (!f)
			return -EBADF;
		file_put(f);
		return (long)a1;
	}
	return fd_dup2(files(), (int)a0, (int)a1, false);
}

SYSCALL(dup3)
{
	if (a0 == a1 || (a2 & ~(u64)O_CLOEXEC))
		return -EINVAL;
	return fd_dup2(files(), (int)a0, (int)a1, a2 & O_CLOEXEC);
}

SYSCALL(fcntl)
{
	struct files_struct *fs = files();
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
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = f->fop && f->fop->ioctl ? f->fop->ioctl(f, (unsigned)a1, a2) : -ENOTTY;
	file_put(f);
	return r;
}

static long pipe_fds(u64 ufds, unsigned flags)
{
	if (flags & ~(unsigned)(O_CLOEXEC | 04000))
		return -EINVAL;
	struct file *w, *r = pipe_create(&w, flags);
	if (!r)
		return -ENOMEM;
	int fds[2];
	fds[0] = fd_install(files(), r, 0, flags & O_CLOEXEC);
	fds[1] = fds[0] < 0 ? -EMFILE : fd_install(files(), w, 0, flags & O_CLOEXEC);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			fd_close(files(), fds[0]);
		else
			file_put(r);
		file_put(w);
		return -EMFILE;
	}
	if (copy_to_user((void *)ufds, fds, sizeof(fds))) {
		fd_close(files(), fds[0]);
		fd_close(files(), fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL(pipe) { return pipe_fds(a0, 0); }
SYSCALL(pipe2) { return pipe_fds(a0, (unsigned)a1); }

/* ------------------------------------------------------------ stat */

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
		.gid = k->gid, .size = (s64)k->size, .blksize = k->blksize,
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

static long do_fstatat(int dirfd, u64 upath, u64 ubuf, int flags)
{
	int err = 0;
	char *path = upath || !(flags & AT_EMPTY_PATH) ? get_path(upath, &err) : kzalloc(1);
	if (!path)
		return err ? err : -ENOMEM;
	if (!path[0] && (flags & AT_EMPTY_PATH)) {
		kfree(path);
		struct file *f = fd_get(files(), dirfd);
		if (!f)
			return -EBADF;
		long r = stat_file(f, ubuf);
		file_put(f);
		return r;
	}
	struct inode *base = base_dir(dirfd, path, &err);
	struct kstat k;
	if (base)
		err = vfs_stat(base, path, &k);
	iput(base);
	kfree(path);
	return err ? err : put_stat(ubuf, &k);
}

SYSCALL(stat) { return do_fstatat(AT_FDCWD, a0, a1, 0); }
SYSCALL(lstat) { return do_fstatat(AT_FDCWD, a0, a1, AT_SYMLINK_NOFOLLOW); }
SYSCALL(newfstatat) { return do_fstatat((int)a0, a1, a2, (int)a3); }

SYSCALL(fstat)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = stat_file(f, a1);
	file_put(f);
	return r;
}

static long do_faccessat(int dirfd, u64 upath, int mode)
{
	int err = 0;
	if (mode & ~7)
		return -EINVAL;
	char *path = get_path(upath, &err);
	if (!path)
		return err;
	struct inode *base = base_dir(dirfd, path, &err);
	struct kstat k;
	if (base)
		err = vfs_stat(base, path, &k);
	iput(base);
	kfree(path);
	if (!err && (mode & 1) && !(k.mode & 0111) && !S_ISDIR(k.mode))
		err = -EACCES;		/* root may execute only what some x bit allows */
	return err;
}

SYSCALL(access) { return do_faccessat(AT_FDCWD, a0, (int)a1); }
SYSCALL(faccessat) { return do_faccessat((int)a0, a1, (int)a2); }
SYSCALL(faccessat2) { return do_faccessat((int)a0, a1, (int)a2); }

/* ------------------------------------------------------------ directories and names */

struct dirent_ctx {
	u64 ubuf;
	size_t size, used;
	int err;
};

static int fill_dirent64(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	struct dirent_ctx *c = ctx;
	size_t reclen = (19 + len + 1 + 7) & ~7UL;
	if (c->used + reclen > c->size)
		return 1;
	u8 rec[19 + 256 + 8] = { 0 };
	*(u64 *)rec = ino;
	*(s64 *)(rec + 8) = (s64)(c->used + reclen);	/* d_off: opaque to programs */
	*(u16 *)(rec + 16) = (u16)reclen;
	rec[18] = (u8)type;
	memcpy(rec + 19, name, len);
	if (copy_to_user((void *)(c->ubuf + c->used), rec, reclen)) {
		c->err = -EFAULT;
		return 1;
	}
	c->used += reclen;
	return 0;
}

SYSCALL(getdents64)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	struct dirent_ctx c = { a1, a2, 0, 0 };
	if (!access_ok((void *)a1, a2)) {
		file_put(f);
		return -EFAULT;
	}
	int err = vfs_readdir(f, fill_dirent64, &c);
	file_put(f);
	if (c.err && !c.used)
		return c.err;
	if (err)
		return err;
	if (!c.used && a2 && a2 < 24)
		return -EINVAL;		/* too small for even one entry */
	return (long)c.used;
}

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
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}

SYSCALL(umask) { return 022; }

SYSCALL(fsync)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = vfs_fsync(f);
	file_put(f);
	return r;
}

SYSCALL(ftruncate)
{
	struct file *f = fd_get(files(), (int)a0);
	if (!f)
		return -EBADF;
	long r = (s64)a1 < 0 ? -EINVAL : vfs_ftruncate(f, a1);
	file_put(f);
	return r;
}

SYSCALL(sync)
{
	vfs_sync_all();
	return 0;
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
	struct file *f = fd_get(files(), (int)a0);
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
