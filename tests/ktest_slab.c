/*
 * ktest_slab.c - tests of the slab allocator and kmalloc.
 *
 * Tests that need a predictable freelist make a cache of their own and keep
 * one object allocated, so the slab under test never empties. Reading an
 * object after freeing it is deliberate here. The expected-panic tests each
 * end the boot: run them one at a time.
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "mm/page.h"
#include "mm/slab.h"

#define MANY_OBJECTS 3000
#define MANY_OBJECT_SIZE 96	/* under 512 bytes: one-page slabs */

struct kmalloc_tally {
	unsigned long failed, short_class, loose_class, misaligned;
};

/* kmalloc want bytes, write them all, check the class, free. */
static void kmalloc_try(size_t want, struct kmalloc_tally *t)
{
	u8 *p = kmalloc(want);
	size_t usable;

	if (!p) {
		t->failed++;
		return;
	}
	memset(p, 0xa5, want);
	usable = ksize(p);
	t->short_class += usable < want;
	t->loose_class += usable > 8 && usable / 2 >= want;	/* a smaller class would do */
	t->misaligned += (uintptr_t)p % MIN(usable, PAGE_SIZE) != 0;
	kfree(p);
}

KTEST(kmalloc_every_size_class)
{
	struct kmalloc_tally t = { 0 };

	for (size_t size = 1; size <= 4096; size++)
		kmalloc_try(size, &t);
	kmalloc_try(10000, &t);
	kmalloc_try(100000, &t);

	KT_EQ(t.failed, 0);
	KT_EQ(t.short_class, 0);
	KT_EQ(t.loose_class, 0);
	KT_EQ(t.misaligned, 0);
}

KTEST(kmalloc_zero_returns_null)
{
	KT_NULL(kmalloc(0));
}

KTEST(kmalloc_kfree_null_is_noop)
{
	unsigned long before = nr_free_pages();

	kfree(NULL);
	KT_EQ(nr_free_pages(), before);
}

KTEST(kmalloc_large_uses_pages)
{
	unsigned long before, during;
	size_t usable;
	void *p;

	drain_all_pages();
	before = nr_free_pages();
	p = kmalloc(3 * PAGE_SIZE + 1);	/* rounds up to an order-2 block */
	KT_NOT_NULL(p);
	during = nr_free_pages();
	usable = ksize(p);
	kfree(p);

	KT_EQ((uintptr_t)p % PAGE_SIZE, 0);
	KT_EQ(during, before - 4);
	KT_EQ(usable, 4 * PAGE_SIZE);
	KT_EQ(nr_free_pages(), before);
}

KTEST(slab_reuses_freed_object)
{
	struct kmem_cache *c = kmem_cache_create("ktest-reuse", 48, 0);
	void *keep, *a, *b;

	KT_NOT_NULL(c);
	keep = kmem_cache_alloc(c);
	a = kmem_cache_alloc(c);
	KT_NOT_NULL(keep);
	KT_NOT_NULL(a);
	kmem_cache_free(c, a);
	b = kmem_cache_alloc(c);
	kmem_cache_free(c, b);
	kmem_cache_free(c, keep);

	KT_EQ((uintptr_t)b, (uintptr_t)a);
}

KTEST(slab_poisons_freed_object)
{
	struct kmem_cache *c = kmem_cache_create("ktest-poison", 64, 0);
	unsigned long poisoned = 0;
	u8 *keep, *a;

	KT_NOT_NULL(c);
	keep = kmem_cache_alloc(c);
	a = kmem_cache_alloc(c);
	KT_NOT_NULL(keep);
	KT_NOT_NULL(a);
	memset(a, 0, 64);
	kmem_cache_free(c, a);
	/* The first eight bytes hold the freelist link; the rest is poison. */
	for (size_t i = sizeof(void *); i < 64; i++)
		poisoned += a[i] == SLAB_POISON;
	kmem_cache_free(c, keep);

	KT_EQ(poisoned, 64 - sizeof(void *));
}

KTEST(slab_object_alignment_honoured)
{
	struct kmem_cache *c = kmem_cache_create("ktest-align", 40, 64);
	unsigned long misaligned = 0;
	void *objs[8];

	KT_NOT_NULL(c);
	for (int i = 0; i < 8; i++) {
		objs[i] = kmem_cache_alloc(c);
		KT_NOT_NULL(objs[i]);
		misaligned += (uintptr_t)objs[i] % 64 != 0;
	}
	for (int i = 0; i < 8; i++)
		kmem_cache_free(c, objs[i]);

	KT_EQ(misaligned, 0);
}

