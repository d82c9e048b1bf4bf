/*
 * radix-tree.c - the RCU-safe radix tree of mm/radix-tree.h (Piggin's
 * lockless radix tree, Linux 2.6.27). The protocol and its numbered steps
 * are in the header; the code below cites them.
 *
 * Writers walk the tree with plain loads (the caller's lock keeps the tree
 * still) and change it with rcu_assign_pointer or WRITE_ONCE, because
 * readers may be loading the same words at the same moment. Readers load
 * every pointer with acquire (rcu_dereference) and every tag word with
 * READ_ONCE; the first load, of the top (step 3), checks the caller's
 * protection (load_top), which then covers the rest of the walk.
 * On x86-64 all four are plain movs: the release and acquire orders bind
 * the compiler (and would bind a weaker machine), TSO does the rest.
 *
 * Lock ordering (this file takes no lock of its own):
 *   caller's tree lock ('tree_lock' for the page cache) -> the node cache's
 *   lock ('radix_tree_node', then the page allocator's 'pcp' and 'zone')
 *       radix_tree_insert -> reserve_nodes -> kmem_cache_alloc.
 *   caller's tree lock -> whatever call_rcu takes (nothing: interrupts off)
 *       radix_tree_delete -> node_free_rcu -> call_rcu.
 *   radix_tree_preload is called before the tree lock and takes only the
 *   slab's lock.
 *
 * Deliberately broken variant (STYLE.md rule 11): the command-line word
 * debug.radix_broken_publish=1 makes insert publish each new leaf before
 * zeroing it, breaking step 1. A reader that finds the leaf in that window
 * reads slab poison as an item, which is what the concurrent tests must
 * catch. Only leaves: a reader that took poison for a node pointer would
 * fault instead of reporting.
 */
#include "mm/radix-tree.h"
#include "mm/slab.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/lockdep.h"

_Static_assert(RADIX_TREE_MAP_SIZE == 8 * sizeof(unsigned long),
	       "one tag word per node covers its slots");
_Static_assert(RADIX_TREE_MAX_TAGS <= 8 * sizeof(unsigned), "root tag bits fit");

#define ANY_ITEM (-1)	/* gang lookups: every item, not only tagged ones */

CMDLINE_KEY(radix_broken_publish, "debug.radix_broken_publish",
	    "test of the tests: publish new radix-tree leaves before zeroing them");

/*
 * Lock legend: [I] set by radix_tree_init; [A] atomic; [P] private to its
 * CPU, changed only with preemption off (radix_tree_node_count reads it
 * racily, for a statistic).
 */
static struct kmem_cache *node_cache;	/* [I] */
static bool broken_publish;		/* [I] debug.radix_broken_publish */
static atomic_t nodes_allocated;	/* [A] from the slab, not yet freed back */

struct radix_tree_preload {
	int nr;							/* [P] nodes in the pool */
	struct radix_tree_node *nodes[RADIX_TREE_PRELOAD_SIZE];	/* [P] not initialised */
};
static struct radix_tree_preload preloads[MAX_CPUS];

/* A writer's path from the top: path[0] is the top node, path[height-1] the leaf. */
struct radix_path {
	struct radix_tree_node *node;
	unsigned off;
};

/* Nodes set aside for one insert before it changes anything. */
struct node_reserve {
	int n;
	struct radix_tree_node *nodes[RADIX_TREE_PRELOAD_SIZE];
};

/* ------------------------------------------------------------ index arithmetic */

/* Which slot of a node at this shift (6 * (height - 1)) index falls in. */
static inline unsigned slot_offset(unsigned long index, unsigned shift)
{
	return (index >> shift) & RADIX_TREE_MAP_MASK;
}

/* The low `bits` bits set (all 64 when bits >= 64). */
static inline unsigned long low_mask(unsigned bits)
{
	return bits >= RADIX_TREE_INDEX_BITS ? ~0UL : (1UL << bits) - 1;
}

/* Smallest height (at least 1) whose tree holds index. */
static unsigned height_for(unsigned long index)
{
	unsigned h = 1;

	while (radix_tree_maxindex(h) < index)
		h++;
	return h;
}

