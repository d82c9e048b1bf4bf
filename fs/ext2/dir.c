/*
 * dir.c - ext2 directories: a linear list of entries in the directory's
 * own blocks, cached in its address_space like file data.
 *
 * An entry is (inode, rec_len, name_len, file_type, name); rec_len runs
 * to the next entry, and the last one in a block runs to the block's end.
 * Removing an entry folds its space into the one before it (or zeroes its
 * inode if it is first in its block); adding one takes a free entry or
 * splits a live one with room to spare, else appends a block.
 *
 * Every entry is checked before it is believed (check_entry): a rec_len
 * that runs off the block, is 0, or is too small for its name is damage:
 * EUCLEAN, said once, and the directory is not changed.
 *
 * A directory indexed by dir_index (EXT2_INDEX_FL) reads correctly as a
 * linear one (its index blocks look like empty entries); any change here
 * clears the flag so the stale index is never believed, as Linux's ext2 does.
 *
 * Callers hold sb->s_ns (fs/vfs.h): for reading to look, for writing to
 * change. Changes take the page lock so writeback never copies half of one.
 * Lock order: ext2.h ('s_ns' -> 'page_lock' of a directory page -> ...).
 */
#include "fs/ext2/ext2.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "drivers/rtc.h"

#define REC_LEN(namelen) ((8 + (namelen) + 3) & ~3u)

static u8 file_type(struct ext2_sb_info *sbi, u32 mode)
{
	if (!sbi->filetype)
		return EXT2_FT_UNKNOWN;
	switch (mode & S_IFMT) {
	case S_IFREG: return EXT2_FT_REG_FILE;
	case S_IFDIR: return EXT2_FT_DIR;
	case S_IFCHR: return 3;
	case S_IFBLK: return 4;
	case S_IFIFO: return 5;
	case S_IFSOCK: return 6;
	case S_IFLNK: return EXT2_FT_SYMLINK;
	}
	return EXT2_FT_UNKNOWN;
}

static unsigned dt_of(u8 ft)
{
	static const u8 dt[8] = { DT_UNKNOWN, DT_REG, DT_DIR, 2, 6, 1, 12, DT_LNK };
	return ft < 8 ? dt[ft] : DT_UNKNOWN;
}

static bool check_entry(struct inode *dir, struct ext2_dirent *de, u32 off)
{
	struct ext2_sb_info *sbi = SBI(dir->sb);
	const char *why = NULL;
	if (de->rec_len < 12 || de->rec_len % 4)
		why = "rec_len too small or not a multiple of 4";
	else if (off + de->rec_len > BLOCK_SIZE)
		why = "rec_len runs off the end of the block";
	else if (de->inode && REC_LEN(de->name_len) > de->rec_len)
		why = "a name longer than its entry";
	else if (de->inode > sbi->inodes_count)
		why = "an inode number past the inode count";
	if (why)
		ext2_damage(dir->sb, dir, "directory entry at offset %u: %s", off, why);
	return !why;
}

static u64 dir_pages(struct inode *dir)
{
	return i_size(dir) / BLOCK_SIZE;
}

/*
 * Walk every entry of dir; `visit` returns non-zero to stop (that value is
 * returned, with the page still referenced in *pagep). 0 at the end, or
 * -errno (EUCLEAN for damage, EIO).
 */
typedef int (*visit_t)(struct ext2_dirent *de, u32 off, struct ext2_dirent *prev, void *ctx);

static int walk(struct inode *dir, u64 from_page, visit_t visit, void *ctx, struct page **pagep)
{
	for (u64 n = from_page; n < dir_pages(dir); n++) {
		struct page *page = read_mapping_page(&dir->mapping, n);
		if (IS_ERR(page))
			return PTR_ERR(page);
		u8 *base = page_address(page);
		struct ext2_dirent *prev = NULL;
		for (u32 off = 0; off < BLOCK_SIZE;) {
			struct ext2_dirent *de = (struct ext2_dirent *)(base + off);
			if (!check_entry(dir, de, off)) {
				put_page(page);
				return -EUCLEAN;
			}
			int r = visit(de, (u32)(n * BLOCK_SIZE) + off, prev, ctx);
			if (r) {
				*pagep = page;
				return r;
			}
			prev = de;
			off += de->rec_len;
		}
		put_page(page);
	}
	return 0;
}

