/*
 * vfs.h - the virtual file system: inodes, open files, descriptor tables,
 * path walk, and the operations a file system provides.
 *
 * The root file system ("/", ext2 on the ramdisk) and the ones mounted on
 * its directories (/proc) form one tree: the mount table (fs/mount.h) says
 * which file system covers which directory. The VFS owns what every file
 * system shares: the inode cache (one struct inode per (super_block, ino),
 * found by hash), open files with their offsets, descriptor tables, the
 * mount table, and the walk from a path to an inode. A file system
 * owns the on-disk format and provides super_operations (inode life) and
 * inode_operations (names and sizes). File data always moves through the
 * page cache: vfs_read_iter is filemap_read_iter on the inode's
 * address_space; writes go through the file system (which allocates
 * blocks) into filemap_write_iter. Either way the data is copied once,
 * between the page and the caller's buffer (mm/iov_iter.h).
 *
 * Locks, in the order they nest (the quoted names are lockdep classes,
 * kernel/lockdep.h, so the order is checked at run time):
 *   'mount_lock' (mutex) mounting and unmounting the root; outside all.
 *   'namespace_lock' (mutex) changes to the mount table (fs/namespace.c);
 *                      path walks read the table under RCU instead.
 *   file->pos_lock ('pos_lock', mutex) one open file's offset: read, write,
 *                      lseek and readdir; before the two below.
 *   sb->s_ns ('s_ns', rwsem) the name space of one file system: path
 *                      lookups and readdir hold it for reading; create,
 *                      link, unlink, mkdir, rmdir and rename for writing.
 *   inode->i_mutex ('i_mutex') an inode's size, blocks and times: write,
 *                      truncate, O_DIRECT write, and name-space operations
 *                      on the inode they change (an O_DIRECT read takes it
 *                      only while a truncation is on: "Direct I/O against
 *                      truncation", below). rename holds two: the replaced
 *                      one is 'i_mutex/1' (mutex_lock_nested), under s_ns.
 *                      A write faults its user buffer in under it, so it
 *                      comes before mmap_lock (mm/filemap.c,
 *                      filemap_write_iter).
 *   page lock ('page_lock', mm/pagecache.h), then the file system's own
 *                      locks (fs/ext2/ext2.h).
 *   icache_lock ('icache', spinlock) the inode hash and the lists; nothing
 *                      is taken under it but what an interrupt takes.
 *   files->lock ('files', spinlock) a descriptor table; a leaf.
 * Path lookups take s_ns for reading one component at a time; file data
 * reads take none of these (the lockless page cache; O_DIRECT counts
 * itself in inode->i_dio instead).
 */
#ifndef FS_VFS_H
#define FS_VFS_H

#include "kernel/types.h"
#include "kernel/err.h"
#include "kernel/list.h"
#include "kernel/atomic.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"
#include "mm/pagecache.h"

/* Linux's values, so user programs can pass them straight through. */
#define S_IFMT 0170000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFBLK 0060000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFIFO 0010000
#define S_ISUID 04000
#define S_ISGID 02000
#define S_IXGRP 00010
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)

#define O_ACCMODE 03
#define O_RDONLY 00
#define O_WRONLY 01
#define O_RDWR 02
#define O_CREAT 0100
#define O_EXCL 0200
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_DIRECT 040000
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#define NAME_MAX 255
#define PATH_MAX 4096

/* Directory entry types (getdents64's d_type; ext2's filetype is mapped to these). */
#define DT_UNKNOWN 0
#define DT_CHR 2
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10

struct super_block;
struct inode;
struct file;

/* What stat returns (the kernel's own layout; syscalls convert). */
struct kstat {
	u64 dev;		/* the file system's device number (super_block.dev) */
	u64 ino;
	u32 mode, nlink, uid, gid;
	u64 size;
	u64 blocks;		/* 512-byte units, as st_blocks */
	u32 blksize;
	u64 atime, mtime, ctime;	/* seconds since 1970 */
	u64 rdev;		/* a device file's number, Linux's encoding (inode.rdev); else 0 */
};

