/*
 * inode.c - the inode cache: one struct inode per (super_block, ino).
 *
 * A hash table finds cached inodes; icache_lock (a leaf spinlock) guards
 * the hash, the lists, every inode's state and the moves of its count
 * between 0 and 1. An inode whose last reference goes stays cached on an
 * unused list (its pages stay in the page cache, so reading a file twice
 * reads the disk once) until more than ICACHE_MAX_UNUSED pile up; the
 * oldest is then written back and dropped. An inode with no links left is
 * freed on disk at its last iput (evict_inode), as Unix has always done
 * for a file unlinked while open.
 *
 * Lookups take the lock: an inode lookup is once per path component, and
 * the lockless part of this kernel is the page cache underneath, where a
 * read spends its time.
 *
 * Also here, at the end: the count of O_DIRECT I/O in flight on an inode,
 * which a truncation waits for (fs/vfs.h, "Direct I/O against truncation").
 */
#include "fs/vfs.h"
#include "mm/slab.h"
#include "kernel/wait.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"
#include "kernel/lockdep.h"

#define ICACHE_HASH 1024
#define ICACHE_MAX_UNUSED 1024

static spinlock_t icache_lock = SPINLOCK_INIT("icache");
static struct list_head hash[ICACHE_HASH];	/* [C] */
static LIST_HEAD(unused);			/* [C] count == 0, oldest at the tail */
static unsigned long nr_inodes, nr_unused;	/* [C] */
static struct wait_queue_head icache_wq;	/* I_NEW and I_FREEING clearing */

static void inode_dio_init(void);

void vfs_icache_init(void)
{
	for (int i = 0; i < ICACHE_HASH; i++)
		list_init(&hash[i]);
	init_waitqueue_head(&icache_wq);
	inode_dio_init();
}

static struct list_head *bucket(struct super_block *sb, u32 ino)
{
	return &hash[((unsigned long)sb / 64 + ino * 0x9e3779b1u) % ICACHE_HASH];
}

/* icache_lock held. */
static struct inode *find(struct super_block *sb, u32 ino)
{
	struct list_head *b = bucket(sb, ino);

	for (struct list_head *p = b->next; p != b; p = p->next) {
		struct inode *inode = list_entry(p, struct inode, hash_link);
		if (inode->sb == sb && inode->ino == ino)
			return inode;
	}
	return NULL;
}

static struct inode *alloc(struct super_block *sb, u32 ino)
{
	struct inode *inode = sb->s_op->alloc_inode(sb);
	if (!inode)
		return NULL;
	inode->sb = sb;
	inode->ino = ino;
	inode->state = I_NEW;
	atomic_set(&inode->count, 1);
	atomic_set(&inode->i_dio, 0);
	mutex_init(&inode->i_mutex, "i_mutex");
	list_init(&inode->hash_link);
	list_init(&inode->sb_link);
	list_init(&inode->lru_link);
	return inode;
}

/* icache_lock held. */
static void hash_in(struct inode *inode)
{
	list_add(&inode->hash_link, bucket(inode->sb, inode->ino));
	list_add(&inode->sb_link, &inode->sb->inodes);
	nr_inodes++;
}

static void unhash_and_destroy(struct inode *inode)
{
	spin_lock(&icache_lock);
	list_del(&inode->hash_link);
	list_del(&inode->sb_link);
	nr_inodes--;
	spin_unlock(&icache_lock);
	wake_up_all(&icache_wq);
	inode->sb->s_op->destroy_inode(inode);
}

/* Wait until (sb, ino) is neither being read nor being freed; icache_lock
 * held on entry and on return. Returns the settled inode, or NULL. */
static struct inode *find_settled(struct super_block *sb, u32 ino)
{
	for (;;) {
		struct inode *inode = find(sb, ino);
		if (!inode || !(inode->state & (I_NEW | I_FREEING)))
			return inode;
		spin_unlock(&icache_lock);
		wait_event(icache_wq, ({
			spin_lock(&icache_lock);
			struct inode *i = find(sb, ino);
			bool settled = i != inode || !(i->state & (I_NEW | I_FREEING));
			spin_unlock(&icache_lock);
			settled;
		}));
		spin_lock(&icache_lock);
	}
}

/* icache_lock held: take a reference, off the unused list if it was there. */
static void __iget(struct inode *inode)
{
	if (atomic_inc_return(&inode->count) == 1) {
		list_del(&inode->lru_link);
		list_init(&inode->lru_link);
		nr_unused--;
	}
}

