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
 * Signals: kill() marks the signal pending on the process; on its way
 * back to user mode a thread runs the handler (deliver: Linux's
 * rt_sigframe on the user stack), ignores it, or takes the default action.
 *
 * proc_lock (a spinlock) guards the tree: parent, children, zombie,
 * nr_threads, exit status. The tasks of exited threads are freed by the
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
#include "kernel/x86.h"
#include "kernel/gdt.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
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
	p->nr_threads++;
	if (!thread && !proc_register(p, parent)) {
		spin_unlock(&proc_lock);
		goto undo_task;
	}
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
		atomic_dec(&p->refcount);
		return -ENOMEM;
	}
	mm_put(p->mm);
	files_put(p->files);
	iput(p->cwd);
	kfree(p);
	return -ENOMEM;
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
	mm_put(p->mm);
	p->mm = NULL;
	if (p == init_proc) {
		printk("init: exited with status %d; powering off", wait_status_code(p->exit_status));
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

static __noreturn void thread_exit(int wait_status)
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
	spin_unlock(&proc_lock);
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
	__atomic_or_fetch(&p->pending, 1ULL << SIGKILL, __ATOMIC_RELEASE);	/* the other threads */
	thread_exit(wait_status);
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
		wait_event(me->child_exit, ({
			bool ready = false;
			spin_lock(&proc_lock);
			for (struct list_head *l = me->children.next; l != &me->children; l = l->next) {
				struct process *c = list_entry(l, struct process, sibling);
				if ((pid <= 0 || c->pid == pid) && c->zombie)
					ready = true;
			}
			spin_unlock(&proc_lock);
			ready || (READ_ONCE(me->pending) & (1ULL << SIGKILL));
		}));
		if (READ_ONCE(me->pending) & (1ULL << SIGKILL))
			return -EINTR;
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
	__atomic_or_fetch(&p->pending, 1ULL << sig, __ATOMIC_RELEASE);
	wake_up_all(&p->child_exit);	/* a wait4 in progress notices it */
	return 0;
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

/*
 * Signal delivery, Linux's way (struct rt_sigframe): below the user stack
 * (past the 128-byte red zone) go the FPU state and a frame holding the
 * return address (the sa_restorer musl gives, which calls rt_sigreturn),
 * a ucontext with every register, and a siginfo. The handler starts with
 * rdi = the signal, rsi = &siginfo, rdx = &ucontext; rt_sigreturn puts
 * the saved registers back.
 */
#define SA_RESTORER 0x04000000
#define SA_RESETHAND 0x80000000

struct sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
	    rip, eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2, fpstate, reserved[8];
};

struct rt_sigframe {
	u64 pretcode;
	u64 uc_flags, uc_link;
	u64 ss_sp;
	u32 ss_flags, ss_pad;
	u64 ss_size;
	struct sigcontext mc;
	u64 sigmask;
	struct { s32 signo, err, code, pad; u64 data[14]; } info;
};
_Static_assert(sizeof(struct sigcontext) == 256, "Linux's struct sigcontext");

static bool deliver(struct trap_frame *tf, int sig, struct k_sigaction *act)
{
	struct task *me = current_task();
	if (!(act->flags & SA_RESTORER))
		return false;		/* no way back from the handler */
	u64 sp = tf->rsp - 128;				/* the red zone */
	u64 fp = (sp - 512) & ~63UL;
	__asm__ __volatile__("fxsave64 (%0)" :: "r"(me->fpu) : "memory");
	struct rt_sigframe f;
	memset(&f, 0, sizeof(f));
	u64 frame = ((fp - sizeof(f)) & ~15UL) - 8;	/* rsp+8 aligned at the entry */
	f.pretcode = act->restorer;
	f.mc = (struct sigcontext){ tf->r8, tf->r9, tf->r10, tf->r11, tf->r12, tf->r13, tf->r14,
				    tf->r15, tf->rdi, tf->rsi, tf->rbp, tf->rbx, tf->rdx, tf->rax,
				    tf->rcx, tf->rsp, tf->rip, tf->rflags, (u16)tf->cs, 0, 0,
				    (u16)tf->ss, tf->error, tf->vector, 0, 0, fp, { 0 } };
	f.info.signo = sig;
	if (copy_to_user((void *)fp, me->fpu, 512) || copy_to_user((void *)frame, &f, sizeof(f)))
		return false;
	tf->rip = act->handler;
	tf->rsp = frame;
	tf->rdi = (u64)sig;
	tf->rsi = frame + offsetof(struct rt_sigframe, info);
	tf->rdx = frame + offsetof(struct rt_sigframe, uc_flags);
	tf->rax = 0;
	tf->rflags &= ~(0x100UL | 0x400UL);	/* TF and DF clear in the handler */
	if (act->flags & SA_RESETHAND)
		act->handler = SIG_DFL;
	return true;
}

