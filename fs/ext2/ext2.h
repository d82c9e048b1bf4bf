/*
 * ext2.h - the second extended file system, revision 1, 4 KiB blocks.
 *
 * On-disk layout (all little-endian, which x86 is): block 0 holds the
 * superblock at byte 1024; block 1 on begins the group descriptor table.
 * The disk is cut into block groups; each has a block bitmap, an inode
 * bitmap and an inode table (sparse_super keeps backup superblocks only
 * in groups 0, 1 and powers of 3, 5 and 7, already marked used by mkfs).
 * An inode maps file block n to a disk block through 12 direct pointers,
 * then one single-, one double- and one triple-indirect block.
 *
 * Where things are cached (a file page is one block):
 *   file and directory blocks   the inode's own address_space
 *   superblock, group descriptors, bitmaps, inode tables, indirect blocks
 *                               the device's address_space (metadata)
 * page->private of a file page is its disk block + 1 (0: not known or a
 * hole), so writeback never walks the block map.
 *
 * Lock order (after the VFS's 's_ns' and 'i_mutex', fs/vfs.h; the quoted
 * names are lockdep classes, kernel/lockdep.h, so it is checked at run time):
 *   'page_lock'    a file or directory page: readpage, write, set_link
 *     -> 'i_map'   ei->i_map, the block map (rwsem): ext2_get_block,
 *                  readpage, write_begin, write_inode (for i_block); an
 *                  O_DIRECT write holds it from the allocation through
 *                  the block's disk write (ext2_direct_block)
 *     -> 'ext2_alloc'  sbi->alloc_lock (mutex), bitmaps and free counts:
 *                  ext2_balloc under i_map, ext2_ialloc under s_ns
 *     -> 'page_lock/1' a metadata page (the block device's pages lock as
 *                  subclass 1, mm/pagecache.h): bitmaps, group descriptors,
 *                  inode tables, indirect blocks, the superblock
 * Every arrow may be skipped (write_inode takes 'i_map' then 'page_lock/1';
 * mkdir takes 'ext2_alloc' with no page locked), never reversed: nothing
 * takes 'i_map' under a metadata page lock, nor a file page's lock under
 * 'i_map'. Two metadata pages are never locked at once.
 * Metadata pages are changed only under their page lock, so writeback
 * (which holds it) never copies half a change.
 */
#ifndef FS_EXT2_H
#define FS_EXT2_H

#include "fs/vfs.h"
#include "fs/blockdev.h"

#define EXT2_MAGIC 0xEF53
#define EXT2_ROOT_INO 2
#define EXT2_NDIR 12
#define EXT2_IND 12
#define EXT2_DIND 13
#define EXT2_TIND 14
#define EXT2_N_BLOCKS 15
#define EXT2_LINK_MAX 32000
#define EXT2_PTRS (BLOCK_SIZE / 4)	/* block numbers per indirect block */

/* Feature bits. */
#define EXT2_FEATURE_COMPAT_EXT_ATTR 0x0008
#define EXT2_FEATURE_COMPAT_RESIZE_INODE 0x0010
#define EXT2_FEATURE_INCOMPAT_FILETYPE 0x0002
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE 0x0002
#define EXT2_INCOMPAT_SUPPORTED EXT2_FEATURE_INCOMPAT_FILETYPE
#define EXT2_RO_COMPAT_SUPPORTED                                               \
	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT2_FEATURE_RO_COMPAT_LARGE_FILE)

#define EXT2_INDEX_FL 0x00001000	/* hashed directory (dir_index) */

/* Directory entry file types (with the filetype feature). */
#define EXT2_FT_UNKNOWN 0
#define EXT2_FT_REG_FILE 1
#define EXT2_FT_DIR 2
#define EXT2_FT_SYMLINK 7

