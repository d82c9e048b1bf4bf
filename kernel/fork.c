/*
 * fork.c - processes and threads begin here: the process table, fork and
 * clone, and the first process. Their end is kernel/exit.c (exit, zombies,
 * wait4, the reaper); signals are kernel/signal.c; what the three share is
 * kernel/process.h.
 *
 * A user thread is a kernel thread (kthread_create) whose body returns to
 * user mode with the registers at the top of its kernel stack; its process
 * (struct process, kernel/user.h) holds what its threads share. When the
 * last thread exits the process becomes a zombie: its memory, descriptors
 * and directory are released at once, and only the wait status is kept
 * until the parent reaps it with wait4. Orphans are given to init.
 *
 * Signals: kill() marks the signal pending on the process and wakes its
 * threads that sleep interruptibly (kernel/wait.h); on its way back to
 * user mode a thread acts on it (kernel/signal.c). execve ends the other
 * threads of its process first (exec_end_other_threads, Linux's
 * de_thread), and init's exit ends every process before the last sync.
 *
 * proc_lock guards the tree (kernel/process.h says what and the lock
 * order). The tasks of exited threads are freed by the
 * reaper thread, which joins them (their stack stays in use until they
 * have switched away for the last time).
 */
#include "kernel/process.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/trap.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/shutdown.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/gdt.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "mm/mm.h"
#include "fs/vfs.h"

#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK 0x00004000
#define CLONE_PARENT 0x00008000
#define CLONE_THREAD 0x00010000
#define CLONE_SETTLS 0x00080000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID 0x01000000

#define WNOHANG 1
#define POWEROFF_WAIT_MS 2000	/* for the last processes to end at power-off */


spinlock_t proc_lock = SPINLOCK_INIT("proc");
static LIST_HEAD(all_procs_dummy);
struct process *init_proc;
static atomic_t next_pid = ATOMIC_INIT(1);

struct process *procs[MAX_PROCS];

LIST_HEAD(dead_tasks);
int nr_dead;
struct wait_queue_head reaper_wq;


static int alloc_pid(void)
{
	return atomic_inc_return(&next_pid) - 1;
}

static struct process *proc_alloc(void)
{
	struct process *p = kzalloc(sizeof(*p));
	if (!p)
		return NULL;
	p->pid = alloc_pid();
	p->view.start_ns = ktime_ns();
	list_init(&p->children);
	list_init(&p->sibling);
	init_waitqueue_head(&p->child_exit);
	init_waitqueue_head(&p->threads_gone);
	init_waitqueue_head(&p->stop_wq);
	list_init(&p->threads);
	atomic_set(&p->refcount, 2);	/* its parent's link, and its first thread */
	return p;
}

/* Table and tree, with proc_lock held. */
static bool proc_register(struct process *p, struct process *parent)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		if (!procs[i]) {
			procs[i] = p;
			p->parent = parent;
			WRITE_ONCE(p->ppid, parent ? parent->pid : 0);
			if (parent)
				list_add_tail(&p->sibling, &parent->children);
			return true;
		}
	}
	return false;
}

void proc_unregister(struct process *p)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i] == p)
			procs[i] = NULL;
}

struct process *find_proc(int pid)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i] && procs[i]->pid == pid)
			return procs[i];
	return NULL;
}

/* The body of every user thread: go to user mode with its saved registers. */
static int user_thread_start(void *unused)
{
	struct trap_frame *tf = user_regs(current_task());
	handle_signals(tf);
	user_return(tf);
}

/* A new thread of p, starting in user mode with a copy of frame. */
static struct task *new_user_thread(struct process *p, struct trap_frame *frame, const char *name)
{
	struct task *t = kthread_create(user_thread_start, NULL, name);
	if (!t)
		return NULL;
	t->cpus_allowed = current_task()->cpus_allowed;	/* inherited, as Linux */
	if (fpu_alloc(t, current_task())) {
		kthread_discard(t);
		return NULL;
	}
	t->tid = p->pid;	/* the caller renumbers extra threads */
	t->proc = p;
	t->mm = p->mm;
	t->fs_base = current_task()->fs_base;
	if (current_task()->proc)
		t->fs_base = rdmsr(MSR_FS_BASE);
	memcpy(user_regs(t), frame, sizeof(*frame));
	user_regs(t)->rax = 0;		/* the child's return value */
	return t;
}

/* ------------------------------------------------------------ fork and clone */

/*
 * The system-wide task limit (Linux's threads-max): every thread counts
 * from its clone until it exits, and a process's last thread until its
 * parent reaps it. At the limit, fork and clone fail with EAGAIN.
 * kernel.max_tasks=N sets it; the default lets kernel stacks (16 KiB a
 * task, with the user frame and FPU area) take at most 1/8 of RAM.
 */
