/*
 * sys_pgrp.c - process groups and sessions, Linux's (POSIX job control):
 * setsid, setpgid, getpgid, getpgrp, getsid, kill of a group (kill with a
 * pid of 0, -1 or below), and what the console terminal asks of the
 * process table (drivers/tty.h).
 *
 * Each process carries its group and session ids (process.pgid, .sid,
 * under proc_lock); a group or session is simply the processes that carry
 * its id, found by a walk of the process table. fork inherits both; init
 * is the leader of the first session and of its group. Ids are never
 * reused (pids only grow), so an id that names nobody stays free.
 *
 * A signal to a group goes to each member in turn, taken with a reference
 * one at a time under proc_lock and sent after it is dropped, through
 * send_signal (kernel/signal.c). The walk is not atomic against fork: a
 * child forked by a member while the walk passes may miss the signal,
 * where Linux makes such a fork start over.
 */
#include "kernel/process.h"
#include "kernel/syscall.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "mm/slab.h"
#include "drivers/tty.h"

/* Drop a reference taken under proc_lock (as do_kill does). */
static void proc_put(struct process *p)
{
	if (atomic_dec_and_test(&p->refcount))
		kfree(p);
}

/* A process of group pgid in session sid (sid < 0: any), with proc_lock held. */
static struct process *__find_pgrp_member(int pgid, int sid)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		struct process *p = procs[i];
		if (p && p->pgid == pgid && (sid < 0 || p->sid == sid))
			return p;
	}
	return NULL;
}

/* Which processes a kill of many reaches: a group, or everyone (-1). */
struct kill_target {
	int pgid;			/* > 0: that group; 0: all but init and me */
	struct process *me;
};

static bool kill_target_has(const struct kill_target *k, const struct process *p)
{
	if (k->pgid)
		return p->pgid == k->pgid;
	return p != init_proc && p != k->me;
}

/* Send sig to each process of k. Linux's answer: 0 if one took it, else the
 * last error, -ESRCH if nobody is there. Never sleeps. */
static int kill_many(const struct kill_target *k, int sig)
{
	int err = -ESRCH;
	bool sent = false;
	struct ksiginfo info = user_sender();
	for (int i = 0; i < MAX_PROCS; i++) {
		spin_lock(&proc_lock);
		struct process *p = procs[i];
		if (p && kill_target_has(k, p))
			atomic_inc(&p->refcount);
		else
			p = NULL;
		spin_unlock(&proc_lock);
		if (!p)
			continue;
		err = send_signal_info(p, sig, &info);
		sent |= !err;
		proc_put(p);
	}
	return sent ? 0 : err;
}

/* kill(2): pid > 0 one process, 0 my group, -1 everyone else, < -1 group -pid. */
SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	struct process *me = current_proc();
	if (pid > 0)
		return do_kill(pid, sig);
	if (pid == -2147483647 - 1)
		return -ESRCH;		/* -pid would overflow: as Linux */
	struct kill_target k = { .pgid = -pid, .me = me };
	if (pid == 0) {
		spin_lock(&proc_lock);
		k.pgid = me->pgid;
		spin_unlock(&proc_lock);
	} else if (pid == -1) {
		k.pgid = 0;
	}
	return kill_many(&k, sig);
}

/* setsid: a new session and group led by the caller, with no controlling
 * terminal; EPERM if a group with the caller's id exists (it leads one). */
SYSCALL_DEFINE0(setsid)
{
	struct process *me = current_proc();
	long ret = me->pid;
	spin_lock(&proc_lock);
	if (__find_pgrp_member(me->pid, -1))
		ret = -EPERM;
	else
		me->pgid = me->sid = me->pid;
	spin_unlock(&proc_lock);
	return ret;
}

/* setpgid's checks on target p, with proc_lock held: 0 or -errno (Linux's
 * order: whose it is, then leaders, then the group's session). */