struct inode *iget(struct super_block *sb, u32 ino)
{
	spin_lock(&icache_lock);
	struct inode *inode = find_settled(sb, ino);
	if (inode) {
		__iget(inode);
		spin_unlock(&icache_lock);
		if (inode->state & I_BAD) {
			iput(inode);
			return ERR_PTR(-EIO);
		}
		return inode;
	}
	spin_unlock(&icache_lock);

	struct inode *fresh = alloc(sb, ino);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	spin_lock(&icache_lock);
	inode = find_settled(sb, ino);
	if (inode) {			/* someone read it in meanwhile */
		__iget(inode);
		spin_unlock(&icache_lock);
		sb->s_op->destroy_inode(fresh);
		return inode;
	}
	hash_in(fresh);
	spin_unlock(&icache_lock);

	int e = sb->s_op->read_inode(fresh);
	if (e) {
		unhash_and_destroy(fresh);	/* waiters look again and retry the read */
		return ERR_PTR(e);
	}
	inode_publish(fresh);
	return fresh;
}

struct inode *new_inode(struct super_block *sb, u32 ino)
{
	struct inode *inode = alloc(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	spin_lock(&icache_lock);
	/* The number may belong to an inode still being freed: wait it out. */
	if (find_settled(sb, ino)) {
		/* Still there: in use. A disk whose bitmap says otherwise is
		 * damaged, which the file system reports; not a kernel bug. */
		spin_unlock(&icache_lock);
		sb->s_op->destroy_inode(inode);
		return ERR_PTR(-EEXIST);
	}
	hash_in(inode);
	spin_unlock(&icache_lock);
	return inode;
}

void inode_publish(struct inode *inode)
{
	spin_lock(&icache_lock);
	inode->state &= ~I_NEW;
	spin_unlock(&icache_lock);
	wake_up_all(&icache_wq);
}

struct inode *igrab(struct inode *inode)
{
	spin_lock(&icache_lock);
	if (inode->state & (I_NEW | I_FREEING)) {
		spin_unlock(&icache_lock);
		return NULL;
	}
	__iget(inode);
	spin_unlock(&icache_lock);
	return inode;
}

int mark_inode_dirty(struct inode *inode)
{
	if (inode->sb->rdonly || (inode->state & I_BAD))
		return 0;
	return inode->sb->s_op->write_inode(inode);
}

/* Drop a cached inode that nobody uses: write it back, then forget it. */
static void prune(struct inode *inode)
{
	filemap_write_and_wait(&inode->mapping);
	mark_inode_dirty(inode);
	truncate_inode_pages(&inode->mapping, 0);
	unhash_and_destroy(inode);
}

/* Free an unlinked inode on disk at its last reference. */
static void evict(struct inode *inode)
{
	/* Direct I/O holds an open file, so none is in flight (fs/vfs.h). */
	BUG_ON(atomic_read(&inode->i_dio), "eviction of an inode with direct I/O in flight");
	truncate_inode_pages(&inode->mapping, 0);	/* its data need never be written */
	if (!inode->sb->rdonly && !(inode->state & I_BAD))
		inode->sb->s_op->evict_inode(inode);
	unhash_and_destroy(inode);
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	BUG_ON(IS_ERR(inode), "iput of an error pointer: a failed lookup holds no reference");
	spin_lock(&icache_lock);
	BUG_ON(atomic_read(&inode->count) <= 0, "iput of an inode with no references");
	if (atomic_dec_return(&inode->count) > 0) {
		spin_unlock(&icache_lock);
		return;
	}
	if (inode->nlink == 0 || (inode->state & I_BAD)) {
		inode->state |= I_FREEING;
		spin_unlock(&icache_lock);
		evict(inode);
		return;
	}
	list_add(&inode->lru_link, &unused);
	nr_unused++;
	struct inode *victim = NULL;
	if (nr_unused > ICACHE_MAX_UNUSED) {
		victim = list_entry(unused.prev, struct inode, lru_link);
		list_del(&victim->lru_link);
		list_init(&victim->lru_link);
		nr_unused--;
		victim->state |= I_FREEING;
	}
	spin_unlock(&icache_lock);
	if (victim)
		prune(victim);
}

/*
 * Every cached inode of sb, each with a reference, in a kmalloc'd array
 * (*n of them); the caller iputs each and kfrees the array. NULL if empty
 * or out of memory.
 */
struct inode **icache_grab_all(struct super_block *sb, unsigned long *n)
{
	for (;;) {
		spin_lock(&icache_lock);
		unsigned long want = nr_inodes;
		spin_unlock(&icache_lock);
		struct inode **v = kmalloc((want + 1) * sizeof(*v));
		if (!v) {
			*n = 0;
			return NULL;
		}
		unsigned long got = 0;
		spin_lock(&icache_lock);
		if (nr_inodes > want) {		/* grew meanwhile: size again */
			spin_unlock(&icache_lock);
			kfree(v);
			continue;
		}
		for (struct list_head *p = sb->inodes.next; p != &sb->inodes; p = p->next) {
			struct inode *inode = list_entry(p, struct inode, sb_link);
			if (inode->state & (I_NEW | I_FREEING))
				continue;
			__iget(inode);
			v[got++] = inode;
		}
		spin_unlock(&icache_lock);
		*n = got;
		return v;
	}
}

/* Drop every unused inode of sb (unmount). Returns how many stay in use. */
unsigned long icache_prune_sb(struct super_block *sb)
{
	for (;;) {
		struct inode *victim = NULL;
		unsigned long busy = 0;
		spin_lock(&icache_lock);
		for (struct list_head *p = sb->inodes.next; p != &sb->inodes; p = p->next) {
			struct inode *inode = list_entry(p, struct inode, sb_link);
			if (inode->state & (I_NEW | I_FREEING) || atomic_read(&inode->count)) {
				busy++;
				continue;
			}
			victim = inode;
			list_del(&victim->lru_link);
			list_init(&victim->lru_link);
			nr_unused--;
			victim->state |= I_FREEING;
			break;
		}
		spin_unlock(&icache_lock);
		if (!victim)
			return busy;
		prune(victim);
	}
}

void icache_counts(unsigned long *total, unsigned long *unused_out)
{
	spin_lock(&icache_lock);
	*total = nr_inodes;
	*unused_out = nr_unused;
	spin_unlock(&icache_lock);
}

/* ------------------------------------------------------------ direct I/O in flight */

CMDLINE_KEY(dio_no_wait, "dio.debug_no_wait",
	    "test of the tests: truncation frees blocks without waiting for O_DIRECT I/O in flight");
CMDLINE_KEY(dio_delay, "dio.debug_delay_ms",
	    "widen an O_DIRECT read's window between its block lookup and the disk read: sleep N ms");

static struct {
	bool no_wait;		/* dio.debug_no_wait: skip steps T2, T3 and T5 */
	unsigned delay_ms;	/* dio.debug_delay_ms */
} dio_cfg;			/* [I] after inode_dio_init */

/* Truncations asleep in step T3, each until its own inode's i_dio drains.
 * One queue for every inode: it is touched only while a truncation waits. */
static struct wait_queue_head dio_drained = WAIT_QUEUE_HEAD_INIT(dio_drained);

static void inode_dio_init(void)
{
	dio_cfg.no_wait = cmdline_get("dio.debug_no_wait") != NULL;
	dio_cfg.delay_ms = (unsigned)cmdline_get_u64("dio.debug_delay_ms", 0);
	if (dio_cfg.no_wait)
		pr_warn("dio: truncation does not wait for O_DIRECT I/O (a test of the tests)");
}

void inode_dio_debug_window(void)
{
	if (dio_cfg.delay_ms)
		msleep(dio_cfg.delay_ms);
}

bool inode_dio_begin(struct inode *inode)
{
	/* vfs.h, dio step D1: a lock xadd, ordered against T2 and T5. */
	int v = atomic_inc_return(&inode->i_dio);
	if (!(v & DIO_BLOCKED))
		return true;
	inode_dio_end(inode);		/* step D2: a truncation is on; undo D1 */
	return false;
}

void inode_dio_end(struct inode *inode)
{
	/* Step D4. Only a truncation in T3 leaves DIO_BLOCKED alone in the
	 * word, so the wait queue's lock is taken only when one waits. */
	if (atomic_dec_return(&inode->i_dio) == DIO_BLOCKED)
		wake_up_all(&dio_drained);
}

void inode_dio_block(struct inode *inode)
{
	lockdep_assert_held(&inode->i_mutex);
	if (dio_cfg.no_wait)
		return;			/* deliberately broken: frees under readers */
	int v = atomic_add_return(&inode->i_dio, DIO_BLOCKED);	/* step T2 */
	BUG_ON(v < DIO_BLOCKED, "i_dio: DIO_BLOCKED was set already (two truncations at once)");
	/* Step T3; wait.h's protocol against D4's wake-up. */
	wait_event(dio_drained, atomic_read(&inode->i_dio) == DIO_BLOCKED);
}

void inode_dio_unblock(struct inode *inode)
{
	if (dio_cfg.no_wait)
		return;
	atomic_add_return(&inode->i_dio, -DIO_BLOCKED);		/* step T5 */
}
