/*
 * shmem.c - the memory behind MAP_SHARED|MAP_ANONYMOUS: an unlinked
 * inode whose pages live only in its page cache.
 *
 * Each such mmap gets an inode of its own on a super_block that is never
 * mounted, sized to the mapping, with no name (nlink 0). A page is made
 * on the first fault at its offset (readpage zeroes it), by whichever
 * process sharing the mapping touches it first; fork's copies of the VMA
 * hold the same inode, so every page, made before or after the fork, is
 * found in the same cache. The last VMA's iput evicts the inode, and
 * truncation frees its pages. So mmap of a huge region costs one inode
 * until it is touched (Linux's shmem, without swap).
 *
 * There is no backing store: the pages never go on the LRU (the mapping
 * is unevictable), reclaim never sees them, and nothing writes them back
 * (no writepage; msync skips such a mapping).
 */
#include "fs/vfs.h"
#include "mm/slab.h"
#include "mm/page.h"
#include "kernel/string.h"

static struct kmem_cache *shmem_cache;	/* [I] after shmem_init */
static atomic_t next_ino = ATOMIC_INIT(1);

/* A page nobody has touched yet reads as zeros. */
static int shmem_readpage(struct address_space *m, struct page *page)
{
	memset(page_address(page), 0, PAGE_SIZE);
	set_bit(PG_uptodate, &page->flags);
	unlock_page(page);
	return 0;
}

static const struct address_space_ops shmem_aops = {
	.readpage = shmem_readpage,
};

static struct inode *shmem_alloc_inode(struct super_block *sb)
{
	struct inode *inode = kmem_cache_zalloc(shmem_cache);
	if (!inode)
		return NULL;
	address_space_init(&inode->mapping, &shmem_aops, inode);
	inode->mapping.unevictable = true;
	return inode;
}

static void shmem_destroy_inode(struct inode *inode)
{
	kmem_cache_free(shmem_cache, inode);
}

/* The pages went with truncation (iput's evict); nothing is on a disk. */
static void shmem_evict_inode(struct inode *inode) {}

static const struct super_operations shmem_sops = {
	.alloc_inode = shmem_alloc_inode,
	.destroy_inode = shmem_destroy_inode,
	.evict_inode = shmem_evict_inode,
};

static struct super_block shmem_sb = {
	.s_op = &shmem_sops,
	.name = "shared anonymous memory",
};

static const struct inode_operations shmem_iops;	/* no names, no writes but stores */

void shmem_init(void)
{
	shmem_cache = kmem_cache_create("shmem_inode", sizeof(struct inode), 8);
	init_rwsem(&shmem_sb.s_ns, "s_ns");
	shmem_sb.type = "tmpfs";
	shmem_sb.dev = vfs_anon_dev();
	list_init(&shmem_sb.inodes);
}

struct inode *shmem_create(u64 size)
{
	if (!shmem_cache)
		return NULL;
	u32 ino = (u32)atomic_inc_return(&next_ino);
	struct inode *inode = new_inode(&shmem_sb, ino);
	if (IS_ERR(inode))
		return NULL;		/* shmem_create's contract: NULL on failure */
	inode->mode = S_IFREG | 0600;
	inode->nlink = 0;		/* the last iput frees it */
	inode->op = &shmem_iops;
	inode->mapping.size = size;
	inode_publish(inode);
	return inode;
}