/* What statfs returns (the kernel's own layout; fs/stat.c converts). */
struct kstatfs {
	u64 magic;		/* the file system's type: Linux's number for it */
	u64 bsize;		/* block size, bytes (also the fragment size) */
	u64 blocks, bfree, bavail;	/* in bsize units; bavail: free to unprivileged users */
	u64 files, ffree;	/* inodes */
	u64 fsid;		/* the file system's identity (two 32-bit words) */
	u64 namelen;		/* longest name */
};

/* readdir calls this for each entry; a non-zero return stops the walk. */
typedef int (*filldir_t)(void *ctx, const char *name, int len, u64 ino, unsigned type);

struct super_operations {
	struct inode *(*alloc_inode)(struct super_block *sb);
	void (*destroy_inode)(struct inode *inode);
	/* Fill a new inode (I_NEW) from disk: 0 or -errno (EUCLEAN: damaged). */
	int (*read_inode)(struct inode *inode);
	/* Copy the in-memory inode to its place on disk (through the cache). */
	int (*write_inode)(struct inode *inode);
	/* The last reference to an inode with no links went: free it on disk. */
	void (*evict_inode)(struct inode *inode);
	/* Write back the file system's own metadata (bitmaps, counts). */
	int (*sync_fs)(struct super_block *sb);
	/* Unmount: release what mount holds (every inode is gone by now). */
	void (*put_super)(struct super_block *sb);
	/* Fill *st (zeroed, namelen NAME_MAX and fsid the device number
	 * already): at least magic and bsize. Never sleeps. */
	void (*statfs)(struct super_block *sb, struct kstatfs *st);
};

/*
 * Name-space operations. The VFS holds sb->s_ns for writing around the
 * modifying ones and for reading around lookup and readdir; names are not
 * NUL-terminated (name, len) and already checked: 1..NAME_MAX bytes, no
 * '/', not "." or "..". Each returns 0 or -errno.
 */
struct inode_operations {
	int (*lookup)(struct inode *dir, const char *name, int len, u32 *ino);
	int (*create)(struct inode *dir, const char *name, int len, u32 mode, struct inode **out);
	int (*mkdir)(struct inode *dir, const char *name, int len, u32 mode, struct inode **out);
	int (*link)(struct inode *old, struct inode *dir, const char *name, int len);
	int (*unlink)(struct inode *dir, const char *name, int len, struct inode *victim);
	int (*rmdir)(struct inode *dir, const char *name, int len, struct inode *victim);
	/* Move (odir, oname) to (ndir, nname); `over` is the inode replaced, or NULL. */
	int (*rename)(struct inode *odir, const char *oname, int olen, struct inode *moved,
		      struct inode *ndir, const char *nname, int nlen, struct inode *over);
	/* Entries from *pos on; *pos is a cookie for the next call. */
	int (*readdir)(struct inode *dir, u64 *pos, filldir_t fill, void *ctx);
	/* Write the iterator's bytes into the page cache at pos, allocating
	 * blocks; i_mutex held. Bytes or -errno (mm/pagecache.h, filemap_write_iter). */
	ssize_t (*write)(struct inode *inode, struct iov_iter *from, u64 pos);
	/* Change the size (truncate or grow with a hole); i_mutex held. A
	 * shrink waits for direct I/O in flight before it frees blocks
	 * (inode_dio_block, below). */
	int (*setsize)(struct inode *inode, u64 size);
	/* O_DIRECT: move file block `index` between the disk and a kernel
	 * page, past the cache (allocating it for a write). Counted in i_dio
	 * (below); a write also holds i_mutex, a read may not, so a read
	 * writes back the cached page of index after its lookup and before
	 * the disk (filemap_write_page; fs/ext2/inode.c says why). */
	int (*direct_block)(struct inode *inode, u64 index, bool write, void *page);
	/* Optional: a new open file of this inode (flags set); 0 or -errno. */
	int (*open)(struct file *f);
	/* Optional: a symbolic link (name, len) in dir holding target (tlen
	 * bytes, 1..PATH_MAX-1, no NUL); the new inode, held, in *out. */
	int (*symlink)(struct inode *dir, const char *name, int len, const char *target, int tlen,
		       struct inode **out);
	/* A symbolic link's target into buf (PATH_MAX bytes, no NUL added):
	 * its length, or -errno (EUCLEAN: a damaged link). Takes no VFS lock. */
	int (*readlink)(struct inode *link, char *buf);
};

