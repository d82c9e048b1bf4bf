/*
 * radix_model.h - the radix tree's sequential specification, checked by
 * random operations against a reference model (a sorted array). Shared,
 * word for word, by the in-kernel test (tests/ktest_radix.c) and the host
 * program tests/host/radix_random.c, so a seed that fails in one place can
 * be replayed in the other, under a debugger or a sanitizer.
 *
 * Each step picks an operation and a key, applies it to the tree and to the
 * model, and compares what both answer. Keys come from a mix meant to make
 * the tree grow and shrink: small dense ones, a moving cluster, the top of
 * the range, and random magnitudes, all below a limit that changes every
 * RADIX_MODEL_PHASE steps (2^9 .. 2^64, so RADIX_TREE_INDEX_MAX too); some
 * deletes take the largest key, which makes the tree shrink. Every RADIX_MODEL_CHECK
 * steps, and at the end, the whole tree is compared with the model, and
 * its shape too: the height must be exactly what the largest key needs
 * (the tree shrank) and the node count exactly what the keys need (no
 * empty node lingers). Every RADIX_MODEL_DRAIN steps, and at the end,
 * everything is deleted and the tree must be empty, height 0.
 *
 * Callers: writers here run one at a time, so no lock is taken; the tree's
 * nodes go to call_rcu as usual.
 */
#ifndef TESTS_RADIX_MODEL_H
#define TESTS_RADIX_MODEL_H

#include "kernel/types.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "mm/radix-tree.h"

#define RADIX_MODEL_MAX 1024		/* items at most in the tree */
#define RADIX_MODEL_CHECK 2048		/* steps between full comparisons */
#define RADIX_MODEL_DRAIN 25000		/* steps between deleting everything */
#define RADIX_MODEL_GANG 24		/* largest gang lookup tried */
#define RADIX_MODEL_PHASE 1000		/* steps between changes of key magnitude */

