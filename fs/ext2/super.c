/*
 * super.c - ext2 mount (with every check that keeps a damaged image from
 * hurting the kernel), damage reports, sync.
 *
 * Nothing on the disk is trusted: mount checks the superblock and every
 * group descriptor against the device's size before anything else reads
 * them, and refuses features it does not know (INCOMPAT) or mounts
 * read-only for ones it cannot keep correct (RO_COMPAT), as Linux does.
 *
 * Allocation is in alloc.c.
 */
#include "fs/ext2/ext2.h"
#include "mm/slab.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "drivers/rtc.h"
#include <stdarg.h>

_Static_assert(sizeof(struct ext2_group_desc) == 32, "group descriptor layout");
_Static_assert(__builtin_offsetof(struct ext2_super, s_magic) == 56, "superblock layout");
_Static_assert(__builtin_offsetof(struct ext2_super, s_feature_compat) == 92, "superblock layout");
_Static_assert(__builtin_offsetof(struct ext2_super, s_want_extra_isize) == 350, "superblock layout");
_Static_assert(__builtin_offsetof(struct ext2_inode, i_block) == 40, "inode layout");
_Static_assert(__builtin_offsetof(struct ext2_inode, i_extra_isize) == 128, "inode layout");

void meta_begin(struct page *page)
{
	lock_page(page);
	wait_on_page_writeback(page);
}

void meta_end(struct page *page)
{
	set_page_dirty(page);
	unlock_page(page);
}

