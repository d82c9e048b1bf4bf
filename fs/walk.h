/*
 * walk.h - the path walk's steps, shared by fs/walk.c (the walk) and
 * fs/namei.c (the operations on names). Not for other files: they use
 * vfs_lookup and friends (fs/vfs.h).
 *
 * Symbolic links. A link met in the middle of a path, or as its last
 * component when the operation follows links, is replaced by its target:
 * the walk goes on over "target/rest" from the link's directory, or from
 * the root when the target is absolute. The rewritten path lives in
 * walk.buf (the caller's path is never written). One walk follows at most
 * MAX_LINKS links in all, nested or one after another, then fails with
 * ELOOP, as Linux does.
 */
#ifndef FS_WALK_H
#define FS_WALK_H

#include "fs/vfs.h"

#define MAX_LINKS 40

/* Where a walk stands: its last component and the path it is reading now.
 * Private to the walking thread. */
struct walk {
	const char *last;	/* the last component, inside the path or buf */
	int lastlen;		/* its length; 0 for the path "/" */
	bool trailing;		/* the path ends in '/', which only a directory may do */
	int links;		/* symbolic links followed so far */
	char *buf;		/* the path rewritten by a link (kmalloc'd), or NULL */
};

static inline bool is_dot(const char *name, int len)
{
	return len == 1 && name[0] == '.';
}

static inline bool is_dotdot(const char *name, int len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

/* walk_parent: walk every component of path but the last, from cwd (NULL:
 * the root) or the root for an absolute path, following links on the way.
 * The directory that should hold the last component, with a reference,
 * and w filled; or ERR_PTR(-errno), never NULL. w is the caller's:
 * walk_done it either way. Takes s_ns for reading one step at a time; may
 * sleep. */
struct inode *walk_parent(struct inode *cwd, const char *path, struct walk *w);
/* walk_from: the same, counting on from the links w has followed already. */
struct inode *walk_from(struct inode *cwd, const char *path, struct walk *w);
/* walk_last: the inode w's last component names in dir, with a reference;
 * uses up dir's, even on failure. A link there is followed if `follow`, or
 * the path ends in '/'. ERR_PTR(-errno), never NULL. May sleep. */
struct inode *walk_last(struct inode *dir, struct walk *w, bool follow);
/* splice_link: w's path becomes link's target, '/' and rest ("" for none);
 * the new path (w->buf) or ERR_PTR(-ELOOP, -ENOENT, -ENAMETOOLONG, -ENOMEM,
 * or readlink's error); never NULL. May sleep. */
const char *splice_link(struct inode *link, const char *rest, struct walk *w);
/* walk_done: free what the walk allocated. */
void walk_done(struct walk *w);
/* lookup_one: name in dir's own file system, no mounts crossed; a reference,
 * or ERR_PTR(-errno) (-ENOENT: no such name), never NULL. Takes s_ns for
 * reading; may sleep. */
struct inode *lookup_one(struct inode *dir, const char *name, int len);
/* leave_mounts: dir, or the directory a mounted root covers; a reference. */
struct inode *leave_mounts(struct inode *dir);

#endif