long do_rt_sigreturn(void)
{
	struct task *me = current_task();
	struct trap_frame *tf = user_regs(me);
	struct rt_sigframe f;
	u64 frame = tf->rsp - 8;	/* the handler's ret popped pretcode */
	if (copy_from_user(&f, (void *)frame, sizeof(f)))
		do_exit_group(SIGSEGV);
	struct sigcontext *c = &f.mc;
	if (c->rip >= USER_TOP || c->rsp >= USER_TOP)
		do_exit_group(SIGSEGV);
	tf->r8 = c->r8, tf->r9 = c->r9, tf->r10 = c->r10, tf->r11 = c->r11;
	tf->r12 = c->r12, tf->r13 = c->r13, tf->r14 = c->r14, tf->r15 = c->r15;
	tf->rdi = c->rdi, tf->rsi = c->rsi, tf->rbp = c->rbp, tf->rbx = c->rbx;
	tf->rdx = c->rdx, tf->rcx = c->rcx, tf->rsp = c->rsp, tf->rip = c->rip;
	/* Only the flags a program may set: never IOPL or IF off. */
	tf->rflags = (tf->rflags & ~0xdd5UL) | (c->eflags & 0xdd5UL) | 0x200;
	if (c->fpstate && copy_from_user(me->fpu, (void *)c->fpstate, 512) == 0) {
		((u32 *)me->fpu)[6] &= 0xffff;	/* MXCSR: no reserved bits, or fxrstor faults */
		__asm__ __volatile__("fxrstor64 (%0)" :: "r"(me->fpu) : "memory");
	}
	return (long)c->rax;	/* the dispatcher puts it back in rax */
}

/*
 * On the way back to user mode: each pending signal runs its handler, is
 * ignored, or (the default for most) ends the process with the signal in
 * the wait status.
 */
/*
 * The last check before a return to user mode: a rip outside user space
 * (a signal handler, an ELF entry point or a sigreturn frame that points
 * there) would make iretq fault in ring 0 on real hardware (QEMU's TCG is
 * more forgiving). As Linux does, the process dies of SIGSEGV instead.
 */
static void check_user_rip(struct trap_frame *tf)
{
	if (tf->rip < USER_TOP)
		return;
	pr_info_ratelimited("pid %d (%s): SIGSEGV: return to non-user rip %#llx",
			    current_task()->tid, current_task()->name,
			    (unsigned long long)tf->rip);
	do_exit_group(SIGSEGV);
}

void handle_signals(struct trap_frame *tf)
{
	struct process *p = current_proc();
	if (!p)
		return;
	struct task *me = current_task();
	u64 mine = __atomic_exchange_n(&me->sigpending, 0, __ATOMIC_ACQ_REL);
	u64 pending = mine | __atomic_exchange_n(&p->pending, 0, __ATOMIC_ACQ_REL);
	if (!pending) {
		check_user_rip(tf);
		return;
	}
	if (p->exiting) {	/* another thread called exit_group */
		__atomic_or_fetch(&p->pending, 1ULL << SIGKILL, __ATOMIC_RELEASE);
		thread_exit(p->exit_status);
	}
	for (int sig = 1; sig < NSIG; sig++) {
		if (!(pending & (1ULL << sig)))
			continue;
		struct k_sigaction *act = &p->sigaction[sig];
		u64 h = act->handler;
		if (sig == SIGKILL || h == SIG_DFL)
			do_exit_group(sig);
		if (h == SIG_IGN)
			continue;
		if (!deliver(tf, sig, act))
			do_exit_group(SIGSEGV);	/* no room or no restorer: as Linux, SIGSEGV */
		/* One handler per return; the rest stay pending for the next,
		 * each where it came from (this thread, or the process). */
		u64 rest = pending & ~((2ULL << sig) - 1);
		if (rest & mine)
			__atomic_or_fetch(&me->sigpending, rest & mine, __ATOMIC_RELEASE);
		if (rest & ~mine)
			__atomic_or_fetch(&p->pending, rest & ~mine, __ATOMIC_RELEASE);
		break;
	}
	check_user_rip(tf);
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGBUS: return "SIGBUS";
	}
	return "signal";
}

void user_exception(struct trap_frame *tf)
{
	struct task *me = current_task();
	int sig;
	if (tf->rflags & 0x200)
		sti();
	if (tf->vector == T_PF) {
		u64 addr = read_cr2();
		int err = me->mm ? handle_mm_fault(me->mm, addr, tf->error) : -EFAULT;
		if (!err)
			return;
		/* SIGSEGV for an access the mappings forbid; any other failure
		 * (past the end of the file, I/O error, disk full, no memory)
		 * is SIGBUS, as on Linux. */
		sig = err == -EFAULT ? SIGSEGV : SIGBUS;
		pr_info_ratelimited("pid %d (%s): %s: %s at %#llx, rip %#llx", me->tid, me->name, signame(sig),
			tf->error & PF_WRITE ? "write" : tf->error & PF_INSTR ? "fetch" : "read",
			(unsigned long long)addr, (unsigned long long)tf->rip);
	} else {
		sig = tf->vector == T_UD ? SIGILL : tf->vector == T_DE || tf->vector == 16 ||
			tf->vector == 19 ? SIGFPE : tf->vector == T_BP ? SIGTRAP : SIGSEGV;
		pr_info_ratelimited("pid %d (%s): %s: %s at rip %#llx", me->tid, me->name, signame(sig),
			trap_name(tf->vector), (unsigned long long)tf->rip);
	}
	if (me->proc->sigaction[sig].handler > SIG_IGN) {	/* the program catches it */
		/* Thread-directed: the faulting thread runs the handler. Sent to
		 * the process, any thread could take it while the faulting one
		 * faults again - and with SA_NODEFER a storm of other threads'
		 * faults nests handler frames on one thread until its stack
		 * overflows. */
		__atomic_or_fetch(&me->sigpending, 1ULL << sig, __ATOMIC_RELEASE);
		return;
	}
	do_exit_group(sig);
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
	struct process *p = proc_alloc();
	if (!p)
		return -ENOMEM;
	init_proc = p;
	p->files = files_alloc();
	p->cwd = igrab(vfs_root_sb()->root);
	init_waitqueue_head(&reaper_wq);
	kthread_run(reaper_main, NULL, "reaper");
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
	if (fpu_alloc(t, NULL))
		return -ENOMEM;
	wake_up_process(t);
	return 0;
}