/* Move *i to the first index past the aligned block of 2^bits holding it; false on wrap. */
static bool skip_past(unsigned long *i, unsigned bits)
{
	unsigned long next = (*i | low_mask(bits)) + 1;

	if (next == 0)
		return false;
	*i = next;
	return true;
}

/* ------------------------------------------------------------ node memory */

void radix_tree_init(void)
{
	const char *broken;

	if (node_cache)
		return;
	node_cache = kmem_cache_create("radix_tree_node", sizeof(struct radix_tree_node), 0);
	BUG_ON(!node_cache, "radix: no memory for the node cache");
	broken = cmdline_get("debug.radix_broken_publish");
	broken_publish = broken && strcmp(broken, "0") != 0;
	if (broken_publish)
		pr_warn("radix: debug.radix_broken_publish: leaves are published before zeroing");
}

void radix_tree_init_root(struct radix_tree_root *root)
{
	root->height = 0;
	root->nodes = 0;
	root->tags = 0;
	root->rnode = NULL;
	root->lock = NULL;
}

/* ------------------------------------------------------------ the checks */

/* A reader's alternative to rcu_read_lock: the tree's lock, either side. */
static inline bool reader_holds_lock(const struct radix_tree_root *root)
{
	return root->lock && lockdep_is_held(root->lock);
}

/* Step 3, checked: the one load every reader starts from. */
#define load_top(root) rcu_dereference_check(root->rnode, reader_holds_lock(root))

/* Writers hold the tree's lock exclusively, when one is named. */
#define assert_writer(root) \
	lockdep_assert(!(root)->lock || lockdep_is_held_exclusive((root)->lock))

static struct radix_tree_node *node_alloc(void)
{
	struct radix_tree_node *node = kmem_cache_alloc(node_cache);

	if (node)
		atomic_inc(&nodes_allocated);	/* lock add; a counter, no order needed */
	return node;
}

static void node_free_now(struct radix_tree_node *node)
{
	atomic_dec(&nodes_allocated);	/* lock add; a counter */
	kmem_cache_free(node_cache, node);
}

static void node_free_cb(struct rcu_head *head)
{
	node_free_now(container_of(head, struct radix_tree_node, rcu));
}

/* Step 5: a node just unlinked from root's tree is freed after a grace period. */
static void node_free_rcu(struct radix_tree_root *root, struct radix_tree_node *node)
{
	root->nodes--;
	call_rcu(&node->rcu, node_free_cb);
}

/* Step 1: everything a reader may look at, set before the node is published. */
static void node_init(struct radix_tree_node *node, unsigned height)
{
	memset(node, 0, sizeof(*node));
	node->height = height;
}

int radix_tree_preload(void)
{
	struct radix_tree_preload *pool;

	preempt_disable();
	pool = &preloads[smp_processor_id()];
	while (pool->nr < RADIX_TREE_PRELOAD_SIZE) {
		struct radix_tree_node *node = node_alloc();	/* never sleeps */
		if (!node) {
			preempt_enable();
			return -ENOMEM;
		}
		pool->nodes[pool->nr] = node;
		/* Relaxed: only radix_tree_node_count reads it from elsewhere. */
		WRITE_ONCE(pool->nr, pool->nr + 1);
	}
	return 0;
}

void radix_tree_preload_end(void)
{
	preempt_enable();
}

/*
 * Set aside `need` nodes, from this CPU's preload pool first, then the
 * slab. All or nothing: on failure every node taken goes back to the slab.
 */
static bool reserve_nodes(struct node_reserve *res, int need)
{
	struct radix_tree_preload *pool;

	res->n = 0;
	preempt_disable();	/* the pool is this CPU's: stay on it */
	pool = &preloads[smp_processor_id()];
	while (res->n < need && pool->nr > 0) {
		WRITE_ONCE(pool->nr, pool->nr - 1);
		res->nodes[res->n++] = pool->nodes[pool->nr];
	}
	preempt_enable();
	while (res->n < need) {
		struct radix_tree_node *node = node_alloc();
		if (!node) {
			while (res->n > 0)
				node_free_now(res->nodes[--res->n]);
			return false;
		}
		res->nodes[res->n++] = node;
	}
	return true;
}

static struct radix_tree_node *reserve_take(struct node_reserve *res)
{
	BUG_ON(res->n == 0, "radix: insert needed more nodes than it counted");
	return res->nodes[--res->n];
}

