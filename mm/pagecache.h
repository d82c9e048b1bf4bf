/*
 * pagecache.h - the page cache: file pages kept in memory, found with no
 * lock (Nick Piggin's lockless page cache, Linux 2.6.27).
 *
 * Each file (and the block device, for metadata) has an address_space: a
 * radix tree from page index to struct page, a tree_lock that writers take
 * and lockless readers never touch, and the operations that read and write
 * a page from and to the backing store.
 *
 * References. The cache holds one reference on each page it contains. A
 * lookup returns the page with one more, which the caller drops with
 * put_page. Reclaim takes one when it isolates a page from the LRU. The
 * page lock (PG_locked) holds none.
 *
 * THE PROTOCOL (STYLE.md rule 2; call sites cite "pagecache.h, step N").
 *
 * Lookup, find_get_page(mapping, index), takes no lock and stores only to
 * the page's own refcount:
 *   1. rcu_read_lock(): tree nodes cannot be freed under us (they go through
 *      call_rcu). Pages can: they are not freed through RCU.
 *   2. Find and load the slot: slot = radix_tree_lookup_slot(tree, index),
 *      page = radix_tree_deref_slot(slot). No slot, or NULL: a miss.
 *   3. page_cache_get_speculative(page): increment the refcount unless it
 *      is 0 (a lock cmpxchg loop, fully ordered). If it was 0 the page is
 *      free, or frozen by an evictor that is deleting it: go back to 2.
 *   4. Recheck the slot: if *slot != page (radix_tree_deref_slot again),
 *      the page was evicted - and possibly freed and reused for another
 *      file or index - between 2 and 3: put_page(page) and go back to 2.
 *      Reading the same slot is enough, as in Linux 2.6.27, because slots
 *      never move (radix-tree.h, radix_tree_lookup_slot): no second walk.
 *   5. rcu_read_unlock() and return the page. Guarantee (rule 9): the page
 *      WAS at (mapping, index) at the instant of step 4, and cannot be
 *      freed while we hold our reference. It may be evicted from the cache
 *      afterwards: callers that need it to stay take the page lock and
 *      recheck page->mapping (find_lock_page).
 *
 * Eviction, remove_mapping(mapping, page), with the page locked and
 * isolated from the LRU, so its refcount is exactly 2 if no one else holds
 * it (the cache's reference and reclaim's):
 *   E1. write_lock(tree_lock): no other writer, no locked-baseline reader.
 *   E2. page_freeze_refs(page, 2): cmpxchg(refcount, 2 -> 0). If it fails
 *       someone holds a reference: unlock, the page stays.
 *   E3. If PG_dirty is now set (dirtied after reclaim looked), unfreeze
 *       (refcount = 2, a release store), unlock, the page stays.
 *   E4. Delete the page from the tree; page->mapping = NULL; nrpages--.
 *   E5. write_unlock, then free the page straight to the allocator
 *       (free_frozen_pages): its count is already 0, the free state, so
 *       put_page would underflow. Reclaim's reference went with the freeze.
 *
 * The interleavings that make it safe:
 *   A. Reader's step 3 before the freeze E2: the count is 3, the cmpxchg
 *      fails, the page stays; the reader got a page that is still cached.
 *   B. Freeze E2 before the reader's step 3: the count is 0, the increment
 *      fails, the reader retries at step 2 and finds the slot empty (a
 *      miss) or a new page.
 *   C. The page is freed and reused (for another file, or another index of
 *      this one) between the reader's steps 2 and 3: the new owner holds a
 *      reference, so the increment succeeds - on somebody else's page. The
 *      recheck (step 4) sees the slot no longer holds it and gives the
 *      reference back with put_page, which is why every page handed out
 *      must be freeable by a plain put_page (DESIGN.md section 3).
 * Without step 3's "unless zero" (B) or step 4's recheck (C), or with a
 * freeze that is a check followed by a separate store (A), a reader can
 * return a page that is free or belongs to someone else: the debug
 * switches pagecache.debug_plain_get, pagecache.debug_skip_recheck and
 * pagecache.debug_split_freeze build exactly those kernels for the
 * torture test and the Promela model (tests/model/) to catch.
 *
 * Lock order (each name is a lockdep class, kernel/lockdep.h, so every
 * edge is checked at run time):
 *   'page_lock' (PG_locked, sleeping) -> 'tree_lock' -> 'lru'
 *       remove_mapping, delete_from_page_cache, truncate_inode_pages;
 *       add_to_page_cache_lru holds the new page's lock through both.
 *   'page_lock' -> 'page_lock/1': a block device's pages (file system
 *       metadata) lock as subclass 1 (page_lock_subclass), inside the
 *       locks of file pages (fs/ext2/ext2.h).
 * tree_lock is taken with interrupts off (write_lock_irqsave), so no
 * interrupt handler can deadlock against it.
 */
