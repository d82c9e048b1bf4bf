/*
 * radix-tree.h - a 64-way radix tree from unsigned long indices to pointers,
 * whose lookups take no lock (Piggin's lockless radix tree, Linux 2.6.27,
 * on McKenney's RCU). The page cache keeps one per file: index = page
 * number in the file, item = struct page.
 *
 * Shape. A node has 64 slots; each level of the tree consumes 6 bits of the
 * index, most significant first. A node's height is its distance from the
 * items: a leaf (height 1) holds items, a node of height h > 1 holds nodes
 * of height h - 1, and a tree of height h covers indices 0 ..
 * radix_tree_maxindex(h). Eleven levels cover all 64 bits, so every
 * unsigned long, RADIX_TREE_INDEX_MAX (= ULONG_MAX) included, is an index.
 * An empty tree has height 0 and no node; a non-empty one has at least a
 * leaf, so root->rnode is always a node or NULL, never an item. The tree
 * grows a new top node when an insert goes past its maximum index and
 * shrinks while the top node uses only slot 0. Items must be non-NULL:
 * NULL is "absent".
 *
 * Tags. Each item has RADIX_TREE_MAX_TAGS tag bits (dirty, writeback).
 * A node keeps, per tag, a 64-bit word whose bit i says "something tagged
 * lies under slot i"; the root keeps "something in the tree is tagged".
 * So radix_tree_tagged() is one load and a tagged gang lookup skips whole
 * untagged subtrees.
 *
 * Who may call what. Writers (insert, delete, tag_set, tag_clear,
 * replace_slot) must be serialised by a lock of the caller's (the page
 * cache's tree_lock). Readers (lookup, lookup_slot, tag_get,
 * gang lookups, radix_tree_next) may hold that lock or only
 * rcu_read_lock(). No function here sleeps. Both rules are checked while
 * lockdep is on (kernel/lockdep.h): each reader's first load (step 3) is
 * an rcu_dereference_check naming the tree's lock (radix_tree_set_lock),
 * and writers assert that they hold it, when one is named.
 *
 * The lockless protocol (STYLE.md rule 2; call sites cite "radix-tree.h,
 * step N"):
 *
 *  1. A writer builds a node completely (zeroed slots and tags, its height,
 *     and for a new top node slot 0 = the old top) while no reader can see
 *     it, and only then publishes it with rcu_assign_pointer (a release
 *     store): a reader that finds the node finds it initialised.
 *  2. Items are published the same way, last, into a leaf slot, and
 *     replaced in place with rcu_assign_pointer (radix_tree_replace_slot):
 *     a reader sees the old item or the new one, never a mixture.
 *  3. A reader loads root->rnode once with rcu_dereference, and takes the
 *     tree's height from that node (node->height never changes), never from
 *     root->height. Height and top node therefore always match: a reader
 *     that loaded the old top just before a grow or shrink walks the old,
 *     still valid, shape. (Linux 2.6.27 also kept the height in the node;
 *     the alternative, encoding it in the root pointer, saves 4 bytes a
 *     node and costs a decoding step on every lookup.)
 *  4. Growing publishes the new top only after its slot 0 points at the old
 *     top (step 1), so no index present before the grow is ever missing.
 *  5. Shrinking publishes the old top's only child as the new top and
 *     leaves the old top untouched, still pointing at that child; deleting
 *     unlinks an emptied node from its parent with a store of NULL. Either
 *     way the unlinked node is freed only through call_rcu, after every
 *     reader that might still hold it has left its read-side section.
 *  6. A reader descends with rcu_dereference at every level (acquire: the
 *     child's contents are read after the pointer to it) and treats a NULL
 *     anywhere as "absent".
 *
 * Why that is enough: every slot a reader loads holds either a value some
 * writer published after building it (steps 1, 2), or NULL, and every node
 * a reader can reach stays allocated until it leaves (step 5). So a
 * lookup returns an item that was at that index at some instant during the
 * call, or NULL if at some instant there was none (STYLE.md rule 9): with
 * a concurrent replace it may return the old item after the new one went
 * in. Tags read under RCU are hints: tag_get and the tagged gang lookup
 * may miss a tag being set or report one being cleared (they read tag
 * words with READ_ONCE, and the words change bit by bit).
 *
 * Preallocation. An insert needs up to RADIX_TREE_PRELOAD_SIZE new nodes.
 * radix_tree_preload() fills this CPU's pool that far and returns with
 * preemption off, so the insert that follows under a spinlock takes its
 * nodes from the pool and cannot fail for memory:
 *
 *	if (radix_tree_preload() == 0) {
 *		spin_lock(&lock);
 *		err = radix_tree_insert(&root, index, item);	// 0 or -EEXIST
 *		spin_unlock(&lock);
 *		radix_tree_preload_end();
 *	}
 *
 * Without a preload, insert allocates from the slab (never sleeping) and
 * may return -ENOMEM; either way it changes nothing unless it succeeds.
 */