long radix_tree_node_count(void)
{
	long n = atomic_read(&nodes_allocated);	/* relaxed: a statistic */

	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		n -= READ_ONCE(preloads[cpu].nr);	/* relaxed: a statistic */
	return n;
}

/* ------------------------------------------------------------ insert */

/* New nodes an insert at index takes, or -EEXIST. Writer lock held. */
static int nodes_needed(struct radix_tree_root *root, unsigned long index)
{
	unsigned want = height_for(index);
	struct radix_tree_node *node = root->rnode;

	if (!node)
		return want;
	if (want > root->height)	/* new tops, then a new path under slot != 0 */
		return (want - root->height) + (want - 1);
	for (unsigned shift = (root->height - 1) * RADIX_TREE_MAP_SHIFT;;
	     shift -= RADIX_TREE_MAP_SHIFT) {
		void *next = node->slots[slot_offset(index, shift)];
		if (!next)	/* every level below this one is missing */
			return shift / RADIX_TREE_MAP_SHIFT;
		if (shift == 0)
			return -EEXIST;
		node = next;
	}
}

/* The first node of an empty tree: its top, of the height index needs. */
static void plant_top(struct radix_tree_root *root, struct radix_tree_node *node,
		      unsigned height)
{
	node_init(node, height);
	rcu_assign_pointer(root->rnode, node);	/* step 1: release after the init */
	root->height = height;
	root->nodes++;
}

/* Step 4: a new top whose slot 0 is the old top, published once complete. */
static void grow(struct radix_tree_root *root, struct radix_tree_node *node)
{
	node_init(node, root->height + 1);
	node->slots[0] = root->rnode;	/* plain: nobody can see node yet */
	node->count = 1;
	for (int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		if ((root->tags >> t) & 1)	/* all tagged items are under slot 0 */
			node->tags[t] = 1;
	rcu_assign_pointer(root->rnode, node);	/* step 1: release after the init */
	root->height++;
	root->nodes++;
}

/* Hang a new node of this height in parent's slot off (step 1). */
static void publish_child(struct radix_tree_root *root, struct radix_tree_node *parent,
			  unsigned off, struct radix_tree_node *child, unsigned height)
{
	if (broken_publish && height == 1) {
		/* Deliberately wrong (see the top of this file): publish, then init. */
		rcu_assign_pointer(parent->slots[off], child);
		node_init(child, height);
	} else {
		node_init(child, height);
		rcu_assign_pointer(parent->slots[off], child);	/* release after the init */
	}
	parent->count++;
	root->nodes++;
}

/* Descend to index's leaf, adding missing nodes, and publish item there. */
static void insert_path(struct radix_tree_root *root, unsigned long index, void *item,
			struct node_reserve *res)
{
	struct radix_tree_node *node = root->rnode;
	unsigned shift = (root->height - 1) * RADIX_TREE_MAP_SHIFT;

	while (shift > 0) {
		unsigned off = slot_offset(index, shift);
		struct radix_tree_node *child = node->slots[off];
		if (!child) {
			child = reserve_take(res);
			publish_child(root, node, off, child, shift / RADIX_TREE_MAP_SHIFT);
		}
		node = child;
		shift -= RADIX_TREE_MAP_SHIFT;
	}
	rcu_assign_pointer(node->slots[index & RADIX_TREE_MAP_MASK], item);	/* step 2 */
	node->count++;
}

int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
	struct node_reserve res;
	int need;

	BUG_ON(item == NULL, "radix: NULL is not an item");
	assert_writer(root);
	need = nodes_needed(root, index);
	if (need < 0)
		return need;
	if (!reserve_nodes(&res, need))
		return -ENOMEM;
	if (!root->rnode)
		plant_top(root, reserve_take(&res), height_for(index));
	while (index > radix_tree_maxindex(root->height))
		grow(root, reserve_take(&res));
	insert_path(root, index, item, &res);
	BUG_ON(res.n != 0, "radix: insert counted more nodes than it used");
	return 0;
}

/* ------------------------------------------------------------ writers: walk, tags, delete */

/*
 * Record the path to index in path[0 .. root->height - 1]; true if an item
 * is there. Writer lock held, so plain loads.
 */
static bool walk_path(struct radix_tree_root *root, unsigned long index,
		      struct radix_path *path)
{
	struct radix_tree_node *node = root->rnode;
	unsigned shift;

