/*
 * user.h - user mode: processes, threads, the switch of per-task CPU
 * state, and the entry from and return to ring 3.
 *
 * A process (struct process) is a thread group: an address space
 * (mm/vm.h), a descriptor table, a working directory, signal actions, a
 * parent and children. Each thread is a struct task (kernel/task.h) whose
 * `proc` points at its process; its user registers live in a struct
 * trap_frame at the top of its kernel stack, where a syscall or a trap from
 * user mode saves them (user_regs()).
 *
 * Ring 3 is entered through `syscall`: SYSCALL jumps to syscall_entry
 * (kernel/entry.asm) with interrupts masked; swapgs gives us this CPU's
 * struct cpu, where syscall_rsp is the running task's kernel stack top.
 * The frame it builds is a struct trap_frame like any trap's, so fork,
 * execve and signals can edit one kind of frame, and the way back is
 * sysretq when the frame allows it (a canonical user rip) and iretq if not.
 */
#ifndef KERNEL_USER_H
#define KERNEL_USER_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/wait.h"
#include "kernel/spinlock.h"
#include "kernel/atomic.h"
#include "kernel/task.h"	/* struct ksiginfo */

struct task;
struct trap_frame;
struct mm_struct;
struct files_struct;
struct inode;

/* Bytes kept at the top of each kernel stack for the user registers. */
#define USER_FRAME_RESERVE 176	/* sizeof(struct trap_frame), 16-aligned */

#define NSIG 65
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22

/* A signal's bit in a signal set: Linux's layout (signal N is bit N-1), the
 * one rt_sigprocmask, sa_mask and uc_sigmask carry, so user sets need no
 * translation. */
#define sigmask_of(sig) (1ULL << ((sig) - 1))
#define SIG_UNBLOCKABLE (sigmask_of(SIGKILL) | sigmask_of(SIGSTOP))

#define SIG_DFL 0UL
#define SIG_IGN 1UL

struct k_sigaction {
	u64 handler;		/* SIG_DFL, SIG_IGN or a user address */
	u64 flags;
	u64 restorer;
	u64 mask;		/* blocked while the handler runs (Linux's layout) */
};

/* CPU ticks and faults, summed (kernel/rusage.c). */
struct acct {
	u64 utime, stime;	/* ticks */
	u64 min_flt;
};

/* What /proc/PID shows of a process beyond the tree (kernel/proc_pid.c).
 * Lock legend as struct process's below. */
#define PROC_CMDLINE_MAX 1024	/* longer argument lists are cut here */
#define PROC_EXE_MAX 256
struct proc_view {
	u64 start_ns;				/* [I] ktime_ns() at fork */
	int cmdline_len;			/* [L:proc_lock] bytes of cmdline */
	char cmdline[PROC_CMDLINE_MAX];		/* [L:proc_lock] argv as execve got it,
						 * each string NUL-ended */
	char exe[PROC_EXE_MAX];			/* [L:proc_lock] the program's absolute path */
	u32 exe_dev, exe_ino;			/* [L:proc_lock] its file, to name its mappings */
};

