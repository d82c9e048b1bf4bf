/*
 * task.h - struct task: one thread of execution, kernel or (later) user.
 *
 * Every thread the scheduler runs is a struct task with its own kernel
 * stack. A kernel thread has mm == NULL; a user thread (to come) will point
 * mm at its process's address space and keep its user registers in the trap
 * frame at the top of its kernel stack. kernel/sched.h has the API and the
 * rules for who may change what; docs/sched.md walks through a switch.
 *
 * Lock legend: [I] immutable once the task is first woken, [A] atomic
 * (__atomic accessors, the order stated where used), [L:rq] the lock of the
 * run queue named by task->cpu, [L:wq] the lock of the wait queue the task
 * is on, [P] private to the task itself (or to the CPU running it, with
 * interrupts off).
 */
#ifndef KERNEL_TASK_H
#define KERNEL_TASK_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/atomic.h"
#include "kernel/wait.h"
#include "kernel/lockdep.h"

struct mm_struct;
struct vm_area;
struct process;
struct trap_frame;

enum task_state {
	TASK_RUNNING,	/* executing on its CPU (that run queue's curr) */
	TASK_RUNNABLE,	/* on a run queue, waiting for a CPU */
	TASK_SLEEPING,	/* waiting for a wake_up_process (also: created, not yet woken) */
	TASK_DEAD,	/* exited; its stack is freed by kthread_join */
};

#define TASK_NAME_LEN 16
#define CPUS_ALL (~0ULL)

/*
 * What the receiver of a signal is told (the first fields of siginfo_t),
 * kept for each pending signal: the first sender's, as Linux keeps one
 * for each standard signal. kernel/signal.c fills and copies it out.
 */
struct ksiginfo {
	s32 code;			/* SI_USER, SI_KERNEL, SI_TKILL; CLD_* (SIGCHLD);
					 * SEGV_*, BUS_*, FPE_*, ILL_* (a fault) */
	s32 pid;			/* the sender; for SIGCHLD the child */
	s32 status;			/* SIGCHLD: the exit code or the signal */
	u32 uid;
	u64 addr;			/* a fault's address */
};

struct task {
	/* switch_to (kernel/switch.asm) reads and writes this field at offset 0. */
	unsigned long kernel_rsp;	/* [L:rq] saved rsp while switched out */
	void *kstack_top;		/* [I] top of the kernel stack; NULL: not ours (boot) */
	void *kstack_bottom;		/* [I] lowest byte above the guard page */

	int state;			/* [A] enum task_state; rules in sched.h */
	int on_cpu;			/* [A] 1 from being picked until its successor has
					 * finished switching away from it (sched.h) */
	int cpu;			/* [L:rq] run queue it is on, or CPU it runs/ran on */
	u64 cpus_allowed;		/* [A] bit n: may run on CPU n (kthread_bind,
					 * sched_setaffinity); read at each wake-up */
	int slice;			/* [P] ticks left before the tick preempts it */
	bool queued;			/* [L:rq] linked on rq->queue through run_link */
	struct list_head run_link;	/* [L:rq] run-queue link */
	struct list_head wait_link;	/* [L:wq] reserved for a wait-queue entry embedded
					 * in the task (wait.h keeps its entries on the
					 * sleeper's stack today) */

	struct mm_struct *mm;		/* [P] address space; NULL for kernel threads. Set at
					 * creation, then changed only by the task itself
					 * (execve, exit); the switch reads it once the task
					 * has switched away (the rq lock orders it) */
	struct vm_area *unmapped_vmas;	/* [P] file VMAs this task unmapped under mmap_lock,
					 * freed (their inodes put) once it is dropped:
					 * mm_free_unmapped_vmas (mm/mmap.c) */
	struct trap_frame *user_regs;	/* [I] user state at the top of the kernel stack;
					 * NULL for kernel threads */
	void *fpu;			/* [P] FPU/SSE save area; NULL until user mode */
	struct process *proc;		/* [I] its process; NULL for kernel threads */
	u64 fs_base;			/* [P] user FS base (TLS), saved at switches */
	u64 clear_child_tid;		/* [P] user address zeroed and woken at exit */
	/*
	 * To come with user threads: a clear_child_tid slot (a user address
	 * that exit zeroes and futex-wakes, so pthread_join can wait on it).
	 */

	char name[TASK_NAME_LEN];	/* [I] for reports */
	int tid;			/* [P] thread id; 0 for the idle tasks; execve by
					 * another thread than the first gives it the pid */
	int (*fn)(void *);		/* [I] kernel thread body */
	void *arg;			/* [I] its argument */
	int exit_code;			/* [P] set before `exited` completes; the joiner
					 * reads it after (the completion orders the two) */
	struct completion exited;	/* [I] completed by kthread_exit (its count is
					 * under its own lock, wait.h) */
	atomic_t refcount;		/* [A] task_put frees at zero */
	u64 nr_switches;		/* [L:rq] times it was switched in (statistics) */
	u64 utime, stime;		/* [A] ticks it was interrupted in in user / kernel
					 * mode (sched_account_tick; getrusage) */
	u64 min_flt;			/* [A] page faults it took (handle_mm_fault) */
	int fail_nth;			/* [P] fault injection: the Nth kmalloc from now
					 * fails (1: the next one); 0: none (/proc/fail-nth) */
	struct list_head dead_link;	/* [L:proc_lock] on the reaper's list once exited */
	u64 sigpending;			/* [A] signals for this thread alone: those its own
					 * faults raise (SIGSEGV, SIGBUS, ...), as on Linux,
					 * and the SIGKILL of an execve by another thread */
	struct ksiginfo siginfo[64];	/* [L:proc_lock] sigpending's details, [sig - 1] */
	u64 sigwait_set;		/* [A] the signals it waits for in rt_sigtimedwait
					 * (0: none): kept when sent, though ignored, and
					 * they wake it (kernel/signal_wait.c) */
	u64 blocked;			/* [A] signals it blocks (user.h sigmask_of):
					 * written only by the thread itself, read by
					 * senders choosing whom to wake */
	u64 saved_mask;			/* [P] the mask before a temporary one (sigsuspend),
					 * put back on the way out (restore_mask) */
	bool restore_mask;		/* [P] saved_mask is to be put back */
	u64 restart_deadline;		/* [P] an interrupted sleep's end (ktime_ns), for
					 * restart_syscall; 0: nothing to go on with */
	u64 restart_urem;		/* [P] and where its time left goes (0: nowhere) */
	u64 sas_sp, sas_size;		/* [P] alternate signal stack; size 0: none */
	u32 sas_flags;			/* [P] SS_AUTODISARM, or 0 */
	int interruptible;		/* [A] 1 while in an interruptible sleep: a signal
					 * wakes it (wait.h, the rule for sleeps) */
	struct list_head thread_link;	/* [L:proc_lock] in its process's threads */
	struct lockdep_stack lockdep;	/* [P] sleeping locks it holds (kernel/lockdep.h) */
};

#endif
