/*
 * namei.c - from a path to an inode, and the operations on names.
 *
 * A path is walked one component at a time from the root ('/' first) or
 * from the caller's working directory. A step onto a directory something
 * is mounted on lands on the mounted file system's root, and ".." from
 * that root goes up from the directory it covers (fs/namespace.c): /proc
 * is a file system of its own, /proc/.. is /. Each step holds the directory's
 * file system name space (sb->s_ns) for reading while the file system
 * looks the name up, then takes a reference on the inode it names (iget)
 * and lets go of the directory. Operations that change names (create,
 * mkdir, link, unlink, rmdir, rename) walk to the parent directory, then
 * hold s_ns for writing while they check and change it, so what they
 * checked is still true when they change it.
 *
 * Lock order (fs/vfs.h; quoted names are lockdep classes, checked at run
 * time):
 *   'pos_lock' -> 's_ns'         readdir (a file's offset, then the names)
 *   's_ns' -> 'i_mutex'          create, mkdir, link, unlink, rmdir, rename:
 *                                the name space, then the inode they change
 *   'i_mutex' -> 'i_mutex/1'     rename: the moved inode, then the one it
 *                                replaces. Only under s_ns held for writing,
 *                                so two renames never take them crosswise.
 *   's_ns' -> 'icache'           iget, new_inode under the name space
 *   's_ns' -> 'page_lock', 'i_map', 'ext2_alloc' ...  the file system's
 *                                directory blocks and allocation (ext2.h)
 * A path walk holds s_ns for reading only while it looks one name up, and
 * lets go of it before the next component.
 */
#include "fs/vfs.h"
#include "fs/mount.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "drivers/rtc.h"
#include "mm/slab.h"

static struct inode *root_dir(void)
{
	struct super_block *sb = vfs_root_sb();
	return sb ? igrab(sb->root) : NULL;
}

static bool is_dot(const char *name, int len)
{
	return len == 1 && name[0] == '.';
}