struct ext2_super {
	u32 s_inodes_count, s_blocks_count, s_r_blocks_count;
	u32 s_free_blocks_count, s_free_inodes_count;
	u32 s_first_data_block, s_log_block_size, s_log_frag_size;
	u32 s_blocks_per_group, s_frags_per_group, s_inodes_per_group;
	u32 s_mtime, s_wtime;
	u16 s_mnt_count;
	s16 s_max_mnt_count;
	u16 s_magic, s_state, s_errors, s_minor_rev_level;
	u32 s_lastcheck, s_checkinterval, s_creator_os, s_rev_level;
	u16 s_def_resuid, s_def_resgid;
	u32 s_first_ino;
	u16 s_inode_size, s_block_group_nr;
	u32 s_feature_compat, s_feature_incompat, s_feature_ro_compat;
	u8 s_uuid[16];
	char s_volume_name[16];
	char s_last_mounted[64];
	u32 s_algorithm_usage_bitmap;
	u8 s_prealloc_blocks, s_prealloc_dir_blocks;
	u16 s_reserved_gdt_blocks;	/* kept free for growing the descriptor table */
	u8 s_journal_uuid[16];
	u32 s_journal_inum, s_journal_dev, s_last_orphan;
	u32 s_hash_seed[4];
	u8 s_def_hash_version, s_reserved_char_pad;
	u16 s_desc_size;
	u32 s_default_mount_opts, s_first_meta_bg, s_mkfs_time;
	u32 s_jnl_blocks[17];
	u32 s_blocks_count_hi, s_r_blocks_count_hi, s_free_blocks_hi;
	u16 s_min_extra_isize, s_want_extra_isize;
} __attribute__((packed));

struct ext2_group_desc {
	u32 bg_block_bitmap, bg_inode_bitmap, bg_inode_table;
	u16 bg_free_blocks_count, bg_free_inodes_count, bg_used_dirs_count, bg_pad;
	u32 bg_reserved[3];
} __attribute__((packed));

struct ext2_inode {
	u16 i_mode, i_uid;
	u32 i_size, i_atime, i_ctime, i_mtime, i_dtime;
	u16 i_gid, i_links_count;
	u32 i_blocks, i_flags, i_osd1;
	u32 i_block[EXT2_N_BLOCKS];
	u32 i_generation, i_file_acl, i_size_high, i_faddr;
	u16 i_blocks_hi, i_file_acl_high, i_uid_high, i_gid_high, i_checksum_lo, i_reserved;
	u16 i_extra_isize;		/* only in inodes larger than 128 bytes */
} __attribute__((packed));

struct ext2_dirent {
	u32 inode;
	u16 rec_len;
	u8 name_len, file_type;
	char name[];
} __attribute__((packed));

/* Lock legend: [I] after mount, [A:alloc_lock]. */
struct ext2_sb_info {
	struct super_block *sb;			/* [I] the VFS's */
	struct blockdev *bd;			/* [I] */
	struct page *sb_page;			/* [I] block 0, held while mounted */
	struct ext2_super *es;			/* [A] in sb_page */
	struct page **gd_pages;			/* [I] the descriptor table, held */
	u32 groups, gdt_blocks;			/* [I] */
	u32 blocks_count, inodes_count;		/* [I] */
	u32 blocks_per_group, inodes_per_group;	/* [I] */
	u32 first_data_block, first_ino;	/* [I] */
	u32 inode_size, itb_per_group;		/* [I] inode bytes, inode-table blocks per group */
	u16 extra_isize;			/* [I] i_extra_isize for new large inodes */
	u32 reserved_gdt;			/* [I] blocks after each descriptor table copy */
	bool filetype;				/* [I] entries carry a file type */
	bool sparse_super;			/* [I] copies only in groups 0, 1, 3^n, 5^n, 7^n */
	bool damage_logged;			/* [A] superblock-level damage said once */
	struct mutex alloc_lock;
	char name[32];				/* [I] */
};

/* The in-memory inode: the VFS's, plus what ext2 keeps of the disk inode. */
struct ext2_inode_info {
	struct inode vfs;
	u32 i_block[EXT2_N_BLOCKS];	/* [i_map] */
	u32 i_flags;			/* [M] */
	u32 i_dtime, i_generation;	/* [M] */
	u32 i_file_acl;			/* [M] extended-attribute block, 0 if none */
	u32 last_alloc;			/* [i_map] allocation goal: the last block given */
	struct rw_semaphore i_map;	/* the block map: readers map, writers change it */
	bool damage_logged;		/* damage in this inode said once */
};

static inline struct ext2_inode_info *EI(struct inode *inode)
{
	return (struct ext2_inode_info *)inode;
}

static inline struct ext2_sb_info *SBI(struct super_block *sb)
{
	return sb->fs_info;
}

/* A symbolic link whose target lies in i_block: no data block (beyond an
 * extended-attribute block), as Linux and e2fsck decide it. */