static long __setpgid_check(struct process *me, struct process *p, int pgid)
{
	if (p->parent == me) {
		if (p->sid != me->sid)
			return -EPERM;
		if (__atomic_load_n(&p->did_exec, __ATOMIC_RELAXED))
			return -EACCES;
	} else if (p != me) {
		return -ESRCH;
	}
	if (p->sid == p->pid)
		return -EPERM;		/* a session leader stays in its group */
	if (pgid != p->pid && !__find_pgrp_member(pgid, me->sid))
		return -EPERM;		/* no such group in my session */
	return 0;
}

/* setpgid: move the caller or a child of it (pid 0: the caller) into group
 * pgid (0: the one its pid names), in the caller's session. */
SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct process *me = current_proc();
	if (!pid)
		pid = me->pid;
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	spin_lock(&proc_lock);
	struct process *p = pid > 0 ? find_proc(pid) : NULL;
	long err = p ? __setpgid_check(me, p, pgid) : -ESRCH;
	if (!err)
		p->pgid = pgid;
	spin_unlock(&proc_lock);
	return err;
}

/* The group (want_sid false) or session of pid (0: the caller); -ESRCH. */
static long get_id(int pid, bool want_sid)
{
	struct process *me = current_proc();
	long ret = -ESRCH;
	spin_lock(&proc_lock);
	struct process *p = pid == 0 ? me : pid > 0 ? find_proc(pid) : NULL;
	if (p)
		ret = want_sid ? p->sid : p->pgid;
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE1(getpgid, int, pid) { return get_id(pid, false); }
SYSCALL_DEFINE0(getpgrp) { return get_id(0, false); }
SYSCALL_DEFINE1(getsid, int, pid) { return get_id(pid, true); }

/* ------------------------------------------------------------ for the terminal */

static void tty_current_ids(int *pid, int *pgid, int *sid)
{
	struct process *me = current_proc();
	*pid = me->pid;
	spin_lock(&proc_lock);
	*pgid = me->pgid;
	*sid = me->sid;
	spin_unlock(&proc_lock);
}

static int tty_kill_pgrp(int pgid, int sig)
{
	struct kill_target k = { .pgid = pgid, .me = NULL };
	return pgid > 0 ? kill_many(&k, sig) : -ESRCH;
}

static int tty_pgrp_session(int pgid)
{
	spin_lock(&proc_lock);
	struct process *p = pgid > 0 ? __find_pgrp_member(pgid, -1) : NULL;
	int sid = p ? p->sid : -ESRCH;
	spin_unlock(&proc_lock);
	return sid;
}

/* Ignored or blocked by the running thread: then a background read gets
 * EIO and a background write goes ahead, as on Linux. */
static bool tty_sig_ignored(int sig)
{
	u64 blocked = __atomic_load_n(&current_task()->blocked, __ATOMIC_RELAXED);
	return READ_ONCE(current_proc()->sigaction[sig].handler) == SIG_IGN ||
	       (blocked & sigmask_of(sig));
}

/* POSIX: orphaned unless a live member has a parent, other than init, in
 * another group of the same session. */
static bool tty_pgrp_orphaned(int pgid)
{
	bool orphaned = true;
	spin_lock(&proc_lock);
	for (int i = 0; i < MAX_PROCS && orphaned; i++) {
		struct process *p = procs[i], *pp = p ? p->parent : NULL;
		if (!p || p->pgid != pgid || p->zombie || !pp || pp == init_proc)
			continue;
		if (pp->pgid != pgid && pp->sid == p->sid)
			orphaned = false;
	}
	spin_unlock(&proc_lock);
	return orphaned;
}

static const struct tty_job_ops pgrp_tty_ops = {
	.current_ids = tty_current_ids,
	.kill_pgrp = tty_kill_pgrp,
	.pgrp_session = tty_pgrp_session,
	.sig_ignored = tty_sig_ignored,
	.pgrp_orphaned = tty_pgrp_orphaned,
};

void pgrp_init(void)
{
	tty_set_job_ops(&pgrp_tty_ops);
}
