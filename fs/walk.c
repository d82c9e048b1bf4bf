/*
 * walk.c - from a path to an inode: the walk, one component at a time,
 * across mounts and through symbolic links (fs/walk.h says how links are
 * followed; docs/fs.md).
 *
 * A path is walked from the root ('/' first) or from the caller's working
 * directory. A step onto a directory something is mounted on lands on the
 * mounted file system's root, and ".." from that root goes up from the
 * directory it covers (fs/namespace.c). Each step holds the directory's
 * name space (sb->s_ns) for reading while the file system looks the name
 * up, then takes a reference on the inode it names (iget) and lets go of
 * the directory. A link's target is read with no VFS lock held.
 */
#include "fs/walk.h"
#include "fs/mount.h"
#include "kernel/string.h"
#include "mm/slab.h"

/* The root directory with a reference; ERR_PTR(-ENOENT) before a root is mounted. */
static struct inode *root_dir(void)
{
	struct super_block *sb = vfs_root_sb();
	struct inode *root = sb ? igrab(sb->root) : NULL;
	return root ? root : ERR_PTR(-ENOENT);
}

/* A new reference to a directory the caller holds; ERR_PTR(-ENOENT) if it is being freed. */
static struct inode *grab_dir(struct inode *dir)
{
	struct inode *d = igrab(dir);
	return d ? d : ERR_PTR(-ENOENT);
}

/* The inode `name` names in dir's own file system, with a reference; no mounts crossed. */
struct inode *lookup_one(struct inode *dir, const char *name, int len)
{
	u32 ino;
	down_read(&dir->sb->s_ns);
	int e = dir->op->lookup(dir, name, len, &ino);
	up_read(&dir->sb->s_ns);
	return e ? ERR_PTR(e) : iget(dir->sb, ino);
}

/*
 * dir itself, or, when dir is the root of a mounted file system, the
 * directory it covers (fs/namespace.c), repeated while that is a root too;
 * a reference either way. Its ".." is the way up.
 */
struct inode *leave_mounts(struct inode *dir)
{
	struct inode *cur = igrab(dir), *covered;
	while (cur == cur->sb->root && (covered = mount_covered(cur))) {
		iput(cur);
		cur = covered;
	}
	return cur;
}

/* "..": out of a mounted file system through the directory it covers; "/.." is "/". */
static struct inode *step_up(struct inode *dir)
{
	struct inode *cur = leave_mounts(dir);
	if (cur == cur->sb->root)
		return cur;		/* the root of everything (or of a forgotten mount) */
	struct inode *up = lookup_one(cur, "..", 2);
	iput(cur);
	return IS_ERR(up) ? up : follow_mount(up);
}

/* One step: the inode `name` names in dir, with a reference, mount points crossed. */
static struct inode *step(struct inode *dir, const char *name, int len)
{
	if (!S_ISDIR(dir->mode))
		return ERR_PTR(-ENOTDIR);
	if (is_dot(name, len))
		return grab_dir(dir);
	if (is_dotdot(name, len))
		return step_up(dir);
	struct inode *inode = lookup_one(dir, name, len);
	return IS_ERR(inode) ? inode : follow_mount(inode);	/* onto what is mounted there */
}

void walk_done(struct walk *w)
{
	kfree(w->buf);
	w->buf = NULL;
}

/* The target of a symbolic link, NUL-terminated in a new PATH_MAX buffer
 * (*len its length), or ERR_PTR(-errno). */