static inline bool ext2_link_is_fast(struct inode *inode)
{
	return inode->blocks <= (EI(inode)->i_file_acl ? BLOCK_SIZE / 512 : 0);
}

/* super.c */
int ext2_fill_super(struct super_block *sb, struct blockdev *bd);
/* Group descriptor `group` (mount checked it), and the held page it lies in. */
struct ext2_group_desc *ext2_gd(struct ext2_sb_info *sbi, u32 group, struct page **page);
/* Is block a block number of the disk (not the superblock's, not past the end)? */
bool ext2_block_ok(struct ext2_sb_info *sbi, u32 block);
/* Damage in one object (EUCLEAN for it, the rest goes on): logged once per inode. */
void ext2_damage(struct super_block *sb, struct inode *inode, const char *fmt, ...);
/* Damage that makes writes unsafe: logged (naming inode ino if not 0), and sb
 * goes read-only; the caller returns -EIO. Any context that may printk. */
void ext2_error(struct super_block *sb, u32 ino, const char *fmt, ...);

/* alloc.c: the allocators take alloc_lock and may sleep. They return the
 * block or inode number, never 0 (block 0 holds the superblock, which the
 * metadata check refuses to hand out; inodes count from 1), or -errno:
 * -ENOSPC, -EROFS, -EIO when a bitmap lies, or a bitmap read's error. */
void ext2_alloc_setup(void);
void ext2_inode_setup(void);
long ext2_balloc(struct ext2_sb_info *sbi, u32 goal);
void ext2_bfree(struct ext2_sb_info *sbi, u32 block);
long ext2_ialloc(struct ext2_sb_info *sbi, u32 parent_group, bool dir);
void ext2_ifree(struct ext2_sb_info *sbi, u32 ino, bool dir);
/* Is block one of its group's bitmaps, inode table, superblock or descriptor copies? */
bool ext2_meta_block(struct ext2_sb_info *sbi, u32 block);
/* ext2_block_ok and not metadata: a block a file may own. */
bool ext2_data_block_ok(struct ext2_sb_info *sbi, u32 block);
/* A new inode for create and mkdir, in the cache (I_NEW) and on disk; or
 * ERR_PTR(-errno), never NULL. May sleep. */
struct inode *ext2_new_inode(struct inode *dir, u32 mode);
void meta_begin(struct page *page);
void meta_end(struct page *page);

/* symlink.c: store a new link's target (i_block or a block); 0 or -errno. */
int ext2_set_link(struct inode *link, const char *target, int tlen);

/* inode.c */
extern const struct address_space_ops ext2_aops;
extern const struct inode_operations ext2_file_iops;
extern const struct inode_operations ext2_dir_iops;
extern const struct inode_operations ext2_special_iops;
extern const struct inode_operations ext2_symlink_iops;
struct inode *ext2_alloc_inode(struct super_block *sb);
void ext2_destroy_inode(struct inode *inode);
int ext2_read_inode(struct inode *inode);
int ext2_write_inode(struct inode *inode);
void ext2_evict_inode(struct inode *inode);
int ext2_get_block(struct inode *inode, u64 index, bool create, u32 *block);
int ext2_setsize(struct inode *inode, u64 size);
void ext2_set_ops(struct inode *inode);
/* Where inode ino lies: its inode-table block and offset; -EUCLEAN if no such inode. */
int ext2_inode_loc(struct ext2_sb_info *sbi, u32 ino, u32 *block, u32 *off);

/* dir.c */
int ext2_lookup(struct inode *dir, const char *name, int len, u32 *ino);
int ext2_readdir(struct inode *dir, u64 *pos, filldir_t fill, void *ctx);
int ext2_create(struct inode *dir, const char *name, int len, u32 mode, struct inode **out);
int ext2_mkdir(struct inode *dir, const char *name, int len, u32 mode, struct inode **out);
int ext2_link(struct inode *old, struct inode *dir, const char *name, int len);
int ext2_unlink(struct inode *dir, const char *name, int len, struct inode *victim);
int ext2_rmdir(struct inode *dir, const char *name, int len, struct inode *victim);
int ext2_symlink(struct inode *dir, const char *name, int len, const char *target, int tlen,
		 struct inode **out);
int ext2_rename(struct inode *odir, const char *oname, int olen, struct inode *moved,
		struct inode *ndir, const char *nname, int nlen, struct inode *over);

#endif