struct super_block {
	const struct super_operations *s_op;	/* [I] */
	struct inode *root;			/* [I] the root directory, held */
	struct rw_semaphore s_ns;		/* the name space (see the top) */
	struct list_head inodes;		/* [L:icache_lock] every cached inode */
	bool rdonly;				/* [A] read-only: set at mount, or false -> true
						 * when the file system finds damage that
						 * makes writing unsafe (ext2's errors=remount-ro) */
	const char *name;			/* [I] "ext2 on ram0" */
	const char *type;			/* [I] "ext2", "proc": /proc/mounts */
	u32 dev;				/* [I] st_dev: the block device's number,
						 * or vfs_anon_dev()'s (fs/super.c) */
	void *fs_info;				/* [I] the file system's own state */
};

/* inode->state bits. */
#define I_NEW 1		/* being read from disk; iget waits */
#define I_FREEING 2	/* being torn down; iget waits, then looks again */
#define I_BAD 4		/* could not be read: every operation gives EIO */

/*
 * Lock legend: [I] immutable once I_NEW clears, [M:i_mutex], [C:icache_lock],
 * [A] atomic, [N:s_ns] held for writing to change.
 */
struct inode {
	struct super_block *sb;		/* [I] */
	u32 ino;			/* [I] */
	u32 mode;			/* type bits [I]; permission bits [M], read with READ_ONCE */
	u32 rdev;			/* [I] a device file's (major << 8 | minor); else 0 */
	u32 nlink;			/* [N] */
	u32 uid, gid;			/* [M] */
	u64 atime, mtime, ctime;	/* [M] seconds */
	u64 blocks;			/* [M] 512-byte units on disk, as st_blocks */
	struct address_space mapping;	/* file data (size in mapping.size, [M] to change) */
	const struct inode_operations *op;	/* [I] */
	struct mutex i_mutex;
	atomic_t i_dio;			/* [A] direct I/O in flight, plus DIO_BLOCKED
					 * while a truncation waits (below) */
	atomic_t count;			/* [A] references; 0: cached, unused */
	unsigned state;			/* [C] I_* */
	struct list_head hash_link;	/* [C] */
	struct list_head sb_link;	/* [C] on sb->inodes */
	struct list_head lru_link;	/* [C] on the unused list while count == 0 */
};

static inline u64 i_size(struct inode *inode)
{
	return READ_ONCE(inode->mapping.size);
}