/* splitmix64 (Steele, Lea, Flood): a small, good, seedable generator. */
static inline u64 radix_rnd(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Test items are not pointers to anything: an item is a number that names
 * its key (a hash of it in the high 48 bits), a generation in bits 1..15,
 * and bit 0 set so it is never NULL. A reader can tell whether what it
 * found belongs to the key it looked up without touching memory.
 */
static inline unsigned long radix_key_hash(unsigned long key)
{
	u64 s = key;

	return radix_rnd(&s) & ~0xffffUL;
}

static inline void *radix_item_for(unsigned long key, unsigned gen)
{
	return (void *)(radix_key_hash(key) | ((gen << 1) & 0xfffe) | 1);
}

static inline bool radix_item_matches(unsigned long key, const void *item)
{
	uintptr_t v = (uintptr_t)item;

	return (v & 1) && (v & ~0xffffUL) == radix_key_hash(key);
}

/* Smallest tree height (at least 1) that holds index: the model's own count. */
static inline unsigned radix_model_height_for(unsigned long index)
{
	unsigned h = 1;

	while (h * RADIX_TREE_MAP_SHIFT < RADIX_TREE_INDEX_BITS &&
	       index >> (h * RADIX_TREE_MAP_SHIFT))
		h++;
	return h;
}

enum model_op {
	OP_INSERT, OP_DELETE, OP_DELETE_LAST, OP_LOOKUP, OP_REPLACE, OP_TAG, OP_TAG_GET,
	OP_GANG, OP_NEXT, OP_KINDS
};

struct radix_model {
	unsigned n;
	unsigned long keys[RADIX_MODEL_MAX];	/* sorted */
	void *items[RADIX_MODEL_MAX];
	u8 tags[RADIX_MODEL_MAX];		/* bit t: tag t */
};

struct radix_random {
	struct radix_tree_root root;
	struct radix_model m;
	u64 rng;
	unsigned long step;
	unsigned long cluster;		/* base of the moving cluster of keys */
	unsigned bits;			/* this phase's keys are below 2^bits */
	unsigned gen;
	unsigned max_height;
	unsigned long ops[OP_KINDS];	/* how often each enum model_op ran */
	char msg[160];			/* the first mismatch */
	char why[256];			/* msg with the seed and step */
};

/* Position of the first key >= key. */
static inline unsigned model_find(const struct radix_model *m, unsigned long key)
{
	unsigned lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (m->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline bool model_has(const struct radix_model *m, unsigned long key, unsigned *pos)
{
	*pos = model_find(m, key);
	return *pos < m->n && m->keys[*pos] == key;
}

static inline void model_insert_at(struct radix_model *m, unsigned pos, unsigned long key,
				   void *item)
{
	unsigned tail = m->n - pos;

	memmove(&m->keys[pos + 1], &m->keys[pos], tail * sizeof(m->keys[0]));
	memmove(&m->items[pos + 1], &m->items[pos], tail * sizeof(m->items[0]));
	memmove(&m->tags[pos + 1], &m->tags[pos], tail * sizeof(m->tags[0]));
	m->keys[pos] = key;
	m->items[pos] = item;
	m->tags[pos] = 0;
	m->n++;
}

static inline void model_remove_at(struct radix_model *m, unsigned pos)
{
	unsigned tail = m->n - pos - 1;

	memmove(&m->keys[pos], &m->keys[pos + 1], tail * sizeof(m->keys[0]));
	memmove(&m->items[pos], &m->items[pos + 1], tail * sizeof(m->items[0]));
	memmove(&m->tags[pos], &m->tags[pos + 1], tail * sizeof(m->tags[0]));
	m->n--;
}

/* Nodes a tree holding exactly the model's keys has: one per distinct key prefix per level. */
static inline unsigned long model_nodes(const struct radix_model *m)
{
	unsigned height;
	unsigned long nodes = 0;

	if (m->n == 0)
		return 0;
	height = radix_model_height_for(m->keys[m->n - 1]);
	for (unsigned level = 1; level <= height; level++) {
		unsigned bits = level * RADIX_TREE_MAP_SHIFT;
		if (bits >= RADIX_TREE_INDEX_BITS) {
			nodes++;	/* the top of an 11-level tree */
			continue;
		}
		nodes++;
		for (unsigned i = 1; i < m->n; i++)
			nodes += (m->keys[i] >> bits) != (m->keys[i - 1] >> bits);
	}
	return nodes;
}

/* Record the first mismatch; false, for `return model_fail(...)`. */
#define model_fail(r, ...)                                                     \
	({                                                                     \
		if (!(r)->msg[0])                                              \
			snprintf((r)->msg, sizeof((r)->msg), __VA_ARGS__);     \
		false;                                                         \
	})

/* A key below 2^r->bits (the phase's magnitude), drawn from the mix above. */
static inline unsigned long model_pick_key(struct radix_random *r)
{
	unsigned long limit = r->bits >= RADIX_TREE_INDEX_BITS ? ~0UL : (1UL << r->bits) - 1;
	u64 x = radix_rnd(&r->rng);
	unsigned pos;

	switch (x % 16) {
	case 0: case 1: case 2: case 3: case 4:
		return radix_rnd(&r->rng) % 512;		/* small, dense */
	case 5: case 6: case 7: case 8:
		return (r->cluster + radix_rnd(&r->rng) % 256) & limit;	/* a busy region */
	case 9:
		return limit - radix_rnd(&r->rng) % 4;		/* the top of the range */
	case 10: case 11: case 12:
		if (r->m.n == 0)
			return 0;
		pos = radix_rnd(&r->rng) % r->m.n;		/* one that is there */
		return r->m.keys[pos];
	default:
		x = radix_rnd(&r->rng) >> (radix_rnd(&r->rng) % 64);	/* any size */
		return x & limit;
	}
}

/* After every insert and delete: the height is exactly what the largest key needs. */
static inline bool model_check_height(struct radix_random *r, const char *after, unsigned long key)
{
	unsigned want = r->m.n ? radix_model_height_for(r->m.keys[r->m.n - 1]) : 0;

	if (r->root.height != want)
		return model_fail(r, "%s %#lx: height %u, keys need %u (shrink?)", after, key,
				  r->root.height, want);
	return true;
}

static inline bool model_op_insert(struct radix_random *r, unsigned long key)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	void *item = radix_item_for(key, ++r->gen);
	int rc;

	if (!had && r->m.n == RADIX_MODEL_MAX)
		return true;	/* the model is full: skip */
	rc = radix_tree_insert(&r->root, key, item);
	if (rc != (had ? -EEXIST : 0))
		return model_fail(r, "insert %#lx returned %d, model says %s", key, rc,
				  had ? "present" : "absent");
	if (!had)
		model_insert_at(&r->m, pos, key, item);
	return model_check_height(r, "insert", key);
}

static inline bool model_op_delete(struct radix_random *r, unsigned long key)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	void *got = radix_tree_delete(&r->root, key);
	void *want = had ? r->m.items[pos] : NULL;

	if (got != want)
		return model_fail(r, "delete %#lx returned %p, model has %p", key, got, want);
	if (had)
		model_remove_at(&r->m, pos);
	return model_check_height(r, "delete", key);
}

static inline bool model_op_lookup(struct radix_random *r, unsigned long key)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	void *got, *want = had ? r->m.items[pos] : NULL;

	rcu_read_lock();
	got = radix_tree_lookup(&r->root, key);
	rcu_read_unlock();
	if (got != want)
		return model_fail(r, "lookup %#lx returned %p, model has %p", key, got, want);
	return true;
}

