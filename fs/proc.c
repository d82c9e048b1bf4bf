/*
 * proc.c - /proc: a few files whose contents the kernel writes when they
 * are opened, for user programs that show what the kernel is doing.
 *
 *   /proc/meminfo    memory in KiB, in Linux's "Name:  N kB" format
 *   /proc/pagecache  the page cache's counters, "name value" per line:
 *                    lookups, hits, misses, speculative and recheck
 *                    retries (pagecache.h, steps 3 and 4), evictions ...
 *   /proc/vm         page faults, copy-on-write and reverse-map counters
 *   /proc/kmsg       the kernel log, every level (kernel/printk.c)
 *   /proc/fail-nth   write N: the calling thread's Nth kmalloc from now
 *                    fails (mm/slab.c), to test the paths that handle it
 *   /proc/lockdep    the lock classes and the lock order learnt so far
 *                    (kernel/lockdep.h), with where each order was seen
 *   /proc/kernel-hash  hashes of kernel text, rodata, the syscall table and
 *                    a canary data page (kernel/khash.c): unchanged by any
 *                    system call, whatever pointers it was given
 *
 *   /proc/mounts     the mount table, "source mountpoint type rw 0 0"
 *                    per mount, as Linux writes it (fs/namespace.c)
 *
 * /proc is a small file system of its own, mounted at boot on the root
 * file system's directory /proc (fs/namespace.c); its files are read
 * from a snapshot taken at open, so a reader sees one consistent set of
 * numbers.
 */
#include "fs/vfs.h"
#include "mm/slab.h"
#include "mm/page.h"
#include "mm/vm.h"
#include "mm/vmscan.h"
#include "mm/mm.h"
#include "mm/gup.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/lockdep.h"
#include "kernel/khash.h"

#define PROC_ROOT_INO 1
#define PROC_BUF 65536	/* /proc/kmsg can be the whole kernel log */

struct proc_entry {
	const char *name;
	u32 ino;
	int (*show)(char *buf, int size);
};

static int show_meminfo(char *buf, int size)
{
	struct pagecache_stats pc;
	pagecache_get_stats(&pc);
	unsigned long total = mm_boot.usable_pages, free = nr_free_pages();
	return snprintf(buf, size,
			"MemTotal:       %8lu kB\nMemFree:        %8lu kB\n"
			"MemAvailable:   %8lu kB\nCached:         %8llu kB\n",
			total * 4, free * 4, (free + (unsigned long)pc.pages) * 4,
			(unsigned long long)pc.pages * 4);
}

static int show_pagecache(char *buf, int size)
{
	struct pagecache_stats s;
	pagecache_get_stats(&s);
	return snprintf(buf, size,
			"pages %llu\nlookups %llu\nhits %llu\nmisses %llu\n"
			"speculative_retries %llu\nrecheck_retries %llu\n"
			"freeze_failures %llu\nevictions %llu\nwritebacks %llu\n"
			"lookup_kind %s\n",
			(unsigned long long)s.pages, (unsigned long long)s.lookups,
			(unsigned long long)s.hits, (unsigned long long)s.misses,
			(unsigned long long)s.spec_retries, (unsigned long long)s.recheck_retries,
			(unsigned long long)s.freeze_failures, (unsigned long long)s.evictions,
			(unsigned long long)s.writebacks,
			pagecache_locked_lookups() ? "locked" : "lockless");
}

static int show_vm(char *buf, int size)
{
	struct vm_stats v;
	vm_get_stats(&v);
	return snprintf(buf, size, "faults %llu\nanon_faults %llu\nfile_faults %llu\n"
			"cow_copies %llu\ncow_reuses %llu\nrmap_unmaps %llu\n",
			(unsigned long long)v.faults, (unsigned long long)v.anon_faults,
			(unsigned long long)v.file_faults, (unsigned long long)v.cow_copies,
			(unsigned long long)v.cow_reuses, (unsigned long long)v.rmap_unmaps);
}

static int show_kmsg(char *buf, int size)
{
	return printk_log_read(buf, size - 1);
}

static int show_gup(char *buf, int size)
{
	return snprintf(buf, size, "fast_pins %llu\nslow_pins %llu\nfallback_changed %llu\n"
			"fallback_not_present %llu\nfallback_permission %llu\nmode %s\n",
			(unsigned long long)READ_ONCE(gup_stats.fast_pins),
			(unsigned long long)READ_ONCE(gup_stats.slow_pins),
			(unsigned long long)READ_ONCE(gup_stats.fallback_changed),
			(unsigned long long)READ_ONCE(gup_stats.fallback_not_present),
			(unsigned long long)READ_ONCE(gup_stats.fallback_permission),
			gup_slow_default() ? "slow" : "fast");
}