/*
 * DIRECT I/O AGAINST TRUNCATION (STYLE.md rule 2; call sites cite
 * "vfs.h, dio step N"). An O_DIRECT read looks a block up in the block
 * map and then reads the disk, holding no inode lock (so readers of one
 * file run side by side). Were the block freed in between - by a
 * truncation - and given to another file, the read would return that
 * file's data. So each chunk of direct I/O is counted in inode->i_dio,
 * and a shrinking truncation waits for the count to drain before it frees
 * a block (the idea of Linux's i_dio_count and inode_dio_wait, 3.1).
 * Waiting alone could wait for ever while new readers keep arriving, so
 * the truncation also sets DIO_BLOCKED in the same word, and a reader that
 * sees it steps aside onto i_mutex, which the truncation holds (as ext4's
 * lockless direct reads of Linux 3.x fell back to locked ones while a
 * truncation blocked them).
 *
 * Direct I/O, for each chunk (fs/direct-io.c; the helpers are in fs/inode.c):
 *   D1. v = atomic_inc_return(&i_dio): lock xadd, fully ordered.
 *   D2. If v has DIO_BLOCKED: undo D1 as D4 does, then take i_mutex and
 *       do the chunk under it, uncounted (no truncation can run then).
 *   D3. For each block: read i_size, stop at it, look the block up and
 *       move it (direct_block).
 *   D4. v = atomic_dec_return(&i_dio); if v == DIO_BLOCKED, we were the
 *       last a truncation waits for: wake it (dio_drained, a wait queue).
 * Truncation, with i_mutex held (ext2_setsize, inode_dio_block/unblock):
 *   T1. Store the new, smaller i_size.
 *   T2. atomic_add_return(&i_dio, DIO_BLOCKED): lock xadd, fully ordered.
 *   T3. Sleep on dio_drained until i_dio == DIO_BLOCKED (wait.h's
 *       protocol: D4's wake-up cannot be lost).
 *   T4. Drop the cached pages past the end; free the blocks.
 *   T5. atomic_sub DIO_BLOCKED (lock xadd), then i_mutex is released.
 * All of D1, D2's undo, D4, T2 and T5 are read-modify-writes of one word,
 * so they happen in one order that every CPU agrees on; the interleavings:
 *   A. D1 before T2: T2 sees the count, T3 waits for our D4. We may have
 *      read the old i_size at D3 and read blocks that T4 frees: they are
 *      still the file's until our D4 lets T4 run.
 *   B. T2 before D1 (and D1 before T5): D2 sees DIO_BLOCKED; we look
 *      nothing up before i_mutex, which we get after T5 - and then i_size
 *      and the block map are the new ones.
 *   C. T5 before D1: the truncation is over; T1 came before T5 and D3
 *      after D1, so D3 reads the new i_size and looks up no freed block.
 * A direct write holds i_mutex across D1-D4, so it never meets a
 * truncation in T1-T5 (D2 finding DIO_BLOCKED there is a bug); it is
 * counted all the same, so that T3 would wait for a write that ran
 * without i_mutex. Eviction frees blocks too, but only at the last iput,
 * and an open file holds a reference: i_dio is 0 there (evict checks).
 * dio.debug_no_wait skips T2, T3 and T5 (a test of the tests: t_dio_race
 * catches a read that returns another file's data), and
 * dio.debug_delay_ms=N sleeps N ms in a read between its lookup and the
 * disk read, so the truncation lands in that window.
 */
#define DIO_BLOCKED (1 << 30)

/* Steps D1-D2: true if counted (go on without i_mutex; inode_dio_end
 * after), false if a truncation is on (take i_mutex instead). Never sleeps. */
bool inode_dio_begin(struct inode *inode);
/* Step D4: the chunk is done. Never sleeps. */
void inode_dio_end(struct inode *inode);
/* Steps T2-T3: i_mutex held, the new size stored. Returns once no direct
 * I/O of the inode is in flight; new direct I/O waits for i_mutex until
 * inode_dio_unblock (step T5). May sleep. */
void inode_dio_block(struct inode *inode);
void inode_dio_unblock(struct inode *inode);
/* dio.debug_delay_ms: a direct read calls it between its lookup and the
 * disk read. May sleep. */
void inode_dio_debug_window(void);

/*
 * Files that are not a file system's (the console, pipes, /proc) bring
 * their own operations; buffers are kernel memory (vfs_read_iter and
 * vfs_write_iter bounce a user buffer through one).
 */
struct file_operations {
	ssize_t (*read)(struct file *f, void *buf, size_t len);
	ssize_t (*write)(struct file *f, const void *buf, size_t len);
	long (*ioctl)(struct file *f, unsigned cmd, u64 arg);
	void (*release)(struct file *f);
	/* POLLIN/POLLOUT/POLLHUP/POLLERR that hold now (a snapshot); a change
	 * of them calls poll_notify(). NULL: always readable and writable. */
	unsigned (*poll)(struct file *f);
};

#define POLLIN 0x001
#define POLLOUT 0x004
#define POLLERR 0x008
#define POLLHUP 0x010
#define POLLNVAL 0x020

/* poll_notify: a file's poll state may have changed; wakes poll() sleepers
 * to look again (fs/select.c). Never sleeps. */
void poll_notify(void);

/* An open file: one per open(); descriptors (and fork) share it. */
struct file {
	atomic_t count;			/* [A] descriptor-table slots and callers */
	struct inode *inode;		/* [I] held; NULL for a file with fop */
	const struct file_operations *fop;	/* [I] NULL: an inode's file */
	void *private;			/* [I] the fop's own state */
	unsigned flags;			/* [A] O_* (O_APPEND, O_DIRECT may change) */
	u64 pos;			/* [L:pos_lock] */
	struct mutex pos_lock;		/* read/write/lseek on one file are serial */
};

/* ------------------------------------------------------------ inode cache */

