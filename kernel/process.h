/*
 * process.h - what the process layer's files share (kernel/fork.c, exit.c,
 * signal.c): the process table and its lock. Not for other floors: they
 * use kernel/user.h.
 *
 * proc_lock (a spinlock) guards the tree: parent, children, zombie,
 * nr_threads and the list of threads, execer, exit status, and the table.
 * Lock order: proc_lock -> rq (send_signal wakes sleepers under it);
 * alarm_lock -> proc_lock (kernel/signal.c).
 */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include "kernel/user.h"
#include "kernel/spinlock.h"
#include "kernel/list.h"
#include "kernel/wait.h"
#include "kernel/atomic.h"

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

/* kernel/signal.c: wake p's threads in interruptible sleeps. */
void signal_wake_threads(struct process *p);
/* kernel/sys_pgrp.c: hand the console its job-control calls (drivers/tty.h);
 * once at boot, before init runs. Never sleeps. */
void pgrp_init(void);
/* kernel/exit.c: the body of the reaper thread. */
int reaper_main(void *unused);

#endif
