/*
 * namei.c - the operations on names: stat, mkdir, symlink, readlink,
 * unlink, rmdir, link, rename, truncate, open's lookup and create, getcwd.
 *
 * The walk from a path to an inode is fs/walk.c's (mounts, "..",
 * symbolic links). Operations that change names (create, mkdir,
 * symlink, link, unlink, rmdir, rename) walk to the parent directory, then
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
#include "fs/walk.h"
#include "fs/mount.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "drivers/rtc.h"
#include "mm/slab.h"

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
	return vfs_stat_at(cwd, path, 0, st);
}

int vfs_stat_at(struct inode *cwd, const char *path, unsigned lflags, struct kstat *st)
{
	struct inode *inode = vfs_lookup_at(cwd, path, lflags);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	vfs_getattr(inode, st);
	iput(inode);
	return 0;
}

/* Look a name up with s_ns already held; the inode with a reference, or
 * ERR_PTR(-errno) (-ENOENT: no such name). */
static struct inode *lookup_locked(struct inode *dir, const char *name, int len)
{
	u32 ino;
	int e = dir->op->lookup(dir, name, len, &ino);
	return e ? ERR_PTR(e) : iget(dir->sb, ino);
}

/* Drop what a lookup found, if it found anything: an error holds no reference. */
static void iput_found(struct inode *inode)
{
	if (!IS_ERR(inode))
		iput(inode);
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
 * Returns the existing inode (*existed) or a new one; ERR_PTR(-errno).
 */
static struct inode *create_locked(struct inode *dir, const char *name, int len, u32 mode,
				   bool *existed)
{
	struct inode *inode = lookup_locked(dir, name, len);
	*existed = !IS_ERR(inode);
	if (*existed || PTR_ERR(inode) != -ENOENT)
		return inode;
	int e = may_change(dir);
	if (!e)
		e = S_ISDIR(mode) ? dir->op->mkdir(dir, name, len, mode, &inode)
				  : dir->op->create(dir, name, len, mode, &inode);
	return e ? ERR_PTR(e) : inode;
}

int vfs_mkdir(struct inode *cwd, const char *path, u32 mode)
{
	struct walk w;
	bool existed;
	struct inode *dir = walk_parent(cwd, path, &w);
	const char *last = w.last;
	int len = w.lastlen;
	if (IS_ERR(dir)) {
		walk_done(&w);
		return PTR_ERR(dir);
	}
	if (len == 0 || is_dot(last, len) || is_dotdot(last, len) || !S_ISDIR(dir->mode)) {
		int err = S_ISDIR(dir->mode) ? -EEXIST : -ENOTDIR;
		iput(dir);
		walk_done(&w);
		return err;
	}
	down_write(&dir->sb->s_ns);
	struct inode *inode = create_locked(dir, last, len, S_IFDIR | (mode & 07777), &existed);
	up_write(&dir->sb->s_ns);
	iput(dir);
	walk_done(&w);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	iput(inode);
	return existed ? -EEXIST : 0;
}

/*
 * symlink: a new link at linkpath holding target (any bytes, not looked
 * at: a dangling link is fine). EEXIST if the name is taken, even by a
 * dangling link; EPERM where the file system has no links (/proc).
 */
int vfs_symlink(struct inode *cwd, const char *target, const char *linkpath)
{
	int tlen = (int)strnlen(target, PATH_MAX);
	if (!tlen)
		return -ENOENT;			/* Linux: an empty target */
	if (tlen >= PATH_MAX)
		return -ENAMETOOLONG;
	struct walk w;
	int err = 0;
	struct inode *dir = walk_parent(cwd, linkpath, &w);
	if (IS_ERR(dir)) {
		walk_done(&w);
		return PTR_ERR(dir);
	}
	if (w.lastlen == 0 || is_dot(w.last, w.lastlen) || is_dotdot(w.last, w.lastlen))
		err = -EEXIST;
	else if (!(err = may_change(dir)) && !dir->op->symlink)
		err = -EPERM;
	if (!err) {
		down_write(&dir->sb->s_ns);
		struct inode *there = lookup_locked(dir, w.last, w.lastlen), *link = NULL;
		if (!IS_ERR(there) || PTR_ERR(there) != -ENOENT)
			err = IS_ERR(there) ? PTR_ERR(there) : -EEXIST;
		else if (w.trailing)
			err = -ENOENT;		/* "new/" names a directory that is not there */
		else
			err = dir->op->symlink(dir, w.last, w.lastlen, target, tlen, &link);
		up_write(&dir->sb->s_ns);
		iput_found(there);
		iput(link);
	}
	iput(dir);
	walk_done(&w);
	return err;
}

/* readlink: the target of the link path names (not followed) into buf (PATH_MAX
 * bytes, not NUL-terminated): its length, or EINVAL for a file that is no link. */
int vfs_readlink(struct inode *cwd, const char *path, char *buf)
{
	struct inode *inode = vfs_lookup_at(cwd, path, LOOKUP_NOFOLLOW);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	int err = S_ISLNK(inode->mode) && inode->op->readlink ? inode->op->readlink(inode, buf) : -EINVAL;
	iput(inode);
	return err;
}

static int remove_last(struct inode *dir, const char *last, int len, bool trailing, bool want_dir);

/* unlink and rmdir share all but the type check and the operation. */
static int remove_name(struct inode *cwd, const char *path, bool want_dir)
{
	struct walk w;
	struct inode *dir = walk_parent(cwd, path, &w);
	int err = IS_ERR(dir) ? PTR_ERR(dir)	/* the link itself goes, never what it points to */
			      : remove_last(dir, w.last, w.lastlen, w.trailing, want_dir);
	walk_done(&w);
	return err;
}

/* remove_name's last step: remove (last, len) from dir, whose reference it uses up. */
static int remove_last(struct inode *dir, const char *last, int len, bool trailing, bool want_dir)
{
	int err = 0;
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
	struct inode *victim = lookup_locked(dir, last, len);
	if (IS_ERR(victim)) {
		err = PTR_ERR(victim);
	} else {
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
	iput_found(victim);		/* the last one frees an unlinked file */
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
	return vfs_link2(cwd, oldpath, cwd, newpath, LOOKUP_NOFOLLOW);
}

int vfs_link2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath,
	      unsigned lflags)
{
	struct inode *old = vfs_lookup_at(ocwd, oldpath, lflags);
	if (IS_ERR(old))
		return PTR_ERR(old);
	struct walk w;
	struct inode *dir = walk_parent(ncwd, newpath, &w);
	if (IS_ERR(dir)) {
		walk_done(&w);
		iput(old);
		return PTR_ERR(dir);
	}
	int err;
	const char *last = w.last;
	int len = w.lastlen;
	bool trailing = w.trailing;
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
		struct inode *there = lookup_locked(dir, last, len);
		if (!IS_ERR(there))
			err = -EEXIST;
		else if (PTR_ERR(there) != -ENOENT)
			err = PTR_ERR(there);
		else if (old->nlink == 0)
			err = -ENOENT;
		else {
			mutex_lock(&old->i_mutex);
			err = dir->op->link(old, dir, last, len);
			mutex_unlock(&old->i_mutex);
		}
		up_write(&dir->sb->s_ns);
		iput_found(there);
	}
	iput(dir);
	iput(old);
	walk_done(&w);
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
	int found = 0;
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
		struct inode *up = lookup_locked(cur, "..", 2);
		iput(cur);
		if (IS_ERR(up)) {
			found = PTR_ERR(up);
			up = NULL;
		}
		cur = up;
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

static int rename_last(struct inode *odir, struct walk *ow, struct inode *ndir, struct walk *nw);

int vfs_rename2(struct inode *ocwd, const char *oldpath, struct inode *ncwd, const char *newpath)
{
	struct walk ow, nw;
	struct inode *odir = walk_parent(ocwd, oldpath, &ow);
	int err = IS_ERR(odir) ? PTR_ERR(odir) : 0;
	if (!err) {
		struct inode *ndir = walk_parent(ncwd, newpath, &nw);
		if (IS_ERR(ndir)) {
			err = PTR_ERR(ndir);
			iput(odir);
		} else {	/* a link is renamed itself, never what it points to */
			err = rename_last(odir, &ow, ndir, &nw);
		}
		walk_done(&nw);
	}
	walk_done(&ow);
	return err;
}

/* vfs_rename2's last step, with both walks done; uses up odir's and ndir's references. */
static int rename_last(struct inode *odir, struct walk *ow, struct inode *ndir, struct walk *nw)
{
	const char *olast = ow->last, *nlast = nw->last;
	int olen = ow->lastlen, nlen = nw->lastlen, err = 0;
	bool otrail = ow->trailing, ntrail = nw->trailing;
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
	moved = lookup_locked(odir, olast, olen);
	if (IS_ERR(moved)) {
		err = PTR_ERR(moved);
		moved = NULL;
		goto unlock;
	}
	over = lookup_locked(ndir, nlast, nlen);
	if (IS_ERR(over)) {
		err = PTR_ERR(over);
		over = NULL;
		if (err != -ENOENT)
			goto unlock;
		err = 0;		/* nothing there to replace */
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
	struct inode *inode = vfs_lookup(cwd, path);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	int err;
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

/* open(O_CREAT)'s step in one directory: the file (last, len) names there,
 * created if it is missing (*existed says which), or ERR_PTR(-errno).
 * dir's reference stays. */
static struct inode *create_in(struct inode *dir, const struct walk *w, u32 mode, bool *existed)
{
	const char *last = w->last;
	int len = w->lastlen;
	*existed = true;
	if (len == 0 || is_dot(last, len) || is_dotdot(last, len) || w->trailing)
		return ERR_PTR(-EISDIR);	/* O_CREAT on a directory name */
	if (!S_ISDIR(dir->mode))
		return ERR_PTR(-ENOTDIR);
	down_write(&dir->sb->s_ns);
	struct inode *inode = create_locked(dir, last, len, S_IFREG | (mode & 07777), existed);
	up_write(&dir->sb->s_ns);
	return inode;
}

/*
 * open's name half: the inode to open, created if O_CREAT says so. A
 * symbolic link as the last component is followed (and, with O_CREAT, a
 * dangling one creates its target, as Linux does), except under O_EXCL
 * (the name exists: EEXIST) and O_NOFOLLOW (the link itself comes back,
 * for vfs_open to refuse with ELOOP).
 */
struct inode *vfs_open_inode(struct inode *cwd, const char *path, unsigned flags, u32 mode)
{
	if (!(flags & O_CREAT))
		return vfs_lookup_at(cwd, path, flags & O_NOFOLLOW ? LOOKUP_NOFOLLOW : 0);
	struct walk w;
	bool existed = true;
	struct inode *inode, *dir = walk_parent(cwd, path, &w);
	while (!IS_ERR(dir)) {
		inode = create_in(dir, &w, mode, &existed);
		if (IS_ERR(inode) || !existed || !S_ISLNK(inode->mode) ||
		    (flags & (O_EXCL | O_NOFOLLOW)))
			break;
		const char *p = splice_link(inode, "", &w);	/* on to its target */
		iput(inode);
		struct inode *next = IS_ERR(p) ? ERR_CAST(p) : walk_from(dir, p, &w);
		iput(dir);
		dir = next;
	}
	if (IS_ERR(dir))
		inode = dir;		/* a walk failed: its error is the answer */
	else
		iput(dir);
	walk_done(&w);
	if (!IS_ERR(inode) && existed && (flags & O_EXCL)) {
		iput(inode);
		return ERR_PTR(-EEXIST);
	}
	return !IS_ERR(inode) && existed ? follow_mount(inode) : inode;
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
		struct inode *up = lookup_one(cur, "..", 2);	/* its own file system's parent */
		if (IS_ERR(up)) {
			err = PTR_ERR(up);
			break;
		}
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
