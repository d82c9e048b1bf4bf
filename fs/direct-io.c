/*
 * direct-io.c - read and write on an O_DIRECT file: the user's buffer is
 * pinned with get_user_pages_fast and the blocks move straight between the
 * disk and the pinned pages, past the page cache.
 *
 * Locks. A direct read takes no inode lock, so readers of one file run
 * side by side; it counts itself in inode->i_dio instead, and a truncation
 * waits for it before freeing a block (fs/vfs.h, "Direct I/O against
 * truncation", steps D1-D4 and T1-T5). A direct write holds i_mutex (it
 * allocates blocks and moves i_size, which writers do one at a time) and
 * is counted too. Pinning comes first, outside both: it may fault, and a
 * fault may need a page lock of this very file (a buffer mapped from it).
 * Then i_mutex -> page lock (the cache's pages of the range) -> 'i_map'
 * (the file system's block map, inside direct_block), as fs/vfs.h and
 * fs/ext2/ext2.h order them.
 *
 * Coherence with the page cache (STYLE.md rule 9: what is kept, what not).
 * A read moves no cached page: direct_block writes back the cached page of
 * each block it reads, if there is one and it is dirty (filemap_write_page),
 * and reads the disk after. A write writes back and drops the cached pages
 * of its range before it moves the blocks, and drops them again after (a
 * lockless cached read may have read the old blocks back in meanwhile).
 * What that keeps:
 *   - A direct read sees every write to its range, cached or direct, that
 *     returned before the read began; a cached read that begins after a
 *     direct write returned sees the write.
 *   - A direct read never sees bytes the file did not hold: never a block
 *     that truncation freed and another file got (the i_dio count), never
 *     a newly allocated block before its data reached it (direct_block).
 * What it does not: a write that overlaps a read of the same range in
 * time - cached or direct, either way round - may be seen whole, not at
 * all, or in part, block by block and even within a block (a direct read
 * copies the disk while a writeback copies onto it). Linux promises no
 * more (open(2), NOTES on O_DIRECT); a program that wants more orders
 * its own I/O.
 *
 * Offset, length and buffer must be 4096-aligned (the device's logical
 * block size), as Linux requires on a 4 KiB-sector device: else EINVAL.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/panic.h"
#include "mm/slab.h"
#include "mm/gup.h"
#include "mm/page.h"
#include "mm/pagecache.h"
#include "kernel/sched.h"

#define DIRECT_CHUNK 64		/* pages pinned at a time */

/*
 * Move n blocks from pos between the disk and pages; a read stops at
 * i_size. Bytes moved, or -errno if none. The caller has counted the
 * chunk in i_dio or holds i_mutex (vfs.h, dio step D2).
 */
static long move_blocks(struct inode *inode, struct page **pages, u64 pos, u64 n, bool write)
{
	long done = 0;
	int err = 0;
	for (u64 k = 0; k < n; k++) {
		/* Step D3. Acquire: a direct write stores i_size with release
		 * after its block's data, so the block we look up has it. */
		u64 off = pos + k * PAGE_SIZE, size = smp_load_acquire(&inode->mapping.size);
		if (!write && off >= size)
			break;
		err = inode->op->direct_block(inode, off >> PAGE_SHIFT, write, page_address(pages[k]));
		if (err)
			break;
		done += (long)(write ? PAGE_SIZE : MIN((u64)PAGE_SIZE, size - off));
		if (write && off + PAGE_SIZE > size)	/* i_mutex held: the only writer */
			smp_store_release(&inode->mapping.size, off + PAGE_SIZE);
	}
	return done ? done : err;
}

/* A read: counted, no inode lock - or under i_mutex while a truncation is on. */
static long read_chunk(struct inode *inode, struct page **pages, u64 pos, u64 n)
{
	if (inode_dio_begin(inode)) {			/* vfs.h, dio steps D1-D2 */
		long r = move_blocks(inode, pages, pos, n, false);
		inode_dio_end(inode);			/* step D4 */
		return r;
	}
	mutex_lock(&inode->i_mutex);		/* step D2: after the truncation's T5 */
	long r = move_blocks(inode, pages, pos, n, false);
	mutex_unlock(&inode->i_mutex);
	return r;
}

/* A write: i_mutex held throughout, so no truncation is on (D2 cannot fail). */
static long write_chunk(struct inode *inode, struct page **pages, u64 pos, u64 n)
{
	struct address_space *m = &inode->mapping;
	unsigned long first = pos >> PAGE_SHIFT, last = first + n - 1;
	mutex_lock(&inode->i_mutex);
	bool counted = inode_dio_begin(inode);
	BUG_ON(!counted, "a truncation runs beside a direct write that holds i_mutex");
	long r = invalidate_mapping_range(m, first, last);
	if (!r)
		r = move_blocks(inode, pages, pos, n, true);
	if (r > 0) {
		mark_inode_dirty(inode);
		invalidate_mapping_range(m, first, last);	/* pages cached reads brought back */
	}
	inode_dio_end(inode);
	mutex_unlock(&inode->i_mutex);
	return r;
}

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
	long r = write ? write_chunk(inode, pages, pos, n) : read_chunk(inode, pages, pos, n);
	unpin_user_pages(pages, n, !write);	/* a read wrote into the pages */
	return r;
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
