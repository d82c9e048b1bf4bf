/*
 * file.c - open files and descriptor tables.
 *
 * An open file holds its inode and an offset. Reads go straight to the
 * page cache (filemap_read_iter: lockless lookups, no inode lock, one copy
 * from the page to the reader's buffer); writes hold the inode's i_mutex,
 * because they change its size and allocate blocks.
 * pos_lock makes read, write and lseek on one open file happen one after
 * another, so two threads sharing a descriptor never read the same bytes
 * or lose a write to a stale offset.
 */
#include "fs/vfs.h"
#include "mm/iov_iter.h"
#include "kernel/uaccess.h"
#include "mm/slab.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "drivers/rtc.h"

static bool writable(unsigned flags)
{
	return (flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR;
}

static bool readable(unsigned flags)
{
	return (flags & O_ACCMODE) == O_RDONLY || (flags & O_ACCMODE) == O_RDWR;
}

struct file *vfs_open(struct inode *cwd, const char *path, unsigned flags, u32 mode)
{
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return ERR_PTR(-EINVAL);
	struct inode *inode = vfs_open_inode(cwd, path, flags, mode);
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	int e = 0;
	if ((flags & O_DIRECTORY) && !S_ISDIR(inode->mode))
		e = -ENOTDIR;		/* before ELOOP, as Linux */
	else if (S_ISLNK(inode->mode))
		e = -ELOOP;		/* O_NOFOLLOW met a link (fs/namei.c) */
	else if (!S_ISDIR(inode->mode) && !S_ISREG(inode->mode) &&
		 !(S_ISCHR(inode->mode) && inode->op->open))
		e = -ENXIO;		/* FIFOs, sockets, devices with no driver behind them */
	else if (S_ISDIR(inode->mode) && (writable(flags) || (flags & (O_TRUNC | O_CREAT))))
		e = -EISDIR;
	else if ((writable(flags) || (flags & O_TRUNC)) && inode->sb->rdonly)
		e = -EROFS;
	else if ((flags & O_TRUNC) && writable(flags) && i_size(inode)) {
		mutex_lock(&inode->i_mutex);
		e = inode->op->setsize(inode, 0);
		mutex_unlock(&inode->i_mutex);
	}
	struct file *f = e ? NULL : kzalloc(sizeof(*f));
	if (!f) {
		iput(inode);
		return ERR_PTR(e ? e : -ENOMEM);
	}
	atomic_set(&f->count, 1);
	f->inode = inode;
	f->flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC);
	f->pos = 0;
	mutex_init(&f->pos_lock, "pos_lock");
	if (inode->op->open && (e = inode->op->open(f))) {
		file_put(f);
		return ERR_PTR(e);
	}
	return f;
}

struct file *file_get(struct file *f)
{
	atomic_inc(&f->count);
	return f;
}

struct file *file_alloc_ops(const struct file_operations *fop, void *private, unsigned flags)
{
	struct file *f = kzalloc(sizeof(*f));
	if (!f)
		return NULL;
	atomic_set(&f->count, 1);
	f->fop = fop;
	f->private = private;
	f->flags = flags;
	mutex_init(&f->pos_lock, "pos_lock");
	return f;
}

void file_put(struct file *f)
{
	if (!f || !atomic_dec_and_test(&f->count))
		return;
	if (f->fop && f->fop->release)
		f->fop->release(f);
	iput(f->inode);
	kfree(f);
}

ssize_t vfs_pread_iter(struct file *f, struct iov_iter *to, u64 pos)
{
	struct inode *inode = f->inode;
	if (!readable(f->flags))
		return -EBADF;
	if (f->fop)
		return -ESPIPE;
	if (S_ISDIR(inode->mode))
		return -EISDIR;
	if (inode->state & I_BAD)
		return -EIO;
	if ((s64)pos < 0 || (s64)(pos + iov_iter_count(to)) < 0)
		return -EINVAL;
	return filemap_read_iter(&inode->mapping, to, pos);
}

ssize_t vfs_pwrite_iter(struct file *f, struct iov_iter *from, u64 pos)
{
	struct inode *inode = f->inode;
	if (!writable(f->flags))
		return -EBADF;
	if (f->fop)
		return -ESPIPE;
	if (S_ISDIR(inode->mode))
		return -EISDIR;
	if ((s64)pos < 0 || (s64)(pos + iov_iter_count(from)) < 0)
		return -EINVAL;
	if (!iov_iter_count(from))
		return 0;
	mutex_lock(&inode->i_mutex);
	if (READ_ONCE(f->flags) & O_APPEND)
		pos = i_size(inode);
	ssize_t n = inode->op->write(inode, from, pos);
	if (n > 0) {
		inode->mtime = inode->ctime = wall_seconds();
		mark_inode_dirty(inode);
	}
	mutex_unlock(&inode->i_mutex);
	return n;
}