static bool is_dotdot(const char *name, int len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

/* The inode `name` names in dir's own file system, with a reference; no mounts crossed. */
static struct inode *lookup_one(struct inode *dir, const char *name, int len, int *err)
{
	u32 ino;
	down_read(&dir->sb->s_ns);
	int e = dir->op->lookup(dir, name, len, &ino);
	up_read(&dir->sb->s_ns);
	if (e) {
		*err = e;
		return NULL;
	}
	return iget(dir->sb, ino, err);
}

/*
 * dir itself, or, when dir is the root of a mounted file system, the
 * directory it covers (fs/namespace.c), repeated while that is a root too;
 * a reference either way. Its ".." is the way up.
 */
static struct inode *leave_mounts(struct inode *dir)
{
	struct inode *cur = igrab(dir), *covered;
	while (cur == cur->sb->root && (covered = mount_covered(cur))) {
		iput(cur);
		cur = covered;
	}
	return cur;
}

/* "..": out of a mounted file system through the directory it covers; "/.." is "/". */
static struct inode *step_up(struct inode *dir, int *err)
{
	struct inode *cur = leave_mounts(dir);
	if (cur == cur->sb->root)
		return cur;		/* the root of everything (or of a forgotten mount) */
	struct inode *up = lookup_one(cur, "..", 2, err);
	iput(cur);
	return up ? follow_mount(up) : NULL;
}

/* One step: the inode `name` names in dir, with a reference, mount points crossed. */
static struct inode *step(struct inode *dir, const char *name, int len, int *err)
{
	if (!S_ISDIR(dir->mode)) {
		*err = -ENOTDIR;
		return NULL;
	}
	if (is_dot(name, len))
		return igrab(dir);
	if (is_dotdot(name, len))
		return step_up(dir, err);
	struct inode *inode = lookup_one(dir, name, len, err);
	return inode ? follow_mount(inode) : NULL;	/* onto what is mounted there */
}

/*
 * Walk every component but the last. Returns the directory that should
 * hold the last one, with a reference, and points *last and *lastlen at it
 * (inside path; *lastlen is 0 for the path "/"). *trailing is set when the path ends
 * in '/', which only a directory may do.
 */
static struct inode *walk_parent(struct inode *cwd, const char *path, const char **last,
				 int *lastlen, bool *trailing, int *err)
{
	if (!path || !*path) {
		*err = path ? -ENOENT : -EINVAL;	/* Linux: "" is ENOENT */
		return NULL;
	}
	if (strnlen(path, PATH_MAX) >= PATH_MAX) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	struct inode *dir = (*path == '/' || !cwd) ? root_dir() : igrab(cwd);
	if (!dir) {
		*err = -ENOENT;
		return NULL;
	}
	const char *p = path;
	*trailing = false;
	for (;;) {
		while (*p == '/')
			p++;
		const char *name = p;
		while (*p && *p != '/')
			p++;
		int len = (int)(p - name);
		if (len > NAME_MAX) {
			iput(dir);
			*err = -ENAMETOOLONG;
			return NULL;
		}
		const char *rest = p;
		while (*rest == '/')
			rest++;
		if (!*rest) {			/* name is the last component */
			*trailing = *p == '/';
			*last = name;
			*lastlen = len;
			return dir;
		}
		struct inode *next = step(dir, name, len, err);
		iput(dir);
		if (!next)
			return NULL;
		dir = next;
	}
}

/* Resolve the last component too. */
struct inode *vfs_lookup(struct inode *cwd, const char *path, int *err)
{
	const char *last;
	int len;
	bool trailing;
	struct inode *dir = walk_parent(cwd, path, &last, &len, &trailing, err);
	if (!dir)
		return NULL;
	if (len == 0)			/* "/" */
		return dir;
	struct inode *inode = step(dir, last, len, err);
	iput(dir);
	if (inode && trailing && !S_ISDIR(inode->mode)) {
		iput(inode);
		*err = -ENOTDIR;
		return NULL;
	}
	return inode;
}

void vfs_getattr(struct inode *inode, struct kstat *st)
{
	mutex_lock(&inode->i_mutex);
	st->dev = inode->sb->dev;
	st->ino = inode->ino;
	st->mode = inode->mode;
	st->rdev = inode->rdev;
	st->nlink = inode->nlink;
	st->uid = inode->uid;
	st->gid = inode->gid;
	st->size = i_size(inode);
	st->blocks = inode->blocks;
	st->blksize = PAGE_SIZE;
	st->atime = inode->atime;
	st->mtime = inode->mtime;
	st->ctime = inode->ctime;
	mutex_unlock(&inode->i_mutex);
}

int vfs_stat(struct inode *cwd, const char *path, struct kstat *st)
{
	int err = 0;
	struct inode *inode = vfs_lookup(cwd, path, &err);
	if (!inode)
		return err;
	vfs_getattr(inode, st);
	iput(inode);
	return 0;
}

/* Look a name up with s_ns already held; the inode with a reference, or NULL. */
static struct inode *lookup_locked(struct inode *dir, const char *name, int len, int *err)
{
	u32 ino;
	int e = dir->op->lookup(dir, name, len, &ino);
	if (e) {
		*err = e;
		return NULL;
	}
	return iget(dir->sb, ino, err);
}

/* A parent directory ready for a change: a directory, writable, not being removed. */
static int may_change(struct inode *dir)
{
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	if (dir->sb->rdonly)
		return -EROFS;
	if (dir->nlink == 0)
		return -ENOENT;		/* removed while we walked to it */
	return 0;
}

/*
 * Create: used by open(O_CREAT) and mkdir. With s_ns held for writing.
 * Returns the existing inode (*existed) or a new one.
 */
static struct inode *create_locked(struct inode *dir, const char *name, int len, u32 mode,
				   bool *existed, int *err)
{
	int e = 0;
	struct inode *inode = lookup_locked(dir, name, len, &e);
	if (inode) {
		*existed = true;
		return inode;
	}
	if (e != -ENOENT) {
		*err = e;
		return NULL;
	}
	*existed = false;
	if ((e = may_change(dir))) {
		*err = e;
		return NULL;
	}
	e = S_ISDIR(mode) ? dir->op->mkdir(dir, name, len, mode, &inode)
			  : dir->op->create(dir, name, len, mode, &inode);
	if (e) {
		*err = e;
		return NULL;
	}
	return inode;
}

int vfs_mkdir(struct inode *cwd, const char *path, u32 mode)
{
	const char *last;
	int len, err = 0;
	bool trailing, existed;
	struct inode *dir = walk_parent(cwd, path, &last, &len, &trailing, &err);
	if (!dir)
		return err;
	if (len == 0 || is_dot(last, len) || is_dotdot(last, len)) {
		iput(dir);
		return -EEXIST;
	}
	if (!S_ISDIR(dir->mode)) {
		iput(dir);
		return -ENOTDIR;
	}
	down_write(&dir->sb->s_ns);
	struct inode *inode = create_locked(dir, last, len, S_IFDIR | (mode & 07777), &existed, &err);
	up_write(&dir->sb->s_ns);
	iput(dir);
	if (!inode)
		return err;
	iput(inode);
	return existed ? -EEXIST : 0;
}

/* unlink and rmdir share all but the type check and the operation. */
static int remove_name(struct inode *cwd, const char *path, bool want_dir)
{
	const char *last;
	int len, err = 0;
	bool trailing;
	struct inode *dir = walk_parent(cwd, path, &last, &len, &trailing, &err);
	if (!dir)
		return err;
	if (len == 0 || is_dot(last, len) || is_dotdot(last, len)) {
		iput(dir);
		if (!want_dir)
			return -EISDIR;
		return len == 0 ? -EBUSY : is_dot(last, len) ? -EINVAL : -ENOTEMPTY;
	}
	if ((err = may_change(dir))) {
		iput(dir);
		return err;
	}
	down_write(&dir->sb->s_ns);
	struct inode *victim = lookup_locked(dir, last, len, &err);
	if (victim) {
		if (want_dir && !S_ISDIR(victim->mode))
			err = -ENOTDIR;
		else if (!want_dir && S_ISDIR(victim->mode))
			err = -EISDIR;
		else if (!want_dir && trailing)
			err = -ENOTDIR;
		else if (is_mountpoint(victim))
			err = -EBUSY;		/* rmdir /proc */
		else {
			mutex_lock(&victim->i_mutex);
			err = want_dir ? dir->op->rmdir(dir, last, len, victim)
				       : dir->op->unlink(dir, last, len, victim);
			mutex_unlock(&victim->i_mutex);
		}
	}
	up_write(&dir->sb->s_ns);
	iput(victim);		/* the last one frees an unlinked file */
	iput(dir);
	return err;
}

int vfs_unlink(struct inode *cwd, const char *path)
{
	return remove_name(cwd, path, false);
}

int vfs_rmdir(struct inode *cwd, const char *path)
{
	return remove_name(cwd, path, true);
}

int vfs_link(struct inode *cwd, const char *oldpath, const char *newpath)
{
	return vfs_link2(cwd, oldpath, cwd, newpath);
}

int vfs_link2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath)
{
	int err = 0;
	struct inode *old = vfs_lookup(ocwd, oldpath, &err);
	if (!old)
		return err;
	const char *last;
	int len;
	bool trailing;
	struct inode *dir = walk_parent(ncwd, newpath, &last, &len, &trailing, &err);
	if (!dir) {
		iput(old);
		return err;
	}
	if (S_ISDIR(old->mode))
		err = -EPERM;
	else if (len == 0 || is_dot(last, len) || is_dotdot(last, len) || trailing)
		err = -EEXIST;
	else if (old->sb != dir->sb)
		err = -EXDEV;
	else
		err = may_change(dir);
	if (!err) {
		down_write(&dir->sb->s_ns);
		int e = 0;
		struct inode *there = lookup_locked(dir, last, len, &e);
		if (there)
			err = -EEXIST;
		else if (e != -ENOENT)
			err = e;
		else if (old->nlink == 0)
			err = -ENOENT;
		else {
			mutex_lock(&old->i_mutex);
			err = dir->op->link(old, dir, last, len);
			mutex_unlock(&old->i_mutex);
		}
		up_write(&dir->sb->s_ns);
		iput(there);
	}
	iput(dir);
	iput(old);
	return err;
}

