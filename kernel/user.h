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

/* Lock legend: [L:proc_lock] (kernel/process.c), [I] set at creation, [A] atomic. */
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
	bool zombie;				/* [L:proc_lock] every thread has exited */
	bool exiting;				/* [L:proc_lock] exit_group began */
	int exit_status;			/* [L:proc_lock] wait status (as wait4 reports) */
	struct wait_queue_head child_exit;	/* wait4 sleeps here */
	struct k_sigaction sigaction[NSIG];	/* [L:proc_lock] */
	char comm[16];				/* [L:proc_lock] its program's name (exec) */
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
/* Send a signal to a process; a default-fatal one kills it. */
int send_signal(struct process *p, int sig);
/* On the way back to user mode: act on pending signals (may not return). */
void handle_signals(struct trap_frame *tf);
/* Terminate the current thread group with a wait status. Never returns. */
void do_exit_group(int wait_status) __noreturn;

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
int console_open_stdio(struct files_struct *files);

/* Syscall dispatch, from syscall_entry. */
void syscall_dispatch(struct trap_frame *tf);

#endif
