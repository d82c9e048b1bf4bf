/*
 * memfile.h - a file whose backing store is kernel memory.
 *
 * It gives the page cache something to read from and write back to before
 * there is a disk file system: the store is an array of pages, zeroed at
 * creation, and the address_space operations copy whole pages between the
 * store and the cache. Tests set and check the store directly with
 * memfile_store_read/memfile_store_write; memfile.read_delay_us=N on the
 * command line makes every readpage take N us longer, like a slow disk.
 *
 * The store's capacity is fixed at creation: writing back a page beyond it
 * fails with -ENOSPC (the page stays dirty), reading one gives zeros.
 *
 * Lock legend: [I] immutable after memfile_create, [L:lock] the memfile's
 * spinlock, [A] atomic; mapping follows pagecache.h's own legend.
 */
#ifndef MM_MEMFILE_H
#define MM_MEMFILE_H

#include "kernel/types.h"
#include "kernel/spinlock.h"
#include "mm/pagecache.h"

struct memfile {
	struct address_space mapping;	/* see pagecache.h; mapping.host is this memfile */
	spinlock_t lock;		/* the store's contents (a leaf lock) */
	struct page **store;		/* [I] the array; [L:lock] the pages' bytes */
	unsigned long nr_store;		/* [I] pages in the store */
	unsigned read_delay_us;		/* [I] memfile.read_delay_us at creation */
	u64 reads, writes;		/* [A] readpage and writepage calls */
};

/* The memfile that owns mapping m (m must be a memfile's). */
static inline struct memfile *memfile_of(struct address_space *m)
{
	return container_of(m, struct memfile, mapping);
}

/*
 * memfile_create: a file of size bytes, store zeroed, nothing cached yet
 * (mapping.size = size). NULL when out of memory. May sleep.
 */
struct memfile *memfile_create(u64 size);
/*
 * memfile_destroy: drop every cached page (truncate_inode_pages to 0; dirty
 * pages are discarded), then free the store and mf. Nobody else may use mf
 * any more. May sleep.
 */
void memfile_destroy(struct memfile *mf);

/*
 * memfile_store_read/memfile_store_write: copy len bytes at byte offset off
 * out of / into the store, bypassing the cache. Returns len, or -EINVAL if
 * the range passes the store's end. Takes the memfile lock; never sleeps.
 */
ssize_t memfile_store_read(struct memfile *mf, u64 off, void *buf, size_t len);
ssize_t memfile_store_write(struct memfile *mf, u64 off, const void *buf, size_t len);

/* Calls of readpage and writepage so far (acquire loads, for tests). */
u64 memfile_reads(struct memfile *mf);
u64 memfile_writes(struct memfile *mf);

#endif