/*
 * Is `a` the directory `d` or one of its ancestors? The walk up from d
 * through ".." reads the disk, so a damaged ".." (a cycle, a lookup that
 * fails) ends it with an error instead of a loop: 1, 0 or -errno
 * (-EUCLEAN after PATH_MAX / 2 levels, more than any path can have).
 * s_ns held for writing.
 */
static int is_ancestor(struct inode *a, struct inode *d)
{
	struct inode *cur = igrab(d);
	int found = 0, err = 0;
	for (int level = 0; cur && !found && cur != cur->sb->root; level++) {
		if (cur == a) {
			found = 1;
			break;
		}
		if (level == PATH_MAX / 2) {
			pr_err("%s: the \"..\" chain up from inode %u does not reach the root "
			       "(EUCLEAN)", d->sb->name, d->ino);
			found = -EUCLEAN;
			break;
		}
		struct inode *up = lookup_locked(cur, "..", 2, &err);
		iput(cur);
		cur = up;
		if (!cur)
			found = err ? err : -EUCLEAN;
	}
	if (cur == a && !found)
		found = 1;
	iput(cur);
	return found;
}

int vfs_rename(struct inode *cwd, const char *oldpath, const char *newpath)
{
	return vfs_rename2(cwd, oldpath, cwd, newpath);
}