/* Lock legend: [L:proc_lock] (kernel/process.h), [I] set at creation, [A] atomic. */
struct process {
	int pid;				/* [I] = the first thread's tid */
	struct process *parent;			/* [L:proc_lock] init after reparenting */
	int ppid;				/* [A] parent->pid, stored with parent under
						 * proc_lock; getppid reads it without the lock */
	struct list_head children;		/* [L:proc_lock] */
	struct list_head sibling;		/* [L:proc_lock] in parent->children */
	struct mm_struct *mm;			/* [L:proc_lock] shared by its threads; its
					 * own threads read it unlocked */
	struct files_struct *files;		/* [I] */
	struct inode *cwd;			/* [L:proc_lock] held */
	int nr_threads;				/* [L:proc_lock] live threads */
	struct list_head threads;		/* [L:proc_lock] task.thread_link, the live ones */
	struct task *execer;			/* [L:proc_lock] a thread in execve, ending the
						 * others; NULL: none */
	struct wait_queue_head threads_gone;	/* execer sleeps here until it is alone */
	u64 alarm_ns;				/* [L:alarm_lock] alarm(): SIGALRM at this
						 * ktime_ns(); 0: none (kernel/signal.c) */
	struct list_head alarm_link;		/* [L:alarm_lock] next NULL: no alarm */
	u64 alarm_interval_ns;			/* [L:alarm_lock] setitimer's interval: the
						 * alarm re-arms by it when it fires; 0: once */
	bool zombie;				/* [L:proc_lock] every thread has exited */
	bool exiting;				/* [L:proc_lock] exit_group began */
	int exit_status;			/* [L:proc_lock] wait status (as wait4 reports) */
	struct wait_queue_head child_exit;	/* wait4 sleeps here */
	struct ksiginfo siginfo[64];		/* [L:proc_lock] pending's details, [sig - 1] */
	struct k_sigaction sigaction[NSIG];	/* [L:proc_lock] written and copied whole under
						 * it; .handler alone: READ_ONCE */
	char comm[16];				/* [L:proc_lock] its program's name (exec) */
	u32 umask;				/* [A] permission bits new files and
						 * directories do not get (umask(2)) */
	int pgid;				/* [L:proc_lock] process group (kernel/sys_pgrp.c) */
	int sid;				/* [L:proc_lock] session: its leader's pid */
	bool did_exec;				/* [A] has called execve: its parent's setpgid
						 * on it gives EACCES */
	u64 pending;				/* [A] signals sent to the process (the shared
						 * set; each thread's own is task.sigpending) */
	atomic_t refcount;			/* [A] threads + the parent's link */
	int exit_signal;			/* [L:proc_lock] sent to the parent at its end (clone's
						 * low byte: SIGCHLD for fork); 0: none */
	/* Group stop (kernel/signal.c, "stop and continue"). */
	bool stopped;				/* [L:proc_lock] a stop signal's default action
						 * is in force until SIGCONT; read unlocked
						 * (READ_ONCE) by signal_pending */
	int stop_sig;				/* [L:proc_lock] the signal that stopped it */
	struct task *stopper;			/* [L:proc_lock] the thread that took it (read
						 * with READ_ONCE, for a debug switch only) */
	int nr_stopped;				/* [L:proc_lock] threads asleep in the stop */
	bool stop_done;				/* [L:proc_lock] every thread stopped, parent told */
	int wait_report;			/* [L:proc_lock] for wait4 of the parent: a stop
						 * ((sig << 8) | 0x7f, WUNTRACED) or 0xffff
						 * (continued, WCONTINUED); 0: none */
	struct wait_queue_head stop_wq;		/* stopped threads sleep here */
	struct acct acct_dead;			/* [L:proc_lock] its threads that exited */
	struct acct acct_children;		/* [L:proc_lock] its reaped children, each with
						 * its own reaped children */
	struct proc_view view;			/* /proc/PID's (see the struct) */
};

/* The user registers of a task (the frame at the top of its kernel stack). */
struct trap_frame *user_regs(struct task *t);

/* Boot: MSRs for SYSCALL, CR4 for SSE; each CPU. */
void user_cpu_init(void);
/* Scheduler hook, interrupts off, before switch_to: address space, TSS
 * rsp0, the syscall stack, FPU registers and FS base follow the task. */
void user_switch(struct task *prev, struct task *next);

/* Leave the kernel for user mode with these registers. Never returns. */
void user_return(struct trap_frame *tf) __noreturn;

/* The first user process: /sbin/init (boot, after the root mount). */
int spawn_init(void);
/* PID 1's exit ends the machine (kernel_exit with its status). */

/* Current process, or NULL for a kernel thread. */
struct process *current_proc(void);

/* Exceptions from user mode (kernel/trap.c): a fault the process caused;
 * cr2 is the page fault's address, read at trap entry. Interrupts off on
 * entry; may sleep (it enables them). */
