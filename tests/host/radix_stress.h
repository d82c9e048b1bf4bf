/*
 * radix_stress.h - the radix tree's concurrent specification: lockless
 * readers see old or new, never anything else (radix-tree.h, steps 1-6).
 * Shared by the in-kernel test radix_concurrent_readers_see_old_or_new
 * (tests/ktest_radix.c: reader threads bound to the other CPUs) and the
 * host program tests/host/radix_concurrent.c (reader threads, under
 * ThreadSanitizer too).
 *
 * The tree. Every item names its key (radix_item_for), so a reader can
 * judge what it found without a model: an item must match the key it was
 * found at, or the key must be absent.
 *   - Stable keys k * STRESS_STRIDE (k < STRESS_STABLE) are inserted first
 *     and never deleted, only replaced: a reader must always find them.
 *     They keep a tree of height 3 and its upper nodes alive.
 *   - Churn keys fill the other leaves of that range. The writer sweeps a
 *     leaf at a time (insert all 64 keys, tag and replace some, delete all),
 *     so leaves are created and freed all the time, and it advertises the
 *     leaf it works on in `hint`, so that readers crowd where nodes are
 *     being published: that is where a broken publication shows.
 *   - Now and then one far key (beyond 2^40, or RADIX_TREE_INDEX_MAX) comes
 *     and goes: the tree grows to 7..11 levels and shrinks back to 3, under
 *     the readers' feet.
 *
 * A reader step (in its own rcu_read_lock section) looks up a stable key
 * (must match), a key of the hinted leaf or any churn key (match or
 * absent), the far key (match or absent), or walks to the next item from a
 * random index (radix_tree_next: its index must be at or after the start,
 * no further than the next stable key, and its item must match it).
 *
 * Locking: one writer at a time, holding s->lock around each change,
 * with radix_tree_preload before each insert, as the page cache will.
 */
#ifndef TESTS_RADIX_STRESS_H
#define TESTS_RADIX_STRESS_H

#include "radix_model.h"

#define STRESS_STABLE 64
#define STRESS_STRIDE 4096UL	/* one stable key per height-2 subtree */
#define STRESS_SPAN (STRESS_STABLE * STRESS_STRIDE)	/* churn keys are below this */
#define STRESS_LEAF RADIX_TREE_MAP_SIZE
#define STRESS_FAR_MIN (1UL << 40)

/*
 * Lock legend: [W] the writer's own (one writer); [A] written by the
 * writer with WRITE_ONCE, read by readers with READ_ONCE; [L:lock] s->lock.
 * The root is the tree's: readers use it under RCU only.
 */
struct radix_stress {
	struct radix_tree_root root;		/* [L:lock] for writers */
	void (*lock)(struct radix_stress *s);	/* [I] take / drop the writer lock */
	void (*unlock)(struct radix_stress *s);	/* [I] */
	const void *tree_lock;			/* [I] the lock itself, named to the
						 * tree's checks (NULL: not named) */
	unsigned long hint;			/* [A] first key of the leaf being swept */
	unsigned long far;			/* [A] the far key present, 0 if none */
	/* The writer's state and what it knows the tree holds. */
	u64 rng;				/* [W] */
	unsigned long sweep_base;		/* [W] */
	int sweep_phase, sweep_pos;		/* [W] */
	unsigned gen;				/* [W] */
	void *stable[STRESS_STABLE];		/* [W] current item of each stable key */
	unsigned long present[STRESS_SPAN / 64];	/* [W] churn keys in the tree */
	unsigned long ops, sweeps, fars, max_height;	/* [W] counts for the summary */
	char why[200];				/* [W] what finish found wrong */
};

/* One reader's state. */
struct radix_stress_reader {
	u64 rng;
	unsigned long lookups, found, nexts;
	char why[200];		/* the first thing it saw wrong */
};

static inline bool stress_present(struct radix_stress *s, unsigned long key)
{
	return (s->present[key / 64] >> (key % 64)) & 1;
}

static inline void stress_mark(struct radix_stress *s, unsigned long key, bool there)
{
	if (there)
		s->present[key / 64] |= 1UL << (key % 64);
	else
		s->present[key / 64] &= ~(1UL << (key % 64));
}

/* Insert key with a fresh item, as a writer must: preload, lock, insert. */
static inline int stress_insert(struct radix_stress *s, unsigned long key)
{
	int rc;

	if (radix_tree_preload() != 0)
		return -ENOMEM;
	s->lock(s);
	rc = radix_tree_insert(&s->root, key, radix_item_for(key, ++s->gen));
	s->unlock(s);
	radix_tree_preload_end();
	if (s->root.height > s->max_height)
		s->max_height = s->root.height;
	return rc;
}

static inline void *stress_delete(struct radix_stress *s, unsigned long key)
{
	void *item;

	s->lock(s);
	item = radix_tree_delete(&s->root, key);
	s->unlock(s);
	return item;
}