int vfs_rename2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath)
{
	const char *olast, *nlast;
	int olen, nlen, err = 0;
	bool otrail, ntrail;
	struct inode *odir = walk_parent(ocwd, oldpath, &olast, &olen, &otrail, &err);
	if (!odir)
		return err;
	struct inode *ndir = walk_parent(ncwd, newpath, &nlast, &nlen, &ntrail, &err);
	if (!ndir) {
		iput(odir);
		return err;
	}
	struct inode *moved = NULL, *over = NULL;
	if (olen == 0 || nlen == 0 || is_dot(olast, olen) || is_dotdot(olast, olen) ||
	    is_dot(nlast, nlen) || is_dotdot(nlast, nlen))
		err = olen == 0 || nlen == 0 ? -EBUSY : -EINVAL;
	else if (odir->sb != ndir->sb)
		err = -EXDEV;
	else if (!(err = may_change(odir)))
		err = may_change(ndir);
	if (err)
		goto out;

	struct super_block *sb = odir->sb;
	down_write(&sb->s_ns);
	moved = lookup_locked(odir, olast, olen, &err);
	if (!moved)
		goto unlock;
	int e = 0;
	over = lookup_locked(ndir, nlast, nlen, &e);
	if (!over && e != -ENOENT) {
		err = e;
		goto unlock;
	}
	if ((otrail || ntrail) && !S_ISDIR(moved->mode)) {
		err = -ENOTDIR;
		goto unlock;
	}
	if (over == moved) {		/* two names of one file: POSIX says do nothing */
		err = 0;
		goto unlock;
	}
	if (over && S_ISDIR(moved->mode) && !S_ISDIR(over->mode))
		err = -ENOTDIR;
	else if (over && !S_ISDIR(moved->mode) && S_ISDIR(over->mode))
		err = -EISDIR;
	else if (is_mountpoint(moved) || (over && is_mountpoint(over)))
		err = -EBUSY;		/* a directory something is mounted on stays put */
	else if (S_ISDIR(moved->mode) && (err = is_ancestor(moved, ndir)) > 0)
		err = -EINVAL;		/* into its own subtree */
	if (err)
		goto unlock;
	mutex_lock(&moved->i_mutex);
	if (over)	/* the second i_mutex held: lockdep subclass 1 (s_ns serialises renames) */
		mutex_lock_nested(&over->i_mutex, 1);
	err = odir->op->rename(odir, olast, olen, moved, ndir, nlast, nlen, over);
	if (over)
		mutex_unlock(&over->i_mutex);
	mutex_unlock(&moved->i_mutex);
unlock:
	up_write(&sb->s_ns);
out:
	iput(over);
	iput(moved);
	iput(ndir);
	iput(odir);
	return err;
}

