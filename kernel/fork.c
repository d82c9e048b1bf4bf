/*
 * process.c - processes and threads: the first process, fork and clone,
 * exit and exit_group, zombies and wait4, kill and the default actions of
 * signals.
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
 * proc_lock (a spinlock) guards the tree: parent, children, zombie,
 * nr_threads and the list of threads, execer, exit status. Lock order:
 * proc_lock -> rq (send_signal wakes sleepers under it); alarm_lock ->
 * proc_lock (kernel/signal.c). The tasks of exited threads are freed by the
 * reaper thread, which joins them (their stack stays in use until they
 * have switched away for the last time).
 */
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

int fpu_alloc(struct task *t, struct task *from);
void fpu_free(struct task *t);
int do_execve(const char *upath, const char *const *uargv, const char *const *uenvp);
int futex_wake(u64 uaddr, int n);

static spinlock_t proc_lock = SPINLOCK_INIT("proc");
static LIST_HEAD(all_procs_dummy);
static struct process *init_proc;	/* [I] pid 1 */
static atomic_t next_pid = ATOMIC_INIT(1);

/* Every process, for kill(pid): a small table is enough for a teaching kernel. */
#define MAX_PROCS 1024
static struct process *procs[MAX_PROCS];	/* [L:proc_lock] */

static LIST_HEAD(dead_tasks);		/* [L:proc_lock] exited threads, for the reaper */
static int nr_dead;			/* [L:proc_lock] their number; read unlocked as a hint */
static struct wait_queue_head reaper_wq;

static void signal_wake_threads(struct process *p);

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
	list_init(&p->children);
	list_init(&p->sibling);
	init_waitqueue_head(&p->child_exit);
	init_waitqueue_head(&p->threads_gone);
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
			if (parent)
				list_add_tail(&p->sibling, &parent->children);
			return true;
		}
	}
	return false;
}

static void proc_unregister(struct process *p)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i] == p)
			procs[i] = NULL;
}

static struct process *find_proc(int pid)
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
	if (fpu_alloc(t, current_task())) {
		kthread_discard(t);
		return NULL;
	}
	t->tid = p->pid;	/* the caller renumbers extra threads */
	t->proc = p;
	t->mm = p->mm;
	t->fs_base = current_task()->fs_base;
	if (current_task()->proc)
		t->fs_base = rdmsr(0xc0000100);
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
static atomic_t nr_tasks = ATOMIC_INIT(1);	/* [A] init's thread is the first */
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
		memcpy(p->sigaction, parent->sigaction, sizeof(p->sigaction));
		memcpy(p->comm, parent->comm, sizeof(p->comm));
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

/* ------------------------------------------------------------ exit */

static void reparent_children(struct process *p)
{
	while (!list_empty(&p->children)) {
		struct process *c = list_first_entry(&p->children, struct process, sibling);
		list_del(&c->sibling);
		c->parent = init_proc;
		list_add_tail(&c->sibling, &init_proc->children);
	}
	wake_up_all(&init_proc->child_exit);	/* it may have zombies to reap now */
}