#ifndef MM_PAGECACHE_H
#define MM_PAGECACHE_H

#include "kernel/types.h"
#include "kernel/err.h"
#include "kernel/rwlock.h"
#include "kernel/spinlock.h"
#include "kernel/list.h"
#include "mm/page.h"
#include "mm/radix-tree.h"

struct address_space;

/* What a backing store does for the cache. Both may sleep. */
struct address_space_ops {
	/* Fill a locked, not-uptodate page; set PG_uptodate; unlock it. 0 or -errno. */
	int (*readpage)(struct address_space *m, struct page *page);
	/* Write a locked page with PG_writeback set; clear PG_writeback. 0 or -errno. */
	int (*writepage)(struct address_space *m, struct page *page);
	/* Optional: before filemap_write_iter or a write fault stores into a
	 * locked page, give it somewhere to go on disk (allocate its block). A
	 * page given a new block is left uptodate and dirty (a hole's zeros,
	 * if it was not uptodate): the block's old bytes must never be read
	 * back, even if the store never comes. 0 or -errno (ENOSPC). */
	int (*write_begin)(struct address_space *m, struct page *page);
};

/* Lock legend: [I] immutable after init, [R] RCU readers, [L:tree_lock],
 * [A] atomic. */
struct address_space {
	struct radix_tree_root tree;	/* [R] readers; [L:tree_lock] writers */
	rwlock_t tree_lock;		/* writers; the locked baseline's readers */
	unsigned long nrpages;		/* [L:tree_lock] pages in the tree */
	u64 size;			/* [A] bytes in the file (the host's i_size) */
	const struct address_space_ops *a_ops;	/* [I] */
	void *host;			/* [I] the owning inode or device */
	struct list_head vmas;		/* [L:i_mmap_lock] user mappings (vm_area, mmap) */
	spinlock_t i_mmap_lock;		/* the vmas list (reverse mapping) */
	unsigned long ra_next;		/* [A] readahead: next index a sequential reader wants */
	bool unevictable;		/* [I] no backing store (fs/shmem.c): its pages stay
					 * off the LRU and are never read ahead */
	u8 page_lock_subclass;		/* [I] lockdep subclass of its pages' locks: 0, or 1
					 * for a block device's (metadata, locked inside
					 * file pages' locks: fs/ext2/ext2.h) */
};

void address_space_init(struct address_space *m, const struct address_space_ops *ops,
			void *host);

/*
 * page_cache_get_speculative: step 3. Take a reference unless the count is
 * 0. True if taken. Fully ordered (lock cmpxchg). Rule 9: the page may no
 * longer be the one the caller looked up; the caller must recheck.
 */
bool page_cache_get_speculative(struct page *page);
/*
 * page_freeze_refs: step E2. If the count is exactly `count`, make it 0 and
 * return true. One lock cmpxchg. page_unfreeze_refs: give it back (E3).
 */
bool page_freeze_refs(struct page *page, int count);
void page_unfreeze_refs(struct page *page, int count);

/* find_get_page: the page at index with a reference, or NULL. No lock, never sleeps. */
struct page *find_get_page(struct address_space *m, unsigned long index);
/* find_get_pages: up to nr pages from index `start` on, each with a reference. */
unsigned find_get_pages(struct address_space *m, unsigned long start, unsigned nr,
			struct page **pages);
/* find_lock_page: as find_get_page, and the page locked, still in m. May sleep. */
struct page *find_lock_page(struct address_space *m, unsigned long index);
/* find_or_create_page: the locked page at index, a new zeroed one if none. NULL: no memory. */
struct page *find_or_create_page(struct address_space *m, unsigned long index);

/*
 * add_to_page_cache_lru: insert a new page (refcount 1, the caller's) at
 * index, locked, and put it on the LRU; the cache takes its own reference.
 * 0, -EEXIST, -ENOMEM. May sleep (direct reclaim at the pagecache.max_pages cap).
 */