/* iget: the inode (sb, ino) with a reference, read from disk if not cached;
 * or ERR_PTR(-errno) (-ENOMEM, -EIO for an inode that failed to read,
 * read_inode's error), never NULL. May sleep. */
struct inode *iget(struct super_block *sb, u32 ino);
/*
 * new_inode: a fresh inode for a file system's create; the caller fills it,
 * then inode_publish. Or ERR_PTR(-ENOMEM), or ERR_PTR(-EEXIST) when
 * (sb, ino) is still cached, i.e. in use - the file system's allocator
 * handed out a live number, which only a damaged disk does. Never NULL.
 * May sleep.
 */
struct inode *new_inode(struct super_block *sb, u32 ino);
void inode_publish(struct inode *inode);
/* igrab: another reference, or NULL for an inode being created or freed.
 * iput: drop one; NULL does nothing, an ERR_PTR is a bug (it holds none). */
struct inode *igrab(struct inode *inode);
void iput(struct inode *inode);
/* Write an inode's fields back (the file system's write_inode). */
int mark_inode_dirty(struct inode *inode);
/* Inodes in the cache now, and unused ones kept for reuse (statistics, leak checks). */
void icache_counts(unsigned long *total, unsigned long *unused);

/* ------------------------------------------------------------ shared anonymous memory */

/* Boot: the cache and super_block of shared anonymous memory (fs/shmem.c). */
void shmem_init(void);
/*
 * shmem_create: a nameless in-memory file of size bytes, its pages made
 * zeroed on first use and kept until the last iput; a reference for the
 * caller. NULL when out of memory. May sleep.
 */
struct inode *shmem_create(u64 size);

/* ------------------------------------------------------------ mount, sync */

/* vfs_mount_root: mount the root file system (ext2) from the block device ram0. 0 or -errno. */
int vfs_mount_root(void);
/* The root file system, or NULL if nothing is mounted. */
struct super_block *vfs_root_sb(void);
/* A device number of its own (0:N, as Linux numbers them) for a file system
 * with no device (/proc, shared memory). Never sleeps. */
u32 vfs_anon_dev(void);
/* vfs_statfs: statfs of the file system sb into *st. Never sleeps. */
void vfs_statfs(struct super_block *sb, struct kstatfs *st);
/* vfs_sync_all: write back every dirty page and inode of every mount. */
void vfs_sync_all(void);
/* vfs_unmount_root: forget the mounts on the root (/proc), sync, drop every
 * cached inode and page, forget the root mount (tests remount to read back
 * what they wrote). 0, or -EBUSY if inodes are in use. */
int vfs_unmount_root(void);
/* The flusher thread: writes dirty data back every vfs.flush_ms (default 5000). */
void vfs_start_flusher(void);

/*
 * vfs_mount: mount sb on the directory path (fs/namespace.c); the walk then
 * finds sb's root there, and ".." from it leads out. source names the
 * device in /proc/mounts. 0, or -ENOENT/-ENOTDIR (no directory there),
 * -EBUSY (something is mounted there, or sb is mounted already). There is
 * no umount. May sleep.
 */
int vfs_mount(struct super_block *sb, const char *path, const char *source);
/* Mount the kernel's own file systems on the root (/proc, /dev); what boot does
 * after the root mount. A missing directory is reported, not fatal: 0 or the first -errno. */
int vfs_mount_kernel_fs(void);
/* /proc/mounts: one line per mount, "source mountpoint type rw|ro 0 0"; its length. */
int vfs_mounts_show(char *buf, int size);

/* ------------------------------------------------------------ path operations */

/*
 * Path operations resolve `path` from `cwd` (NULL: the root) when it does
 * not start with '/'. Repeated slashes are one; "." stays; ".." goes up
 * (".." at the root is the root). A directory something is mounted on
 * stands for the mounted file system's root, and ".." from that root is
 * the parent of the directory it covers (fs/mount.h). Errors: ENOENT,
 * ENOTDIR (a component is not a directory, or a trailing slash on a file),
 * ENAMETOOLONG (a name over NAME_MAX bytes or a path of PATH_MAX or more),
 * EINVAL (empty path), ELOOP (more than 40 symbolic links). A symbolic
 * link in the middle of a path is always followed (its target read from
 * the link's directory, or from the root if it starts with '/'); as the
 * last component, it is followed by vfs_lookup, vfs_stat and open, and is
 * acted on itself by the name operations (unlink, rename, link) and by
 * the *_at forms given LOOKUP_NOFOLLOW (fs/walk.h, docs/fs.md).
 */