/* Replace key's item in place (step 2); returns the new item or NULL if absent. */
static inline void *stress_replace(struct radix_stress *s, unsigned long key)
{
	void *item = radix_item_for(key, ++s->gen);
	void **slot;

	s->lock(s);
	slot = radix_tree_lookup_slot(&s->root, key);
	if (slot)
		radix_tree_replace_slot(slot, item);
	s->unlock(s);
	return slot ? item : NULL;
}

/* radix_stress_setup: an empty tree plus the stable keys; false if out of memory. */
static inline bool radix_stress_setup(struct radix_stress *s, u64 seed)
{
	radix_tree_init_root(&s->root);
	radix_tree_set_lock(&s->root, s->tree_lock);
	s->rng = seed;
	for (unsigned k = 0; k < STRESS_STABLE; k++) {
		if (stress_insert(s, k * STRESS_STRIDE) != 0)
			return false;
		s->lock(s);
		s->stable[k] = radix_tree_lookup(&s->root, k * STRESS_STRIDE);
		s->unlock(s);
	}
	WRITE_ONCE(s->hint, STRESS_STRIDE + STRESS_LEAF);
	return true;
}

/* One step of the leaf sweep: pick a leaf, fill it, tag and replace, empty it. */
static inline void stress_sweep(struct radix_stress *s)
{
	unsigned long key = s->sweep_base + s->sweep_pos;
	int tag = s->sweep_pos % RADIX_TREE_MAX_TAGS;

	switch (s->sweep_phase) {
	case 0:	/* a leaf of some stable key's subtree, not the stable key's own */
		s->sweep_base = (radix_rnd(&s->rng) % STRESS_STABLE) * STRESS_STRIDE +
				(1 + radix_rnd(&s->rng) % (STRESS_STRIDE / STRESS_LEAF - 1)) *
					STRESS_LEAF;
		WRITE_ONCE(s->hint, s->sweep_base);	/* relaxed: only a hint */
		s->sweep_phase = 1;
		s->sweep_pos = 0;
		return;
	case 1:
		if (stress_insert(s, key) == 0)
			stress_mark(s, key, true);
		break;
	case 2:
		s->lock(s);
		if (s->sweep_pos & 2)
			radix_tree_tag_set(&s->root, key, tag);
		else
			radix_tree_tag_clear(&s->root, key, tag);
		s->unlock(s);
		stress_replace(s, key);
		break;
	default:
		stress_delete(s, key);
		stress_mark(s, key, false);
		break;
	}
	if (++s->sweep_pos == STRESS_LEAF) {
		s->sweep_pos = 0;
		s->sweep_phase = (s->sweep_phase + 1) % 4;
		s->sweeps += s->sweep_phase == 0;
	}
}

/* The far key: insert one (the tree grows), replace it, or delete it (it shrinks). */
static inline void stress_far(struct radix_stress *s)
{
	unsigned long far = s->far;

	if (!far) {
		far = radix_rnd(&s->rng) % 4 == 0 ? RADIX_TREE_INDEX_MAX
			: STRESS_FAR_MIN | radix_rnd(&s->rng);
		if (stress_insert(s, far) == 0) {
			WRITE_ONCE(s->far, far);	/* relaxed: readers accept absent */
			s->fars++;
		}
	} else if (radix_rnd(&s->rng) % 2) {
		stress_replace(s, far);
	} else {
		WRITE_ONCE(s->far, 0UL);
		stress_delete(s, far);
	}
}

/* radix_stress_writer_step: one change to the tree. */
static inline void radix_stress_writer_step(struct radix_stress *s)
{
	unsigned roll = radix_rnd(&s->rng) % 100;
	unsigned long key;

	s->ops++;
	if (roll < 70) {
		stress_sweep(s);
	} else if (roll < 85) {
		unsigned k = radix_rnd(&s->rng) % STRESS_STABLE;
		s->stable[k] = stress_replace(s, k * STRESS_STRIDE);
	} else if (roll < 97) {
		key = radix_rnd(&s->rng) % STRESS_SPAN;
		if (key % STRESS_STRIDE == 0)
			return;	/* a stable key */
		if (stress_present(s, key))
			stress_mark(s, key, stress_delete(s, key) == NULL);
		else if (stress_insert(s, key) == 0)
			stress_mark(s, key, true);
	} else {
		stress_far(s);
	}
}

/* Record what a reader saw wrong; false, for `return stress_wrong(...)`. */
#define stress_wrong(rd, ...)                                                  \
	({                                                                     \
		if (!(rd)->why[0])                                             \
			snprintf((rd)->why, sizeof((rd)->why), __VA_ARGS__);   \
		false;                                                         \
	})

