/*
 * proc_pid.c - the process layer's side of /proc/PID (fs/proc.c serves the
 * names): what a process is (stat, status), what it was started with
 * (cmdline) and its memory (maps), each in Linux's format, for ps, top and
 * anything else that parses them.
 *
 * A file is written from a copy, so that a process that exits or is reaped
 * while it is being read changes nothing the reader still uses:
 *   1. under proc_lock, find the process in the table (a reaped one is not
 *      there: -ENOENT), copy its fields into a struct pid_snap and take a
 *      reference on its mm (exit and exec swap p->mm under proc_lock, so
 *      the mm we copy is alive while we hold the lock);
 *   2. drop proc_lock; read the mm's VMAs under its mmap_lock (shared);
 *   3. mm_put.
 * The process itself is never touched after step 1.
 *
 * For the test of the test (user/tests/t_procfs.c, race):
 * proc.debug_window_ms=N holds every reader between step 1 and step 2 until
 * the process it reads has been reaped (at most N ms), logging that it is
 * there so the test knows when to end and reap it; which must change
 * nothing. proc.debug_unlocked, the deliberately broken variant, keeps only
 * the process's address from step 1 and copies its fields after the
 * window, without proc_lock or a reference: what it reads then is a
 * process whose memory is gone (or freed, poisoned memory), and the test
 * sees a cmdline that is not the one the process had.
 *
 * Lock order: proc_lock is never held with mmap_lock here (step 1 ends
 * before step 2 begins).
 */
#include "kernel/process.h"
#include "kernel/task.h"
#include "kernel/time.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/syscall.h"
#include "kernel/cmdline.h"
#include "kernel/wait.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "fs/vfs.h"

CMDLINE_KEY(proc_window, "proc.debug_window_ms",
	    "sleep this long between finding a process and writing its /proc/PID file");
CMDLINE_KEY(proc_unlocked, "proc.debug_unlocked",
	    "broken on purpose: read /proc/PID's process after that window, unlocked and unheld");

#define CLOCK_TICKS 100		/* USER_HZ: the unit of stat's times (AT_CLKTCK) */

/* Step 1's copy of a process. */
struct pid_snap {
	int pid, ppid, nr_threads;
	int processor;			/* the CPU its first thread ran on last */
	struct acct self, children;	/* CPU time (ticks) and minor faults */
	char state;			/* R S D Z, as Linux writes it */
	u32 umask;
	struct proc_view view;
	char comm[16];
	struct mm_struct *mm;		/* held; NULL for a zombie */
	bool has_mm;			/* it had memory: cmdline is shown */
};

/* R if a thread runs or may run, D if one sleeps uninterruptibly, else S;
 * Z once every thread has exited. proc_lock held. */
static char proc_state(struct process *p)
{
	if (p->zombie || !p->nr_threads)
		return 'Z';
	char state = 'S';
	struct list_head *l;
	list_for_each(l, &p->threads) {
		struct task *t = list_entry(l, struct task, thread_link);
		/* Relaxed: a snapshot of each thread, as Linux's is. */
		int s = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
		if (s == TASK_RUNNING || s == TASK_RUNNABLE)
			return 'R';
		if (s == TASK_SLEEPING && !__atomic_load_n(&t->interruptible, __ATOMIC_RELAXED))
			state = 'D';
	}
	return state;
}

