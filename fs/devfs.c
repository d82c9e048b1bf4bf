/*
 * devfs.c - /dev: a fixed, read-only directory of character devices,
 * with Linux's names and numbers so ordinary programs find what they
 * expect.
 *
 *   null     (1,3)  read: end of file; write: everything taken, nothing kept
 *   zero     (1,5)  read: zeros; write: taken, not kept
 *   full     (1,7)  read: zeros; write: ENOSPC
 *   random   (1,8)  read: kernel/random.h's bytes; write: taken, not kept
 *   urandom  (1,9)  the same as random
 *   tty      (5,0)  the console (drivers/tty.c), as descriptors 0-2 of init
 *   console  (5,1)  the console
 *
 * Like /proc (fs/proc.c), it is a small file system of its own, mounted
 * at boot on the root file system's directory /dev (fs/namespace.c). The
 * devices keep no state: an open picks the entry's file operations, and
 * every operation on the directory says EACCES.
 */
#include "fs/vfs.h"
#include "mm/slab.h"
#include "kernel/panic.h"
#include "kernel/string.h"
#include "kernel/random.h"

#define DEVFS_ROOT_INO 1

static ssize_t null_read(struct file *f, void *buf, size_t len) { return 0; }

static ssize_t swallow_write(struct file *f, const void *buf, size_t len)
{
	return (ssize_t)len;
}

static ssize_t zero_read(struct file *f, void *buf, size_t len)
{
	memset(buf, 0, len);
	return (ssize_t)len;
}

static ssize_t full_write(struct file *f, const void *buf, size_t len) { return -ENOSPC; }

static ssize_t random_read(struct file *f, void *buf, size_t len)
{
	random_fill(buf, len);
	return (ssize_t)len;
}

static const struct file_operations null_fops = { .read = null_read, .write = swallow_write };
static const struct file_operations zero_fops = { .read = zero_read, .write = swallow_write };
static const struct file_operations full_fops = { .read = zero_read, .write = full_write };
static const struct file_operations random_fops = { .read = random_read, .write = swallow_write };

struct dev_entry {
	const char *name;
	u32 ino;
	u32 major, minor;
	const struct file_operations *fop;	/* NULL: the console (console_open) */
};

static const struct dev_entry entries[] = {
	{ "console", 2, 5, 1, NULL },
	{ "full", 3, 1, 7, &full_fops },
	{ "null", 4, 1, 3, &null_fops },
	{ "random", 5, 1, 8, &random_fops },
	{ "tty", 6, 5, 0, NULL },
	{ "urandom", 7, 1, 9, &random_fops },
	{ "zero", 8, 1, 5, &zero_fops },
};

static struct super_block devfs_sb;

static const struct dev_entry *entry_of(u32 ino)
{
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if (entries[i].ino == ino)
			return &entries[i];
	return NULL;
}

static struct inode *devfs_alloc_inode(struct super_block *sb)
{
	struct inode *inode = kzalloc(sizeof(*inode));
	if (inode)
		address_space_init(&inode->mapping, NULL, inode);
	return inode;
}

static void devfs_destroy_inode(struct inode *inode)
{
	kfree(inode);
}

static int devfs_lookup(struct inode *dir, const char *name, int len, u32 *ino)
{
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if ((int)strlen(entries[i].name) == len && !memcmp(entries[i].name, name, len)) {
			*ino = entries[i].ino;
			return 0;
		}
	return -ENOENT;
}

static int devfs_readdir(struct inode *dir, u64 *pos, filldir_t fill, void *ctx)
{
	while (*pos < ARRAY_SIZE(entries) + 2) {
		int r;
		if (*pos == 0)
			r = fill(ctx, ".", 1, DEVFS_ROOT_INO, DT_DIR);
		else if (*pos == 1)
			r = fill(ctx, "..", 2, 2, DT_DIR);
		else {
			const struct dev_entry *e = &entries[*pos - 2];
			r = fill(ctx, e->name, (int)strlen(e->name), e->ino, DT_CHR);
		}
		if (r)
			return 0;
		(*pos)++;
	}
	return 0;
}