int add_to_page_cache_lru(struct page *page, struct address_space *m, unsigned long index);
/* delete_from_page_cache: remove a locked page from its mapping; drops the cache's reference. */
void delete_from_page_cache(struct page *page);
/* remove_mapping: steps E1-E5. The page is locked and isolated (refcount 2 if unused). */
bool remove_mapping(struct address_space *m, struct page *page);

/* The page lock: sleeping, waiters on hashed wait queues. */
void lock_page(struct page *page);
bool trylock_page(struct page *page);
void unlock_page(struct page *page);
/* Sleep until PG_writeback clears. */
void wait_on_page_writeback(struct page *page);

/* set_page_dirty: PG_dirty and the radix DIRTY tag. Returns true if it was clean. */
bool set_page_dirty(struct page *page);
/* write_one_page: write a locked dirty page back (unlocks it); 0 or -errno. */
int write_one_page(struct page *page);
/* filemap_write_and_wait: write every dirty page of m and wait for them. */
int filemap_write_and_wait(struct address_space *m);
/* filemap_write_range: the same for the pages first..last only. May sleep. */
int filemap_write_range(struct address_space *m, unsigned long first, unsigned long last);
/* Write back, then drop the cached pages first..last (O_DIRECT coherence):
 * 0, the writeback's -errno, or -EBUSY for a page dirtied meanwhile (kept).
 * Returns at once if nothing is cached. May sleep. */
int invalidate_mapping_range(struct address_space *m, unsigned long first, unsigned long last);
/*
 * filemap_write_page: if a page is cached at index, wait for whoever holds
 * its lock (a write copying into it) and for its writeback, and write it
 * back if it is dirty: on return the disk holds what the cache held at
 * index when the call began (a direct read's step before the disk, see
 * fs/ext2/inode.c). A clean, unlocked page costs one lockless lookup and
 * no reference. The caller keeps truncation of index out (i_mutex, or a
 * count in inode->i_dio: fs/vfs.h). 0 or the writeback's -errno. May sleep.
 */
int filemap_write_page(struct address_space *m, unsigned long index);
/* truncate_inode_pages: drop every page at byte offset >= from (waits for I/O). */
void truncate_inode_pages(struct address_space *m, u64 from);
/* For tests: called by truncate_inode_pages between two batches, so a test
 * can add pages exactly there (ktest_truncate.c). NULL normally. */
extern void (*truncate_batch_hook)(struct address_space *m);

/* read_mapping_page: the uptodate page at index with a reference, reading it
 * in if need be (with readahead); or ERR_PTR(-errno) (the read's error, -EIO,
 * -ENOMEM), never NULL. May sleep. */
struct page *read_mapping_page(struct address_space *m, unsigned long index);

/*
 * Read or write through the cache at pos, with sequential readahead: each
 * page is copied once, straight between the page and the iterator
 * (mm/iov_iter.h), which advances by what moved. Bytes moved, or
 * -errno if none (-EFAULT: a user buffer that is bad from its start); a
 * buffer that goes bad part-way gives a short count. Called with no page
 * lock or spinlock held (a user buffer may fault); writers of one mapping
 * take turns (an inode's i_mutex), readers take no lock. May sleep.
 */
struct iov_iter;
ssize_t filemap_read_iter(struct address_space *m, struct iov_iter *to, u64 pos);
ssize_t filemap_write_iter(struct address_space *m, struct iov_iter *from, u64 pos);
/* The same for a kernel buffer of len bytes (ktests, the block device). */
ssize_t filemap_read(struct address_space *m, void *buf, size_t len, u64 pos);
ssize_t filemap_write(struct address_space *m, const void *buf, size_t len, u64 pos);

/* Per-CPU counters, summed. */
struct pagecache_stats {
	u64 lookups, hits, misses;
	u64 spec_retries;	/* step 3 failed: count was 0 */
	u64 recheck_retries;	/* step 4 failed: the slot changed */
	u64 freeze_failures, evictions, writebacks, overruns;
	u64 truncate_batches;	/* batches of up to 16 pages truncate_inode_pages handled */
	u64 pages;		/* pages in all caches now */
};
void pagecache_get_stats(struct pagecache_stats *st);
void pagecache_dump_stats(void);

/* Boot: read the pagecache.* switches. */
void pagecache_init(void);

/* The lookup kind: locked (pagecache.lookup=locked) or lockless. The
 * setter is for benchmarks: both kinds are correct at once. */
bool pagecache_locked_lookups(void);
void pagecache_set_locked_lookups(bool locked);

#endif
