/*
 * slab.c - object caches and kmalloc.
 *
 * Bonwick's slab allocator (USENIX 1994), reduced to its core: a cache hands
 * out objects of one size, carved from slabs of 2^order pages that come
 * from the buddy allocator. Each slab sits on one of three lists of its
 * cache, partial, full or empty, and allocation prefers a partial slab, so
 * memory stays packed. Empty slabs beyond SLAB_EMPTY_KEPT go back to the
 * buddy allocator.
 *
 * The slab's bookkeeping lives in the struct page of its first page: lru
 * links it on its cache's list, freelist points at its first free object,
 * inuse counts the objects handed out. Every page of a slab carries PG_slab
 * and slab_cache, and slabs are buddy blocks, aligned to their size, so the
 * first page of an object's slab is found by rounding the object's frame
 * number down to the slab order.
 *
 * A free object holds the link to the next free object in its first eight
 * bytes and SLAB_POISON in all the others. Allocation checks both: a
 * damaged link or poison means someone wrote to the object after freeing
 * it. Freeing checks whether the object already looks free, and if so
 * confirms it by walking the slab's freelist.
 *
 * kmalloc rounds a request up to a power of two from 8 bytes to 2 KiB and
 * takes it from that size class's cache; larger requests get a block of
 * whole pages marked PG_kmalloc.
 *
 * Lock ordering:
 *   kmem_cache.lock -> (page allocator: pcp->lock -> zone.lock)
 *       kmem_cache_alloc -> slab_grow -> alloc_pages;
 *       kmem_cache_free -> slab_release -> free_pages.
 *   The page allocator never calls back into the slab allocator, and no
 *   path holds two cache locks.
 */
#include "mm/slab.h"
#include "mm/page.h"
#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/task.h"
#include "kernel/sched.h"

#define SLAB_LINK_SIZE sizeof(void *)	/* the freelist link opens a free object */
#define SLAB_POISON_WORD 0x6b6b6b6b6b6b6b6bULL
#define SLAB_WASTE_SHIFT 3	/* a slab grows until at most 1/8 of it is waste... */
#define SLAB_WASTE_MAX_ORDER 3	/* ...or until it reaches this order */

#define KMALLOC_MIN_SHIFT 3
#define KMALLOC_MAX_SHIFT 11
#define KMALLOC_MAX_CACHE_SIZE (1UL << KMALLOC_MAX_SHIFT)
#define KMALLOC_CLASSES (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)

/*
 * Lock legend: [I] set by cache_setup, [L:lock] this cache's lock (taken
 * with interrupts off). The struct pages of the cache's slabs (lru,
 * freelist, inuse of the first page) are [L:lock] too.
 */
struct kmem_cache {
	spinlock_t lock;
	char name[32];			/* [I] for reports */
	size_t size;			/* [I] object size the creator asked for */
	size_t stride;			/* [I] bytes between objects, multiple of 8 */
	unsigned int order;		/* [I] a slab is 2^order pages */
	unsigned int objs_per_slab;	/* [I] */
	struct list_head partial;	/* [L:lock] slabs with used and free objects */
	struct list_head full;		/* [L:lock] slabs with no free object */
	struct list_head empty;		/* [L:lock] slabs with no used object */
	unsigned long nr_empty;		/* [L:lock] slabs on empty */
};

/* The cache the kmem_cache structs themselves come from (Bonwick's cache of caches). */
static struct kmem_cache cache_cache;

static struct kmem_cache *kmalloc_caches[KMALLOC_CLASSES];	/* [I] after slab_init */
static const char *const kmalloc_names[KMALLOC_CLASSES] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
	"kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};

/* ------------------------------------------------------------ geometry */

/* Smallest slab order that holds an object and wastes little; -1 if none. */
static int slab_order_for(size_t stride)
{
	for (unsigned int order = 0; order <= MAX_ORDER; order++) {
		size_t bytes = PAGE_SIZE << order;

		if (bytes < stride)
			continue;
		if ((bytes % stride) << SLAB_WASTE_SHIFT <= bytes ||
		    order >= SLAB_WASTE_MAX_ORDER)
			return (int)order;
	}
	return -1;
}