/*
 * A file with its own operations reads and writes kernel buffers. A kernel
 * iterator is handed over as it is; a user one goes through a bounce
 * buffer of at most FOP_CHUNK bytes. What such a read takes (a pipe's
 * bytes, a terminal's line) cannot be put back, so the user buffer is
 * checked first, whole (clear_user faults it in writable): a bad one
 * takes nothing.
 */
#define FOP_CHUNK 65536

static ssize_t fop_read_iter(struct file *f, struct iov_iter *to)
{
	size_t n = MIN(iov_iter_count(to), (size_t)FOP_CHUNK);
	if (!to->user) {
		ssize_t r = f->fop->read(f, to->base + to->done, iov_iter_count(to));
		if (r > 0)
			to->done += (size_t)r;
		return r;
	}
	if (clear_user(to->base + to->done, n))
		return -EFAULT;
	void *buf = kmalloc(n + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t r = f->fop->read(f, buf, n);
	if (r > 0) {
		size_t copied = copy_to_iter(buf, (size_t)r, to);
		if (copied < (size_t)r && f->inode) {	/* unmapped since the check */
			mutex_lock(&f->pos_lock);	/* give back what did not arrive */
			f->pos -= (size_t)r - copied;
			mutex_unlock(&f->pos_lock);
		}
		r = copied ? (ssize_t)copied : -EFAULT;
	}
	kfree(buf);
	return r;
}

/* Chunk by chunk, each one whole or not at all (a pipe takes all of it or nothing). */
static ssize_t fop_write_iter(struct file *f, struct iov_iter *from)
{
	if (!from->user) {
		ssize_t r = f->fop->write(f, from->base + from->done, iov_iter_count(from));
		if (r > 0)
			from->done += (size_t)r;
		return r;
	}
	void *buf = kmalloc(MIN(iov_iter_count(from), (size_t)FOP_CHUNK) + 1);
	if (!buf)
		return -ENOMEM;
	ssize_t done = 0;
	while (iov_iter_count(from)) {
		size_t n = MIN(iov_iter_count(from), (size_t)FOP_CHUNK);
		size_t got = copy_from_iter(buf, n, from);
		if (got < n) {
			iov_iter_revert(from, got);
			done = done ? done : -EFAULT;
			break;
		}
		ssize_t r = f->fop->write(f, buf, n);
		if (r <= 0) {
			iov_iter_revert(from, n);
			done = done ? done : r;
			break;
		}
		iov_iter_revert(from, n - (size_t)r);
		done += r;
		if ((size_t)r < n)
			break;		/* partly written */
	}
	kfree(buf);
	return done;
}

ssize_t vfs_read_iter(struct file *f, struct iov_iter *to)
{
	if (f->fop)
		return readable(f->flags) ? fop_read_iter(f, to) : -EBADF;
	mutex_lock(&f->pos_lock);
	ssize_t n = vfs_pread_iter(f, to, f->pos);
	if (n > 0)
		f->pos += n;	/* only what reached the buffer */
	mutex_unlock(&f->pos_lock);
	return n;
}

ssize_t vfs_write_iter(struct file *f, struct iov_iter *from)
{
	if (f->fop)
		return writable(f->flags) ? fop_write_iter(f, from) : -EBADF;
	mutex_lock(&f->pos_lock);
	u64 pos = (READ_ONCE(f->flags) & O_APPEND) ? i_size(f->inode) : f->pos;
	ssize_t n = vfs_pwrite_iter(f, from, pos);
	if (n > 0)
		f->pos = pos + n;
	mutex_unlock(&f->pos_lock);
	return n;
}

ssize_t vfs_pread(struct file *f, void *buf, size_t len, u64 pos)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return vfs_pread_iter(f, &it, pos);
}

ssize_t vfs_pwrite(struct file *f, const void *buf, size_t len, u64 pos)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return vfs_pwrite_iter(f, &it, pos);
}

ssize_t vfs_read(struct file *f, void *buf, size_t len)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return vfs_read_iter(f, &it);
}

ssize_t vfs_write(struct file *f, const void *buf, size_t len)
{
	struct iov_iter it;
	iov_iter_kernel(&it, buf, len);
	return vfs_write_iter(f, &it);
}

s64 vfs_lseek(struct file *f, s64 off, int whence)
{
	if (f->fop)
		return -ESPIPE;
	mutex_lock(&f->pos_lock);
	s64 base;
	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = (s64)f->pos; break;
	case SEEK_END: base = (s64)i_size(f->inode); break;
	default:
		mutex_unlock(&f->pos_lock);
		return -EINVAL;
	}
	s64 pos = base + off;
	if ((off > 0 && pos < base) || pos < 0) {
		mutex_unlock(&f->pos_lock);
		return (off > 0 && pos < base) ? -EOVERFLOW : -EINVAL;
	}
	f->pos = (u64)pos;
	mutex_unlock(&f->pos_lock);
	return pos;
}