struct find {
	const char *name;
	int len;
	struct ext2_dirent *de, *prev;
};

static int find_visit(struct ext2_dirent *de, u32 off, struct ext2_dirent *prev, void *ctx)
{
	struct find *f = ctx;
	if (de->inode && de->name_len == f->len && !memcmp(de->name, f->name, f->len)) {
		f->de = de;
		f->prev = prev;
		return 1;
	}
	return 0;
}

/* The entry for name, with its page referenced; ERR_PTR(-ENOENT) if none,
 * or ERR_PTR of the directory's damage or read error. */
static struct page *find_entry(struct inode *dir, const char *name, int len, struct find *f)
{
	struct page *page = NULL;
	f->name = name;
	f->len = len;
	int r = walk(dir, 0, find_visit, f, &page);
	return r == 1 ? page : ERR_PTR(r ? r : -ENOENT);
}

int ext2_lookup(struct inode *dir, const char *name, int len, u32 *ino)
{
	struct find f;
	struct page *page = find_entry(dir, name, len, &f);
	if (IS_ERR(page))
		return PTR_ERR(page);
	*ino = f.de->inode;
	put_page(page);
	return 0;
}

struct rd {
	u64 start;		/* byte offset to resume from */
	u64 *pos;
	filldir_t fill;
	void *ctx;
};

static int readdir_visit(struct ext2_dirent *de, u32 off, struct ext2_dirent *prev, void *ctx)
{
	struct rd *r = ctx;
	if (off < r->start)
		return 0;
	if (de->inode && r->fill(r->ctx, de->name, de->name_len, de->inode, dt_of(de->file_type)))
		return 1;	/* the caller's buffer is full: resume at this entry */
	*r->pos = off + de->rec_len;
	return 0;
}

int ext2_readdir(struct inode *dir, u64 *pos, filldir_t fill, void *ctx)
{
	struct rd r = { *pos, pos, fill, ctx };
	struct page *page = NULL;
	int err = walk(dir, *pos / BLOCK_SIZE, readdir_visit, &r, &page);
	if (err == 1) {
		put_page(page);
		return 0;
	}
	if (!err)
		*pos = MAX(*pos, i_size(dir));
	return err;
}

/* ------------------------------------------------------------ changing entries */

static void dir_changed(struct inode *dir)
{
	EI(dir)->i_flags &= ~EXT2_INDEX_FL;	/* any index is stale now */
	dir->mtime = dir->ctime = wall_seconds();
	mark_inode_dirty(dir);
}

static void set_entry(struct ext2_dirent *de, u32 ino, const char *name, int len, u8 ft)
{
	de->inode = ino;
	de->name_len = (u8)len;
	de->file_type = ft;
	memcpy(de->name, name, len);
}

struct slot {
	u32 need;
	struct ext2_dirent *de;
};

static int slot_visit(struct ext2_dirent *de, u32 off, struct ext2_dirent *prev, void *ctx)
{
	struct slot *s = ctx;
	u32 used = de->inode ? REC_LEN(de->name_len) : 0;
	if (de->rec_len >= used + s->need) {
		s->de = de;
		return 1;
	}
	return 0;
}

/* Append a block to a directory: a locked page holding one empty entry,
 * or ERR_PTR(-errno). */
static struct page *grow_dir(struct inode *dir)
{
	u64 n = dir_pages(dir);
	u32 block;
	int err = ext2_get_block(dir, n, true, &block);
	if (err)
		return ERR_PTR(err);
	struct page *page = find_or_create_page(&dir->mapping, n);
	if (!page)	/* the block stays allocated to the directory; e2fsck-clean */
		return ERR_PTR(-ENOMEM);
	wait_on_page_writeback(page);
	memset(page_address(page), 0, BLOCK_SIZE);
	struct ext2_dirent *de = page_address(page);
	de->rec_len = BLOCK_SIZE;
	page->private = block + 1UL;
	set_bit(PG_uptodate, &page->flags);
	WRITE_ONCE(dir->mapping.size, (n + 1) * BLOCK_SIZE);
	return page;
}