/* Replace through lookup_slot; tags must survive the replacement. */
static inline bool model_op_replace(struct radix_random *r, unsigned long key)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	void **slot, *item;

	rcu_read_lock();	/* the reader's check; single-threaded, the slot stays */
	slot = radix_tree_lookup_slot(&r->root, key);
	rcu_read_unlock();

	if (!had)
		return slot ? model_fail(r, "lookup_slot %#lx found a slot, model: absent", key)
			    : true;
	if (!slot || radix_tree_deref_slot(slot) != r->m.items[pos])
		return model_fail(r, "lookup_slot %#lx: %p, model has %p", key,
				  slot ? radix_tree_deref_slot(slot) : NULL, r->m.items[pos]);
	item = radix_item_for(key, ++r->gen);
	radix_tree_replace_slot(slot, item);
	r->m.items[pos] = item;
	return true;
}

static inline bool model_op_tag(struct radix_random *r, unsigned long key, int tag, bool set)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	void *got = set ? radix_tree_tag_set(&r->root, key, tag)
			: radix_tree_tag_clear(&r->root, key, tag);
	void *want = had ? r->m.items[pos] : NULL;

	if (got != want)
		return model_fail(r, "tag_%s %#lx tag %d returned %p, model has %p",
				  set ? "set" : "clear", key, tag, got, want);
	if (had && set)
		r->m.tags[pos] |= 1 << tag;
	else if (had)
		r->m.tags[pos] &= ~(1 << tag);
	return true;
}

static inline bool model_op_tag_get(struct radix_random *r, unsigned long key, int tag)
{
	unsigned pos;
	bool had = model_has(&r->m, key, &pos);
	bool want = had && (r->m.tags[pos] >> tag) & 1, got;

	rcu_read_lock();
	got = radix_tree_tag_get(&r->root, key, tag);
	rcu_read_unlock();

	if (got != want)
		return model_fail(r, "tag_get %#lx tag %d: %d, model %d", key, tag, got, want);
	return true;
}