/* A lookup of key: the item must match it; absent is an error only if must_be_there. */
static inline bool stress_check_lookup(struct radix_stress *s, struct radix_stress_reader *rd,
				       unsigned long key, bool must_be_there)
{
	void *item;

	rcu_read_lock();
	item = radix_tree_lookup(&s->root, key);
	rcu_read_unlock();
	rd->lookups++;
	if (!item)
		return must_be_there ? stress_wrong(rd, "stable key %#lx absent", key) : true;
	rd->found++;
	if (!radix_item_matches(key, item))
		return stress_wrong(rd, "key %#lx gave %p, not its item", key, item);
	return true;
}

/* radix_tree_next from a random start below the last stable key. */
static inline bool stress_check_next(struct radix_stress *s, struct radix_stress_reader *rd)
{
	unsigned long start = radix_rnd(&rd->rng) % ((STRESS_STABLE - 1) * STRESS_STRIDE);
	/* The next stable key: there is one, and nothing past it can come first. */
	unsigned long limit = (start / STRESS_STRIDE + 1) * STRESS_STRIDE;
	unsigned long at = start;
	void *item;

	rcu_read_lock();
	item = radix_tree_next(&s->root, &at);
	rcu_read_unlock();
	rd->nexts++;
	if (!item)
		return stress_wrong(rd, "next from %#lx found nothing (stable %#lx)", start, limit);
	if (at < start || at > limit)
		return stress_wrong(rd, "next from %#lx went to %#lx (stable %#lx)", start, at,
				    limit);
	if (!radix_item_matches(at, item))
		return stress_wrong(rd, "next from %#lx: %#lx gave %p, not its item", start, at,
				    item);
	return true;
}

/* Tags under RCU are hints: only that the calls come back is checked. */
static inline void stress_touch_tags(struct radix_stress *s, struct radix_stress_reader *rd)
{
	void *items[8];
	unsigned long base = READ_ONCE(s->hint);

	rcu_read_lock();
	(void)radix_tree_tag_get(&s->root, base + radix_rnd(&rd->rng) % STRESS_LEAF,
				 RADIX_TREE_TAG_WRITEBACK);
	(void)radix_tree_gang_lookup_tag(&s->root, items, base, 8, RADIX_TREE_TAG_DIRTY);
	rcu_read_unlock();
}

/*
 * radix_stress_reader_step: one lockless check; false once something wrong
 * was seen (described in rd->why). Caller: not in a read-side section.
 */
static inline bool radix_stress_reader_step(struct radix_stress *s,
					    struct radix_stress_reader *rd)
{
	unsigned roll = radix_rnd(&rd->rng) % 100;
	unsigned long far;

	if (roll < 25)
		return stress_check_lookup(s, rd, (radix_rnd(&rd->rng) % STRESS_STABLE) *
						   STRESS_STRIDE, true);
	if (roll < 70)	/* READ_ONCE: a hint; any value is a fair key */
		return stress_check_lookup(s, rd, READ_ONCE(s->hint) +
						   radix_rnd(&rd->rng) % STRESS_LEAF, false);
	if (roll < 80)
		return stress_check_lookup(s, rd, radix_rnd(&rd->rng) % STRESS_SPAN, false);
	if (roll < 90)
		return stress_check_next(s, rd);
	far = READ_ONCE(s->far);
	if (roll < 95 && far)
		return stress_check_lookup(s, rd, far, false);
	stress_touch_tags(s, rd);
	return true;
}

/*
 * radix_stress_finish: with the readers stopped, the tree must hold exactly
 * what the writer put there; then everything is deleted and the tree must
 * be empty. Returns NULL or what was wrong (s->why).
 */
static inline const char *radix_stress_finish(struct radix_stress *s)
{
	unsigned long index, items = 0, want = STRESS_STABLE + (s->far != 0);
	void *item;

	for (unsigned long key = 0; key < STRESS_SPAN; key++)	/* no popcount: no libgcc */
		want += stress_present(s, key);
	s->lock(s);
	radix_tree_for_each(&s->root, index, item) {
		bool ok = radix_item_matches(index, item) &&
			(index >= STRESS_SPAN ? index == s->far
			 : index % STRESS_STRIDE == 0 ? item == s->stable[index / STRESS_STRIDE]
			 : stress_present(s, index));
		if (!ok && !s->why[0])
			snprintf(s->why, sizeof(s->why), "finish: unexpected %p at %#lx", item,
				 index);
		items++;
	}
	if (!s->why[0] && items != want)
		snprintf(s->why, sizeof(s->why), "finish: %lu items, the writer put %lu", items,
			 want);
	for (index = 0, item = radix_tree_next(&s->root, &index); item;
	     item = radix_tree_next(&s->root, &index))
		radix_tree_delete(&s->root, index);
	if (!s->why[0] && (s->root.rnode || s->root.height || s->root.nodes))
		snprintf(s->why, sizeof(s->why), "finish: not empty after deleting all (%u nodes)",
			 s->root.nodes);
	s->unlock(s);
	return s->why[0] ? s->why : NULL;
}

#endif