	assert_writer(root);	/* tag_set, tag_clear, delete */
	if (!node || index > radix_tree_maxindex(root->height))
		return false;
	shift = (root->height - 1) * RADIX_TREE_MAP_SHIFT;
	for (int level = 0;; level++, shift -= RADIX_TREE_MAP_SHIFT) {
		void *next;
		path[level].node = node;
		path[level].off = slot_offset(index, shift);
		next = node->slots[path[level].off];
		if (!next)
			return false;
		if (shift == 0)
			return true;
		node = next;
	}
}

static inline bool tag_bit(const struct radix_tree_node *node, int tag, unsigned off)
{
	return (READ_ONCE(node->tags[tag]) >> off) & 1;	/* relaxed: a hint to readers */
}

/* Tag words change with WRITE_ONCE: lockless readers load them concurrently. */
static inline void tag_write(struct radix_tree_node *node, int tag, unsigned long word)
{
	WRITE_ONCE(node->tags[tag], word);
}

static void root_tag_write(struct radix_tree_root *root, unsigned tags)
{
	WRITE_ONCE(root->tags, tags);	/* relaxed: a hint (radix_tree_tagged) */
}

void *radix_tree_tag_set(struct radix_tree_root *root, unsigned long index,
			 enum radix_tree_tag tag)
{
	struct radix_path path[RADIX_TREE_MAX_HEIGHT];
	int leaf = (int)root->height - 1;

	BUG_ON((unsigned)tag >= RADIX_TREE_MAX_TAGS, "radix: bad tag");
	if (!walk_path(root, index, path))
		return NULL;
	/* Leaf first: a reader that sees a bit above then finds it below (hints only). */
	for (int level = leaf; level >= 0; level--) {
		struct radix_tree_node *node = path[level].node;
		if (tag_bit(node, tag, path[level].off))
			break;	/* set here, so set all the way up */
		tag_write(node, tag, node->tags[tag] | (1UL << path[level].off));
	}
	root_tag_write(root, root->tags | (1U << tag));
	return path[leaf].node->slots[path[leaf].off];
}

/* Clear tag along path from the leaf up, stopping where something else is tagged. */
static void clear_tag_path(struct radix_tree_root *root, struct radix_path *path,
			   int leaf, int tag)
{
	for (int level = leaf; level >= 0; level--) {
		struct radix_tree_node *node = path[level].node;
		tag_write(node, tag, node->tags[tag] & ~(1UL << path[level].off));
		if (node->tags[tag])
			return;
	}
	root_tag_write(root, root->tags & ~(1U << tag));
}

void *radix_tree_tag_clear(struct radix_tree_root *root, unsigned long index,
			   enum radix_tree_tag tag)
{
	struct radix_path path[RADIX_TREE_MAX_HEIGHT];
	int leaf = (int)root->height - 1;

	BUG_ON((unsigned)tag >= RADIX_TREE_MAX_TAGS, "radix: bad tag");
	if (!walk_path(root, index, path))
		return NULL;
	clear_tag_path(root, path, leaf, tag);
	return path[leaf].node->slots[path[leaf].off];
}

/*
 * After the slot at path[level] was emptied: count it, and unlink and free
 * (step 5) every node the removal leaves empty, bottom up.
 */
static void prune(struct radix_tree_root *root, struct radix_path *path, int level)
{
	for (; level >= 0; level--) {
		struct radix_tree_node *node = path[level].node;
		if (--node->count > 0)
			return;
		for (int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
			BUG_ON(node->tags[t] != 0, "radix: empty node still tagged");
		if (level == 0) {
			WRITE_ONCE(root->rnode, NULL);	/* NULL publishes nothing: relaxed */
			root->height = 0;
		} else {
			WRITE_ONCE(path[level - 1].node->slots[path[level - 1].off], NULL);
		}
		node_free_rcu(root, node);
	}
}

/* Step 5: while the top uses only slot 0, make its child the top. */
static void shrink(struct radix_tree_root *root)
{
	while (root->height > 1) {
		struct radix_tree_node *top = root->rnode;
		if (top->count != 1 || !top->slots[0])
			return;
		/* The child is long published; release costs nothing on x86-64. */
		rcu_assign_pointer(root->rnode, (struct radix_tree_node *)top->slots[0]);
		root->height--;
		node_free_rcu(root, top);	/* left intact for readers still on it */
	}
}

void *radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
	struct radix_path path[RADIX_TREE_MAX_HEIGHT];
	int leaf = (int)root->height - 1;
	struct radix_tree_node *node;
	void *item;

	if (!walk_path(root, index, path))
		return NULL;
	node = path[leaf].node;
	item = node->slots[path[leaf].off];
	for (int t = 0; t < RADIX_TREE_MAX_TAGS; t++)
		if (tag_bit(node, t, path[leaf].off))
			clear_tag_path(root, path, leaf, t);
	WRITE_ONCE(node->slots[path[leaf].off], NULL);	/* NULL publishes nothing: relaxed */
	prune(root, path, leaf);
	shrink(root);
	return item;
}