/* Gang lookup (tag < 0: plain) from first, against the model. */
static inline bool model_op_gang(struct radix_random *r, unsigned long first, unsigned max,
				 int tag)
{
	void *got[RADIX_MODEL_GANG];
	unsigned n, want = 0, pos = model_find(&r->m, first);

	rcu_read_lock();
	n = tag < 0 ? radix_tree_gang_lookup(&r->root, got, first, max)
		    : radix_tree_gang_lookup_tag(&r->root, got, first, max, tag);
	rcu_read_unlock();
	for (; pos < r->m.n && want < max; pos++) {
		if (tag >= 0 && !((r->m.tags[pos] >> tag) & 1))
			continue;
		if (want >= n || got[want] != r->m.items[pos])
			return model_fail(r, "gang%s from %#lx max %u: item %u is %p,"
					  " model %p (key %#lx)",
					  tag < 0 ? "" : "_tag", first, max, want,
					  want < n ? got[want] : NULL, r->m.items[pos],
					  r->m.keys[pos]);
		want++;
	}
	if (n != want)
		return model_fail(r, "gang%s from %#lx max %u: %u items, model %u",
				  tag < 0 ? "" : "_tag", first, max, n, want);
	return true;
}

static inline bool model_op_next(struct radix_random *r, unsigned long first)
{
	unsigned pos = model_find(&r->m, first);
	unsigned long at = first;
	void *got;

	rcu_read_lock();
	got = radix_tree_next(&r->root, &at);
	rcu_read_unlock();

	if (pos == r->m.n)
		return got ? model_fail(r, "next from %#lx found %#lx, model: none", first, at)
			   : true;
	if (got != r->m.items[pos] || at != r->m.keys[pos])
		return model_fail(r, "next from %#lx: %#lx %p, model %#lx %p", first, at, got,
				  r->m.keys[pos], r->m.items[pos]);
	return true;
}

