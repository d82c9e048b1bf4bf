/*
 * ktest_workload.c - a seeded file-system workload whose result the host
 * checks (tests/disks.txt): create, write, overwrite, extend, truncate,
 * rename (also over another file and into other directories), unlink,
 * mkdir and rmdir, with a model of what every file must hold.
 *
 * At the end it syncs, reads every file back against the model, and prints
 * the manifest tools/check-disk compares with the dumped disk:
 *   manifest dir PATH
 *   manifest file PATH SIZE FNV1A64
 *   manifest end NFILES NDIRS
 * test.seed=N picks the sequence, test.ops=N its length (default 1500).
 */
#include "kernel/ktest.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "mm/slab.h"
#include "fs/vfs.h"

CMDLINE_KEY(test_seed, "test.seed", "ext2_workload: the seed of its operation sequence");
CMDLINE_KEY(test_ops, "test.ops", "ext2_workload: how many operations (default 1500)");

#define NDIRS 5		/* /wl/d0 .. /wl/d4; d4 comes and goes */
#define NFILES 48
#define MAX_SIZE (160 * 1024)
#define BIG_SIZE (4 * 1024 * 1024 + 300 * 1024)	/* reaches the double-indirect block */

struct mfile {
	bool live;
	int dir;		/* 0..NDIRS-1 */
	int name;		/* f%03d */
	u64 size;
	u8 *data;		/* MAX_SIZE bytes; the big file keeps none */
	bool big;
};

static struct mfile files[NFILES];
static bool dir_live[NDIRS];
static u64 rng_state;

