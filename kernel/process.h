/*
 * process.h - what the process layer's files share (kernel/fork.c, exit.c,
 * signal.c): the process table and its lock. Not for other floors: they
 * use kernel/user.h.
 *
 * proc_lock (a spinlock) guards the tree: parent, children, zombie,
 * nr_threads and the list of threads, execer, exit status, and the table.
 * Lock order: proc_lock -> rq (send_signal wakes sleepers under it);
 * proc_lock -> a wait queue's lock (SIGCHLD and SIGCONT wake wait4 and
 * stopped threads under it); alarm_lock -> proc_lock (kernel/signal.c).
 */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include "kernel/user.h"
#include "kernel/spinlock.h"
#include "kernel/list.h"
#include "kernel/wait.h"
#include "kernel/atomic.h"

struct trap_frame;

/* Every process, for kill(pid): a small table is enough for a teaching kernel. */
#define MAX_PROCS 1024
extern struct process *procs[MAX_PROCS];	/* [L:proc_lock] */

extern spinlock_t proc_lock;
extern struct process *init_proc;		/* [I] pid 1 */
extern struct list_head dead_tasks;		/* [L:proc_lock] exited threads, for the reaper */
extern int nr_dead;				/* [L:proc_lock] their number; read unlocked as a hint */
extern struct wait_queue_head reaper_wq;
extern atomic_t nr_tasks;			/* [A] threads alive or unreaped */

/* The table, with proc_lock held: find a process by pid, or take it out. */
struct process *find_proc(int pid);
void proc_unregister(struct process *p);

/* kernel/signal.c: wake p's threads in interruptible sleeps (takes
 * proc_lock); __signal_wake_threads: with it held, only those that do not
 * block sig (0: every one). Never sleep. */
void signal_wake_threads(struct process *p);
void __signal_wake_threads(struct process *p, int sig);
/* Take one pending signal of `allowed` for the running thread me of p: its
 * own first, then p's; its number, 0 if none, and (info not NULL) what its
 * sender told. Takes proc_lock when one is pending; never sleeps. */
int signal_dequeue(struct task *me, struct process *p, u64 allowed, struct ksiginfo *info);
/* Linux's siginfo_t (128 bytes), as handlers and rt_sigtimedwait get it; siginfo_fill lays info out in it for sig, as Linux's union does
 * for the kind of signal (a sender, a child, a fault's address). */
struct user_siginfo { s32 signo, err, code, pad; u64 data[14]; };
void siginfo_fill(struct user_siginfo *u, int sig, const struct ksiginfo *info);
/* kernel/signal_frame.c: push a handler's frame for sig (oldmask: the mask
 * rt_sigreturn restores); false if it cannot be written (the caller sends
 * SIGSEGV). May sleep (a user copy). */
bool signal_frame_push(struct trap_frame *tf, int sig, const struct ksiginfo *info,
		       const struct k_sigaction *act, u64 oldmask);
/*
 * kernel/signal_stop.c, the group stop (its steps are there):
 * group_stop_applies: a stop is in force for the running thread of p;
 * group_stop_begin: p stops (takes proc_lock; never sleeps);
 * group_stop_wait: the running thread of p sleeps until SIGCONT or SIGKILL
 * (takes proc_lock; sleeps, holding no lock);
 * __group_stop_check: a thread left p, which may complete the stop;
 * __group_continue: SIGCONT's effect; both with proc_lock held, never sleep.
 */
bool group_stop_applies(struct process *p);
void group_stop_begin(struct process *p, int sig);
void group_stop_wait(struct process *p);
void __group_stop_check(struct process *p);
void __group_continue(struct process *p);
/* What wait4 with options reports of child c stopped or continued, 0 if
 * nothing (take: and clear it). proc_lock held. */
int __wait_report(struct process *c, int options, bool take);
/* Zombie p's parent hears of its end (SIGCHLD, wait4 woken); true if the
 * parent ignores SIGCHLD and p was reaped at once (unlinked, out of the
 * table: the caller drops the parent's reference). proc_lock held. */
bool __child_exit_notify(struct process *p);
/* kernel/sys_pgrp.c: hand the console its job-control calls (drivers/tty.h);
 * once at boot, before init runs. Never sleeps. */
void pgrp_init(void);
/* kernel/exit.c: the body of the reaper thread. */
int reaper_main(void *unused);

#endif
