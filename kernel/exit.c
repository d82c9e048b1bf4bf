/*
 * exit.c - a thread's and a process's end: exit and exit_group, zombies,
 * reparenting to init, wait4, the reaper that frees exited threads, and
 * ending every process at power-off. The process table and proc_lock are
 * kernel/fork.c's (kernel/process.h).
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
#include "kernel/time.h"
#include "mm/vm.h"
#include "mm/slab.h"
#include "mm/paging.h"
#include "fs/vfs.h"

#define WNOHANG 1
#define POWEROFF_WAIT_MS 2000	/* for the last processes to end at power-off */

/* ------------------------------------------------------------ exit */

static void reparent_children(struct process *p)
{
	while (!list_empty(&p->children)) {
		struct process *c = list_first_entry(&p->children, struct process, sibling);
		list_del(&c->sibling);
		c->parent = init_proc;
		WRITE_ONCE(c->ppid, init_proc->pid);
		c->exit_signal = SIGCHLD;	/* as Linux: init hears of each */
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
	mm_activate(NULL);
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
	/* SIGCHLD, and the parent's wait4 woken, under the lock: the parent
	 * cannot exit meanwhile. */
	bool reaped = p->parent && __child_exit_notify(p);
	spin_unlock(&proc_lock);
	iput(cwd);
	if (reaped) {			/* what wait4 would have done */
		atomic_dec(&nr_tasks);
		atomic_dec(&p->refcount);	/* the parent's link; the thread's keeps p */
	}
}

void thread_exit(int wait_status)
{
	struct task *me = current_task();
	struct process *p = me->proc;
	mm_free_unmapped_vmas();
	if (me->clear_child_tid) {	/* pthread_join waits on this word */
		put_user_u32((void *)me->clear_child_tid, 0);
		futex_wake(me->clear_child_tid, 1);
	}
	spin_lock(&proc_lock);
	if (!p->exiting)
		p->exit_status = wait_status;
	bool last = --p->nr_threads == 0;
	list_del(&me->thread_link);
	if (!last)
		__group_stop_check(p);	/* the others may all be stopped now */
	acct_thread_exit(p, me);
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
		mm_activate(NULL);
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
	__atomic_or_fetch(&p->pending, sigmask_of(SIGKILL), __ATOMIC_SEQ_CST);	/* the other threads */
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
		__atomic_or_fetch(&p->pending, sigmask_of(SIGKILL), __ATOMIC_RELEASE);
	else if (execed && taken)	/* the process's signals are for the survivor */
		__atomic_or_fetch(&p->pending, taken, __ATOMIC_RELEASE);
	if (exiting || execed)
		thread_exit(status);
}

/* Wait conditions, each under proc_lock. p's only thread is the caller. */
static bool only_thread_left(struct process *p)
{
	spin_lock(&proc_lock);
	bool alone = p->nr_threads == 1;
	spin_unlock(&proc_lock);
	return alone;
}

/* A child of p that wait4(pid) may reap is a zombie now, or has a stop
 * or a continue to report (options), or none is left (reaped without a
 * wait: the parent ignores SIGCHLD). */
static bool child_to_reap(struct process *p, int pid, int options)
{
	bool ready = false, any = false;
	spin_lock(&proc_lock);
	for (struct list_head *l = p->children.next; l != &p->children; l = l->next) {
		struct process *c = list_entry(l, struct process, sibling);
		if (pid > 0 && c->pid != pid)
			continue;
		any = true;
		if (c->zombie || __wait_report(c, options, false))
			ready = true;
	}
	ready = ready || !any;
	spin_unlock(&proc_lock);
	return ready;
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
			__atomic_or_fetch(&t->sigpending, sigmask_of(SIGKILL), __ATOMIC_SEQ_CST);
	}
	spin_unlock(&proc_lock);
	signal_wake_threads(p);
	/* Each goes at its next return towards user mode (exit_if_group_ends). */
	int err = wait_event_killable(p->threads_gone, only_thread_left(p));
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
int reaper_main(void *unused)
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

long do_wait4(int pid, u64 ustatus, int options, struct acct *used)
{
	struct process *me = current_proc();
	for (;;) {
		struct process *found = NULL;
		bool any = false;
		int report = 0, rpid = 0;
		spin_lock(&proc_lock);
		for (struct list_head *l = me->children.next; l != &me->children; l = l->next) {
			struct process *c = list_entry(l, struct process, sibling);
			if (pid > 0 && c->pid != pid)
				continue;
			any = true;
			if (c->zombie) {
				found = c;
				acct_reap(me, c, used);
				list_del(&c->sibling);
				proc_unregister(c);
				break;
			}
			if ((report = __wait_report(c, options, true))) {
				rpid = c->pid;
				break;
			}
		}
		spin_unlock(&proc_lock);
		if (report) {		/* stopped or continued: it stays a child */
			if (ustatus && put_user_u32((void *)ustatus, (u32)report))
				return -EFAULT;
			return rpid;
		}
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
		int err = wait_event_interruptible(me->child_exit, child_to_reap(me, pid, options));
		if (err)
			return err;
	}
}

int proc_getppid(void)
{
	/* No proc_lock: a null system call that 8 threads make at once must
	 * not queue on one lock (ppid is an int, stored whenever parent is). */
	return READ_ONCE(current_proc()->ppid);
}

/* ------------------------------------------------------------ the system calls */

SYSCALL_DEFINE1(exit, int, code) { do_exit_thread(code); }
SYSCALL_DEFINE1(exit_group, int, code) { do_exit_group((code & 0xff) << 8); }

SYSCALL_DEFINE4(wait4, int, pid, uaddr_t, ustatus, u64, options, uaddr_t, urusage)
{
	/* WNOHANG WUNTRACED WCONTINUED __WNOTHREAD __WALL __WCLONE */
	if (options & ~(u64)(1 | 2 | 8 | 0x20000000 | 0x40000000 | 0x80000000))
		return -EINVAL;
	struct acct used = { 0 };
	long r = do_wait4(pid, ustatus, (int)options, &used);
	/* struct rusage only for a child reaped: like Linux, a bad pointer
	 * fails the call after the child is gone, never before */
	if (r > 0 && urusage && put_rusage(urusage, &used))
		return -EFAULT;
	return r;
}