static int devfs_no_create(struct inode *dir, const char *name, int len, u32 mode,
			   struct inode **out)
{
	return -EACCES;
}

static int devfs_no_change(struct inode *dir, const char *name, int len, struct inode *v)
{
	return -EACCES;
}

static int devfs_no_link(struct inode *old, struct inode *dir, const char *name, int len)
{
	return -EACCES;
}

static int devfs_no_rename(struct inode *odir, const char *oname, int olen, struct inode *moved,
			   struct inode *ndir, const char *nname, int nlen, struct inode *over)
{
	return -EACCES;
}

static int devfs_no_setsize(struct inode *inode, u64 size)
{
	return -EACCES;
}

static ssize_t devfs_no_write(struct inode *inode, struct iov_iter *from, u64 pos)
{
	return -EACCES;
}

/* A device's open: the entry's operations, or the console's. */
static int devfs_open(struct file *f)
{
	const struct dev_entry *e = entry_of(f->inode->ino);
	if (!e)
		return -ENXIO;
	if (e->fop)
		f->fop = e->fop;
	else
		console_open(f);
	return 0;
}

static const struct inode_operations devfs_dir_iops = {
	.lookup = devfs_lookup,
	.readdir = devfs_readdir,
	.create = devfs_no_create,
	.mkdir = devfs_no_create,
	.unlink = devfs_no_change,
	.rmdir = devfs_no_change,
	.link = devfs_no_link,
	.rename = devfs_no_rename,
	.setsize = devfs_no_setsize,
	.write = devfs_no_write,
};

static const struct inode_operations devfs_dev_iops = {
	.setsize = devfs_no_setsize,
	.write = devfs_no_write,
	.open = devfs_open,
};

static int devfs_read_inode(struct inode *inode)
{
	inode->nlink = 1;
	if (inode->ino == DEVFS_ROOT_INO) {
		inode->mode = S_IFDIR | 0555;
		inode->nlink = 2;
		inode->op = &devfs_dir_iops;
		return 0;
	}
	const struct dev_entry *e = entry_of(inode->ino);
	if (!e)
		return -ENOENT;
	inode->mode = S_IFCHR | 0666;
	inode->rdev = e->major << 8 | e->minor;	/* Linux's encoding while both fit a byte */
	inode->op = &devfs_dev_iops;
	return 0;
}

static int devfs_write_inode(struct inode *inode) { return 0; }
static void devfs_evict_inode(struct inode *inode) { }
static int devfs_sync_fs(struct super_block *sb) { return 0; }
static void devfs_put_super(struct super_block *sb) { }
static void devfs_statfs(struct super_block *sb, struct kstatfs *st)
{
	st->magic = 0x01021994;		/* devtmpfs is tmpfs to statfs: TMPFS_MAGIC */
}

static const struct super_operations devfs_sops = {
	.alloc_inode = devfs_alloc_inode,
	.destroy_inode = devfs_destroy_inode,
	.read_inode = devfs_read_inode,
	.write_inode = devfs_write_inode,
	.evict_inode = devfs_evict_inode,
	.sync_fs = devfs_sync_fs,
	.put_super = devfs_put_super,
	.statfs = devfs_statfs,
};

struct super_block *devfs_super(void)
{
	return &devfs_sb;
}

void devfs_init(void)
{
	init_rwsem(&devfs_sb.s_ns, "devfs_ns");
	list_init(&devfs_sb.inodes);
	devfs_sb.s_op = &devfs_sops;
	devfs_sb.rdonly = false;	/* devices take writes; the directory says EACCES itself */
	devfs_sb.name = "devfs";
	devfs_sb.type = "devfs";
	devfs_sb.dev = vfs_anon_dev();
	struct inode *root = iget(&devfs_sb, DEVFS_ROOT_INO);
	if (IS_ERR(root))	/* boot, nothing else allocated yet: a NULL root would fault later */
		panic("devfs: cannot make the root inode (%ld)", PTR_ERR(root));
	devfs_sb.root = root;
}