#ifndef MM_RADIX_TREE_H
#define MM_RADIX_TREE_H

#include "kernel/types.h"
#include "kernel/atomic.h"
#include "kernel/rcu.h"

#define RADIX_TREE_MAP_SHIFT 6
#define RADIX_TREE_MAP_SIZE (1UL << RADIX_TREE_MAP_SHIFT)	/* 64 slots */
#define RADIX_TREE_MAP_MASK (RADIX_TREE_MAP_SIZE - 1)
#define RADIX_TREE_INDEX_BITS (8 * (int)sizeof(unsigned long))
/* Levels needed for every index: ceil(64 / 6) = 11. */
#define RADIX_TREE_MAX_HEIGHT \
	((RADIX_TREE_INDEX_BITS + RADIX_TREE_MAP_SHIFT - 1) / RADIX_TREE_MAP_SHIFT)
#define RADIX_TREE_INDEX_MAX (~0UL)
/*
 * Nodes one insert may need: growing a tree of height 1 to 11 takes ten
 * new top nodes, and the path below the new top to the index ten more.
 */
#define RADIX_TREE_PRELOAD_SIZE (2 * RADIX_TREE_MAX_HEIGHT - 1)

enum radix_tree_tag {
	RADIX_TREE_TAG_DIRTY,
	RADIX_TREE_TAG_WRITEBACK,
	RADIX_TREE_MAX_TAGS
};

/*
 * Lock legend: [I] set before the node is published, never changed after;
 * [R] RCU-published (written by writers with rcu_assign_pointer or
 * WRITE_ONCE, read by lockless readers with rcu_dereference);
 * [A] written by writers with WRITE_ONCE, read locklessly with READ_ONCE
 * (a hint to lockless readers); [L:tree] the caller's writer lock.
 */
struct radix_tree_node {
	unsigned height;			/* [I] 1 for a leaf */
	unsigned count;				/* [L:tree] non-NULL slots */
	struct rcu_head rcu;			/* [L:tree] for call_rcu once unlinked */
	unsigned long tags[RADIX_TREE_MAX_TAGS];	/* [A] bit i: tagged below slot i */
	void *slots[RADIX_TREE_MAP_SIZE];	/* [R] children (height > 1) or items */
};

/* Same legend as struct radix_tree_node. */
struct radix_tree_root {
	unsigned height;		/* [L:tree] writers' copy; readers use rnode->height */
	unsigned nodes;			/* [L:tree] nodes in this tree (tests, gdb) */
	unsigned tags;			/* [A] bit t: some item has tag t */
	struct radix_tree_node *rnode;	/* [R] the top node, NULL when empty */
	const void *lock;		/* [I] the writers' lock, for the checks; NULL: none named */
};

#define RADIX_TREE_ROOT_INIT { 0, 0, 0, NULL, NULL }

/* radix_tree_init: create the node cache. Once at boot after slab_init; later calls do nothing. */
void radix_tree_init(void);

/* radix_tree_init_root: make root an empty tree. No reader may see it yet. */
void radix_tree_init_root(struct radix_tree_root *root);

/*
 * radix_tree_set_lock: name the lock (a spinlock_t or rwlock_t) that
 * serialises root's writers, before anyone uses the tree. The checks then
 * accept it in place of rcu_read_lock for readers, and require it
 * (exclusively) of writers. A tree with no lock named gets the reader
 * check only: its readers must be inside rcu_read_lock.
 */
static inline void radix_tree_set_lock(struct radix_tree_root *root, const void *lock)
{
	root->lock = lock;
}

/* Largest index a tree of each height holds (0 for height 0): a table,
 * so the lookup's bounds check is one load (radix-tree.c fills it). */
extern const unsigned long radix_tree_height_maxindex[RADIX_TREE_MAX_HEIGHT + 1];

static inline unsigned long radix_tree_maxindex(unsigned height)
{
	return radix_tree_height_maxindex[height];
}

/*
 * radix_tree_preload: fill this CPU's node pool for one insert. Returns 0
 * with preemption disabled (end with radix_tree_preload_end), or -ENOMEM
 * with preemption as it was. Never sleeps; call it before taking the lock.
 */
int radix_tree_preload(void);
/* radix_tree_preload_end: re-enable preemption after a successful preload. */
void radix_tree_preload_end(void);