static int wait_status_code(int status)
{
	return (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff;
}

/* The last thread is gone: release everything but the wait status. */
static void process_exit(struct process *p, struct task *me)
{
	files_put(p->files);
	p->files = NULL;
	unsigned long f = irq_save();
	me->mm = NULL;
	write_cr3(__pa(kernel_pml4));
	irq_restore(f);
	mm_put(proc_swap_mm(p, NULL));	/* proc_grab_live reads p->mm under proc_lock */
	alarm_cancel(p);
	if (p == init_proc) {
		printk("init: exited with status %d; powering off", wait_status_code(p->exit_status));
		/* As Linux's shutdown: every process ends and closes its files
		 * first, so that no deleted-but-open file outlives the sync. */
		int left = kill_all_processes(POWEROFF_WAIT_MS);
		if (left)
			pr_warn("power-off: %d processes did not end in %u ms", left,
				POWEROFF_WAIT_MS);
		vfs_sync_all();
		kernel_exit(wait_status_code(p->exit_status));
	}
	spin_lock(&proc_lock);
	struct inode *cwd = p->cwd;
	p->cwd = NULL;
	reparent_children(p);
	p->zombie = true;
	struct process *parent = p->parent;
	spin_unlock(&proc_lock);
	iput(cwd);
	if (parent)
		wake_up_all(&parent->child_exit);
}

void thread_exit(int wait_status)
{
	struct task *me = current_task();
	struct process *p = me->proc;
	if (me->clear_child_tid) {	/* pthread_join waits on this word */
		put_user_u32((void *)me->clear_child_tid, 0);
		futex_wake(me->clear_child_tid, 1);
	}
	spin_lock(&proc_lock);
	if (!p->exiting)
		p->exit_status = wait_status;
	bool last = --p->nr_threads == 0;
	list_del(&me->thread_link);
	bool execer_waits = p->execer != NULL;
	spin_unlock(&proc_lock);
	if (!last)
		atomic_dec(&nr_tasks);	/* the last one counts until wait4 reaps it */
	if (execer_waits)
		wake_up_all(&p->threads_gone);
	if (last)
		process_exit(p, me);
	else {
		unsigned long f = irq_save();
		struct mm_struct *mm = me->mm;
		me->mm = NULL;
		write_cr3(__pa(kernel_pml4));
		irq_restore(f);
		mm_put(mm);
	}
	spin_lock(&proc_lock);
	task_get(me);			/* a list, not a table: no exited task is ever dropped */
	list_add_tail(&me->dead_link, &dead_tasks);
	nr_dead++;
	spin_unlock(&proc_lock);
	wake_up(&reaper_wq);
	kthread_exit(0);
}

void do_exit_thread(int code)
{
	thread_exit((code & 0xff) << 8);
}

void do_exit_group(int wait_status)
{
	struct process *p = current_proc();
	spin_lock(&proc_lock);
	if (!p->exiting) {
		p->exiting = true;
		p->exit_status = wait_status;
	}
	spin_unlock(&proc_lock);
	__atomic_or_fetch(&p->pending, 1ULL << SIGKILL, __ATOMIC_SEQ_CST);	/* the other threads */
	signal_wake_threads(p);
	thread_exit(wait_status);
}

void exit_if_group_ends(u64 taken)
{
	struct task *me = current_task();
	struct process *p = me->proc;
	spin_lock(&proc_lock);
	bool exiting = p->exiting, execed = p->execer && p->execer != me;
	int status = p->exit_status;
	spin_unlock(&proc_lock);
	if (exiting)		/* pass the SIGKILL on to the next thread */
		__atomic_or_fetch(&p->pending, 1ULL << SIGKILL, __ATOMIC_RELEASE);
	else if (execed && taken)	/* the process's signals are for the survivor */
		__atomic_or_fetch(&p->pending, taken, __ATOMIC_RELEASE);
	if (exiting || execed)
		thread_exit(status);
}

/* Linux's de_thread, for execve (the contract is in user.h). */
int exec_end_other_threads(void)
{
	struct task *me = current_task();
	struct process *p = me->proc;
	spin_lock(&proc_lock);
	if (p->exiting || p->execer) {	/* exit_group or another execve won */
		spin_unlock(&proc_lock);
		return -EINTR;
	}
	p->execer = me;
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
		struct task *t = list_entry(l, struct task, thread_link);
		if (t != me)
			__atomic_or_fetch(&t->sigpending, 1ULL << SIGKILL, __ATOMIC_SEQ_CST);
	}
	spin_unlock(&proc_lock);
	signal_wake_threads(p);
	/* Each goes at its next return towards user mode (exit_if_group_ends). */
	int err = wait_event_killable(p->threads_gone, ({
		spin_lock(&proc_lock);
		bool alone = p->nr_threads == 1;
		spin_unlock(&proc_lock);
		alone;
	}));
	spin_lock(&proc_lock);
	bool alone = p->nr_threads == 1;
	if (!alone || err) {
		p->execer = NULL;	/* killed meanwhile: the exec fails, we die */
		spin_unlock(&proc_lock);
		return -EINTR;
	}
	me->tid = p->pid;	/* the thread group's leader now, as on Linux */
	p->execer = NULL;
	spin_unlock(&proc_lock);
	return 0;
}

/* Frees exited threads' tasks once they are off their CPU for good. */
static int reaper_main(void *unused)
{
	for (;;) {
		wait_event(reaper_wq, READ_ONCE(nr_dead) > 0);
		spin_lock(&proc_lock);
		struct task *t = NULL;
		if (!list_empty(&dead_tasks)) {
			t = list_first_entry(&dead_tasks, struct task, dead_link);
			list_del(&t->dead_link);
			nr_dead--;
		}
		spin_unlock(&proc_lock);
		if (!t)
			continue;
		kthread_join(t);	/* waits until it has switched away; drops one reference */
		struct process *p = t->proc;
		fpu_free(t);
		task_put(t);
		if (p && atomic_dec_and_test(&p->refcount))
			kfree(p);	/* only the threads held it: nobody waits */
	}
	return 0;
}

int proc_grab_live(struct process **out, struct mm_struct **mms, int max)
{
	int n = 0;
	spin_lock(&proc_lock);
	for (int i = 0; i < MAX_PROCS && n < max; i++) {
		struct process *p = procs[i];
		if (!p || !p->mm)
			continue;
		atomic_inc(&p->refcount);
		mm_get(p->mm);	/* exit and exec replace p->mm under proc_lock, then put it */
		mms[n] = p->mm;
		out[n++] = p;
	}
	spin_unlock(&proc_lock);
	return n;
}