#define LOOKUP_NOFOLLOW 1	/* the last component's link is the answer */
/* vfs_lookup(_at): the inode path names, with a reference, or
 * ERR_PTR(-errno) (the errors above), never NULL. May sleep. */
struct inode *vfs_lookup(struct inode *cwd, const char *path);
struct inode *vfs_lookup_at(struct inode *cwd, const char *path, unsigned lflags);
int vfs_mkdir(struct inode *cwd, const char *path, u32 mode);
int vfs_rmdir(struct inode *cwd, const char *path);
int vfs_unlink(struct inode *cwd, const char *path);
int vfs_link(struct inode *cwd, const char *oldpath, const char *newpath);
int vfs_rename(struct inode *cwd, const char *oldpath, const char *newpath);
/* The *at forms: each path resolved from its own directory. */
int vfs_rename2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath);
int vfs_link2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath,
	      unsigned lflags);
/* symlink(target, linkpath) and readlink (fs/namei.c says more). */
int vfs_symlink(struct inode *cwd, const char *target, const char *linkpath);
int vfs_readlink(struct inode *cwd, const char *path, char *buf);
int vfs_truncate(struct inode *cwd, const char *path, u64 size);
int vfs_stat(struct inode *cwd, const char *path, struct kstat *st);
int vfs_stat_at(struct inode *cwd, const char *path, unsigned lflags, struct kstat *st);
void vfs_getattr(struct inode *inode, struct kstat *st);
/* The absolute path of a directory: its length, or -ENOENT (removed), -ERANGE. */
int vfs_getcwd(struct inode *dir, char *buf, int size);

/* ------------------------------------------------------------ open files */

/* vfs_open: O_RDONLY/O_WRONLY/O_RDWR with O_CREAT, O_EXCL, O_TRUNC, O_APPEND,
 * O_DIRECTORY. The open file (a reference), or ERR_PTR(-errno), never NULL.
 * May sleep. */
struct file *vfs_open(struct inode *cwd, const char *path, unsigned flags, u32 mode);
struct file *file_get(struct file *f);
/* A file with its own operations (console, pipe end). */
struct file *file_alloc_ops(const struct file_operations *fop, void *private, unsigned flags);
void file_put(struct file *f);
/*
 * Read or write at the file's offset (which advances by what moved) or at
 * pos (pread/pwrite: regular files only, else -ESPIPE), to or from an
 * iterator (mm/iov_iter.h), which advances too. Bytes moved, 0 at the
 * end of the file, or -errno: EBADF (not open for it), EISDIR, EFAULT (a
 * user buffer bad from its start; bad part-way gives a short count). A
 * regular file's data is copied once, page to buffer; a file with its own
 * operations goes through a kernel bounce buffer, up to 64 KiB a call for
 * a read, and a user buffer is checked whole first, so a pipe's data is
 * taken, or given, all of it or none. May sleep.
 */
struct iov_iter;
ssize_t vfs_read_iter(struct file *f, struct iov_iter *to);
ssize_t vfs_write_iter(struct file *f, struct iov_iter *from);
ssize_t vfs_pread_iter(struct file *f, struct iov_iter *to, u64 pos);
ssize_t vfs_pwrite_iter(struct file *f, struct iov_iter *from, u64 pos);
/* The same for a kernel buffer (exec, ktests). */
ssize_t vfs_read(struct file *f, void *buf, size_t len);
ssize_t vfs_write(struct file *f, const void *buf, size_t len);
ssize_t vfs_pread(struct file *f, void *buf, size_t len, u64 pos);
ssize_t vfs_pwrite(struct file *f, const void *buf, size_t len, u64 pos);
s64 vfs_lseek(struct file *f, s64 off, int whence);
int vfs_ftruncate(struct file *f, u64 size);
int vfs_fsync(struct file *f);
/* Entries from the file's position on, as (name, ino, type); the position advances. */
int vfs_readdir(struct file *f, filldir_t fill, void *ctx);