int vfs_truncate(struct inode *cwd, const char *path, u64 size)
{
	int err = 0;
	struct inode *inode = vfs_lookup(cwd, path, &err);
	if (!inode)
		return err;
	if (S_ISDIR(inode->mode))
		err = -EISDIR;
	else if (inode->sb->rdonly)
		err = -EROFS;
	else {
		mutex_lock(&inode->i_mutex);
		err = inode->op->setsize(inode, size);
		mutex_unlock(&inode->i_mutex);
	}
	iput(inode);
	return err;
}

/* open's name half: the inode to open, created if O_CREAT says so. */
struct inode *vfs_open_inode(struct inode *cwd, const char *path, unsigned flags, u32 mode,
			     int *err)
{
	if (!(flags & O_CREAT))
		return vfs_lookup(cwd, path, err);
	const char *last;
	int len;
	bool trailing, existed = true;
	struct inode *dir = walk_parent(cwd, path, &last, &len, &trailing, err);
	if (!dir)
		return NULL;
	struct inode *inode;
	if (len == 0 || is_dot(last, len) || is_dotdot(last, len) || trailing) {
		*err = -EISDIR;		/* O_CREAT on a directory name */
		inode = NULL;
	} else if (!S_ISDIR(dir->mode)) {
		*err = -ENOTDIR;
		inode = NULL;
	} else {
		down_write(&dir->sb->s_ns);
		inode = create_locked(dir, last, len, S_IFREG | (mode & 07777), &existed, err);
		up_write(&dir->sb->s_ns);
	}
	iput(dir);
	if (inode && existed && (flags & O_EXCL)) {
		iput(inode);
		*err = -EEXIST;
		return NULL;
	}
	return inode && existed ? follow_mount(inode) : inode;
}

struct name_of {
	u32 ino;
	char name[NAME_MAX + 1];
	bool found;
};

static int find_ino(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	struct name_of *n = ctx;
	if (ino != n->ino || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	memcpy(n->name, name, len);
	n->name[len] = 0;
	n->found = true;
	return 1;
}

/* The absolute path of directory dir into buf: its length, or -errno. */
int vfs_getcwd(struct inode *dir, char *buf, int size)
{
	struct super_block *sb = vfs_root_sb();
	if (!sb)
		return -ENOENT;
	if (dir->nlink == 0)
		return -ENOENT;		/* removed while it was someone's cwd */
	char *tmp = kmalloc(size);
	struct name_of *n = kmalloc(sizeof(*n));
	if (!tmp || !n) {
		kfree(tmp);
		kfree(n);
		return -ENOMEM;
	}
	int len = 0, err = 0;
	struct inode *cur = igrab(dir);
	while (cur && cur != sb->root) {
		/* A mounted root is named by the directory it covers. */
		struct inode *named = leave_mounts(cur);
		iput(cur);
		cur = named;
		if (cur == sb->root)
			break;
		if (cur == cur->sb->root) {
			err = -ENOENT;	/* a file system no longer mounted anywhere */
			break;
		}
		struct inode *up = lookup_one(cur, "..", 2, &err);	/* its own file system's parent */
		if (!up)
			break;
		n->ino = cur->ino;
		n->found = false;
		u64 pos = 0;
		down_read(&up->sb->s_ns);
		err = up->op->readdir(up, &pos, find_ino, n);
		up_read(&up->sb->s_ns);
		iput(cur);
		cur = up;
		if (!err && !n->found)
			err = -ENOENT;
		int l = (int)strlen(n->name);
		if (err || len + l + 1 >= size) {
			err = err ? err : -ERANGE;
			break;
		}
		memmove(tmp + l + 1, tmp, len);
		tmp[0] = '/';
		memcpy(tmp + 1, n->name, l);
		len += l + 1;
	}
	iput(cur);
	if (!err) {
		if (!len)
			tmp[len++] = '/';
		memcpy(buf, tmp, len);
		buf[len] = 0;
	}
	kfree(n);
	kfree(tmp);
	return err ? err : len;
}
