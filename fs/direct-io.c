/*
 * direct-io.c - read and write on an O_DIRECT file: the user's buffer is
 * pinned with get_user_pages_fast and the blocks move straight between the
 * disk and the pinned pages, past the page cache.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"
#include "mm/gup.h"
#include "mm/page.h"
#include "mm/pagecache.h"
#include "kernel/sched.h"

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

bool file_is_direct(struct file *f)
{
	return f->inode && S_ISREG(f->inode->mode) && (READ_ONCE(f->flags) & O_DIRECT);
}

/* read/write/pread/pwrite on an O_DIRECT file: the offset moves as for cached I/O. */
long direct_rw(struct file *f, u64 ubuf, size_t len, bool positioned, u64 pos, bool write)
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