void radix_tree_replace_slot(void **slot, void *item)
{
	BUG_ON(item == NULL, "radix: replace with NULL (use radix_tree_delete)");
	rcu_assign_pointer(*slot, item);	/* step 2: the new item's contents first */
}

/* ------------------------------------------------------------ readers */

/* (1 << 6h) - 1, the low 6h bits set, for 0 < h < 11; height 11 has all 64. */
#define MAXINDEX(h) (RADIX_TREE_INDEX_MAX >> (RADIX_TREE_INDEX_BITS - (h) * RADIX_TREE_MAP_SHIFT))
const unsigned long radix_tree_height_maxindex[RADIX_TREE_MAX_HEIGHT + 1] = {
	0, MAXINDEX(1), MAXINDEX(2), MAXINDEX(3), MAXINDEX(4), MAXINDEX(5),
	MAXINDEX(6), MAXINDEX(7), MAXINDEX(8), MAXINDEX(9), MAXINDEX(10), RADIX_TREE_INDEX_MAX,
};
_Static_assert(RADIX_TREE_MAX_HEIGHT == 11, "radix_tree_height_maxindex has 12 entries");

/*
 * Steps 3 and 6: the leaf slot for index, or NULL if a node on the way is
 * missing. Writer lock or rcu_read_lock. Inlined into both lookups: it is
 * the whole of a page-cache hit's walk, and a call would cost it a
 * prologue and an epilogue more.
 */
static inline __attribute__((always_inline)) void **descend(struct radix_tree_root *root,
							    unsigned long index)
{
	struct radix_tree_node *node = load_top(root);	/* step 3 */
	unsigned shift;

	if (!node || index > radix_tree_maxindex(node->height))
		return NULL;
	for (shift = (node->height - 1) * RADIX_TREE_MAP_SHIFT; shift > 0;
	     shift -= RADIX_TREE_MAP_SHIFT) {
		node = rcu_dereference_raw(node->slots[slot_offset(index, shift)]);	/* step 6 */
		if (!node)
			return NULL;
	}
	return &node->slots[index & RADIX_TREE_MAP_MASK];
}

void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index)
{
	void **slot = descend(root, index);

	return slot ? rcu_dereference_raw(*slot) : NULL;	/* step 6 */
}

void **radix_tree_lookup_slot(struct radix_tree_root *root, unsigned long index)
{
	void **slot = descend(root, index);

	if (!slot || !rcu_dereference_raw(*slot))
		return NULL;
	return slot;
}

bool radix_tree_tag_get(struct radix_tree_root *root, unsigned long index,
			enum radix_tree_tag tag)
{
	struct radix_tree_node *node = load_top(root);	/* step 3 */
	unsigned shift;

	BUG_ON((unsigned)tag >= RADIX_TREE_MAX_TAGS, "radix: bad tag");
	if (!node || index > radix_tree_maxindex(node->height))
		return false;
	for (shift = (node->height - 1) * RADIX_TREE_MAP_SHIFT;;
	     shift -= RADIX_TREE_MAP_SHIFT) {
		unsigned off = slot_offset(index, shift);
		if (!tag_bit(node, tag, off))
			return false;
		if (shift == 0)
			return true;
		node = rcu_dereference_raw(node->slots[off]);	/* step 6 */
		if (!node)
			return false;
	}
}

