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
 *   /proc/cpuinfo    a "processor : N" block per online CPU, Linux's keys
 *   /proc/uptime     "SECONDS.CC IDLE.CC" (idle time is not counted: 0.00)
 *   /proc/loadavg    Linux's five fields (the process layer fills them)
 *   /proc/stat       Linux's cpu, intr, ctxt, btime ... lines (no CPU times)
 *
 *   /proc/PID/       one directory per live process, and /proc/self, the
 *                    caller's: stat, status, cmdline and maps in Linux's
 *                    formats. The process layer (kernel/proc_pid.c) knows
 *                    processes; it hands this file an operations table at
 *                    boot (proc_set_pid_ops), so /proc calls nothing above
 *                    its floor. A PID's inode number is PID_INO(pid, kind).
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
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/task.h"
#include "kernel/lockdep.h"
#include "kernel/khash.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/user.h"
#include "drivers/rtc.h"

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
			"fallback_fork %llu\n"
			"fallback_not_present %llu\nfallback_permission %llu\nmode %s\n",
			(unsigned long long)READ_ONCE(gup_stats.fast_pins),
			(unsigned long long)READ_ONCE(gup_stats.slow_pins),
			(unsigned long long)READ_ONCE(gup_stats.fallback_changed),
			(unsigned long long)READ_ONCE(gup_stats.fallback_fork),
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

/* The CPU's brand string (cpuid 0x80000002..4), or "" without one. */
static void cpu_model_name(char *out)
{
	u32 r[12], a, b, c, d;
	cpuid(0x80000000, 0, &a, &b, &c, &d);
	out[0] = 0;
	if (a < 0x80000004)
		return;
	for (u32 i = 0; i < 3; i++)
		cpuid(0x80000002 + i, 0, &r[i * 4], &r[i * 4 + 1], &r[i * 4 + 2], &r[i * 4 + 3]);
	memcpy(out, r, 48);
	out[48] = 0;
}

/* One "processor : N" block: the keys Linux's /proc/cpuinfo starts with. */
static int show_one_cpu(char *buf, int size, int cpu, int ncpus)
{
	u32 a, b, c, d, vendor[4] = { 0 };
	char model[49];
	cpuid(0, 0, &a, &vendor[0], &vendor[2], &vendor[1]);
	cpuid(1, 0, &a, &b, &c, &d);
	cpu_model_name(model);
	u32 family = (a >> 8) & 0xf, modelno = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		modelno |= ((a >> 16) & 0xf) << 4;
	u64 khz = tsc_khz();
	return snprintf(buf, size,
			"processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
			"model name\t: %s\nstepping\t: %u\ncpu MHz\t\t: %llu.%03llu\n"
			"physical id\t: 0\nsiblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\n"
			"apicid\t\t: %d\nfpu\t\t: yes\nwp\t\t: yes\nflags\t\t: fpu tsc msr pae apic sse sse2 lm\n"
			"bogomips\t: %llu.%02llu\nclflush size\t: 64\ncache_alignment\t: 64\n"
			"address sizes\t: 40 bits physical, 48 bits virtual\n\n",
			cpu, (char *)vendor, family, modelno, model, a & 0xf,
			(unsigned long long)(khz / 1000), (unsigned long long)(khz % 1000),
			ncpus, cpu, ncpus, cpu,
			(unsigned long long)(khz / 500), (unsigned long long)(khz / 5 % 100));
}

static int show_cpuinfo(char *buf, int size)
{
	int n = num_online_cpus(), len = 0;
	for (int cpu = 0; cpu < n && len < size; cpu++)
		len += show_one_cpu(buf + len, size - len, cpu, n);
	return MIN(len, size);
}

static int show_uptime(char *buf, int size)
{
	u64 cs = ktime_ns() / 10000000;		/* centiseconds since boot */
	return snprintf(buf, size, "%llu.%02llu 0.00\n", (unsigned long long)(cs / 100),
			(unsigned long long)(cs % 100));
}

/* Linux's /proc/stat lines, for top and vmstat: CPU times are not counted
 * (0), btime is the boot's wall-clock second. */