/* Damage found on the disk: say so once per inode (or once for the superblock). */
void ext2_damage(struct super_block *sb, struct inode *inode, const char *fmt, ...)
{
	bool *said = inode ? &EI(inode)->damage_logged : &SBI(sb)->damage_logged;
	if (__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		return;
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (inode)
		pr_err("%s: inode %u: %s (EUCLEAN; e2fsck can repair it)", SBI(sb)->name,
		       inode->ino, msg);
	else
		pr_err("%s: %s (EUCLEAN; e2fsck can repair it)", SBI(sb)->name, msg);
}

/*
 * Damage that makes writing unsafe (a bitmap that lies): say what and
 * where every time, and go read-only the first time (errors=remount-ro).
 */
void ext2_error(struct super_block *sb, u32 ino, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Relaxed: a writer that still sees false finishes one operation;
	 * the next allocation reads it under alloc_lock's ordering. */
	bool was = __atomic_exchange_n(&sb->rdonly, true, __ATOMIC_RELAXED);
	char who[24] = "";
	if (ino)
		snprintf(who, sizeof(who), "inode %u: ", ino);
	pr_err("%s: %s%s (EIO)%s", SBI(sb)->name, who, msg,
	       was ? "" : "; remounting read-only");
}

bool ext2_block_ok(struct ext2_sb_info *sbi, u32 block)
{
	return block > sbi->first_data_block && block < sbi->blocks_count;
}

struct ext2_group_desc *ext2_gd(struct ext2_sb_info *sbi, u32 group, struct page **page)
{
	u32 per = BLOCK_SIZE / sizeof(struct ext2_group_desc);
	*page = sbi->gd_pages[group / per];
	return (struct ext2_group_desc *)page_address(*page) + group % per;
}

/* ------------------------------------------------------------ mount */

static const char *check_super(struct ext2_super *es, struct blockdev *bd, bool *rdonly)
{
	static char why[120];

	if (es->s_magic != EXT2_MAGIC)
		return "bad magic number: not an ext2 file system";
	if (es->s_rev_level > 1)
		return "revision newer than 1";
	if (es->s_log_block_size != 2)
		return "block size is not 4 KiB (make it with mkfs.ext2 -b 4096)";
	u32 incompat = es->s_rev_level ? es->s_feature_incompat : 0;
	if (incompat & ~EXT2_INCOMPAT_SUPPORTED) {
		snprintf(why, sizeof(why), "unsupported INCOMPAT features %#x; not mounted",
			 incompat & ~EXT2_INCOMPAT_SUPPORTED);
		return why;
	}
	u32 ro = es->s_rev_level ? es->s_feature_ro_compat : 0;
	if (ro & ~EXT2_RO_COMPAT_SUPPORTED) {
		pr_warn("ext2: unsupported RO_COMPAT features %#x: mounting read-only",
			ro & ~EXT2_RO_COMPAT_SUPPORTED);
		*rdonly = true;
	}
	if (!es->s_blocks_count || es->s_blocks_count > bd->nblocks) {
		snprintf(why, sizeof(why), "block count %u does not fit the %llu-block device",
			 es->s_blocks_count, (unsigned long long)bd->nblocks);
		return why;
	}
	if (es->s_first_data_block != 0)
		return "first data block is not 0 (4 KiB blocks start at 0)";
	if (!es->s_blocks_per_group || es->s_blocks_per_group > 8 * BLOCK_SIZE ||
	    !es->s_inodes_per_group || es->s_inodes_per_group > 8 * BLOCK_SIZE)
		return "blocks or inodes per group out of range";
	u32 groups = (es->s_blocks_count - es->s_first_data_block + es->s_blocks_per_group - 1) /
		     es->s_blocks_per_group;
	if ((u64)groups * es->s_inodes_per_group != es->s_inodes_count) {
		snprintf(why, sizeof(why), "inode count %u is not %u groups x %u inodes",
			 es->s_inodes_count, groups, es->s_inodes_per_group);
		return why;
	}
	u32 isize = es->s_rev_level ? es->s_inode_size : 128;
	if (isize < 128 || isize > BLOCK_SIZE || (isize & (isize - 1)))
		return "inode size is not a power of two from 128 to 4096";
	if (es->s_rev_level && (es->s_first_ino < 11 || es->s_first_ino >= es->s_inodes_count))
		return "first inode number out of range";
	if (es->s_free_blocks_count > es->s_blocks_count ||
	    es->s_free_inodes_count > es->s_inodes_count)
		return "free counts larger than the totals";
	return NULL;
}

static const char *check_groups(struct ext2_sb_info *sbi)
{
	static char why[120];
	u32 total_free_b = 0, total_free_i = 0;

	for (u32 g = 0; g < sbi->groups; g++) {
		struct page *p;
		struct ext2_group_desc *gd = ext2_gd(sbi, g, &p);
		if (!ext2_block_ok(sbi, gd->bg_block_bitmap) ||
		    !ext2_block_ok(sbi, gd->bg_inode_bitmap) ||
		    !ext2_block_ok(sbi, gd->bg_inode_table) ||
		    (u64)gd->bg_inode_table + sbi->itb_per_group > sbi->blocks_count) {
			snprintf(why, sizeof(why), "group %u's bitmaps or inode table lie past the end", g);
			return why;
		}
		u32 start = sbi->first_data_block + g * sbi->blocks_per_group;
		u32 end = start + sbi->blocks_per_group;
		if (gd->bg_block_bitmap < start || gd->bg_block_bitmap >= end ||
		    gd->bg_inode_bitmap < start || gd->bg_inode_bitmap >= end ||
		    gd->bg_inode_table < start || gd->bg_inode_table + sbi->itb_per_group > end) {
			snprintf(why, sizeof(why), "group %u's bitmaps or inode table lie outside it", g);
			return why;
		}
		if (gd->bg_free_blocks_count > sbi->blocks_per_group ||
		    gd->bg_free_inodes_count > sbi->inodes_per_group) {
			snprintf(why, sizeof(why), "group %u's free counts are out of range", g);
			return why;
		}
		total_free_b += gd->bg_free_blocks_count;
		total_free_i += gd->bg_free_inodes_count;
	}
	if (total_free_b > sbi->blocks_count || total_free_i > sbi->inodes_count)
		return "group free counts add up to more than the totals";
	return NULL;
}

static void release(struct ext2_sb_info *sbi)
{
	if (sbi->gd_pages)
		for (u32 i = 0; i < sbi->gdt_blocks; i++)
			if (sbi->gd_pages[i])
				put_page(sbi->gd_pages[i]);
	kfree(sbi->gd_pages);
	if (sbi->sb_page)
		put_page(sbi->sb_page);
	filemap_write_and_wait(&sbi->bd->mapping);
	truncate_inode_pages(&sbi->bd->mapping, 0);	/* a remount reads the disk afresh */
	kfree(sbi);
}

static void ext2_put_super(struct super_block *sb)
{
	release(SBI(sb));
	sb->fs_info = NULL;
}

static int ext2_sync_fs(struct super_block *sb)
{
	struct ext2_sb_info *sbi = SBI(sb);
	if (sb->rdonly)
		return 0;
	meta_begin(sbi->sb_page);
	sbi->es->s_wtime = (u32)wall_seconds();
	meta_end(sbi->sb_page);
	return filemap_write_and_wait(&sbi->bd->mapping);
}

/*
 * statfs: the superblock's live counts (the allocators keep them with the
 * group descriptors'). f_blocks is every block, as Linux's minixdf
 * option reports (Linux by default leaves out the metadata); the blocks
 * reserved for root are free but not available; the fsid is the UUID's
 * two halves folded, as Linux gives it.
 */
static void ext2_statfs(struct super_block *sb, struct kstatfs *st)
{
	struct ext2_sb_info *sbi = SBI(sb);
	const struct ext2_super *es = sbi->es;
	u64 bfree = READ_ONCE(es->s_free_blocks_count), reserved = es->s_r_blocks_count;
	const u32 *u = (const u32 *)es->s_uuid;
	st->magic = EXT2_MAGIC;
	st->bsize = BLOCK_SIZE;
	st->blocks = sbi->blocks_count;
	st->bfree = bfree;
	st->bavail = bfree > reserved ? bfree - reserved : 0;
	st->files = sbi->inodes_count;
	st->ffree = READ_ONCE(es->s_free_inodes_count);
	st->fsid = (u64)(u[0] ^ u[2]) | (u64)(u[1] ^ u[3]) << 32;
}

static const struct super_operations ext2_sops = {
	.alloc_inode = ext2_alloc_inode,
	.destroy_inode = ext2_destroy_inode,
	.read_inode = ext2_read_inode,
	.write_inode = ext2_write_inode,
	.evict_inode = ext2_evict_inode,
	.sync_fs = ext2_sync_fs,
	.put_super = ext2_put_super,
	.statfs = ext2_statfs,
};

int ext2_fill_super(struct super_block *sb, struct blockdev *bd)
{
	struct ext2_sb_info *sbi = kzalloc(sizeof(*sbi));
	if (!sbi)
		return -ENOMEM;
	sbi->bd = bd;
	sbi->sb = sb;
	sb->type = "ext2";
	snprintf(sbi->name, sizeof(sbi->name), "ext2 on %s", bd->name);
	mutex_init(&sbi->alloc_lock, "ext2_alloc");
	struct page *sb_page = bdev_read_block(bd, 0);
	if (IS_ERR(sb_page)) {
		kfree(sbi);
		return PTR_ERR(sb_page);
	}
	sbi->sb_page = sb_page;
	struct ext2_super *es = (struct ext2_super *)((u8 *)page_address(sbi->sb_page) + 1024);
	sbi->es = es;
	bool rdonly = false;
	const char *why = check_super(es, bd, &rdonly);
	if (why) {
		pr_err("ext2: %s: %s", bd->name, why);
		release(sbi);
		return -EINVAL;
	}
	sbi->blocks_count = es->s_blocks_count;
	sbi->inodes_count = es->s_inodes_count;
	sbi->blocks_per_group = es->s_blocks_per_group;
	sbi->inodes_per_group = es->s_inodes_per_group;
	sbi->first_data_block = es->s_first_data_block;
	sbi->first_ino = es->s_rev_level ? es->s_first_ino : 11;
	sbi->inode_size = es->s_rev_level ? es->s_inode_size : 128;
	sbi->itb_per_group = (sbi->inodes_per_group * sbi->inode_size + BLOCK_SIZE - 1) / BLOCK_SIZE;
	sbi->groups = (sbi->blocks_count - sbi->first_data_block + sbi->blocks_per_group - 1) /
		      sbi->blocks_per_group;
	sbi->gdt_blocks = (sbi->groups * 32 + BLOCK_SIZE - 1) / BLOCK_SIZE;
	sbi->filetype = es->s_rev_level && (es->s_feature_incompat & EXT2_FEATURE_INCOMPAT_FILETYPE);
	sbi->sparse_super = es->s_rev_level &&
			    (es->s_feature_ro_compat & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER);
	sbi->reserved_gdt = (es->s_feature_compat & EXT2_FEATURE_COMPAT_RESIZE_INODE) ?
			    es->s_reserved_gdt_blocks : 0;
	u16 want = es->s_rev_level ? es->s_want_extra_isize : 0;
	sbi->extra_isize = (sbi->inode_size > 128 && want && !(want & 3) &&
			    want <= sbi->inode_size - 128) ? want : (sbi->inode_size > 128 ? 32 : 0);
	if (1 + sbi->gdt_blocks > sbi->blocks_count) {
		pr_err("ext2: %s: group descriptor table does not fit", bd->name);
		release(sbi);
		return -EINVAL;
	}
	sbi->gd_pages = kzalloc(sbi->gdt_blocks * sizeof(struct page *));
	if (!sbi->gd_pages) {
		release(sbi);
		return -ENOMEM;
	}
	for (u32 i = 0; i < sbi->gdt_blocks; i++) {
		struct page *gp = bdev_read_block(bd, 1 + i);
		if (IS_ERR(gp)) {
			release(sbi);
			return PTR_ERR(gp);
		}
		sbi->gd_pages[i] = gp;
	}
	if ((why = check_groups(sbi))) {
		pr_err("ext2: %s: %s", bd->name, why);
		release(sbi);
		return -EINVAL;
	}
	if (!(es->s_state & 1))
		pr_warn("ext2: %s was not cleanly unmounted; run e2fsck on it", bd->name);
	ext2_alloc_setup();
	ext2_inode_setup();
	sb->s_op = &ext2_sops;
	sb->fs_info = sbi;
	sb->rdonly = rdonly;
	sb->name = sbi->name;
	if (!rdonly) {
		meta_begin(sbi->sb_page);
		es->s_mtime = (u32)wall_seconds();
		es->s_mnt_count++;
		meta_end(sbi->sb_page);
	}
	printk("ext2: %s: %u blocks (%u free), %u inodes (%u free), %u groups, %u-byte inodes%s",
	       bd->name, sbi->blocks_count, es->s_free_blocks_count, sbi->inodes_count,
	       es->s_free_inodes_count, sbi->groups, sbi->inode_size,
	       rdonly ? ", read-only" : "");
	return 0;
}