static u64 rnd(void)
{
	u64 x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static u64 below(u64 n)
{
	return n ? rnd() % n : 0;
}

static u8 big_byte(u64 off)
{
	return (u8)((off * 131 + (off >> 12) * 7) ^ 0x5a);
}

static void path_of(struct mfile *f, char *buf, size_t n)
{
	snprintf(buf, n, "/wl/d%d/f%03d", f->dir, f->name);
}

static bool name_taken(int dir, int name)
{
	for (int i = 0; i < NFILES; i++)
		if (files[i].live && files[i].dir == dir && files[i].name == name)
			return true;
	return false;
}

static int free_slot(void)
{
	for (int i = 0; i < NFILES; i++)
		if (!files[i].live)
			return i;
	return -1;
}

static int pick_live(void)
{
	int n = 0, idx[NFILES];
	for (int i = 0; i < NFILES; i++)
		if (files[i].live)
			idx[n++] = i;
	return n ? idx[below(n)] : -1;
}

static int pick_dir(void)
{
	for (;;) {
		int d = (int)below(NDIRS);
		if (dir_live[d])
			return d;
	}
}

/* pwrite len bytes of fresh random data at off, into the file and its model. */
static int op_write(struct mfile *m, u64 off, u64 len)
{
	char path[40];
	path_of(m, path, sizeof(path));
	struct file *f = vfs_open(NULL, path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	u64 seed = rnd();
	for (u64 i = 0; i < len; i++)
		m->data[off + i] = (u8)((seed >> ((i & 7) * 8)) + i * 29);
	ssize_t w = vfs_pwrite(f, m->data + off, len, off);
	file_put(f);
	if (w != (ssize_t)len)
		return w < 0 ? (int)w : -EIO;
	if (off + len > m->size) {
		for (u64 i = m->size; i < off; i++)	/* a hole reads as zeros */
			m->data[i] = 0;
		m->size = off + len;
	}
	return 0;
}

static int op_create(void)
{
	int slot = free_slot();
	if (slot < 0)
		return 0;
	struct mfile *m = &files[slot];
	m->dir = pick_dir();
	do
		m->name = (int)below(1000);
	while (name_taken(m->dir, m->name));
	char path[40];
	path_of(m, path, sizeof(path));
	struct file *f = vfs_open(NULL, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (IS_ERR(f))
		return PTR_ERR(f);
	file_put(f);
	m->live = true;
	m->size = 0;
	m->big = false;
	if (!m->data)
		m->data = kmalloc(MAX_SIZE);
	u64 len = below(4) == 0 ? below(MAX_SIZE) : below(9000);
	return len ? op_write(m, 0, len) : 0;
}

static int op_truncate(struct mfile *m)
{
	char path[40];
	u64 size = below(MAX_SIZE);
	path_of(m, path, sizeof(path));
	int err = vfs_truncate(NULL, path, size);
	if (err)
		return err;
	if (size > m->size)
		memset(m->data + m->size, 0, size - m->size);
	m->size = size;
	return 0;
}

static int op_rename(struct mfile *m)
{
	char from[40], to[40];
	path_of(m, from, sizeof(from));
	int dir = pick_dir(), name = (int)below(1000);
	struct mfile *over = NULL;
	for (int i = 0; i < NFILES; i++)
		if (files[i].live && files[i].dir == dir && files[i].name == name)
			over = &files[i];
	snprintf(to, sizeof(to), "/wl/d%d/f%03d", dir, name);
	int err = vfs_rename(NULL, from, to);
	if (err)
		return err;
	if (over && over != m)
		over->live = false;	/* replaced: its blocks are freed */
	m->dir = dir;
	m->name = name;
	return 0;
}

static int op_unlink(struct mfile *m)
{
	char path[40];
	path_of(m, path, sizeof(path));
	int err = vfs_unlink(NULL, path);
	if (!err)
		m->live = false;
	return err;
}

/* d4 comes and goes: rmdir when empty, else expect ENOTEMPTY. */
static int op_dir(void)
{
	if (!dir_live[NDIRS - 1]) {
		int err = vfs_mkdir(NULL, "/wl/d4", 0755);
		if (!err)
			dir_live[NDIRS - 1] = true;
		return err;
	}
	bool empty = true;
	for (int i = 0; i < NFILES; i++)
		if (files[i].live && files[i].dir == NDIRS - 1)
			empty = false;
	int err = vfs_rmdir(NULL, "/wl/d4");
	if (empty && !err) {
		dir_live[NDIRS - 1] = false;
		return 0;
	}
	return !empty && err == -ENOTEMPTY ? 0 : (err ? err : -EIO);
}

static u64 fnv_update(u64 h, u8 b)
{
	return (h ^ b) * 0x100000001b3ULL;
}

/* Read the file back; its FNV-1a hash, or 0 with *bad set on a mismatch. */
static u64 verify(struct mfile *m, const char **bad)
{
	char path[40];
	path_of(m, path, sizeof(path));
	struct file *f = vfs_open(NULL, path, O_RDONLY, 0);
	if (IS_ERR(f)) {
		*bad = "cannot open";
		return 0;
	}
	u8 *buf = kmalloc(16384);
	u64 h = 0xcbf29ce484222325ULL, off = 0;
	for (;;) {
		ssize_t n = vfs_read(f, buf, 16384);
		if (n <= 0) {
			if (n < 0)
				*bad = "read error";
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			u8 want = m->big ? big_byte(off + i) : m->data[off + i];
			if (buf[i] != want) {
				*bad = "wrong byte";
				break;
			}
			h = fnv_update(h, want);
		}
		off += (u64)n;
		if (*bad)
			break;
	}
	if (!*bad && off != m->size)
		*bad = "wrong size";
	kfree(buf);
	file_put(f);
	return h;
}

static int make_big(struct mfile *m)
{
	char path[40];
	int err = 0;
	m->dir = 0;
	m->name = 999;
	path_of(m, path, sizeof(path));
	struct file *f = vfs_open(NULL, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (IS_ERR(f))
		return PTR_ERR(f);
	u8 *buf = kmalloc(65536);
	for (u64 off = 0; off < BIG_SIZE && !err; off += 65536) {
		u64 n = MIN(65536ULL, BIG_SIZE - off);
		for (u64 i = 0; i < n; i++)
			buf[i] = big_byte(off + i);
		if (vfs_write(f, buf, n) != (ssize_t)n)
			err = -EIO;
	}
	kfree(buf);
	file_put(f);
	m->live = true;
	m->big = true;
	m->size = BIG_SIZE;
	return err;
}

KTEST_BOOT(ext2_workload)
{
	KT_REQUIRE_ROOT();
	char path[40];
	rng_state = cmdline_get_u64("test.seed", 1) * 0x9E3779B97F4A7C15ULL + 1;
	u64 ops = cmdline_get_u64("test.ops", 1500);
	printk("ext2_workload: seed %llu, %llu operations",
	       (unsigned long long)cmdline_get_u64("test.seed", 1), (unsigned long long)ops);
	memset(files, 0, sizeof(files));
	KT_EQ(vfs_mkdir(NULL, "/wl", 0755), 0);
	for (int d = 0; d < NDIRS - 1; d++) {
		snprintf(path, sizeof(path), "/wl/d%d", d);
		KT_EQ(vfs_mkdir(NULL, path, 0755), 0);
		dir_live[d] = true;
	}
	dir_live[NDIRS - 1] = false;
	KT_EQ(make_big(&files[0]), 0);
	for (u64 i = 0; i < ops; i++) {
		u64 what = below(100);
		int k = pick_live();
		struct mfile *m = k >= 0 ? &files[k] : NULL;
		int err = 0;
		const char *op;
		if (what < 25 || !m) {
			op = "create";
			err = op_create();
		} else if (m->big) {
			if (what < 30) {	/* shrink the big file, now and then */
				op = "truncate big";
				u64 size = m->size - below(m->size / 8 + 1);
				snprintf(path, sizeof(path), "/wl/d%d/f%03d", m->dir, m->name);
				err = vfs_truncate(NULL, path, size);
				if (!err)
					m->size = size;
			} else {
				op = "skip";
			}
		} else if (what < 55) {
			op = "write";
			u64 off = below(MAX_SIZE - 1), len = 1 + below(MIN(MAX_SIZE - off, 20000ULL));
			err = op_write(m, off, len);
		} else if (what < 65) {
			op = "append";
			u64 len = below(MIN(MAX_SIZE - m->size, 6000ULL));
			err = len ? op_write(m, m->size, len) : 0;
		} else if (what < 75) {
			op = "truncate";
			err = op_truncate(m);
		} else if (what < 87) {
			op = "rename";
			err = op_rename(m);
		} else if (what < 97) {
			op = "unlink";
			err = op_unlink(m);
		} else {
			op = "mkdir/rmdir";
			err = op_dir();
		}
		if (err)
			KT_FAIL("operation %llu (%s): error %d", (unsigned long long)i, op, err);
	}
	vfs_sync_all();
	pagecache_dump_stats();		/* with pagecache.max_pages=64: many evictions */

	int nfiles = 0, ndirs = 0;
	for (int d = 0; d < NDIRS; d++)
		ndirs += dir_live[d];
	printk_raw("manifest dir /wl");
	ndirs++;
	for (int d = 0; d < NDIRS; d++)
		if (dir_live[d])
			printk_raw("manifest dir /wl/d%d", d);
	for (int i = 0; i < NFILES; i++) {
		struct mfile *m = &files[i];
		if (!m->live)
			continue;
		const char *bad = NULL;
		u64 h = verify(m, &bad);
		path_of(m, path, sizeof(path));
		if (bad)
			KT_FAIL("%s: %s", path, bad);
		printk_raw("manifest file %s %llu %016llx", path, (unsigned long long)m->size,
			   (unsigned long long)h);
		nfiles++;
	}
	printk_raw("manifest end %d %d", nfiles, ndirs);
	for (int i = 0; i < NFILES; i++) {
		kfree(files[i].data);
		files[i].data = NULL;
	}
}