static int show_gup_mode(char *buf, int size)
{
	return snprintf(buf, size, "%s\n", gup_slow_default() ? "slow" : "fast");
}

static int show_fail_nth(char *buf, int size)
{
	return snprintf(buf, size, "%d\n", current_task()->fail_nth);
}

#define FAIL_NTH_INO 9

static int show_lockdep(char *buf, int size)
{
	return lockdep_show(buf, size);
}

static int show_mounts(char *buf, int size)
{
	return vfs_mounts_show(buf, size);
}

static const struct proc_entry entries[] = {
	{ "fail-nth", FAIL_NTH_INO, show_fail_nth },
	{ "gup", 6, show_gup },
	{ "gup_mode", 7, show_gup_mode },
	{ "kernel-hash", 10, khash_show },
	{ "kmsg", 5, show_kmsg },
	{ "lockdep", 8, show_lockdep },
	{ "meminfo", 2, show_meminfo },
	{ "mounts", 11, show_mounts },
	{ "pagecache", 3, show_pagecache },
	{ "vm", 4, show_vm },
};

static struct super_block proc_sb;
static struct inode *proc_root_inode;	/* [I] held forever */

static struct inode *proc_alloc_inode(struct super_block *sb)
{
	struct inode *inode = kzalloc(sizeof(*inode));
	if (inode)
		address_space_init(&inode->mapping, NULL, inode);
	return inode;
}

static void proc_destroy_inode(struct inode *inode)
{
	kfree(inode);
}

static int proc_lookup(struct inode *dir, const char *name, int len, u32 *ino)
{
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if ((int)strlen(entries[i].name) == len && !memcmp(entries[i].name, name, len)) {
			*ino = entries[i].ino;
			return 0;
		}
	return -ENOENT;
}

static int proc_readdir(struct inode *dir, u64 *pos, filldir_t fill, void *ctx)
{
	while (*pos < ARRAY_SIZE(entries) + 2) {
		int r;
		if (*pos == 0)
			r = fill(ctx, ".", 1, PROC_ROOT_INO, DT_DIR);
		else if (*pos == 1)
			r = fill(ctx, "..", 2, 2, DT_DIR);
		else {
			const struct proc_entry *e = &entries[*pos - 2];
			r = fill(ctx, e->name, (int)strlen(e->name), e->ino, DT_REG);
		}
		if (r)
			return 0;
		(*pos)++;
	}
	return 0;
}

static int proc_nothing(struct inode *dir, const char *name, int len, u32 mode, struct inode **out)
{
	return -EACCES;
}

static int proc_no_change(struct inode *dir, const char *name, int len, struct inode *v)
{
	return -EACCES;
}

static int proc_no_link(struct inode *old, struct inode *dir, const char *name, int len)
{
	return -EACCES;
}

static int proc_no_rename(struct inode *odir, const char *oname, int olen, struct inode *moved,
			  struct inode *ndir, const char *nname, int nlen, struct inode *over)
{
	return -EACCES;
}

static int proc_no_setsize(struct inode *inode, u64 size)
{
	return -EACCES;
}

static ssize_t proc_no_write(struct inode *inode, struct iov_iter *from, u64 pos)
{
	return -EACCES;
}

static int proc_open(struct file *f);

static const struct inode_operations proc_dir_iops = {
	.lookup = proc_lookup,
	.readdir = proc_readdir,
	.create = proc_nothing,
	.mkdir = proc_nothing,
	.unlink = proc_no_change,
	.rmdir = proc_no_change,
	.link = proc_no_link,
	.rename = proc_no_rename,
	.setsize = proc_no_setsize,
	.write = proc_no_write,
};

/* Files: opened through proc_open (a snapshot), never changed by name. */
static const struct inode_operations proc_file_iops = {
	.setsize = proc_no_setsize,
	.write = proc_no_write,
	.open = proc_open,
};

