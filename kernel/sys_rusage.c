/*
 * sys_rusage.c - what processes have used: getrusage, times, sysinfo, and
 * the rusage wait4 gives for a reaped child.
 *
 * CPU time is sampled, as Linux does without precise accounting: each
 * tick (kernel/smp.c, sched_account_tick) charges one tick to the task it
 * interrupted, to utime if it interrupted user mode, else to stime. Each
 * page fault counts one minor fault to the faulting task (mm/fault.c);
 * there are no major faults (the ramdisk answers at once) and no maximum
 * RSS. A thread's counts go to its process's acct_dead when it exits; a
 * reaped child's totals (its threads', live and dead, and its own reaped
 * children's) go to its parent's acct_children, as Linux sums them.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/process.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "mm/mm.h"
#include "mm/page.h"

#define NS_PER_TICK (1000000000ULL / HZ)

static void acct_add(struct acct *to, const struct acct *from)
{
	to->utime += from->utime;
	to->stime += from->stime;
	to->min_flt += from->min_flt;
}

static void acct_of_task(struct task *t, struct acct *a)
{
	a->utime = __atomic_load_n(&t->utime, __ATOMIC_RELAXED);
	a->stime = __atomic_load_n(&t->stime, __ATOMIC_RELAXED);
	a->min_flt = __atomic_load_n(&t->min_flt, __ATOMIC_RELAXED);
}

/* p's own use: its exited threads and its live ones. proc_lock held. */
static void acct_self(struct process *p, struct acct *a)
{
	*a = p->acct_dead;
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
		struct acct t;
		acct_of_task(list_entry(l, struct task, thread_link), &t);
		acct_add(a, &t);
	}
}

void acct_of_process(struct process *p, struct acct *self, struct acct *children)
{
	acct_self(p, self);
	*children = p->acct_children;
}

void acct_thread_exit(struct process *p, struct task *t)
{
	struct acct a;
	acct_of_task(t, &a);
	acct_add(&p->acct_dead, &a);
}

void acct_reap(struct process *parent, struct process *child, struct acct *used)
{
	struct acct a;
	acct_self(child, &a);
	acct_add(&a, &child->acct_children);
	acct_add(&parent->acct_children, &a);
	if (used)
		*used = a;
}

/* Linux's struct rusage: two timevals, then fourteen longs. */
struct linux_rusage {
	s64 utime_sec, utime_usec, stime_sec, stime_usec;
	s64 maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock;
	s64 msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};

int put_rusage(u64 uru, const struct acct *a)
{
	u64 u = a->utime * NS_PER_TICK / 1000, s = a->stime * NS_PER_TICK / 1000;	/* us */
	struct linux_rusage ru = {
		.utime_sec = (s64)(u / 1000000), .utime_usec = (s64)(u % 1000000),
		.stime_sec = (s64)(s / 1000000), .stime_usec = (s64)(s % 1000000),
		.minflt = (s64)a->min_flt,
	};
	return copy_to_user((void *)uru, &ru, sizeof(ru)) ? -EFAULT : 0;
}

#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD 1

SYSCALL_DEFINE2(getrusage, int, who, uaddr_t, uru)
{
	struct process *p = current_proc();
	struct acct a;
	if (who == RUSAGE_THREAD) {
		acct_of_task(current_task(), &a);
	} else if (who == RUSAGE_SELF || who == RUSAGE_CHILDREN) {
		spin_lock(&proc_lock);
		if (who == RUSAGE_SELF)
			acct_self(p, &a);
		else
			a = p->acct_children;
		spin_unlock(&proc_lock);
	} else {
		return -EINVAL;
	}
	return put_rusage(uru, &a);
}

/* times: the process's and its reaped children's CPU time in ticks
 * (HZ = 100, Linux's USER_HZ); returns ticks since boot. */
SYSCALL_DEFINE1(times, uaddr_t, utms)
{
	if (utms) {
		struct process *p = current_proc();
		struct acct self, kids;
		spin_lock(&proc_lock);
		acct_self(p, &self);
		kids = p->acct_children;
		spin_unlock(&proc_lock);
		s64 tms[4] = { (s64)self.utime, (s64)self.stime, (s64)kids.utime, (s64)kids.stime };
		if (copy_to_user((void *)utms, tms, sizeof(tms)))
			return -EFAULT;
	}
	return (long)(ktime_ns() / NS_PER_TICK);
}

/* Linux's struct sysinfo on x86-64 (112 bytes). */
struct linux_sysinfo {
	s64 uptime;
	u64 loads[3];
	u64 totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	u16 procs, pad;
	u64 totalhigh, freehigh;
	u32 mem_unit;
	char reserved[4];
};

/* sysinfo: uptime, RAM in bytes (mem_unit 1) as /proc/meminfo counts it,
 * threads alive; no load averages, swap or high memory. */
SYSCALL_DEFINE1(sysinfo, uaddr_t, uinfo)
{
	struct linux_sysinfo si = {
		.uptime = (s64)(ktime_ns() / 1000000000ULL),
		.totalram = (u64)mm_boot.usable_pages * PAGE_SIZE,
		.freeram = (u64)nr_free_pages() * PAGE_SIZE,
		.procs = (u16)atomic_read(&nr_tasks),
		.mem_unit = 1,
	};
	return copy_to_user((void *)uinfo, &si, sizeof(si)) ? -EFAULT : 0;
}