int vfs_ftruncate(struct file *f, u64 size)
{
	struct inode *inode = f->inode;
	if (f->fop)
		return -EINVAL;
	if (!writable(f->flags))
		return -EINVAL;		/* Linux: EINVAL (or EBADF) for a read-only descriptor */
	if (S_ISDIR(inode->mode))
		return -EISDIR;
	if ((s64)size < 0)
		return -EINVAL;
	mutex_lock(&inode->i_mutex);
	int err = inode->op->setsize(inode, size);
	mutex_unlock(&inode->i_mutex);
	return err;
}

int vfs_fsync(struct file *f)
{
	struct inode *inode = f->inode;
	if (f->fop)
		return -EINVAL;
	if (inode->sb->rdonly)
		return 0;
	int err = filemap_write_and_wait(&inode->mapping);
	mutex_lock(&inode->i_mutex);
	int e = mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	err = err ? err : e;
	e = inode->sb->s_op->sync_fs(inode->sb);	/* its blocks' bitmaps and the inode table */
	return err ? err : e;
}

int vfs_readdir(struct file *f, filldir_t fill, void *ctx)
{
	struct inode *inode = f->inode;
	if (f->fop)
		return -ENOTDIR;
	if (!S_ISDIR(inode->mode))
		return -ENOTDIR;
	mutex_lock(&f->pos_lock);
	down_read(&inode->sb->s_ns);
	int err = inode->op->readdir(inode, &f->pos, fill, ctx);
	up_read(&inode->sb->s_ns);
	mutex_unlock(&f->pos_lock);
	return err;
}

/* ------------------------------------------------------------ descriptor tables */

struct files_struct *files_alloc(void)
{
	struct files_struct *files = kzalloc(sizeof(*files));
	if (!files)
		return NULL;
	atomic_set(&files->count, 1);
	spin_lock_init(&files->lock, "files");
	return files;
}

struct files_struct *files_dup(struct files_struct *old)
{
	struct files_struct *files = files_alloc();
	if (!files)
		return NULL;
	spin_lock(&old->lock);
	for (int fd = 0; fd < FD_MAX; fd++)
		if (old->fd[fd])
			files->fd[fd] = file_get(old->fd[fd]);
	memcpy(files->cloexec, old->cloexec, sizeof(files->cloexec));
	spin_unlock(&old->lock);
	return files;
}

void files_put(struct files_struct *files)
{
	if (!files || !atomic_dec_and_test(&files->count))
		return;
	for (int fd = 0; fd < FD_MAX; fd++)
		file_put(files->fd[fd]);
	kfree(files);
}

static void set_cloexec(struct files_struct *files, int fd, bool on)
{
	if (on)
		files->cloexec[fd / 64] |= 1ULL << (fd % 64);
	else
		files->cloexec[fd / 64] &= ~(1ULL << (fd % 64));
}

int fd_install(struct files_struct *files, struct file *f, int min, bool cloexec)
{
	if (min < 0 || min >= FD_MAX)
		return -EINVAL;
	spin_lock(&files->lock);
	for (int fd = min; fd < FD_MAX; fd++) {
		if (!files->fd[fd]) {
			files->fd[fd] = f;
			set_cloexec(files, fd, cloexec);
			spin_unlock(&files->lock);
			return fd;
		}
	}
	spin_unlock(&files->lock);
	return -EMFILE;
}

struct file *fd_get(struct files_struct *files, int fd)
{
	if (fd < 0 || fd >= FD_MAX)
		return NULL;
	spin_lock(&files->lock);
	struct file *f = files->fd[fd];
	if (f)
		file_get(f);
	spin_unlock(&files->lock);
	return f;
}

int fd_close(struct files_struct *files, int fd)
{
	if (fd < 0 || fd >= FD_MAX)
		return -EBADF;
	spin_lock(&files->lock);
	struct file *f = files->fd[fd];
	files->fd[fd] = NULL;
	set_cloexec(files, fd, false);
	spin_unlock(&files->lock);
	if (!f)
		return -EBADF;
	file_put(f);		/* outside the spinlock: the last put may sleep */
	return 0;
}

int fd_dup2(struct files_struct *files, int oldfd, int newfd, bool cloexec)
{
	if (oldfd < 0 || oldfd >= FD_MAX || newfd < 0 || newfd >= FD_MAX)
		return -EBADF;
	spin_lock(&files->lock);
	struct file *f = files->fd[oldfd], *gone = NULL;
	if (!f) {
		spin_unlock(&files->lock);
		return -EBADF;
	}
	if (oldfd != newfd) {
		gone = files->fd[newfd];
		files->fd[newfd] = file_get(f);
		set_cloexec(files, newfd, cloexec);
	}
	spin_unlock(&files->lock);
	file_put(gone);
	return newfd;
}

void files_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < FD_MAX; fd++) {
		spin_lock(&files->lock);
		bool close = files->fd[fd] && (files->cloexec[fd / 64] >> (fd % 64) & 1);
		spin_unlock(&files->lock);
		if (close)
			fd_close(files, fd);
	}
}