/* ------------------------------------------------------------ descriptor tables */

#define FD_MAX 256

/*
 * A process's descriptor table. Threads share one (CLONE_FILES, by count);
 * fork copies it (files_dup: each open file gains a reference, offsets are
 * shared, as POSIX says); exec closes the close-on-exec ones.
 */
struct files_struct {
	atomic_t count;				/* [A] tasks sharing the table */
	spinlock_t lock;			/* the slots and bits below */
	struct file *fd[FD_MAX];		/* [L:lock] */
	u64 cloexec[FD_MAX / 64];		/* [L:lock] FD_CLOEXEC per slot */
};

struct files_struct *files_alloc(void);
struct files_struct *files_dup(struct files_struct *old);
void files_put(struct files_struct *files);
/* The lowest free slot >= min, holding f (the table takes the caller's reference). -EMFILE if full. */
int fd_install(struct files_struct *files, struct file *f, int min, bool cloexec);
/* The file in slot fd with a reference, or NULL (-EBADF for the caller). */
struct file *fd_get(struct files_struct *files, int fd);
int fd_close(struct files_struct *files, int fd);
/* dup2/dup3 semantics: newfd is closed first; same fd is a no-op. newfd or -errno. */
int fd_dup2(struct files_struct *files, int oldfd, int newfd, bool cloexec);
void files_close_on_exec(struct files_struct *files);

/* The inode cache (fs/inode.c), for mounting and unmounting (fs/super.c):
 * set it up at boot; hold every cached inode of sb (an array, *n long);
 * drop sb's unused inodes, returning how many. */
void vfs_icache_init(void);
struct inode **icache_grab_all(struct super_block *sb, unsigned long *n);
unsigned long icache_prune_sb(struct super_block *sb);
/* vfs_open_inode (fs/namei.c): the inode open(2) of path gives, created
 * if flags say so (held), or ERR_PTR(-errno), never NULL. May sleep. */
struct inode *vfs_open_inode(struct inode *cwd, const char *path, unsigned flags, u32 mode);
/* console_open_stdio (drivers/tty.c): descriptors 0, 1, 2 on the console. */
int console_open_stdio(struct files_struct *files);

/* pipe_create (fs/pipe.c): a pipe's read end, and its write end in *write_end. */
struct file *pipe_create(struct file **write_end, unsigned flags);
/* file_is_tty (drivers/tty.c): whether f is the console. */
bool file_is_tty(struct file *f);

/* /dev (fs/devfs.c): its super_block, mounted on /dev at boot (vfs_mount_kernel_fs). */
struct super_block *devfs_super(void);
void devfs_init(void);
/* console_open (drivers/tty.c): make f, a /dev/tty or /dev/console, the console. */
void console_open(struct file *f);
/* /proc (fs/proc.c): its super_block, mounted on /proc at boot (vfs_mount_kernel_fs). */
struct super_block *proc_super(void);
void proc_init(void);
/*
 * What /proc shows of processes: the process layer (kernel/proc_pid.c)
 * hands /proc this table at boot, as a lower floor is reached from above.
 * Files of /proc/PID, by kind:
 */
enum { PROC_PID_DIR, PROC_PID_STAT, PROC_PID_STATUS, PROC_PID_CMDLINE, PROC_PID_MAPS,
       PROC_PID_KINDS };
struct proc_pid_ops {
	/* The smallest pid >= from of a process not yet reaped, or -1. Never sleeps. */
	int (*next)(int from);
	/* The text of file kind of process pid into buf (at most size bytes): its
	 * length, or -ENOENT if pid has been reaped. May sleep. */
	int (*show)(int pid, int kind, char *buf, int size);
	/* /proc/loadavg's line. Never sleeps. */
	int (*loadavg)(char *buf, int size);
};
/* Boot, once: the table /proc/PID and /proc/loadavg use from then on. */
void proc_set_pid_ops(const struct proc_pid_ops *ops);

/* Boot: the inode cache. */
void vfs_init(void);
/* Boot: vfs_init, mount the root ramdisk (unless vfs.noroot) and /proc on it,
 * start the flusher. */
void vfs_boot(void);

#endif