/*
 * radix_tree_insert: put item (non-NULL, else BUG) at index. Returns 0,
 * -EEXIST if index is taken, or -ENOMEM (only without a preload); on error
 * the tree is unchanged. Caller holds the writer lock. Never sleeps.
 */
int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item);

/*
 * radix_tree_delete: remove the item at index and its tags; returns it, or
 * NULL if absent. Emptied nodes go to call_rcu; the tree shrinks. Caller
 * holds the writer lock. Never sleeps.
 */
void *radix_tree_delete(struct radix_tree_root *root, unsigned long index);

/*
 * radix_tree_lookup: the item at index, or NULL. Caller holds the writer
 * lock or rcu_read_lock (then: an item that was there at some instant
 * during the call, step 6).
 */
void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index);

/*
 * radix_tree_lookup_slot: the slot holding index's item, NULL if absent.
 * Under the writer lock the slot stays valid until the lock is dropped and
 * may be passed to radix_tree_replace_slot; under rcu_read_lock only, read
 * it with radix_tree_deref_slot (it may have become NULL since). A slot
 * never moves: grow and shrink (steps 4, 5) change only the nodes above
 * the leaves, and a leaf is unlinked only once every slot in it is NULL.
 * So a slot read again later still holding the item means the item is at
 * index at that later instant (the page cache's recheck, pagecache.h
 * step 4), with no second walk from the top.
 */
void **radix_tree_lookup_slot(struct radix_tree_root *root, unsigned long index);

/*
 * radix_tree_deref_slot: load the item in a slot (step 6). NULL if it was
 * deleted. Unchecked: the lookup_slot that found the slot checked.
 */
static inline void *radix_tree_deref_slot(void **slot)
{
	return rcu_dereference_raw(*slot);
}

/*
 * radix_tree_replace_slot: replace the item in a slot from
 * radix_tree_lookup_slot with item (non-NULL), keeping its tags. Caller
 * holds the writer lock. Readers see the old item or the new (step 2).
 */
void radix_tree_replace_slot(void **slot, void *item);

/*
 * radix_tree_gang_lookup: store up to max items, those at first_index and
 * after, in index order; returns how many. Writer lock or rcu_read_lock
 * (then each item was at its index at some instant during the call).
 */
unsigned radix_tree_gang_lookup(struct radix_tree_root *root, void **results,
				unsigned long first_index, unsigned max_items);

/*
 * radix_tree_next: the first item at *index or after, storing its index in
 * *index; NULL (and *index unchanged) if there is none. Writer lock or
 * rcu_read_lock.
 */
void *radix_tree_next(struct radix_tree_root *root, unsigned long *index);

/*
 * radix_tree_for_each: visit every item in index order; index and item are
 * lvalues (unsigned long, void *). Stops after RADIX_TREE_INDEX_MAX without
 * wrapping. Writer lock or rcu_read_lock around the whole loop.
 */
#define radix_tree_for_each(root, index, item)                                 \
	for ((index) = 0, (item) = radix_tree_next((root), &(index)); (item);   \
	     (item) = (index) == RADIX_TREE_INDEX_MAX                          \
			      ? NULL                                           \
			      : ((index)++, radix_tree_next((root), &(index))))

/*
 * radix_tree_tag_set / radix_tree_tag_clear: set or clear tag on the item
 * at index; return the item, or NULL (and change nothing) if absent.
 * Clearing the last tagged item's tag clears it up to the root. Writer lock.
 */
void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
			 enum radix_tree_tag tag);
void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
			   enum radix_tree_tag tag);

/*
 * radix_tree_tag_get: whether the item at index has tag. Exact under the
 * writer lock; under rcu_read_lock only a hint (may be stale).
 */
bool radix_tree_tag_get(struct radix_tree_root *root, unsigned long index,
			enum radix_tree_tag tag);

/* radix_tree_tagged: whether any item has tag (one load; stale under RCU). */
static inline bool radix_tree_tagged(struct radix_tree_root *root, enum radix_tree_tag tag)
{
	return (READ_ONCE(root->tags) >> tag) & 1;	/* relaxed: a hint, see Tags above */
}

/*
 * radix_tree_gang_lookup_tag: as radix_tree_gang_lookup, only items with
 * tag. Under rcu_read_lock only, tags are hints (see above).
 */
unsigned radix_tree_gang_lookup_tag(struct radix_tree_root *root, void **results,
				    unsigned long first_index, unsigned max_items,
				    enum radix_tree_tag tag);

/*
 * radix_tree_node_count: nodes allocated from the slab and not yet freed
 * back to it, less those waiting in preload pools (so nodes in trees plus
 * nodes waiting for a grace period). Exact only while no writer runs; a
 * test calls rcu_barrier() first to count leaks.
 */
long radix_tree_node_count(void);

#endif
