/*
 * host_mm.c - user-space stand-ins for what mm/filemap.c uses beyond the
 * radix tree's shim: the page allocator over a type-stable host mem_map,
 * the reader-writer lock, wait queues, time, might_sleep, and the LRU,
 * reclaim and the user copies as trivial stubs (remove_mapping itself is
 * filemap.c's). The headers in this folder say what each keeps of the
 * kernel's behaviour.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/rcu.h"
#include "kernel/rwlock.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "mm/page.h"
#include "mm/vmscan.h"
#include "mm/vm.h"
#include "kernel/spinlock.h"
#include "kernel/uaccess.h"

/* ------------------------------------------------------------ pages */

struct page *mem_map;		/* [I] after host_page_init */
unsigned long max_pfn;		/* [I] */
u8 *host_page_data;		/* [I] */

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(free_list);	/* [L:free] oldest free first */
static unsigned long nr_free;	/* [L:free] */

void host_page_init(unsigned long npages)
{
	mem_map = calloc(npages, sizeof(*mem_map));
	if (posix_memalign((void **)&host_page_data, PAGE_SIZE, npages * PAGE_SIZE) || !mem_map)
		panic("host_page_init: no memory for %lu pages", npages);
	max_pfn = npages;
	for (unsigned long pfn = 0; pfn < npages; pfn++) {
		list_add_tail(&mem_map[pfn].lru, &free_list);
		nr_free++;
	}
}

/* The count is 0 and the flags are clear: back on the tail of the list. */
static void free_one(struct page *p)
{
	unsigned long f = __atomic_load_n(&p->flags, __ATOMIC_RELAXED);

	if (f & (1UL << PG_locked | 1UL << PG_lru | 1UL << PG_writeback))
		panic("freeing page %lu with flags %#lx (locked, lru or writeback)",
		      page_to_pfn(p), f);
	__atomic_store_n(&p->flags, 0, __ATOMIC_RELAXED);	/* owner's; readers only test bits */
	pthread_mutex_lock(&free_lock);
	list_add_tail(&p->lru, &free_list);
	nr_free++;
	pthread_mutex_unlock(&free_lock);
}

struct page *alloc_pages(unsigned int order)
{
	struct page *p = NULL;

	BUG_ON(order != 0, "host alloc_pages: order 0 only");
	pthread_mutex_lock(&free_lock);
	if (!list_empty(&free_list)) {
		p = list_first_entry(&free_list, struct page, lru);
		list_del(&p->lru);
		nr_free--;
	}
	pthread_mutex_unlock(&free_lock);
	if (!p)
		return NULL;
	BUG_ON(page_count(p) != 0, "free page with a reference");
	p->mapping = NULL;
	p->index = 0;
	/* 0 -> 1 only here, off every tree: speculative gets failed until now. */
	atomic_set(&p->refcount, 1);
	return p;
}

struct page *alloc_page_zeroed(void)
{
	struct page *p = alloc_page();

	if (p)
		memset(page_address(p), 0, PAGE_SIZE);
	return p;
}

void get_page(struct page *p)
{
	BUG_ON(atomic_inc_return(&p->refcount) <= 1, "get_page without a reference");
}

void put_page(struct page *p)
{
	int c = atomic_dec_return(&p->refcount);

	BUG_ON(c < 0, "put_page: refcount underflow");
	if (c == 0)
		free_one(p);
}

void free_pages(struct page *p, unsigned int order)
{
	BUG_ON(order != 0, "host free_pages: order 0 only");
	put_page(p);
}

void free_frozen_pages(struct page *p, unsigned int order)
{
	BUG_ON(order != 0, "host free_frozen_pages: order 0 only");
	BUG_ON(page_count(p) != 0, "free_frozen_pages: page not frozen");
	free_one(p);
}

unsigned long nr_free_pages(void)
{
	pthread_mutex_lock(&free_lock);
	unsigned long n = nr_free;
	pthread_mutex_unlock(&free_lock);
	return n;
}

/* ------------------------------------------------------------ LRU, reclaim stubs */

void lru_cache_add(struct page *page)
{
	set_bit(PG_lru, &page->flags);
}

void lru_del(struct page *page)
{
	clear_bit(PG_lru, &page->flags);
}

void mark_page_accessed(struct page *page)
{
	set_bit(PG_referenced, &page->flags);
}

unsigned long vmscan_direct_reclaim(unsigned long nr)
{
	return 0;
}

unsigned long vmscan_max_pages(void)
{
	return ~0UL;
}

/* ------------------------------------------------------------ user copies */

/* The host tests have no user space: filemap.c sees kernel iterators only,
 * and mm/iov_iter.c's user branches must never run. */
size_t copy_to_user_partial(void *udst, const void *src, size_t len)
{
	panic("host: copy_to_user_partial: no user memory here");
}

size_t copy_from_user_partial(void *dst, const void *usrc, size_t len)
{
	panic("host: copy_from_user_partial: no user memory here");
}

size_t copy_from_user_nofault(void *dst, const void *usrc, size_t len)
{
	panic("host: copy_from_user_nofault: no user memory here");
}

size_t fault_in_user_readable(const void *usrc, size_t len)
{
	panic("host: fault_in_user_readable: no user memory here");
}

/* ------------------------------------------------------------ rwlock */

void rwlock_init(rwlock_t *l, const char *name)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&l->rw, &a);
	pthread_rwlockattr_destroy(&a);
	l->writer_held = 0;
	l->name = name;
}

void read_lock(rwlock_t *l)
{
	preempt_disable();
	pthread_rwlock_rdlock(&l->rw);
}

void read_unlock(rwlock_t *l)
{
	pthread_rwlock_unlock(&l->rw);
	preempt_enable();
}

void write_lock(rwlock_t *l)
{
	preempt_disable();
	pthread_rwlock_wrlock(&l->rw);
	l->writer = pthread_self();
	__atomic_store_n(&l->writer_held, 1, __ATOMIC_RELAXED);	/* assertions only */
}

bool rwlock_is_write_held(const rwlock_t *l)
{
	return __atomic_load_n(&l->writer_held, __ATOMIC_RELAXED) &&
	       pthread_equal(l->writer, pthread_self());
}

void write_unlock(rwlock_t *l)
{
	if (!rwlock_is_write_held(l))
		panic("write_unlock of %s: not held by this thread", l->name);
	__atomic_store_n(&l->writer_held, 0, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&l->rw);
	preempt_enable();
}

/* ------------------------------------------------------------ wait queues, sleeping */

void init_waitqueue_head(struct wait_queue_head *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

void wake_up(struct wait_queue_head *wq)
{
	pthread_mutex_lock(&wq->lock);
	pthread_cond_signal(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

void wake_up_all(struct wait_queue_head *wq)
{
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

void __might_sleep(const char *file, int line, const char *func)
{
	if (preempt_count() || rcu_read_depth())
		panic("%s:%d: %s: sleeping function called from atomic context", file, line,
		      func);
}

/* ------------------------------------------------------------ time */

u64 ktime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

void udelay(u64 us)
{
	u64 end = ktime_ns() + us * 1000;

	while (ktime_ns() < end)
		cpu_relax();
}

/* ------------------------------------------------------------ reverse mapping */

/* The host has no user page tables: a mapping's VMA list stays empty, so
 * its lock needs no more than a name, and no page is ever mapped. */
void spin_lock_init(spinlock_t *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
}

int try_to_unmap(struct page *page)
{
	return atomic_read(&page->mapcount);
}

bool page_mkclean(struct page *page)
{
	(void)page;
	return false;		/* nothing is mapped, so no PTE was written through */
}