CMDLINE_KEY(kernel_max_tasks, "kernel.max_tasks",
	    "most threads and unreaped processes at once (default: from RAM); fork then gives EAGAIN");
#define MIN_MAX_TASKS 20
atomic_t nr_tasks = ATOMIC_INIT(1);	/* [A] init's thread is the first */
static long max_tasks = MIN_MAX_TASKS;		/* [I] after spawn_init */

static void max_tasks_init(void)
{
	long dflt = MAX((long)(mm_boot.usable_pages / 32), MIN_MAX_TASKS);
	max_tasks = (long)cmdline_get_u64("kernel.max_tasks", (u64)dflt);
	if (max_tasks < 1)
		max_tasks = 1;
	printk("tasks: at most %ld at once (kernel.max_tasks)", max_tasks);
}

static long clone_task(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls);

#define CLONE_PIDFD 0x00001000
#define CLONE_NEWNS 0x00020000
#define CLONE_NEWUSER 0x10000000
#define CLONE_NEWPID 0x20000000

/* Linux's combinations that make no sense (man 2 clone, EINVAL), whatever
 * else this kernel supports: shared handlers need shared memory, a thread
 * shares handlers and stays in its process's namespaces, a new mount or
 * user namespace cannot share the directory of the old, and a pidfd and a
 * parent TID cannot both be written to the one pointer clone() has. */
static bool clone_flags_valid(u64 flags)
{
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return false;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return false;
	if ((flags & CLONE_FS) && (flags & (CLONE_NEWNS | CLONE_NEWUSER)))
		return false;
	if ((flags & CLONE_THREAD) && (flags & (CLONE_NEWUSER | CLONE_NEWPID)))
		return false;
	return !((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID));
}

long do_clone(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls)
{
	if (atomic_inc_return(&nr_tasks) > max_tasks) {
		atomic_dec(&nr_tasks);
		return -EAGAIN;
	}
	long r = clone_task(flags, stack, parent_tid, child_tid, tls);
	if (r < 0)
		atomic_dec(&nr_tasks);
	return r;
}

static long clone_task(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls)
{
	struct task *me = current_task();
	struct process *parent = me->proc, *p;
	struct trap_frame *frame = user_regs(me);
	bool thread = flags & CLONE_THREAD;

	if (!clone_flags_valid(flags))
		return -EINVAL;
	if ((flags & CLONE_VM) && !thread && !(flags & CLONE_VFORK))
		return -EINVAL;		/* a new process sharing memory: not supported */
	if ((flags & CLONE_SETTLS) && tls >= USER_TOP)
		return -EPERM;		/* as arch_prctl(ARCH_SET_FS): wrmsr would fault in ring 0 */
	if (thread) {
		p = parent;
		atomic_inc(&p->refcount);
	} else {
		p = proc_alloc();
		if (!p)
			return -ENOMEM;
		if (flags & CLONE_VFORK) {
			/* vfork: we copy instead of sharing (correct, just slower). */
			flags &= ~CLONE_VM;
		}
		p->mm = mm_fork(parent->mm);
		p->files = (flags & CLONE_FILES) ? parent->files : files_dup(parent->files);
		if (flags & CLONE_FILES)
			atomic_inc(&parent->files->count);
		spin_lock(&proc_lock);
		p->cwd = igrab(parent->cwd);
		p->umask = __atomic_load_n(&parent->umask, __ATOMIC_RELAXED);
		p->pgid = parent->pgid;		/* fork inherits group and session */
		p->sid = parent->sid;
		memcpy(p->sigaction, parent->sigaction, sizeof(p->sigaction));
		p->exit_signal = (int)(flags & 0xff);
		memcpy(p->comm, parent->comm, sizeof(p->comm));
		proc_view_inherit(p, parent);
		spin_unlock(&proc_lock);
		if (!p->mm || !p->files) {
			if (p->mm)
				mm_put(p->mm);
			files_put(p->files);
			iput(p->cwd);
			kfree(p);
			return -ENOMEM;
		}
	}
	long err = -ENOMEM;
	struct task *t = new_user_thread(p, frame, me->name);
	if (!t)
		goto undo;
	if (thread) {
		t->tid = alloc_pid();
		mm_get(p->mm);
	}
	signal_fork(t, me, thread);
	if (stack)
		user_regs(t)->rsp = stack;
	if (flags & CLONE_SETTLS)
		t->fs_base = tls;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = child_tid;
	if (flags & CLONE_PARENT_SETTID)
		put_user_u32((void *)parent_tid, (u32)t->tid);
	spin_lock(&proc_lock);
	if (thread && (p->exiting || p->execer)) {
		/* The group is ending (exit_group, or an execve waiting for
		 * every other thread to go): no newcomer may slip past it. */
		spin_unlock(&proc_lock);
		goto undo_task;
	}
	if (!thread && !proc_register(p, parent)) {
		spin_unlock(&proc_lock);
		err = -EAGAIN;		/* the process table is full: Linux's word for it */
		goto undo_task;
	}
	p->nr_threads++;
	list_add_tail(&t->thread_link, &p->threads);
	spin_unlock(&proc_lock);
	if (flags & CLONE_CHILD_SETTID) {
		/* The child's address space: write it before the child runs. */
		struct mm_struct *cur = me->mm;
		if (cur == p->mm)
			put_user_u32((void *)child_tid, (u32)t->tid);
	}
	int tid = t->tid;
	wake_up_process(t);	/* its creation reference goes to the reaper's join */
	return tid;
undo_task:
	fpu_free(t);
	kthread_discard(t);
undo:
	if (thread) {
		if (t)
			mm_put(p->mm);
		atomic_dec(&p->refcount);
		return err;
	}
	mm_put(p->mm);
	files_put(p->files);
	iput(p->cwd);
	kfree(p);
	return err;
}