/* First offset >= off in node with an item or child (or with tag set). */
static unsigned first_used(const struct radix_tree_node *node, unsigned off, int tag)
{
	if (tag != ANY_ITEM) {
		unsigned long bits = READ_ONCE(node->tags[tag]) & (~0UL << off);
		return bits ? (unsigned)__builtin_ctzl(bits) : RADIX_TREE_MAP_SIZE;
	}
	for (; off < RADIX_TREE_MAP_SIZE; off++)
		if (READ_ONCE(node->slots[off]))	/* only NULL-ness; reloaded below */
			return off;
	return RADIX_TREE_MAP_SIZE;
}

/*
 * The leaf holding the first item (with tag, unless ANY_ITEM) at *index or
 * after, with *index moved to that item's index; NULL if there is none.
 * Descends from top, the top node the caller loaded once (step 3); a
 * subtree found empty on the way (a concurrent delete, a stale tag) is
 * skipped and the descent restarts from top.
 */
static struct radix_tree_node *next_leaf(struct radix_tree_node *top, unsigned long *index,
					 int tag)
{
	unsigned top_shift = (top->height - 1) * RADIX_TREE_MAP_SHIFT;
	unsigned long i = *index;

restart:
	if (i > radix_tree_maxindex(top->height))
		return NULL;
	struct radix_tree_node *node = top;
	for (unsigned shift = top_shift;; shift -= RADIX_TREE_MAP_SHIFT) {
		unsigned off = slot_offset(i, shift);
		unsigned next = first_used(node, off, tag);
		if (next == RADIX_TREE_MAP_SIZE) {	/* nothing left in this node */
			if (node == top || !skip_past(&i, shift + RADIX_TREE_MAP_SHIFT))
				return NULL;
			goto restart;
		}
		if (next != off)	/* jump to the start of slot next */
			i = (i & ~low_mask(shift + RADIX_TREE_MAP_SHIFT)) |
			    ((unsigned long)next << shift);
		if (shift == 0) {
			*index = i;
			return node;
		}
		node = rcu_dereference_raw(node->slots[next]);	/* step 6 */
		if (!node) {
			if (!skip_past(&i, shift))
				return NULL;
			goto restart;
		}
	}
}

/*
 * Up to max items (with tag, unless ANY_ITEM) at first and after, in index
 * order; their indices too when indices is not NULL. Returns how many.
 */
static unsigned gang(struct radix_tree_root *root, void **results, unsigned long *indices,
		     unsigned long first, unsigned max, int tag)
{
	struct radix_tree_node *top = load_top(root);	/* step 3 */
	unsigned long i = first;
	unsigned n = 0;

	if (!top)
		return 0;
	while (n < max) {
		struct radix_tree_node *leaf = next_leaf(top, &i, tag);
		unsigned off;
		if (!leaf)
			break;
		for (off = i & RADIX_TREE_MAP_MASK; off < RADIX_TREE_MAP_SIZE && n < max; off++) {
			void *item;
			if (tag != ANY_ITEM && !tag_bit(leaf, tag, off))
				continue;
			item = rcu_dereference_raw(leaf->slots[off]);	/* step 6 */
			if (!item)
				continue;
			results[n] = item;
			if (indices)
				indices[n] = (i & ~RADIX_TREE_MAP_MASK) | off;
			n++;
		}
		if (off < RADIX_TREE_MAP_SIZE || !skip_past(&i, RADIX_TREE_MAP_SHIFT))
			break;	/* full, or that was the last leaf an index can reach */
	}
	return n;
}

unsigned radix_tree_gang_lookup(struct radix_tree_root *root, void **results,
				unsigned long first_index, unsigned max_items)
{
	return gang(root, results, NULL, first_index, max_items, ANY_ITEM);
}

unsigned radix_tree_gang_lookup_tag(struct radix_tree_root *root, void **results,
				    unsigned long first_index, unsigned max_items,
				    enum radix_tree_tag tag)
{
	BUG_ON((unsigned)tag >= RADIX_TREE_MAX_TAGS, "radix: bad tag");
	return gang(root, results, NULL, first_index, max_items, tag);
}

void *radix_tree_next(struct radix_tree_root *root, unsigned long *index)
{
	unsigned long at;
	void *item;

	if (gang(root, &item, &at, *index, 1, ANY_ITEM) == 0)
		return NULL;
	*index = at;
	return item;
}