/* Step 1: copy process pid into s, holding its mm. 0 or -ENOENT. */
static int snap_take(int pid, struct pid_snap *s)
{
	spin_lock(&proc_lock);
	struct process *p = find_proc(pid);
	if (!p) {
		spin_unlock(&proc_lock);
		return -ENOENT;
	}
	s->pid = pid;
	s->ppid = p->parent ? p->parent->pid : 0;
	s->nr_threads = p->nr_threads;
	s->state = proc_state(p);
	acct_of_process(p, &s->self, &s->children);
	s->processor = 0;
	if (!list_empty(&p->threads)) {		/* the first thread's CPU, as Linux shows the leader's */
		struct task *t = list_first_entry(&p->threads, struct task, thread_link);
		s->processor = __atomic_load_n(&t->cpu, __ATOMIC_RELAXED);	/* a snapshot */
	}
	s->umask = __atomic_load_n(&p->umask, __ATOMIC_RELAXED);	/* [A], a snapshot */
	memcpy(&s->view, &p->view, sizeof(s->view));
	memcpy(s->comm, p->comm, sizeof(s->comm));
	s->comm[sizeof(s->comm) - 1] = 0;
	s->mm = p->mm;
	if (s->mm)
		mm_get(s->mm);
	s->has_mm = s->mm != NULL;
	spin_unlock(&proc_lock);
	return 0;
}

/* Bytes mapped, and the heap's start, of a held mm (step 2). */
static unsigned long mm_vsize(struct mm_struct *mm, unsigned long *brk_start)
{
	unsigned long size = 0;
	struct list_head *l;
	down_read(&mm->mmap_lock);
	list_for_each(l, &mm->vmas) {
		struct vm_area *v = list_entry(l, struct vm_area, link);
		size += v->end - v->start;
	}
	*brk_start = mm->brk_start;
	up_read(&mm->mmap_lock);
	return size;
}

/* Linux's 52 fields; what the kernel does not keep is 0. */
static int show_stat(struct pid_snap *s, char *buf, int size)
{
	unsigned long vsize = 0, rss = 0, brk_start = 0;
	if (s->mm) {
		vsize = mm_vsize(s->mm, &brk_start);
		rss = mm_rss(s->mm);
	}
	unsigned long long start = s->view.start_ns / (1000000000 / CLOCK_TICKS);
#define TICKS(t) ((unsigned long long)(t) * CLOCK_TICKS / HZ)	/* kernel ticks to USER_HZ */
	return snprintf(buf, size,
			"%d (%s) %c %d %d %d 0 -1 0 %llu %llu 0 0 %llu %llu %llu %llu 20 0 %d 0 "
			"%llu %lu %lu 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0 "
			"0 0 %lu 0 0 0 0 0\n",
			s->pid, s->comm, s->state, s->ppid, s->pid, s->pid,
			(unsigned long long)s->self.min_flt, (unsigned long long)s->children.min_flt,
			TICKS(s->self.utime), TICKS(s->self.stime), TICKS(s->children.utime),
			TICKS(s->children.stime), s->nr_threads, start, vsize, rss, s->processor,
			brk_start);
#undef TICKS
}

static const char *state_name(char state)
{
	switch (state) {
	case 'R': return "R (running)";
	case 'D': return "D (disk sleep)";
	case 'Z': return "Z (zombie)";
	default: return "S (sleeping)";
	}
}

static int show_status(struct pid_snap *s, char *buf, int size)
{
	int n = snprintf(buf, size,
			 "Name:\t%s\nUmask:\t%04o\nState:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
			 "PPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
			 "FDSize:\t256\nGroups:\t \n",
			 s->comm, s->umask, state_name(s->state), s->pid, s->pid, s->ppid);
	if (s->mm && n < size) {
		unsigned long brk_start, kb = mm_vsize(s->mm, &brk_start) / 1024;
		unsigned long rss_kb = mm_rss(s->mm) * 4;
		n += snprintf(buf + n, size - n,
			      "VmPeak:\t%8lu kB\nVmSize:\t%8lu kB\nVmLck:\t%8lu kB\n"
			      "VmHWM:\t%8lu kB\nVmRSS:\t%8lu kB\n",
			      kb, kb, 0UL, rss_kb, rss_kb);
	}
	if (n < size)
		n += snprintf(buf + n, size - n, "Threads:\t%d\n", s->nr_threads);
	return MIN(n, size);
}