/* ------------------------------------------------------------ the first process */

CMDLINE_KEY(init_key, "init", "the first program (default /sbin/init)");

static int init_thread(void *unused)
{
	struct task *me = current_task();
	struct process *p = me->proc;
	const char *path = cmdline_get("init");
	if (!path)
		path = "/sbin/init";
	/* execve takes user pointers: put the path and argv in a page of the
	 * process's own (empty) address space. */
	p->mm = mm_create();
	if (!p->mm) {
		pr_err("init: no memory");
		return 1;
	}
	me->mm = p->mm;
	unsigned long irq = irq_save();
	mm_activate(p->mm);
	tss_set_rsp0(smp_processor_id(), (u64)me->kstack_top);
	this_cpu()->syscall_rsp = (u64)me->kstack_top;
	irq_restore(irq);
	unsigned long page = 0x10000;
	down_write(&p->mm->mmap_lock);
	do_mmap(p->mm, page, PAGE_SIZE, VM_READ | VM_WRITE, true, NULL, 0);
	up_write(&p->mm->mmap_lock);
	u64 argv[2] = { page + 64, 0 };
	copy_to_user((void *)page, argv, sizeof(argv));
	copy_to_user((void *)(page + 64), path, strlen(path) + 1);
	int err = do_execve((const char *)(page + 64), (const char *const *)page,
			    (const char *const *)(page + 8));
	if (err) {
		pr_err("init: cannot run %s: error %d", path, err);
		kernel_exit(127);
	}
	user_return(user_regs(me));
}

int spawn_init(void)
{
	max_tasks_init();
	struct process *p = proc_alloc();
	if (!p)
		return -ENOMEM;
	init_proc = p;
	p->files = files_alloc();
	p->cwd = igrab(vfs_root_sb()->root);
	p->umask = 022;			/* as Linux starts init */
	p->pgid = p->sid = p->pid;	/* the first session and group */
	init_waitqueue_head(&reaper_wq);
	kthread_run(reaper_main, NULL, "reaper");
	alarm_init();
	pgrp_init();
	int err = console_open_stdio(p->files);
	if (err)
		return err;
	spin_lock(&proc_lock);
	proc_register(p, NULL);
	p->nr_threads = 1;
	spin_unlock(&proc_lock);
	struct task *t = kthread_create(init_thread, NULL, "init");
	if (!t)
		return -ENOMEM;
	t->tid = p->pid;
	t->proc = p;
	spin_lock(&proc_lock);
	list_add_tail(&t->thread_link, &p->threads);
	spin_unlock(&proc_lock);
	if (fpu_alloc(t, NULL))
		return -ENOMEM;
	wake_up_process(t);
	return 0;
}

/* ------------------------------------------------------------ the system calls */

#define SIGCHLD_FLAG 17

SYSCALL_DEFINE0(fork) { return do_clone(SIGCHLD_FLAG, 0, 0, 0, 0); }
SYSCALL_DEFINE5(clone, u64, flags, u64, stack, uaddr_t, uparent_tid, uaddr_t, uchild_tid, u64, tls) { return do_clone(flags, stack, uparent_tid, uchild_tid, tls); }
SYSCALL_DEFINE3(execve, uaddr_t, upath, uaddr_t, uargv, uaddr_t, uenvp) { return do_execve((const char *)upath, (const char *const *)uargv, (const char *const *)uenvp); }