/* Fill in c for objects of size bytes aligned to align. False if impossible. */
static bool cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align)
{
	int order;

	if (align == 0)
		align = 8;
	if (align & (align - 1) || align > PAGE_SIZE)
		panic("kmem_cache_create: %s: alignment %lu is not a power of two up to a page",
		      name, (unsigned long)align);
	align = MAX(align, SLAB_LINK_SIZE);
	if (size == 0 || size > (PAGE_SIZE << MAX_ORDER))
		return false;
	c->stride = ALIGN_UP(MAX(size, SLAB_LINK_SIZE), align);
	order = slab_order_for(c->stride);
	if (order < 0)
		return false;
	c->order = (unsigned int)order;
	c->objs_per_slab = (PAGE_SIZE << order) / c->stride;
	BUG_ON(c->objs_per_slab > 0xffff, "slab too big for page->inuse");
	c->size = size;
	strlcpy(c->name, name, sizeof(c->name));
	spin_lock_init(&c->lock, c->name);
	list_init(&c->partial);
	list_init(&c->full);
	list_init(&c->empty);
	c->nr_empty = 0;
	return true;
}

static char *slab_base(const struct page *head) { return page_address(head); }

/* First page of the slab holding obj, or NULL if obj is not in a slab. */
static struct page *slab_head_of(const void *obj)
{
	struct page *p = virt_to_page(obj);
	unsigned long pfn = page_to_pfn(p);

	if (!test_bit(PG_slab, &p->flags))
		return NULL;
	return pfn_to_page(pfn & ~((1UL << p->slab_cache->order) - 1));
}

/* True if link is NULL or the start of an object of the slab at head. */
static bool link_ok(const struct kmem_cache *c, const struct page *head, const void *link)
{
	size_t off = (size_t)((const char *)link - slab_base(head));

	if (!link)
		return true;
	return off < (size_t)c->objs_per_slab * c->stride && off % c->stride == 0;
}

/* ------------------------------------------------------------- poison */

static void *obj_link(const void *obj) { return *(void *const *)obj; }

static void poison_object(const struct kmem_cache *c, void *obj)
{
	memset((char *)obj + SLAB_LINK_SIZE, SLAB_POISON, c->stride - SLAB_LINK_SIZE);
}

/* Offset of the first byte after the link that is not poison; 0 if none. */
static size_t poison_damage(const struct kmem_cache *c, const void *obj)
{
	const u64 *w = obj;

	for (size_t i = 1; i < c->stride / sizeof(u64); i++) {
		if (w[i] == SLAB_POISON_WORD)
			continue;
		for (size_t b = i * sizeof(u64);; b++)
			if (((const u8 *)obj)[b] != SLAB_POISON)
				return b;
	}
	return 0;
}

/* An object just taken off a freelist: panic if it was written while free. */
static void check_poison(const struct kmem_cache *c, const void *obj)
{
	size_t bad = poison_damage(c, obj);

	if (bad)
		panic("slab: use after free in cache %s: object %p, byte %lu is %#x, not %#x",
		      c->name, obj, (unsigned long)bad, ((const u8 *)obj)[bad], SLAB_POISON);
}

/* ------------------------------------------------------- slab lifetime */

/* A new slab for c, every object free and poisoned; NULL if out of memory. */
static struct page *slab_grow(struct kmem_cache *c)
{
	struct page *head = alloc_pages(c->order);
	char *base;

	if (!head)
		return NULL;
	for (unsigned long i = 0; i < (1UL << c->order); i++) {
		head[i].slab_cache = c;
		set_bit(PG_slab, &head[i].flags);
	}
	base = slab_base(head);
	for (unsigned int i = 0; i < c->objs_per_slab; i++) {
		void *obj = base + (size_t)i * c->stride;
		bool last = i + 1 == c->objs_per_slab;

		*(void **)obj = last ? NULL : base + (size_t)(i + 1) * c->stride;
		poison_object(c, obj);
	}
	head->freelist = base;
	head->inuse = 0;
	return head;
}

/* Give an empty slab, already off c's lists, back to the buddy allocator. */
static void slab_release(struct kmem_cache *c, struct page *head)
{
	for (unsigned long i = 0; i < (1UL << c->order); i++) {
		clear_bit(PG_slab, &head[i].flags);
		head[i].slab_cache = NULL;
	}
	head->freelist = NULL;
	free_pages(head, c->order);
}

/* Put a slab, off every list, on the list its inuse count calls for. */
static void __slab_file(struct kmem_cache *c, struct page *head)
{
	if (head->inuse == c->objs_per_slab) {
		list_add(&head->lru, &c->full);
	} else if (head->inuse == 0) {
		list_add(&head->lru, &c->empty);
		c->nr_empty++;
	} else {
		list_add(&head->lru, &c->partial);
	}
}