static int show_stat(char *buf, int size)
{
	u64 btime = wall_seconds() - ktime_ns() / 1000000000;
	int n = snprintf(buf, size, "cpu  0 0 0 0 0 0 0 0 0 0\n");
	for (int cpu = 0; cpu < num_online_cpus() && n < size; cpu++)
		n += snprintf(buf + n, size - n, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", cpu);
	if (n < size)
		n += snprintf(buf + n, size - n, "intr 0\nctxt 0\nbtime %llu\nprocesses 0\n"
			      "procs_running 1\nprocs_blocked 0\n", (unsigned long long)btime);
	return MIN(n, size);
}

/* The process layer's view of processes (kernel/proc_pid.c); NULL: none yet. */
static const struct proc_pid_ops *pid_ops;	/* [I] set once at boot */

void proc_set_pid_ops(const struct proc_pid_ops *ops)
{
	pid_ops = ops;
}

static int show_loadavg(char *buf, int size)
{
	if (!pid_ops)
		return snprintf(buf, size, "0.00 0.00 0.00 0/0 0\n");
	return pid_ops->loadavg(buf, size);
}

static const struct proc_entry entries[] = {
	{ "cpuinfo", 12, show_cpuinfo },
	{ "fail-nth", FAIL_NTH_INO, show_fail_nth },
	{ "gup", 6, show_gup },
	{ "gup_mode", 7, show_gup_mode },
	{ "kernel-hash", 10, khash_show },
	{ "kmsg", 5, show_kmsg },
	{ "loadavg", 14, show_loadavg },
	{ "lockdep", 8, show_lockdep },
	{ "meminfo", 2, show_meminfo },
	{ "mounts", 11, show_mounts },
	{ "pagecache", 3, show_pagecache },
	{ "stat", 15, show_stat },
	{ "uptime", 13, show_uptime },
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

/* /proc/PID/ and its files: PID_INO(pid, kind), kind a PROC_PID_* (fs/vfs.h). */
#define PID_INO_BASE 0x1000u
#define PID_INO(pid, kind) (PID_INO_BASE + (u32)(pid) * 8 + (kind))
#define INO_PID(ino) ((int)(((ino) - PID_INO_BASE) / 8))
#define INO_KIND(ino) ((int)(((ino) - PID_INO_BASE) % 8))
#define PID_MAX_SHOWN ((int)((0xffffffffu - PID_INO_BASE) / 8))
/* readdir of /proc: cookies below PID_POS are ".", "..", entries[] and
 * "self"; PID_POS + pid is the next process to list from. */
#define SELF_POS (ARRAY_SIZE(entries) + 2)
#define PID_POS 0x10000ull

static const char *const pid_files[PROC_PID_KINDS] = {
	[PROC_PID_STAT] = "stat", [PROC_PID_STATUS] = "status",
	[PROC_PID_CMDLINE] = "cmdline", [PROC_PID_MAPS] = "maps",
};

static bool name_is(const char *name, int len, const char *s)
{
	return (int)strlen(s) == len && !memcmp(s, name, len);
}

static bool pid_alive(int pid)
{
	return pid_ops && pid > 0 && pid <= PID_MAX_SHOWN && pid_ops->next(pid) == pid;
}

/* A decimal pid without sign or leading zero, as /proc names them; else 0. */
static int parse_pid(const char *name, int len)
{
	int pid = 0;
	if (len < 1 || len > 9 || name[0] == '0')
		return 0;
	for (int i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		pid = pid * 10 + (name[i] - '0');
	}
	return pid;
}

/* "self" is the caller's own directory here, found by name: a directory
 * rather than Linux's symbolic link, so that no path walk needs links. */
static int proc_root_lookup(const char *name, int len, u32 *ino)
{
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if (name_is(name, len, entries[i].name)) {
			*ino = entries[i].ino;
			return 0;
		}
	struct process *me = current_proc();
	int pid = name_is(name, len, "self") && me ? me->pid : parse_pid(name, len);
	if (!pid_alive(pid))
		return -ENOENT;
	*ino = PID_INO(pid, PROC_PID_DIR);
	return 0;
}

static int proc_lookup(struct inode *dir, const char *name, int len, u32 *ino)
{
	if (dir->ino == PROC_ROOT_INO)
		return proc_root_lookup(name, len, ino);
	if (name_is(name, len, ".") || name_is(name, len, "..")) {
		*ino = len == 1 ? dir->ino : PROC_ROOT_INO;	/* a /proc/PID's way up */
		return 0;
	}
	int pid = INO_PID(dir->ino);
	for (int kind = 1; kind < PROC_PID_KINDS; kind++)
		if (name_is(name, len, pid_files[kind])) {
			if (!pid_alive(pid))
				return -ENOENT;
			*ino = PID_INO(pid, kind);
			return 0;
		}
	return -ENOENT;
}

/* The processes of /proc's listing, from cookie PID_POS + pid on. */
static int readdir_pids(u64 *pos, filldir_t fill, void *ctx)
{
	while (pid_ops && *pos - PID_POS <= (u64)PID_MAX_SHOWN) {
		int pid = pid_ops->next((int)(*pos - PID_POS));
		if (pid < 0 || pid > PID_MAX_SHOWN)
			break;
		char name[12];
		int len = snprintf(name, sizeof(name), "%d", pid);
		*pos = PID_POS + (u64)pid;
		if (fill(ctx, name, len, PID_INO(pid, PROC_PID_DIR), DT_DIR))
			return 0;
		*pos = PID_POS + (u64)pid + 1;
	}
	*pos = PID_POS + (u64)PID_MAX_SHOWN + 1;
	return 0;
}

static int proc_root_readdir(u64 *pos, filldir_t fill, void *ctx)
{
	while (*pos <= SELF_POS) {
		int r;
		if (*pos == 0)
			r = fill(ctx, ".", 1, PROC_ROOT_INO, DT_DIR);
		else if (*pos == 1)
			r = fill(ctx, "..", 2, 2, DT_DIR);
		else if (*pos == SELF_POS) {
			struct process *me = current_proc();
			r = me ? fill(ctx, "self", 4, PID_INO(me->pid, PROC_PID_DIR), DT_DIR) : 0;
		} else {
			const struct proc_entry *e = &entries[*pos - 2];
			r = fill(ctx, e->name, (int)strlen(e->name), e->ino, DT_REG);
		}
		if (r)
			return 0;
		(*pos)++;
	}
	if (*pos < PID_POS)
		*pos = PID_POS;
	return readdir_pids(pos, fill, ctx);
}

static int proc_readdir(struct inode *dir, u64 *pos, filldir_t fill, void *ctx)
{
	if (dir->ino == PROC_ROOT_INO)
		return proc_root_readdir(pos, fill, ctx);
	int pid = INO_PID(dir->ino);
	while (*pos < PROC_PID_KINDS + 1) {
		int r;
		if (*pos == 0)
			r = fill(ctx, ".", 1, dir->ino, DT_DIR);
		else if (*pos == 1)
			r = fill(ctx, "..", 2, PROC_ROOT_INO, DT_DIR);
		else
			r = fill(ctx, pid_files[*pos - 1], (int)strlen(pid_files[*pos - 1]),
				 PID_INO(pid, *pos - 1), DT_REG);
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
	if (inode->ino == PROC_ROOT_INO || (inode->ino >= PID_INO_BASE &&
					      INO_KIND(inode->ino) == PROC_PID_DIR)) {
		inode->mode = S_IFDIR | 0555;
		inode->nlink = 2;
		inode->op = &proc_dir_iops;
		return 0;
	}
	if (inode->ino >= PID_INO_BASE && INO_KIND(inode->ino) < PROC_PID_KINDS) {
		inode->mode = S_IFREG | 0444;
		inode->op = &proc_file_iops;
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
	s->len = 0;
	u32 ino = f->inode->ino;
	for (unsigned i = 0; i < ARRAY_SIZE(entries); i++)
		if (entries[i].ino == ino)
			s->len = MIN(entries[i].show(s->text, PROC_BUF), PROC_BUF - 1);
	if (ino >= PID_INO_BASE) {
		/* The process may have been reaped since the lookup. */
		int n = pid_ops ? pid_ops->show(INO_PID(ino), INO_KIND(ino), s->text, PROC_BUF) : -ENOENT;
		if (n < 0) {
			kfree(s);
			return n;
		}
		s->len = MIN(n, PROC_BUF - 1);
	}
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
	struct inode *root = iget(&proc_sb, PROC_ROOT_INO);
	if (IS_ERR(root))	/* boot, nothing else allocated yet: a NULL root would fault later */
		panic("proc: cannot make the root inode (%ld)", PTR_ERR(root));
	proc_root_inode = root;
	proc_sb.root = proc_root_inode;
}