KTEST(kmem_cache_many_objects)
{
	struct kmem_cache *c = kmem_cache_create("ktest-many", MANY_OBJECT_SIZE, 0);
	struct page *table = alloc_pages(3);
	unsigned long start, used, end, overlapping = 0;
	unsigned long **objs;

	KT_NOT_NULL(c);
	KT_NOT_NULL(table);
	objs = page_address(table);
	start = nr_free_pages();
	for (unsigned long i = 0; i < MANY_OBJECTS; i++) {
		objs[i] = kmem_cache_alloc(c);
		KT_NOT_NULL(objs[i]);
		objs[i][0] = i;
	}
	/* Had two allocations overlapped, the later write would show here. */
	for (unsigned long i = 0; i < MANY_OBJECTS; i++)
		overlapping += objs[i][0] != i;
	used = start - nr_free_pages();
	for (unsigned long i = 0; i < MANY_OBJECTS; i++)
		kmem_cache_free(c, objs[i]);
	end = nr_free_pages();
	free_pages(table, 3);

	KT_EQ(overlapping, 0);
	KT_GE(used, MANY_OBJECTS * MANY_OBJECT_SIZE / PAGE_SIZE);
	/* Every empty slab went back, but for the ones the cache keeps. */
	KT_LE(end, start);
	KT_GE(end + SLAB_EMPTY_KEPT, start);
}

KTEST_EXPECT_PANIC(slab_double_free_is_bug, "slab: double free")
{
	struct kmem_cache *c = kmem_cache_create("ktest-double", 32, 0);
	void *keep, *a;

	KT_NOT_NULL(c);
	keep = kmem_cache_alloc(c);
	a = kmem_cache_alloc(c);
	KT_NOT_NULL(keep);
	KT_NOT_NULL(a);
	kmem_cache_free(c, a);
	kmem_cache_free(c, a);
	KT_FAIL("second kmem_cache_free of the same object returned");
}

KTEST_EXPECT_PANIC(slab_use_after_free_is_detected_on_alloc, "slab: use after free")
{
	struct kmem_cache *c = kmem_cache_create("ktest-uaf", 64, 0);
	u8 *keep, *a;

	KT_NOT_NULL(c);
	keep = kmem_cache_alloc(c);
	a = kmem_cache_alloc(c);
	KT_NOT_NULL(keep);
	KT_NOT_NULL(a);
	kmem_cache_free(c, a);
	a[20] = 0;	/* the write after free */
	kmem_cache_alloc(c);
	KT_FAIL("allocating the damaged object returned");
}

KTEST_EXPECT_PANIC(slab_overwritten_freelist_link_is_detected, "slab: use after free")
{
	struct kmem_cache *c = kmem_cache_create("ktest-link", 64, 0);
	void **keep, **a;

	KT_NOT_NULL(c);
	keep = kmem_cache_alloc(c);
	a = kmem_cache_alloc(c);
	KT_NOT_NULL(keep);
	KT_NOT_NULL(a);
	kmem_cache_free(c, a);
	a[0] = keep + 1;	/* a link into the middle of an object */
	kmem_cache_alloc(c);
	KT_FAIL("allocating the object with the damaged link returned");
}

KTEST_EXPECT_PANIC(kmem_cache_free_to_wrong_cache_is_bug, "belongs to cache")
{
	struct kmem_cache *a = kmem_cache_create("ktest-a", 64, 0);
	struct kmem_cache *b = kmem_cache_create("ktest-b", 64, 0);
	void *obj;

	KT_NOT_NULL(a);
	KT_NOT_NULL(b);
	obj = kmem_cache_alloc(a);
	KT_NOT_NULL(obj);
	kmem_cache_free(b, obj);
	KT_FAIL("kmem_cache_free into the wrong cache returned");
}

KTEST_EXPECT_PANIC(kfree_bad_pointer_is_bug, "kfree: bad pointer")
{
	struct page *p = alloc_page();

	KT_NOT_NULL(p);
	kfree(page_address(p));	/* a page from alloc_page, not kmalloc */
	KT_FAIL("kfree of a page kmalloc never returned came back");
}