/* A zombie's cmdline is empty, as Linux's (its memory is gone). */
static int show_cmdline(struct pid_snap *s, char *buf, int size)
{
	int n = s->has_mm ? MIN(MIN(s->view.cmdline_len, size), PROC_CMDLINE_MAX) : 0;
	memcpy(buf, s->view.cmdline, n);
	return n;
}

/* What names a VMA in maps: the program's path, [heap], [stack], or nothing
 * (another file's path is not known: the VFS keeps no names). */
static const char *vma_name(struct pid_snap *s, struct vm_area *v)
{
	struct mm_struct *mm = s->mm;
	if (v->file)
		return v->file->sb->dev == s->view.exe_dev && v->file->ino == s->view.exe_ino
		       ? s->view.exe : NULL;
	if (v->start <= mm->brk && v->end >= mm->brk_start)
		return "[heap]";
	if (v->flags & VM_GROWSDOWN)
		return "[stack]";
	return NULL;
}

/* One maps line: "start-end perms offset major:minor inode", the name (if
 * any) from column 73, as Linux pads it. mmap_lock held. */
static int show_vma(struct pid_snap *s, struct vm_area *v, char *buf, int size)
{
	u32 dev = v->file ? v->file->sb->dev : 0;
	int n = snprintf(buf, size, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ",
			 v->start, v->end, v->flags & VM_READ ? 'r' : '-',
			 v->flags & VM_WRITE ? 'w' : '-', v->flags & VM_EXEC ? 'x' : '-',
			 v->flags & VM_SHARED ? 's' : 'p',
			 v->file ? (unsigned long long)v->pgoff * PAGE_SIZE : 0ULL,
			 (dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00),
			 v->file ? (unsigned long)v->file->ino : 0UL);
	const char *name = vma_name(s, v);
	if (name && n < size)
		n += snprintf(buf + n, size - n, "%*s%s", n < 73 ? 73 - n : 0, "", name);
	if (n < size)
		n += snprintf(buf + n, size - n, "\n");
	return MIN(n, size);
}

static int show_maps(struct pid_snap *s, char *buf, int size)
{
	int n = 0;
	struct list_head *l;
	if (!s->mm)
		return 0;
	down_read(&s->mm->mmap_lock);
	list_for_each(l, &s->mm->vmas) {
		if (n >= size - 1)
			break;
		n += show_vma(s, list_entry(l, struct vm_area, link), buf + n, size - n);
	}
	up_read(&s->mm->mmap_lock);
	return n;
}

/* proc.debug_window_ms: say so, then wait until pid is reaped, at most ms. */
static void debug_window(int pid, unsigned ms)
{
	struct process *me = current_proc();
	pr_info("proc: %d reads %d in the debug window", me ? me->pid : 0, pid);
	for (unsigned waited = 0; waited < ms; waited += 10) {
		spin_lock(&proc_lock);
		bool gone = !find_proc(pid);
		spin_unlock(&proc_lock);
		if (gone)
			return;
		msleep(10);
	}
}

/* proc.debug_unlocked: the broken step 1, for the test of the test (top). */
static int snap_take_broken(int pid, struct pid_snap *s, unsigned window_ms)
{
	spin_lock(&proc_lock);
	struct process *p = find_proc(pid);
	spin_unlock(&proc_lock);
	if (!p)
		return -ENOENT;
	debug_window(pid, window_ms);
	/* p has exited, and may have been freed: the bug on show. */
	s->pid = pid;
	s->ppid = 0;
	s->nr_threads = READ_ONCE(p->nr_threads);
	s->state = 'S';
	s->umask = 0;
	memcpy(&s->view, &p->view, sizeof(s->view));
	memcpy(s->comm, p->comm, sizeof(s->comm));
	s->comm[sizeof(s->comm) - 1] = 0;
	s->has_mm = READ_ONCE(p->mm) != NULL;
	s->mm = NULL;			/* never used: it may be freed */
	return 0;
}