static char *link_target(struct inode *link, int *len)
{
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	int n = link->op->readlink ? link->op->readlink(link, buf) : -EINVAL;
	if (n < 0 || n >= PATH_MAX) {
		kfree(buf);
		return ERR_PTR(n < 0 ? n : -EUCLEAN);
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/*
 * Follow link: the walk's path becomes its target, then '/' and `rest`
 * (the components after the link; "" for none, "/" to keep a trailing
 * slash). Returns the new path (w->buf) or ERR_PTR: -ELOOP past
 * MAX_LINKS, -ENOENT for an empty target, -ENAMETOOLONG.
 */
const char *splice_link(struct inode *link, const char *rest, struct walk *w)
{
	if (++w->links > MAX_LINKS)
		return ERR_PTR(-ELOOP);
	int n = 0;	/* set when buf is no error; the compiler cannot tell */
	char *buf = link_target(link, &n);
	if (IS_ERR(buf))
		return buf;
	size_t rl = strlen(rest);
	if (!n || n + 1 + rl >= PATH_MAX) {
		kfree(buf);
		return ERR_PTR(n ? -ENAMETOOLONG : -ENOENT);
	}
	if (rl) {
		buf[n] = '/';
		memcpy(buf + n + 1, rest, rl + 1);	/* rest may lie in w->buf: copy first */
	}
	kfree(w->buf);
	w->buf = buf;
	return buf;
}

/*
 * Walk every component of path but the last, from cwd (NULL: the root)
 * or from the root for an absolute path, following links on the way.
 * Returns the directory that should hold the last one, with a reference,
 * and sets w->last, w->lastlen and w->trailing; links followed are added
 * to w->links. ERR_PTR(-errno) on failure, never NULL. The loop ends when
 * dir becomes an error: a step that failed, or no root file system.
 */
struct inode *walk_from(struct inode *cwd, const char *path, struct walk *w)
{
	if (!path || !*path)
		return ERR_PTR(path ? -ENOENT : -EINVAL);	/* Linux: "" is ENOENT */
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	struct inode *dir = (*path == '/' || !cwd) ? root_dir() : grab_dir(cwd);
	const char *p = path;
	w->trailing = false;
	while (!IS_ERR(dir)) {
		while (*p == '/')
			p++;
		const char *name = p;
		while (*p && *p != '/')
			p++;
		int len = (int)(p - name);
		if (len > NAME_MAX) {
			iput(dir);
			return ERR_PTR(-ENAMETOOLONG);
		}
		const char *rest = p;
		while (*rest == '/')
			rest++;
		if (!*rest) {			/* name is the last component */
			w->trailing = *p == '/';
			w->last = name;
			w->lastlen = len;
			return dir;
		}
		struct inode *next = step(dir, name, len);
		if (!IS_ERR(next) && S_ISLNK(next->mode)) {	/* on over "target/rest" */
			p = splice_link(next, rest, w);
			iput(next);
			if (!IS_ERR(p) && *p != '/')
				continue;		/* from dir on */
			next = IS_ERR(p) ? ERR_CAST(p) : root_dir();	/* or from the root */
		}
		iput(dir);
		dir = next;
	}
	return dir;
}

/* walk_from for a fresh walk; w is the caller's, walk_done'd after use. */
struct inode *walk_parent(struct inode *cwd, const char *path, struct walk *w)
{
	*w = (struct walk){ 0 };
	return walk_from(cwd, path, w);
}

/*
 * The inode the walk's last component names in dir, with a reference
 * (dir's reference is used up): a symbolic link there is followed when
 * `follow` says so, and always when the path ends in '/', as Linux does.
 */
struct inode *walk_last(struct inode *dir, struct walk *w, bool follow)
{
	for (;;) {
		if (w->lastlen == 0)		/* "/" */
			return dir;
		struct inode *inode = step(dir, w->last, w->lastlen);
		if (!IS_ERR(inode) && S_ISLNK(inode->mode) && (follow || w->trailing)) {
			const char *p = splice_link(inode, w->trailing ? "/" : "", w);
			iput(inode);
			struct inode *next = IS_ERR(p) ? ERR_CAST(p) : walk_from(dir, p, w);
			iput(dir);
			if (IS_ERR(next))
				return next;
			dir = next;
			continue;
		}
		iput(dir);
		if (!IS_ERR(inode) && w->trailing && !S_ISDIR(inode->mode)) {
			iput(inode);
			return ERR_PTR(-ENOTDIR);
		}
		return inode;
	}
}

struct inode *vfs_lookup_at(struct inode *cwd, const char *path, unsigned lflags)
{
	struct walk w;
	struct inode *dir = walk_parent(cwd, path, &w);
	struct inode *inode = IS_ERR(dir) ? dir : walk_last(dir, &w, !(lflags & LOOKUP_NOFOLLOW));
	walk_done(&w);
	return inode;
}

/* Resolve the last component too, following a link there. */
struct inode *vfs_lookup(struct inode *cwd, const char *path)
{
	return vfs_lookup_at(cwd, path, 0);
}
