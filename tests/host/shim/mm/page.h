/*
 * page.h (host shim) - struct page as the kernel lays it out, in a host
 * mem_map of host_page_init(n) frames whose contents live in one malloc'd
 * block (page_address). Like the kernel's (DESIGN.md section 3) the map is
 * type-stable: a freed page keeps refcount 0 on a free list and is never
 * handed back to malloc, so a speculative get on a freed or reused page
 * touches a struct page, as it would in the kernel. Order 0 only. The free
 * list is FIFO, so a freed frame comes back for some other index.
 *
 * Lock legend: [A] atomic, [I] immutable, [L:free] the free list's mutex,
 * [O] owner of the reference.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/list.h"

enum pageflags {
	PG_locked,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_active,
	PG_referenced,
	PG_writeback,
	PG_reserved,
	PG_buddy,
	PG_slab,
	PG_head,
	PG_kmalloc,
	PG_free,
};

struct kmem_cache;

struct page {
	unsigned long flags;	/* [A] PG_* bits */
	atomic_t refcount;	/* [A] 0 = free */
	atomic_t mapcount;	/* [A] page-table mappings */
	union {
		void *mapping;		/* [O] page cache: owning address_space */
		struct kmem_cache *slab_cache;
	};
	unsigned long index;	/* [O] page cache: file page number */
	struct list_head lru;	/* [L:free] free list while free */
	u8 order;
	u16 inuse;
	union {
		void *freelist;
		unsigned long private;	/* page cache: the file system's */
	};
};

extern struct page *mem_map;	/* [I] after host_page_init */
extern unsigned long max_pfn;	/* [I] */
extern u8 *host_page_data;	/* [I] frame pfn at host_page_data + pfn * PAGE_SIZE */

static inline unsigned long page_to_pfn(const struct page *p) { return (unsigned long)(p - mem_map); }
static inline struct page *pfn_to_page(unsigned long pfn) { return &mem_map[pfn]; }
static inline void *page_address(const struct page *p) { return host_page_data + page_to_pfn(p) * PAGE_SIZE; }
static inline int page_count(const struct page *p) { return atomic_read(&p->refcount); }

/* Host only: npages free frames, refcount 0 each. Once, before any thread. */
void host_page_init(unsigned long npages);

/* alloc_pages: order 0 only (aborts otherwise); refcount 1, or NULL if none free. */
struct page *alloc_pages(unsigned int order);
static inline struct page *alloc_page(void) { return alloc_pages(0); }
struct page *alloc_page_zeroed(void);
void free_pages(struct page *p, unsigned int order);
/* get_page: the caller must already hold a reference (aborts otherwise). */
void get_page(struct page *p);
/* put_page: aborts on underflow, and on a last reference to a page still
 * locked, on the LRU or under writeback; frees at 0. */
void put_page(struct page *p);
/* free_frozen_pages: aborts unless the count is 0 and PG_locked, PG_lru and
 * PG_writeback are clear; clears the flags and frees. */
void free_frozen_pages(struct page *p, unsigned int order);
unsigned long nr_free_pages(void);

#endif