/* The change is made: the page goes to writeback later, the directory's times move. */
static void changed_entry(struct inode *dir, struct page *page)
{
	set_page_dirty(page);
	unlock_page(page);
	put_page(page);
	dir_changed(dir);
}

static int add_link(struct inode *dir, const char *name, int len, struct inode *inode)
{
	struct ext2_sb_info *sbi = SBI(dir->sb);
	struct slot s = { REC_LEN(len), NULL };
	struct page *page = NULL;
	int err = walk(dir, 0, slot_visit, &s, &page);
	if (err < 0)
		return err;
	if (err == 1) {
		lock_page(page);
		wait_on_page_writeback(page);
	} else {
		page = grow_dir(dir);
		if (IS_ERR(page))
			return PTR_ERR(page);
		s.de = page_address(page);
	}
	struct ext2_dirent *de = s.de;
	if (de->inode) {		/* split: the new entry takes the spare tail */
		u32 used = REC_LEN(de->name_len);
		struct ext2_dirent *nde = (struct ext2_dirent *)((u8 *)de + used);
		nde->rec_len = de->rec_len - used;
		de->rec_len = used;
		de = nde;
	}
	set_entry(de, inode->ino, name, len, file_type(sbi, inode->mode));
	changed_entry(dir, page);
	return 0;
}

/* The entry for name with its page locked for a change; find_entry's ERR_PTR if none. */
static struct page *lock_entry(struct inode *dir, const char *name, int len, struct find *f)
{
	struct page *page = find_entry(dir, name, len, f);
	if (!IS_ERR(page)) {
		lock_page(page);
		wait_on_page_writeback(page);
	}
	return page;
}

static int delete_entry(struct inode *dir, const char *name, int len)
{
	struct find f;
	struct page *page = lock_entry(dir, name, len, &f);
	if (IS_ERR(page))
		return PTR_ERR(page);
	if (f.prev)			/* walk() restarts prev at each block */
		f.prev->rec_len += f.de->rec_len;
	else
		f.de->inode = 0;
	changed_entry(dir, page);
	return 0;
}

/* Point an existing entry at another inode (rename over a name). */
static int set_link(struct inode *dir, const char *name, int len, struct inode *inode)
{
	struct find f;
	struct page *page = lock_entry(dir, name, len, &f);
	if (IS_ERR(page))
		return PTR_ERR(page);
	f.de->inode = inode->ino;
	f.de->file_type = file_type(SBI(dir->sb), inode->mode);
	changed_entry(dir, page);
	return 0;
}

static int empty_visit(struct ext2_dirent *de, u32 off, struct ext2_dirent *prev, void *ctx)
{
	if (!de->inode)
		return 0;
	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	return 1;
}

/* 0 if empty, -ENOTEMPTY, or -EUCLEAN. */
static int check_empty(struct inode *dir)
{
	struct page *page = NULL;
	int r = walk(dir, 0, empty_visit, NULL, &page);
	if (r == 1) {
		put_page(page);
		return -ENOTEMPTY;
	}
	return r;
}

/* ------------------------------------------------------------ inode_operations */

/* A new inode of mode, published; or ERR_PTR(-errno). */
static struct inode *make(struct inode *dir, u32 mode)
{
	struct inode *inode = ext2_new_inode(dir, mode);
	if (!IS_ERR(inode))
		inode_publish(inode);
	return inode;
}

/* Undo a new inode that could not be linked: no links, so iput frees it. */
static void unmake(struct inode *inode)
{
	inode->nlink = 0;
	iput(inode);
}

int ext2_create(struct inode *dir, const char *name, int len, u32 mode, struct inode **out)
{
	struct inode *inode = make(dir, S_IFREG | (mode & 07777));
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	int err = add_link(dir, name, len, inode);
	if (err) {
		unmake(inode);
		return err;
	}
	*out = inode;
	return 0;
}

/* A symbolic link (fs/ext2/symlink.c): mode 0777, as Linux makes them. */
int ext2_symlink(struct inode *dir, const char *name, int len, const char *target, int tlen,
		 struct inode **out)
{
	struct inode *inode = make(dir, S_IFLNK | 0777);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	int err = ext2_set_link(inode, target, tlen);
	if (!err)
		err = add_link(dir, name, len, inode);
	if (err) {
		unmake(inode);
		return err;
	}
	*out = inode;
	return 0;
}