static int proc_read_inode(struct inode *inode)
{
	inode->nlink = 1;
	if (inode->ino == PROC_ROOT_INO) {
		inode->mode = S_IFDIR | 0555;
		inode->nlink = 2;
		inode->op = &proc_dir_iops;
		return 0;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if (entries[i].ino == inode->ino) {
			inode->mode = S_IFREG | (inode->ino == 7 || inode->ino == FAIL_NTH_INO ? 0644 : 0444);
			inode->op = &proc_file_iops;
			return 0;
		}
	return -ENOENT;
}

static int proc_write_inode(struct inode *inode) { return 0; }
static void proc_evict_inode(struct inode *inode) { }
static int proc_sync_fs(struct super_block *sb) { return 0; }
static void proc_put_super(struct super_block *sb) { }
static void proc_statfs(struct super_block *sb, struct kstatfs *st)
{
	st->magic = 0x9fa0;		/* Linux's PROC_SUPER_MAGIC; no blocks, no inode count */
}

static const struct super_operations proc_sops = {
	.alloc_inode = proc_alloc_inode,
	.destroy_inode = proc_destroy_inode,
	.read_inode = proc_read_inode,
	.write_inode = proc_write_inode,
	.evict_inode = proc_evict_inode,
	.sync_fs = proc_sync_fs,
	.put_super = proc_put_super,
	.statfs = proc_statfs,
};

/* An open /proc file: its snapshot, read from the file's position. */
struct snapshot {
	int len;
	char text[PROC_BUF];
};

static ssize_t proc_read(struct file *f, void *buf, size_t len)
{
	struct snapshot *s = f->private;
	mutex_lock(&f->pos_lock);
	size_t n = f->pos >= (u64)s->len ? 0 : MIN(len, (size_t)s->len - f->pos);
	memcpy(buf, s->text + f->pos, n);
	f->pos += n;
	mutex_unlock(&f->pos_lock);
	return (ssize_t)n;
}

static void proc_release(struct file *f)
{
	kfree(f->private);
}

static const struct file_operations proc_fops = { .read = proc_read, .release = proc_release };

/* /proc/gup_mode takes "fast" or "slow": the default pinning path, so one
 * boot can measure both (dbbench). */
static ssize_t gup_mode_write(struct file *f, const void *buf, size_t len)
{
	const char *s = buf;
	if (len >= 4 && !memcmp(s, "fast", 4))
		gup_set_slow_default(false);
	else if (len >= 4 && !memcmp(s, "slow", 4))
		gup_set_slow_default(true);
	else
		return -EINVAL;
	return (ssize_t)len;
}

static const struct file_operations gup_mode_fops = { .read = proc_read, .write = gup_mode_write,
						      .release = proc_release };

/* /proc/fail-nth takes a decimal N >= 0 (0: off) for the calling thread. */
static ssize_t fail_nth_write(struct file *f, const void *buf, size_t len)
{
	const char *s = buf;
	int n = 0;
	size_t i = 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (n > 100000000)
			return -EINVAL;
		n = n * 10 + (s[i] - '0');
	}
	if (!i || (i < len && s[i] != '\n'))
		return -EINVAL;
	current_task()->fail_nth = n;
	return (ssize_t)len;
}

static const struct file_operations fail_nth_fops = { .read = proc_read, .write = fail_nth_write,
						      .release = proc_release };

/* A /proc file's open: give the file its snapshot; only gup_mode and fail-nth take writes. */
static int proc_open(struct file *f)
{
	bool gup_mode = f->inode->ino == 7, fail_nth = f->inode->ino == FAIL_NTH_INO;
	if ((f->flags & O_ACCMODE) != O_RDONLY && !gup_mode && !fail_nth)
		return -EACCES;
	struct snapshot *s = kmalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if (entries[i].ino == f->inode->ino)
			s->len = MIN(entries[i].show(s->text, PROC_BUF), PROC_BUF - 1);
	f->fop = gup_mode ? &gup_mode_fops : fail_nth ? &fail_nth_fops : &proc_fops;
	f->private = s;
	return 0;
}

struct super_block *proc_super(void)
{
	return &proc_sb;
}

void proc_init(void)
{
	init_rwsem(&proc_sb.s_ns, "proc_ns");
	list_init(&proc_sb.inodes);
	proc_sb.s_op = &proc_sops;
	proc_sb.rdonly = false;	/* each operation says no for itself (EACCES) */
	proc_sb.name = "proc";
	proc_sb.type = "proc";
	proc_sb.dev = vfs_anon_dev();
	int err = 0;
	proc_root_inode = iget(&proc_sb, PROC_ROOT_INO, &err);
	proc_sb.root = proc_root_inode;
}