void user_exception(struct trap_frame *tf, u64 cr2);
/*
 * send_signal: a process-directed signal (kill's): pending on p, taken by
 * whichever of its threads does not block it (if all do, it waits); wakes
 * those threads' interruptible sleeps (wait.h). SIGCONT continues a stopped
 * p and a stop signal drops a pending SIGCONT, at once. Returns 0 (also
 * for a zombie, or a signal p ignores) or -EINVAL for a bad number. Takes
 * proc_lock; never sleeps. __send_signal: the same with proc_lock held (to
 * signal each process of a group in one pass over the table).
 */
int send_signal(struct process *p, int sig);
int __send_signal(struct process *p, int sig);
/* __send_signal_thread: a thread-directed signal (tkill, tgkill): pending
 * on t alone. 0 or -EINVAL. proc_lock held; never sleeps. */
int __send_signal_thread(struct task *t, int sig);
/* The same three with what the receiver is told (siginfo); the forms
 * above tell it SI_KERNEL: the kernel sent it. */
int send_signal_info(struct process *p, int sig, const struct ksiginfo *info);
int __send_signal_info(struct process *p, int sig, const struct ksiginfo *info);
int __send_signal_thread_info(struct task *t, int sig, const struct ksiginfo *info);
/* siginfo codes (Linux's). */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_TKILL (-6)
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_STOPPED 5
#define CLD_CONTINUED 6
/* What a signal from the running process (kill, SIGPIPE) tells: SI_USER and its pid. */
struct ksiginfo user_sender(void);
/* On the way back to user mode from a trap: act on pending signals (may
 * not return). May sleep (a signal frame is a user copy). */
void handle_signals(struct trap_frame *tf);
/* The same after system call nr, whose result is in tf->rax: a restart
 * code (signal.c) becomes -EINTR or a second try of the call. May sleep. */
void handle_signals_syscall(struct trap_frame *tf, u64 nr);
/* alarm_set: SIGALRM to the caller's process in ns nanoseconds (0: none),
 * for alarm() and setitimer(ITIMER_REAL); returns the nanoseconds the
 * previous alarm had left (0: none). Never sleeps. */
u64 alarm_set(u64 ns);
/* itimer_set: the same with a repeating interval (0: one shot), the old
 * interval in *old_interval; itimer_get: the time left and the interval
 * without changing them. Never sleep. */
u64 itimer_set(u64 ns, u64 interval, u64 *old_interval);
u64 itimer_get(u64 *interval);
/* A process's alarm goes with it (process_exit). Never sleeps. */
void alarm_cancel(struct process *p);
/* Boot: the thread that sends alarms' SIGALRMs. */
void alarm_init(void);
/*
 * A temporary signal mask for the running thread, for a call such as
 * rt_sigsuspend, ppoll or pselect6 (Linux's set_user_sigmask): on the way
 * back to user mode, a handler taken runs with it and its frame holds the
 * mask from before, which rt_sigreturn restores; if no handler runs, the
 * mask from before comes back there. signal_mask_restore: put it back now
 * (a call that ends without being interrupted, so that the signals only
 * the temporary mask let through stay pending). Never sleep.
 */
void signal_mask_temporary(u64 mask);
/* The running thread's blocked mask becomes mask (never SIGKILL, SIGSTOP).
 * Never sleeps. (kernel/wait.c, with the two above.) */
void signal_set_blocked(u64 mask);
void signal_mask_restore(void);
/* A new task's signal state from its creator's (clone; thread: one of the
 * same process): the mask, and the alternate stack for a new process.
 * signal_exec: execve's, which drops the alternate stack. Never sleep. */
void signal_fork(struct task *child, const struct task *parent, bool thread);
void signal_exec(struct task *me);
/* True if sched.debug_signal_no_wake is on (a test of the tests). */
bool signal_debug_no_wake(void);
/* Terminate the current thread group with a wait status. Never returns. */
void do_exit_group(int wait_status) __noreturn;
/* The process layer's entry points for the system calls (kernel/fork.c,
 * fs/exec.c, kernel/signal.c, kernel/futex.c). */