static int pid_show(int pid, int kind, char *buf, int size)
{
	unsigned window_ms = (unsigned)cmdline_get_u64("proc.debug_window_ms", 0);
	struct pid_snap *s = kmalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	int n = cmdline_get("proc.debug_unlocked") ? snap_take_broken(pid, s, window_ms)
						   : snap_take(pid, s);		/* 1 */
	if (n) {
		kfree(s);
		return n;
	}
	if (window_ms && !cmdline_get("proc.debug_unlocked"))
		debug_window(pid, window_ms);
	if (kind == PROC_PID_STAT)				/* 2 */
		n = show_stat(s, buf, size);
	else if (kind == PROC_PID_STATUS)
		n = show_status(s, buf, size);
	else if (kind == PROC_PID_CMDLINE)
		n = show_cmdline(s, buf, size);
	else if (kind == PROC_PID_MAPS)
		n = show_maps(s, buf, size);
	if (s->mm)
		mm_put(s->mm);					/* 3 */
	kfree(s);
	return n;
}

static int pid_next(int from)
{
	int best = -1;
	spin_lock(&proc_lock);
	for (int i = 0; i < MAX_PROCS; i++) {
		struct process *p = procs[i];
		if (p && p->pid >= from && (best < 0 || p->pid < best))
			best = p->pid;
	}
	spin_unlock(&proc_lock);
	return best;
}

/* Load averages are not kept (0.00); then running/total threads and the
 * newest pid, as Linux's fields. */
static int pid_loadavg(char *buf, int size)
{
	int running = 0, newest = 0;
	spin_lock(&proc_lock);
	for (int i = 0; i < MAX_PROCS; i++) {
		struct process *p = procs[i];
		if (!p)
			continue;
		running += proc_state(p) == 'R';
		newest = MAX(newest, p->pid);
	}
	spin_unlock(&proc_lock);
	return snprintf(buf, size, "0.00 0.00 0.00 %d/%d %d\n", running, atomic_read(&nr_tasks),
			newest);
}

static const struct proc_pid_ops pid_ops = {
	.next = pid_next,
	.show = pid_show,
	.loadavg = pid_loadavg,
};

void proc_pid_init(void)
{
	proc_set_pid_ops(&pid_ops);
}

void proc_view_inherit(struct process *child, struct process *parent)
{
	u64 start = child->view.start_ns;
	memcpy(&child->view, &parent->view, sizeof(child->view));
	child->view.start_ns = start;
}

/* The absolute form of path (relative to p's cwd) into out. */
static void exe_path(struct process *p, const char *path, char *out)
{
	char *cwd = path[0] == '/' ? NULL : kmalloc(PATH_MAX);
	int n = cwd ? vfs_getcwd(p->cwd, cwd, PATH_MAX) : -1;
	if (n < 0 || (n == 1 && cwd[0] == '/'))
		n = 0;
	snprintf(out, PROC_EXE_MAX, "%.*s%s%s", n, cwd ? cwd : "", cwd ? "/" : "", path);
	kfree(cwd);
}

void proc_view_exec(struct process *p, const char *path, const char *args, int argc,
		    struct inode *file)
{
	int len = 0;
	for (int i = 0; i < argc && len < PROC_CMDLINE_MAX; i++)
		len += (int)strlen(args + len) + 1;
	char *exe = kmalloc(PROC_EXE_MAX);
	if (exe)
		exe_path(p, path, exe);
	const char *base = path;	/* comm is the last name, as Linux's */
	for (const char *c = path; *c; c++)
		if (*c == '/')
			base = c + 1;
	spin_lock(&proc_lock);
	p->view.cmdline_len = MIN(len, PROC_CMDLINE_MAX);
	memcpy(p->view.cmdline, args, p->view.cmdline_len);
	if (exe)
		memcpy(p->view.exe, exe, PROC_EXE_MAX);
	p->view.exe_dev = file->sb->dev;
	p->view.exe_ino = file->ino;
	snprintf(p->comm, sizeof(p->comm), "%s", base);
	spin_unlock(&proc_lock);
	kfree(exe);
}