void proc_put_live(struct process *p, struct mm_struct *mm)
{
	mm_put(mm);
	if (atomic_dec_and_test(&p->refcount))
		kfree(p);
}

struct mm_struct *proc_swap_mm(struct process *p, struct mm_struct *mm)
{
	spin_lock(&proc_lock);
	struct mm_struct *old = p->mm;
	p->mm = mm;
	spin_unlock(&proc_lock);
	return old;
}

/* ------------------------------------------------------------ power-off */

/* SIGKILL every live process but me; returns how many are still alive. */
static int kill_pass(struct process *me)
{
	int alive = 0;
	for (int i = 0; i < MAX_PROCS; i++) {
		spin_lock(&proc_lock);
		struct process *p = procs[i];
		bool live = p && p != me && !p->zombie;
		if (live)
			atomic_inc(&p->refcount);
		spin_unlock(&proc_lock);
		if (!live)
			continue;
		alive++;
		send_signal(p, SIGKILL);
		if (atomic_dec_and_test(&p->refcount))
			kfree(p);
	}
	return alive;
}

int kill_all_processes(unsigned timeout_ms)
{
	u64 deadline = ktime_ns() + (u64)timeout_ms * 1000000ULL;
	int alive;
	/* Again each round: a process may have forked while being killed. */
	while ((alive = kill_pass(current_proc())) && ktime_ns() < deadline)
		msleep(10);
	return alive;
}

/* ------------------------------------------------------------ wait4 */

long do_wait4(int pid, u64 ustatus, int options)
{
	struct process *me = current_proc();
	for (;;) {
		struct process *found = NULL;
		bool any = false;
		spin_lock(&proc_lock);
		for (struct list_head *l = me->children.next; l != &me->children; l = l->next) {
			struct process *c = list_entry(l, struct process, sibling);
			if (pid > 0 && c->pid != pid)
				continue;
			any = true;
			if (c->zombie) {
				found = c;
				list_del(&c->sibling);
				proc_unregister(c);
				break;
			}
		}
		spin_unlock(&proc_lock);
		if (found) {
			atomic_dec(&nr_tasks);
			int cpid = found->pid, status = found->exit_status;
			if (atomic_dec_and_test(&found->refcount))
				kfree(found);
			if (ustatus && put_user_u32((void *)ustatus, (u32)status))
				return -EFAULT;
			return cpid;
		}
		if (!any)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		int err = wait_event_interruptible(me->child_exit, ({
			bool ready = false;
			spin_lock(&proc_lock);
			for (struct list_head *l = me->children.next; l != &me->children; l = l->next) {
				struct process *c = list_entry(l, struct process, sibling);
				if ((pid <= 0 || c->pid == pid) && c->zombie)
					ready = true;
			}
			spin_unlock(&proc_lock);
			ready;
		}));
		if (err)
			return err;
	}
}

int proc_getppid(void)
{
	struct process *p = current_proc();
	spin_lock(&proc_lock);
	int ppid = p->parent ? p->parent->pid : 0;
	spin_unlock(&proc_lock);
	return ppid;
}

/* ------------------------------------------------------------ signals */

static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

int send_signal(struct process *p, int sig)
{
	if (sig < 0 || sig >= NSIG)
		return -EINVAL;
	if (!sig)
		return 0;
	spin_lock(&proc_lock);
	u64 h = p->sigaction[sig].handler;
	bool zombie = p->zombie;
	spin_unlock(&proc_lock);
	if (zombie)
		return 0;
	if (sig != SIGKILL && (h == SIG_IGN || (h == SIG_DFL && default_ignored(sig))))
		return 0;
	/* Seq-cst: a full barrier before reading task->interruptible (wait.h). */
	__atomic_or_fetch(&p->pending, 1ULL << sig, __ATOMIC_SEQ_CST);
	signal_wake_threads(p);
	return 0;
}

/* Wake p's threads in interruptible sleeps: each sees signal_pending(). */
static void signal_wake_threads(struct process *p)
{
	if (signal_debug_no_wake())
		return;		/* the old behaviour, for the test of the test */
	spin_lock(&proc_lock);
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
		struct task *t = list_entry(l, struct task, thread_link);
		if (__atomic_load_n(&t->interruptible, __ATOMIC_SEQ_CST))
			wake_up_process(t);
	}
	spin_unlock(&proc_lock);
}

long do_kill(int pid, int sig)
{
	if (pid <= 0)
		return -EINVAL;		/* process groups: not supported */
	spin_lock(&proc_lock);
	struct process *p = find_proc(pid);
	if (p)
		atomic_inc(&p->refcount);
	spin_unlock(&proc_lock);
	if (!p)
		return -ESRCH;
	int err = send_signal(p, sig);
	if (atomic_dec_and_test(&p->refcount))
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
	init_waitqueue_head(&reaper_wq);
	kthread_run(reaper_main, NULL, "reaper");
	alarm_init();
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
