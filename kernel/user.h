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

#define SIG_DFL 0UL
#define SIG_IGN 1UL

struct k_sigaction {
	u64 handler;		/* SIG_DFL, SIG_IGN or a user address */
	u64 flags;
	u64 restorer;
	u64 mask;
};

/* Lock legend: [L:proc_lock] (kernel/process.h), [I] set at creation, [A] atomic. */
struct process {
	int pid;				/* [I] = the first thread's tid */
	struct process *parent;			/* [L:proc_lock] init after reparenting */
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
	bool zombie;				/* [L:proc_lock] every thread has exited */
	bool exiting;				/* [L:proc_lock] exit_group began */
	int exit_status;			/* [L:proc_lock] wait status (as wait4 reports) */
	struct wait_queue_head child_exit;	/* wait4 sleeps here */
	struct k_sigaction sigaction[NSIG];	/* [L:proc_lock] written and copied whole under
						 * it; .handler alone: READ_ONCE */
	char comm[16];				/* [L:proc_lock] its program's name (exec) */
	u32 umask;				/* [A] permission bits new files and
						 * directories do not get (umask(2)) */
	int pgid;				/* [L:proc_lock] process group (kernel/sys_pgrp.c) */
	int sid;				/* [L:proc_lock] session: its leader's pid */
	bool did_exec;				/* [A] has called execve: its parent's setpgid
						 * on it gives EACCES */
	u64 pending;				/* [A] signals sent to the process */
	atomic_t refcount;			/* [A] threads + the parent's link */
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
/* Send a signal to a process: mark it pending and wake the threads that
 * sleep interruptibly (wait.h). Returns 0 or -EINVAL. Never sleeps. */
int send_signal(struct process *p, int sig);
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
/* A process's alarm goes with it (process_exit). Never sleeps. */
void alarm_cancel(struct process *p);
/* Boot: the thread that sends alarms' SIGALRMs. */
void alarm_init(void);
/* True if sched.debug_signal_no_wake is on (a test of the tests). */
bool signal_debug_no_wake(void);
/* Terminate the current thread group with a wait status. Never returns. */
void do_exit_group(int wait_status) __noreturn;
/* The process layer's entry points for the system calls (kernel/fork.c,
 * fs/exec.c, kernel/signal.c, kernel/futex.c). */
long do_clone(u64 flags, u64 stack, u64 parent_tid, u64 child_tid, u64 tls);
void do_exit_thread(int code) __noreturn;
long do_wait4(int pid, u64 ustatus, int options);
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

/* FPU/SSE areas of user threads (kernel/user.c). */
int fpu_alloc(struct task *t, struct task *from);
void fpu_free(struct task *t);
void fpu_reset(struct task *t);
/* Descriptors 0, 1, 2 on the console (drivers/tty.c). */

/* Syscall dispatch, from syscall_entry. */
void syscall_dispatch(struct trap_frame *tf);

#endif