long do_clone(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls);
void do_exit_thread(int code) __noreturn;
long do_wait4(int pid, u64 ustatus, int options, struct acct *used);
/* kernel/rusage.c: with proc_lock held, a thread leaving p adds its counts
 * to p's; a reaped child's totals go to its parent's children (and *used). */
void acct_thread_exit(struct process *p, struct task *t);
/* p's own use (its live and exited threads) and its reaped children's. proc_lock held. */
void acct_of_process(struct process *p, struct acct *self, struct acct *children);
void acct_reap(struct process *parent, struct process *child, struct acct *used);
/* Linux's struct rusage of *a to user memory: 0 or -EFAULT. */
int put_rusage(u64 uru, const struct acct *a);
long do_kill(int pid, int sig);
int proc_getppid(void);
int do_execve(const char *upath, const char *const *uargv, const char *const *uenvp);
long do_rt_sigreturn(void);
void futex_init(void);
int futex_wake(u64 uaddr, int n);
/* End the calling thread alone (its process lives on while it has others).
 * Never returns. */
void thread_exit(int wait_status) __noreturn;
/* With pending signals in hand (taken: those taken from the process): if
 * the thread group is ending (exit_group) or another thread's execve is
 * ending this one, end this thread here, handing taken back to the process
 * for the survivor. Returns otherwise. Takes proc_lock; may sleep. */
void exit_if_group_ends(u64 taken);
/* execve's de_thread: SIGKILL every other thread of the caller's process
 * and wait until they are gone; the caller then holds the only reference
 * to the old mm and takes the pid as its tid. Returns 0, or -EINTR if a
 * fatal signal came for the caller meanwhile (the exec must fail then).
 * May sleep. */
int exec_end_other_threads(void);
/* Power-off: SIGKILL every process but the caller's and wait (at most
 * timeout_ms) until each has released its memory and files. Returns the
 * number still alive. May sleep. */
int kill_all_processes(unsigned timeout_ms);

/*
 * proc_grab_live: up to max processes that still have their memory, each
 * with a reference on it and on its mm (mms[i]); the count. proc_put_live
 * drops both (mm_put may free the mm: it may sleep).
 */
int proc_grab_live(struct process **out, struct mm_struct **mms, int max);
void proc_put_live(struct process *p, struct mm_struct *mm);
/* proc_swap_mm: give p the address space mm (exec, exit: NULL); the old one,
 * whose reference passes to the caller. Takes proc_lock. */
struct mm_struct *proc_swap_mm(struct process *p, struct mm_struct *mm);
/*
 * oom_fault: a page fault that handle_mm_fault failed with -ENOMEM, tried
 * again after reclaim and, if need be, after the OOM killer (kernel/oom.c)
 * has freed a victim's memory. handle_mm_fault's result; 0 also when the
 * caller's own process was chosen (it dies on its way to user mode). Sleeps.
 */
int oom_fault(struct mm_struct *mm, unsigned long addr, u64 error);

/* kernel/proc_pid.c: a forked child starts with its parent's view;
 * proc_lock held, never sleeps. */
void proc_view_inherit(struct process *child, struct process *parent);
/* kernel/proc_pid.c: execve's new program (path as given, argc strings
 * one after another in args, its file) becomes p's name, cmdline and exe.
 * Takes proc_lock; may sleep. */
void proc_view_exec(struct process *p, const char *path, const char *args, int argc,
		    struct inode *file);
/* Boot: hand /proc its view of processes (fs/vfs.h, proc_pid_ops). */
void proc_pid_init(void);

/* FPU/SSE areas of user threads (kernel/user.c). */
int fpu_alloc(struct task *t, struct task *from);
void fpu_free(struct task *t);
void fpu_reset(struct task *t);
/* Descriptors 0, 1, 2 on the console (drivers/tty.c). */

/* Syscall dispatch, from syscall_entry. */
void syscall_dispatch(struct trap_frame *tf);

#endif