/* Take a slab with a free object off c's lists, growing c if need be. */
static struct page *__slab_with_free(struct kmem_cache *c)
{
	struct page *head;

	if (!list_empty(&c->partial)) {
		head = list_first_entry(&c->partial, struct page, lru);
	} else if (!list_empty(&c->empty)) {
		head = list_first_entry(&c->empty, struct page, lru);
		c->nr_empty--;
	} else {
		return slab_grow(c);
	}
	list_del(&head->lru);
	return head;
}

/* ------------------------------------------------------------ objects */

/*
 * kmem_cache_alloc: see slab.h. Takes c->lock with interrupts off and may
 * call alloc_pages under it. The returned object's contents are undefined.
 */
void *kmem_cache_alloc(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);
	struct page *head = __slab_with_free(c);
	void *obj;

	if (!head) {
		spin_unlock_irqrestore(&c->lock, flags);
		return NULL;
	}
	obj = head->freelist;
	BUG_ON(!obj, "slab on a list with free objects has none");
	if (!link_ok(c, head, obj_link(obj)))
		panic("slab: use after free in cache %s: freelist link of object %p overwritten with %p",
		      c->name, obj, obj_link(obj));
	head->freelist = obj_link(obj);
	head->inuse++;
	__slab_file(c, head);
	spin_unlock_irqrestore(&c->lock, flags);
	/* Off the freelist, obj is ours alone: check it without the lock. */
	check_poison(c, obj);
	return obj;
}

/* kmem_cache_zalloc: kmem_cache_alloc, then the object's size bytes zeroed. */
void *kmem_cache_zalloc(struct kmem_cache *c)
{
	void *obj = kmem_cache_alloc(c);

	if (obj)
		memset(obj, 0, c->size);
	return obj;
}

/* True if obj is on head's freelist. The walk is bounded in case it loops. */
static bool __on_freelist(const struct kmem_cache *c, const struct page *head, const void *obj)
{
	const void *f = head->freelist;

	for (unsigned int n = 0; f && n < c->objs_per_slab; n++, f = obj_link(f))
		if (f == obj)
			return true;
	return false;
}

/* Panic if freeing obj, in the slab at head, would free it twice. c->lock held. */
static void __check_double_free(const struct kmem_cache *c, const struct page *head,
				const void *obj)
{
	bool looks_free = link_ok(c, head, obj_link(obj)) && !poison_damage(c, obj);

	if (head->inuse == 0 || (looks_free && __on_freelist(c, head, obj)))
		panic("slab: double free of object %p in cache %s", obj, c->name);
}

/*
 * kmem_cache_free: see slab.h. Takes c->lock with interrupts off and may
 * call free_pages under it, when the cache keeps enough empty slabs.
 */
void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	struct page *head = slab_head_of(obj);
	size_t off;
	unsigned long flags;

	if (!head)
		panic("kmem_cache_free: %p (cache %s) is not a slab object", obj, c->name);
	if (head->slab_cache != c)
		panic("kmem_cache_free: object %p belongs to cache %s, not %s",
		      obj, head->slab_cache->name, c->name);
	off = (size_t)((char *)obj - slab_base(head));
	if (off % c->stride || off >= (size_t)c->objs_per_slab * c->stride)
		panic("kmem_cache_free: %p is not the start of an object of cache %s", obj, c->name);

	flags = spin_lock_irqsave(&c->lock);
	__check_double_free(c, head, obj);
	poison_object(c, obj);
	*(void **)obj = head->freelist;
	head->freelist = obj;
	list_del(&head->lru);	/* inuse > 0: it was partial or full */
	head->inuse--;
	__slab_file(c, head);
	if (c->nr_empty > SLAB_EMPTY_KEPT) {
		struct page *spare = list_entry(c->empty.prev, struct page, lru);

		list_del(&spare->lru);
		c->nr_empty--;
		slab_release(c, spare);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * kmem_cache_create: see slab.h. The struct comes from the cache of caches;
 * the name is copied (up to 31 characters). Returns NULL for size 0, for
 * objects larger than a MAX_ORDER block, or when memory is exhausted; a
 * bad alignment is a BUG. Never sleeps. Caches are never destroyed.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align)
{
	struct kmem_cache *c;

	BUG_ON(cache_cache.stride == 0, "kmem_cache_create before slab_init");
	c = kmem_cache_alloc(&cache_cache);
	if (!c)
		return NULL;
	if (!cache_setup(c, name, size, align)) {
		kmem_cache_free(&cache_cache, c);
		return NULL;
	}
	return c;
}

