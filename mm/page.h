/*
 * page.h - struct page, the buddy allocator's interface, and references.
 *
 * One struct page per physical frame, in mem_map[], which is never freed
 * (type-stable memory: a speculative reader may touch a struct page that has
 * since been freed and reused, so the memory must stay a struct page).
 *
 * Invariant (DESIGN.md section 3): a free page has refcount 0, and every
 * page handed out can be freed by a plain put_page(). The refcount goes
 * 0 -> 1 only inside the allocator, while the page is reachable from no tree
 * and no page table.
 *
 * Lock legend: [A] atomic, [I] immutable, [L:zone] buddy allocator lock,
 * [O] owner of the reference (whoever allocated the page).
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/list.h"

/* page->flags bits. */
enum pageflags {
	PG_locked,	/* page lock held (page cache I/O) */
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_active,
	PG_referenced,
	PG_writeback,
	PG_reserved,	/* never handed to the allocator (kernel, holes, modules) */
	PG_buddy,	/* free, head of a buddy block of order page->order */
	PG_slab,	/* owned by the slab allocator; page->slab_cache says which */
	PG_head,	/* first page of a multi-page allocation */
	PG_kmalloc,	/* first page of a kmalloc too big for a size class */
	PG_free,	/* in the allocator: every frame of every free block, on
			 * the buddy lists or a per-CPU list (a second free of it
			 * is the "double free" BUG, even after a stray reference
			 * raised its count from 0) */
};

struct kmem_cache;

struct page {
	unsigned long flags;	/* [A] PG_* bits */
	atomic_t refcount;	/* [A] 0 = free */
	atomic_t mapcount;	/* [A] page-table mappings */
	union {
		void *mapping;		/* [O] page cache: owning address_space */
		struct kmem_cache *slab_cache;	/* [O] PG_slab: its cache */
	};
	unsigned long index;	/* [O] page cache: file page number */
	struct list_head lru;	/* [L:zone] buddy free list / [O] LRU / slab list */
	u8 order;		/* [L:zone] PG_buddy or PG_head: block order */
	u16 inuse;		/* [O] slab: objects in use */
	union {
		void *freelist;		/* [O] slab: first free object */
		unsigned long private;	/* [O] page cache: the file system's (ext2: the
					 * disk block + 1 holding this page; 0: not known) */
	};
};

#define MAX_ORDER 10	/* orders 0..10: up to 4 MiB blocks */

extern struct page *mem_map;	/* [I] after mm_init */
extern unsigned long max_pfn;	/* [I] one past the highest RAM frame */

static inline unsigned long page_to_pfn(const struct page *p) { return (unsigned long)(p - mem_map); }
static inline struct page *pfn_to_page(unsigned long pfn) { return &mem_map[pfn]; }
static inline phys_addr_t page_to_phys(const struct page *p) { return (phys_addr_t)page_to_pfn(p) << PAGE_SHIFT; }
static inline void *page_address(const struct page *p) { return __va(page_to_phys(p)); }
static inline struct page *virt_to_page(const void *va) { return pfn_to_page(__pa(va) >> PAGE_SHIFT); }
static inline struct page *phys_to_page(phys_addr_t pa) { return pfn_to_page(pa >> PAGE_SHIFT); }

static inline int page_count(const struct page *p) { return atomic_read(&p->refcount); }

/*
 * Allocator setup (called once by mm_init, single-threaded):
 * page_alloc_init marks every frame of map[0..npfn) reserved with refcount 1;
 * page_alloc_free_range then hands the frames [start, end) to the buddy lists.
 */
void page_alloc_init(struct page *map, unsigned long npfn);
void page_alloc_free_range(unsigned long start_pfn, unsigned long end_pfn);

/*
 * alloc_pages: a block of 2^order contiguous frames, refcount 1 on the first
 * page, or NULL if none is free (never panics). May be called with
 * interrupts off; never sleeps. GFP-style flags are not needed yet.
 */
struct page *alloc_pages(unsigned int order);
static inline struct page *alloc_page(void) { return alloc_pages(0); }
/* alloc_page_zeroed: as alloc_page, contents zeroed. */
struct page *alloc_page_zeroed(void);
/*
 * free_pages: drop the caller's (last) reference to a block from alloc_pages;
 * the block is freed when no other reference remains. order must be the one
 * it was allocated with ("bad order" BUG); freeing a free block is a
 * "double free" BUG. Never sleeps.
 */
void free_pages(struct page *p, unsigned int order);

/* get_page: take another reference; the caller must already hold one. */
void get_page(struct page *p);
/*
 * put_page: drop a reference; the last one frees the block (its order is
 * remembered in the head page). Refcount underflow is a BUG, and so is a
 * last reference to a page still mapped, locked, on the LRU, under
 * writeback, owned by the slab allocator or reserved.
 */
void put_page(struct page *p);

/* Count of free frames in the buddy lists and per-CPU lists. */
unsigned long nr_free_pages(void);
/* Free blocks currently on the order-`order` list (for tests). */
unsigned long nr_free_blocks(unsigned int order);
/* Return the calling CPU's cached pages to the buddy lists (tests, low memory). */
void drain_local_pages(void);
/* Return every CPU's cached pages to the buddy lists; returns how many moved. */
unsigned long drain_all_pages(void);

/*
 * free_frozen_pages: give back a block whose refcount is already 0 because
 * its owner froze it (page cache eviction, DESIGN.md section 5: cmpxchg of
 * the refcount from 2 to 0). order must be the one it was allocated with;
 * PG_locked, PG_lru and PG_writeback must be clear (with the count frozen
 * nobody can be waiting on the page lock) and the page unmapped. Any other
 * flags are cleared. Never sleeps.
 */
void free_frozen_pages(struct page *p, unsigned int order);

/* Convenience: one zeroed page's kernel address, or NULL. */
void *get_zeroed_page(void);
void free_page_addr(void *va);

#endif
