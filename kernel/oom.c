/*
 * oom.c - the out-of-memory killer, for page faults that find no free page.
 *
 * A fault that gets -ENOMEM first asks reclaim for page-cache pages, then
 * retries. If memory is still short, the killer picks the process with
 * the most pages mapped (its RSS: present PTEs, Linux's choice by rss;
 * init, pid 1, is never chosen), logs
 *   Out of memory: killed process PID (NAME), RSS N pages
 * and sends it SIGKILL. The faulting thread then waits a little and
 * retries, until the victim's exit has given its memory back. While a
 * victim is still dying (SIGKILL pending or exiting, its memory not yet
 * released) nobody else is killed. A thread whose own process was chosen
 * stops retrying and dies on its way back to user mode.
 *
 * A victim sleeping where SIGKILL cannot wake it frees nothing until it
 * wakes; the faulting thread then gives up after OOM_TRIES and its access
 * gets SIGBUS, as a fault that fails with -ENOMEM always did.
 *
 * oom_lock (a mutex) makes choosing and killing one decision at a time.
 */
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/mutex.h"
#include "kernel/wait.h"
#include "kernel/printk.h"
#include "mm/vm.h"
#include "mm/vmscan.h"
#include "mm/slab.h"

#define OOM_TRIES 100		/* 100 x 20 ms: two seconds for a victim to exit */

static DEFINE_MUTEX(oom_lock);

static bool dying(struct process *p)
{
	return (READ_ONCE(p->pending) & sigmask_of(SIGKILL)) || READ_ONCE(p->exiting);
}

/* Kill the biggest process unless a victim is still dying. oom_lock held. */
static void oom_kill(void)
{
	struct process *procs[128];
	struct mm_struct *mms[128];
	int n = proc_grab_live(procs, mms, ARRAY_SIZE(procs));
	struct process *victim = NULL;
	unsigned long most = 0;
	bool waiting = false;
	for (int i = 0; i < n; i++) {
		struct process *p = procs[i];
		if (dying(p))
			waiting = true;		/* its memory is on its way back */
		unsigned long rss = mm_rss(mms[i]);
		if (p->pid != 1 && !dying(p) && rss > most) {
			most = rss;
			victim = p;
		}
	}
	if (victim && !waiting) {
		/* A warning, so it shows at the quiet console level of the
		 * tests: a program that dies of SIGKILL says why. */
		pr_warn("Out of memory: killed process %d (%s), RSS %lu pages", victim->pid,
			victim->comm, most);
		send_signal(victim, SIGKILL);
	}
	for (int i = 0; i < n; i++)
		proc_put_live(procs[i], mms[i]);
}

int oom_fault(struct mm_struct *mm, unsigned long addr, u64 error)
{
	vmscan_direct_reclaim(128);
	int err = handle_mm_fault(mm, addr, error);
	for (int tries = 0; err == -ENOMEM && tries < OOM_TRIES; tries++) {
		if (dying(current_proc()))
			return 0;		/* chosen: SIGKILL on the way out */
		mutex_lock(&oom_lock);
		oom_kill();
		mutex_unlock(&oom_lock);
		msleep(20);
		err = handle_mm_fault(mm, addr, error);
	}
	return err;
}
