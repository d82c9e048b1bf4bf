/*
 * vmscan.h - the LRU lists and reclaim of page-cache pages.
 *
 * Pages in the cache sit on an inactive or an active list. Reclaim scans
 * the inactive list from its cold end, gives referenced pages a second
 * chance (to the active list), writes dirty pages back, and evicts clean
 * unreferenced ones with remove_mapping (mm/pagecache.h, steps E1-E5).
 * A reclaim thread does this in the background below a free-memory
 * watermark or above the pagecache.max_pages cap; an add at the cap, or a
 * failed allocation, reclaims directly.
 *
 * Lock order: 'page_lock' -> 'tree_lock' -> 'lru' (lockdep classes; 'lru' is a leaf).
 */
#ifndef MM_VMSCAN_H
#define MM_VMSCAN_H

#include "kernel/types.h"

struct page;

/* Put a new cache page on the inactive list (PG_lru). */
void lru_cache_add(struct page *page);
/* Take a page off its LRU list, if on one (delete_from_page_cache). */
void lru_del(struct page *page);
/* A use: referenced once gets a second chance, twice moves to active; a page
 * already active and referenced returns at once, with no store or lock. */
void mark_page_accessed(struct page *page);
/* Reclaim up to nr pages now, in the caller's context. Returns pages freed. May sleep. */
unsigned long vmscan_direct_reclaim(unsigned long nr);
/* The cap on cache pages (pagecache.max_pages; huge if unset). */
unsigned long vmscan_max_pages(void);
/* Pages in all caches (mm/filemap.c keeps the count). */
unsigned long pagecache_nr_pages(void);
/* Read the switches and start the reclaim thread (after the scheduler). */
void vmscan_init(void);

#endif