/* Walk every item against the model, counting them in *i. Inside rcu_read_lock. */
static inline bool model_walk(struct radix_random *r, unsigned *i)
{
	unsigned long index;
	void *item;

	radix_tree_for_each(&r->root, index, item) {
		if (*i >= r->m.n || index != r->m.keys[*i] || item != r->m.items[*i])
			return model_fail(r, "walk: item %u at %#lx is %p, model %#lx %p", *i,
					  index, item, *i < r->m.n ? r->m.keys[*i] : 0,
					  *i < r->m.n ? r->m.items[*i] : NULL);
		for (int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
			if (radix_tree_tag_get(&r->root, index, t) != ((r->m.tags[*i] >> t) & 1))
				return model_fail(r, "walk: tag %d of %#lx wrong", t, index);
		(*i)++;
	}
	return true;
}

/* The whole tree against the model: items, order, tags, height, node count. */
static inline bool model_check_all(struct radix_random *r)
{
	unsigned long want_nodes = model_nodes(&r->m);
	unsigned i = 0, want_height = r->m.n ? radix_model_height_for(r->m.keys[r->m.n - 1]) : 0;
	bool ok;

	rcu_read_lock();
	ok = model_walk(r, &i);
	rcu_read_unlock();
	if (!ok)
		return false;
	if (i != r->m.n)
		return model_fail(r, "walk: %u items, model %u", i, r->m.n);
	for (int t = 0; t < RADIX_TREE_MAX_TAGS; t++) {
		bool any = false;
		for (unsigned j = 0; j < r->m.n; j++)
			any |= (r->m.tags[j] >> t) & 1;
		if (radix_tree_tagged(&r->root, t) != any)
			return model_fail(r, "root tag %d is %d, model %d", t,
					  radix_tree_tagged(&r->root, t), any);
	}
	if (r->root.height != want_height)
		return model_fail(r, "height %u, keys need %u (did not shrink?)", r->root.height,
				  want_height);
	if (r->root.nodes != want_nodes)
		return model_fail(r, "%u nodes, keys need %lu (empty node left?)", r->root.nodes,
				  want_nodes);
	return true;
}

/* Delete every item in random order, then the tree must be empty. */
static inline bool model_drain(struct radix_random *r)
{
	while (r->m.n > 0)
		if (!model_op_delete(r, r->m.keys[radix_rnd(&r->rng) % r->m.n]))
			return false;
	if (r->root.height != 0 || r->root.rnode || r->root.nodes != 0 || r->root.tags != 0)
		return model_fail(r, "drained tree: height %u, rnode %p, %u nodes, tags %#x",
				  r->root.height, (void *)r->root.rnode, r->root.nodes,
				  r->root.tags);
	return true;
}


/* A new phase: the keys' magnitude (so the tree's height) and the cluster move. */
static inline void model_new_phase(struct radix_random *r)
{
	static const unsigned phase_bits[] = { 9, 12, 18, 30, 47, 64, 64 };

	r->bits = phase_bits[radix_rnd(&r->rng) % ARRAY_SIZE(phase_bits)];
	r->cluster = (radix_rnd(&r->rng) >> (radix_rnd(&r->rng) % 64)) & ~0xffUL;
}

/* One random operation; the percentages favour inserts until the model is nearly full. */
static inline bool model_step(struct radix_random *r)
{
	unsigned long key = model_pick_key(r);
	unsigned roll = radix_rnd(&r->rng) % 100;
	int tag = radix_rnd(&r->rng) % RADIX_TREE_MAX_TAGS;
	bool full = r->m.n > RADIX_MODEL_MAX * 7 / 8;
	enum model_op op = roll < 30 ? (full ? OP_DELETE : OP_INSERT)
		: roll < 47 ? OP_DELETE
		: roll < 50 ? OP_DELETE_LAST
		: roll < 62 ? OP_LOOKUP
		: roll < 68 ? OP_REPLACE
		: roll < 82 ? OP_TAG
		: roll < 88 ? OP_TAG_GET
		: roll < 96 ? OP_GANG
		: OP_NEXT;
	r->ops[op]++;
	switch (op) {
	case OP_INSERT:
		return model_op_insert(r, key);
	case OP_DELETE:
		return model_op_delete(r, key);
	case OP_DELETE_LAST:	/* the largest key: the tree may shrink */
		return model_op_delete(r, r->m.n ? r->m.keys[r->m.n - 1] : key);
	case OP_LOOKUP:
		return model_op_lookup(r, key);
	case OP_REPLACE:
		return model_op_replace(r, key);
	case OP_TAG:
		return model_op_tag(r, key, tag, roll < 76);
	case OP_TAG_GET:
		return model_op_tag_get(r, key, tag);
	case OP_GANG:
		return model_op_gang(r, key, 1 + radix_rnd(&r->rng) % RADIX_MODEL_GANG,
				     roll < 92 ? -1 : tag);
	default:
		return model_op_next(r, key);
	}
}

/* Prefix the first mismatch with the seed and step that reproduce it. */
static inline const char *model_failed(struct radix_random *r, u64 seed)
{
	snprintf(r->why, sizeof(r->why), "seed %llu step %lu: %s", (unsigned long long)seed,
		 r->step, r->msg);
	return r->why;
}

/*
 * radix_random_run: `steps` random steps from `seed` on a fresh tree, with
 * full checks and drains along the way and a drain at the end. Returns
 * NULL, or the first mismatch with the seed and step that reproduce it.
 */
static inline const char *radix_random_run(struct radix_random *r, u64 seed, unsigned long steps)
{
	memset(r, 0, sizeof(*r));
	radix_tree_init_root(&r->root);
	r->rng = seed;
	for (r->step = 0; r->step < steps; r->step++) {
		bool ok;
		if (r->step % RADIX_MODEL_PHASE == 0)
			model_new_phase(r);
		ok = model_step(r);
		if (ok && (r->step + 1) % RADIX_MODEL_CHECK == 0)
			ok = model_check_all(r);
		if (ok && (r->step + 1) % RADIX_MODEL_DRAIN == 0)
			ok = model_drain(r);
		if (r->root.height > r->max_height)
			r->max_height = r->root.height;
		if (!ok)
			return model_failed(r, seed);
	}
	if (!model_check_all(r) || !model_drain(r))
		return model_failed(r, seed);
	return NULL;
}

#endif