int ext2_mkdir(struct inode *dir, const char *name, int len, u32 mode, struct inode **out)
{
	if (dir->nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	struct inode *inode = make(dir, S_IFDIR | (mode & 07777));
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	inode->nlink = 2;
	mutex_lock(&inode->i_mutex);
	struct page *page = grow_dir(inode);
	if (!IS_ERR(page)) {
		struct ext2_sb_info *sbi = SBI(dir->sb);
		struct ext2_dirent *dot = page_address(page);
		set_entry(dot, inode->ino, ".", 1, file_type(sbi, S_IFDIR));
		dot->rec_len = 12;
		struct ext2_dirent *dotdot = (struct ext2_dirent *)((u8 *)dot + 12);
		set_entry(dotdot, dir->ino, "..", 2, file_type(sbi, S_IFDIR));
		dotdot->rec_len = BLOCK_SIZE - 12;
		set_page_dirty(page);
		unlock_page(page);
		put_page(page);
	}
	mark_inode_dirty(inode);
	mutex_unlock(&inode->i_mutex);
	int err = IS_ERR(page) ? PTR_ERR(page) : add_link(dir, name, len, inode);
	if (err) {
		unmake(inode);
		return err;
	}
	dir->nlink++;
	mark_inode_dirty(dir);
	*out = inode;
	return 0;
}

int ext2_link(struct inode *old, struct inode *dir, const char *name, int len)
{
	if (old->nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	int err = add_link(dir, name, len, old);
	if (err)
		return err;
	old->nlink++;
	old->ctime = wall_seconds();
	return mark_inode_dirty(old);
}

int ext2_unlink(struct inode *dir, const char *name, int len, struct inode *victim)
{
	int err = delete_entry(dir, name, len);
	if (err)
		return err;
	victim->nlink--;
	victim->ctime = wall_seconds();
	return mark_inode_dirty(victim);
}

int ext2_rmdir(struct inode *dir, const char *name, int len, struct inode *victim)
{
	int err = check_empty(victim);
	if (err)
		return err;
	if ((err = delete_entry(dir, name, len)))
		return err;
	victim->nlink = 0;
	victim->ctime = wall_seconds();
	mark_inode_dirty(victim);
	dir->nlink--;			/* victim's ".." is gone */
	return mark_inode_dirty(dir);
}

static int set_dotdot(struct inode *dir, struct inode *parent)
{
	return set_link(dir, "..", 2, parent);
}

int ext2_rename(struct inode *odir, const char *oname, int olen, struct inode *moved,
		struct inode *ndir, const char *nname, int nlen, struct inode *over)
{
	bool is_dir = S_ISDIR(moved->mode);
	int err;

	if (over) {
		if (S_ISDIR(over->mode) && (err = check_empty(over)))
			return err;
		if ((err = set_link(ndir, nname, nlen, moved)))
			return err;
	} else {
		if (is_dir && odir != ndir && ndir->nlink >= EXT2_LINK_MAX)
			return -EMLINK;
		if ((err = add_link(ndir, nname, nlen, moved)))
			return err;
	}
	if ((err = delete_entry(odir, oname, olen)))
		return err;
	if (over) {
		over->ctime = wall_seconds();
		if (S_ISDIR(over->mode)) {
			over->nlink = 0;
			ndir->nlink--;	/* over's ".." is gone */
		} else {
			over->nlink--;
		}
		mark_inode_dirty(over);
	}
	if (is_dir && odir != ndir) {
		set_dotdot(moved, ndir);
		odir->nlink--;
		ndir->nlink++;
	}
	moved->ctime = wall_seconds();
	mark_inode_dirty(moved);
	mark_inode_dirty(odir);
	if (ndir != odir)
		mark_inode_dirty(ndir);
	return 0;
}

const struct inode_operations ext2_dir_iops = {
	.lookup = ext2_lookup,
	.create = ext2_create,
	.mkdir = ext2_mkdir,
	.link = ext2_link,
	.unlink = ext2_unlink,
	.rmdir = ext2_rmdir,
	.rename = ext2_rename,
	.symlink = ext2_symlink,
	.readdir = ext2_readdir,
	.setsize = ext2_setsize,
};