/* -------------------------------------------------------------- kmalloc */

/* Order of a PG_kmalloc block: its size is in the head page. */
static unsigned int kmalloc_large_order(const struct page *p)
{
	return test_bit(PG_head, &p->flags) ? p->order : 0;
}

/* Whole pages for a request too big for the size classes; NULL if none. */
static void *kmalloc_large(size_t size)
{
	unsigned int order = 0;
	struct page *p;

	while (order <= MAX_ORDER && (PAGE_SIZE << order) < size)
		order++;
	p = alloc_pages(order);	/* NULL for order > MAX_ORDER too */
	if (!p)
		return NULL;
	set_bit(PG_kmalloc, &p->flags);
	return page_address(p);
}

/* kmalloc: see slab.h. Power-of-two strides from a page boundary give the alignment. */
/*
 * Fault injection, so tests can reach the error paths of callers: a task
 * that wrote N to /proc/fail-nth gets NULL from its Nth kmalloc from then
 * on (Linux offers the same through /proc/thread-self/fail-nth). The count
 * is the task's own ([P]); an interrupt handler's kmalloc on its CPU counts
 * against it too, which only moves the failure.
 */
static bool fail_this_kmalloc(void)
{
	struct task *t = current_task();
	return t && t->fail_nth && --t->fail_nth == 0;
}

void *kmalloc(size_t size)
{
	unsigned int idx = 0;
	struct kmem_cache *c;

	if (size == 0 || fail_this_kmalloc())
		return NULL;
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large(size);
	while ((1UL << (idx + KMALLOC_MIN_SHIFT)) < size)
		idx++;
	c = kmalloc_caches[idx];
	BUG_ON(!c, "kmalloc before slab_init");
	return kmem_cache_alloc(c);
}

/* kzalloc: kmalloc, then size bytes zeroed; NULL as kmalloc. */
void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* The page of p if p could be a kmalloc pointer; else a "bad pointer" BUG. */
static struct page *kmalloc_page_of(const void *p, const char *who)
{
	unsigned long pfn = __pa(p) >> PAGE_SHIFT;
	struct page *page;

	if (pfn >= max_pfn)
		panic("%s: bad pointer %p (outside RAM)", who, p);
	page = pfn_to_page(pfn);
	if (test_bit(PG_slab, &page->flags))
		return page;
	if (test_bit(PG_kmalloc, &page->flags) && p == page_address(page))
		return page;
	panic("%s: bad pointer %p (not from kmalloc)", who, p);
}

/* kfree: see slab.h. Takes the object's cache lock, or frees whole pages. */
void kfree(const void *p)
{
	struct page *page;

	if (!p)
		return;
	page = kmalloc_page_of(p, "kfree");
	if (test_bit(PG_slab, &page->flags)) {
		kmem_cache_free(page->slab_cache, (void *)p);
		return;
	}
	clear_bit(PG_kmalloc, &page->flags);
	free_pages(page, kmalloc_large_order(page));
}

/* ksize: see slab.h. A slab object's cache object size, or the whole pages. */
size_t ksize(const void *p)
{
	struct page *page = kmalloc_page_of(p, "ksize");

	if (test_bit(PG_slab, &page->flags))
		return page->slab_cache->size;
	return PAGE_SIZE << kmalloc_large_order(page);
}

/*
 * slab_init: make the cache of caches and the kmalloc size classes. Called
 * once, after the page allocator has memory, before any kmalloc.
 */
void slab_init(void)
{
	if (!cache_setup(&cache_cache, "kmem_cache", sizeof(struct kmem_cache), 0))
		panic("slab_init: cannot set up the cache of caches");
	for (unsigned int i = 0; i < KMALLOC_CLASSES; i++) {
		size_t size = 1UL << (i + KMALLOC_MIN_SHIFT);

		kmalloc_caches[i] = kmem_cache_create(kmalloc_names[i], size, size);
		if (!kmalloc_caches[i])
			panic("slab_init: cannot create %s", kmalloc_names[i]);
	}
}
