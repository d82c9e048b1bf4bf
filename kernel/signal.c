/*
 * signal.c - sending signals, and taking them on the way back to user
 * mode, Linux's way: masks, the pending sets, the actions, and what a
 * syscall interrupted by one returns. Frames and the alternate stack are
 * kernel/signal_frame.c; stop, continue and SIGCHLD are signal_stop.c.
 *
 * Two kinds of pending set: the process's (task->proc->pending, for
 * signals sent to the process: kill, alarm, SIGCHLD) and each thread's
 * own (task->sigpending: tkill, tgkill, the signals its faults raise, the
 * SIGKILL of another thread's execve). Each thread has a blocked mask that
 * only it writes (rt_sigprocmask, handlers' sa_mask, rt_sigreturn,
 * sigsuspend). Sending (__send_signal, below) sets the bit and wakes the
 * interruptible sleepers (kernel/wait.h says which sleeps are) that do not
 * block it; a process's signal is taken by whichever such thread returns
 * to user mode first, and stays pending while every thread blocks it.
 * Each thread, before it returns to user mode, takes its unblocked pending
 * signals here, its own first, lowest number first (faults first of all):
 * it runs a handler, ignores the signal, stops, or takes the default
 * action (for most signals: the whole process ends). Each handler's frame
 * is built on top of the last, as Linux does, so with several pending the
 * one taken last runs first.
 *
 * A system call that a signal interrupted returns one of the restart codes
 * below, never seen by the program: once we know whether a handler runs,
 * the call either returns EINTR or is made again from the start (rip moved
 * back over the two-byte syscall instruction, rax its number again):
 *   -ERESTARTSYS    again unless a handler without SA_RESTART runs
 *                   (pipe and tty read/write, wait4, futex without timeout)
 *   -ERESTARTNOHAND again only if no handler runs (poll, ppoll, select,
 *                   pselect6, pause, futex with a timeout, rt_sigsuspend)
 *   -ERESTART_RESTARTBLOCK  again only if no handler runs, through
 *                   restart_syscall, which sleeps only the time that was
 *                   left (nanosleep, clock_nanosleep; kernel/sys.c)
 * rt_sigtimedwait returns -EINTR itself: never made again, as on Linux.
 * As on Linux, with no handler to run (the signal was taken by another
 * thread, is ignored, or stopped the process until SIGCONT) every call is
 * made again. user/tests/t_sigwake checks each of these against Linux.
 *
 * alarm(): a process with an alarm is on a list; one kernel thread sleeps
 * until the earliest deadline and sends SIGALRM. Lock order: alarm_lock ->
 * proc_lock (the thread sends the signal under its lock) -> a wait queue's
 * lock (SIGCONT and SIGCHLD wake sleepers under it) -> rq.
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
#include "kernel/x86.h"
#include "kernel/gdt.h"
#include "kernel/cmdline.h"
#include "kernel/wait.h"
#include "kernel/time.h"
#include "mm/vm.h"
#include "mm/slab.h"

#define SA_NODEFER 0x40000000
#define SA_RESTART 0x10000000
#define SA_RESETHAND 0x80000000
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SIGSYS 31
/* Raised by the thread's own instruction: taken before any other. */
#define SYNC_SIGNALS (sigmask_of(SIGSEGV) | sigmask_of(SIGBUS) | sigmask_of(SIGILL) | \
		      sigmask_of(SIGTRAP) | sigmask_of(SIGFPE) | sigmask_of(SIGSYS))
#define STOP_SIGNALS (sigmask_of(SIGSTOP) | sigmask_of(SIGTSTP) | sigmask_of(SIGTTIN) | \
		      sigmask_of(SIGTTOU))

/* signal.debug_ignore_mask: take signals whether blocked or not, as this
 * kernel did before it had masks. A test of t_sigmask. */
static bool ignore_mask(void)
{
	static int on = -1;		/* [A] -1: not read from the command line yet */
	int v = READ_ONCE(on);
	if (v < 0)
		WRITE_ONCE(on, v = cmdline_get("signal.debug_ignore_mask") != NULL);
	return v;
}
CMDLINE_KEY(ignore_mask_key, "signal.debug_ignore_mask",
	    "test of the tests: deliver signals even while the thread blocks them");

static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

static bool stop_signal(int sig)
{
	return STOP_SIGNALS & sigmask_of(sig);
}

/* Whether act makes sig do nothing: SIG_IGN, or a default that ignores. */
static bool action_ignores(const struct k_sigaction *act, int sig)
{
	if (sig == SIGKILL || sig == SIGSTOP)
		return false;
	return act->handler == SIG_IGN || (act->handler == SIG_DFL && default_ignored(sig));
}

/* ------------------------------------------------------------ taking */

/*
 * The last check before a return to user mode: a rip outside user space
 * (a signal handler, an ELF entry point or a sigreturn frame that points
 * there) would make iretq fault in ring 0 on real hardware (QEMU's TCG is
 * more forgiving). As Linux does, the process dies of SIGSEGV instead.
 */
static void check_user_rip(struct trap_frame *tf)
{
	if (tf->rip < USER_TOP)
		return;
	pr_info_ratelimited("pid %d (%s): SIGSEGV: return to non-user rip %#llx",
			    current_task()->tid, current_task()->name,
			    (unsigned long long)tf->rip);
	do_exit_group(SIGSEGV);
}

/* What a system call interrupted by a signal returns (the table atop this
 * file); act is the handler about to run, NULL if none. */
static void restart_fixup(struct trap_frame *tf, long nr, const struct k_sigaction *act)
{
	long ret = (long)tf->rax;
	if (nr < 0 || (ret != -ERESTARTSYS && ret != -ERESTARTNOHAND &&
		       ret != -ERESTART_RESTARTBLOCK))
		return;
	if (act && (ret != -ERESTARTSYS || !(act->flags & SA_RESTART))) {
		tf->rax = (u64)-EINTR;
		return;
	}
	/* The call again, with the same arguments; or, for a sleep, restart_syscall,
	 * which sleeps only the time that was left (kernel/sys.c). */
	tf->rax = ret == -ERESTART_RESTARTBLOCK ? (u64)__NR_restart_syscall : (u64)nr;
	tf->rip -= 2;		/* back over the syscall instruction (0f 05) */
}

static int lowest_signal(u64 set)
{
	u64 sync = set & SYNC_SIGNALS;
	return __builtin_ctzll(sync ? sync : set) + 1;
}

/* The sets are looked at without a lock first (most returns to user mode
 * find nothing); the bit is cleared and its details copied under
 * proc_lock, which every sender holds while it sets both. Bits set
 * without it (exit's SIGKILL) carry whatever details were there. */
int signal_dequeue(struct task *me, struct process *p, u64 allowed, struct ksiginfo *info)
{
	if (!((__atomic_load_n(&me->sigpending, __ATOMIC_ACQUIRE) |
	       __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE)) & allowed))
		return 0;
	spin_lock(&proc_lock);
	u64 *set = &me->sigpending;
	struct ksiginfo *slots = me->siginfo;
	u64 bits = __atomic_load_n(set, __ATOMIC_ACQUIRE) & allowed;
	if (!bits) {
		set = &p->pending;
		slots = p->siginfo;
		bits = __atomic_load_n(set, __ATOMIC_ACQUIRE) & allowed;
	}
	int sig = bits ? lowest_signal(bits) : 0;
	if (sig) {
		__atomic_and_fetch(set, ~sigmask_of(sig), __ATOMIC_ACQ_REL);
		if (info)
			*info = slots[sig - 1];
	}
	spin_unlock(&proc_lock);
	return sig;
}

/*
 * The next signal to act on, 0 if none. SIGKILL never waits (it ends the
 * thread or the process here); a group stop in force puts the thread to
 * sleep here, holding no lock (signal_stop.c), until SIGCONT or SIGKILL.
 */
static int next_signal(struct task *me, struct process *p, struct ksiginfo *info)
{
	for (;;) {
		u64 pending = __atomic_load_n(&me->sigpending, __ATOMIC_ACQUIRE) |
			      __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE);
		if (pending & sigmask_of(SIGKILL)) {
			exit_if_group_ends(0);	/* exit_group, or another thread's execve */
			do_exit_group(SIGKILL);
		}
		if (group_stop_applies(p)) {
			group_stop_wait(p);
			continue;
		}
		u64 allowed = ignore_mask() ? ~0ULL : ~__atomic_load_n(&me->blocked, __ATOMIC_RELAXED);
		return signal_dequeue(me, p, allowed | SIG_UNBLOCKABLE, info);
	}
}

enum sig_action { ACT_IGNORE, ACT_HANDLER, ACT_STOP, ACT_EXIT };

/* What sig does now; a handler is copied to *act (SA_RESETHAND: for the
 * last time). */
static enum sig_action action_for(struct process *p, int sig, struct k_sigaction *act)
{
	spin_lock(&proc_lock);		/* a whole action: another thread's sigaction may be writing it */
	*act = p->sigaction[sig];
	if (act->handler > SIG_IGN && (act->flags & SA_RESETHAND))
		p->sigaction[sig].handler = SIG_DFL;	/* this delivery is the last */
	spin_unlock(&proc_lock);
	if (sig == SIGKILL)
		return ACT_EXIT;
	if (action_ignores(act, sig))
		return ACT_IGNORE;
	if (sig != SIGSTOP && act->handler > SIG_IGN)
		return ACT_HANDLER;
	return stop_signal(sig) ? ACT_STOP : ACT_EXIT;
}

/* Build the handler's frame; it runs with sa_mask and sig blocked too
 * (not sig with SA_NODEFER), and rt_sigreturn puts back the mask from
 * before, or the one sigsuspend replaced. */
static void run_handler(struct trap_frame *tf, int sig, const struct ksiginfo *info,
			const struct k_sigaction *act)
{
	struct task *me = current_task();
	u64 blocked = me->blocked;
	if (!signal_frame_push(tf, sig, info, act, me->restore_mask ? me->saved_mask : blocked))
		do_exit_group(SIGSEGV);	/* no room or no restorer: as Linux, SIGSEGV */
	me->restore_mask = false;
	blocked |= act->mask;
	if (!(act->flags & SA_NODEFER))
		blocked |= sigmask_of(sig);
	signal_set_blocked(blocked);
}

/*
 * On the way back to user mode: each unblocked pending signal runs its
 * handler, is ignored, stops the process, or (the default for most) ends
 * it with the signal in the wait status. nr: the system call we return
 * from, -1 for a trap.
 */
static void take_signals(struct trap_frame *tf, long nr)
{
	struct process *p = current_proc();
	if (!p)
		return;
	struct task *me = current_task();
	struct k_sigaction act;
	struct ksiginfo info;
	int sig;
	while ((sig = next_signal(me, p, &info)) != 0) {
		switch (action_for(p, sig, &act)) {
		case ACT_IGNORE:
			break;
		case ACT_EXIT:
			do_exit_group(sig);
		case ACT_STOP:
			group_stop_begin(p, sig);	/* next_signal stops us */
			break;
		case ACT_HANDLER:
			restart_fixup(tf, nr, &act);	/* before the frame saves rax and rip */
			nr = -1;
			run_handler(tf, sig, &info, &act);
			break;
		}
	}
	restart_fixup(tf, nr, NULL);
	signal_mask_restore();		/* a temporary mask, and no handler ran */
	check_user_rip(tf);
}

void handle_signals(struct trap_frame *tf)
{
	take_signals(tf, -1);
}

void handle_signals_syscall(struct trap_frame *tf, u64 nr)
{
	take_signals(tf, (long)nr);
}

/* The signal a user-mode exception (other than a page fault) raises, as on
 * Linux: every vector not named here is a protection fault, SIGSEGV. */
static const struct { u64 vector; int sig; } vector_signals[] = {
	{ T_DE, SIGFPE },	/* divide error */
	{ T_BP, SIGTRAP },	/* int3 */
	{ T_UD, SIGILL },	/* invalid opcode */
	{ T_MF, SIGFPE },	/* x87 error */
	{ T_XM, SIGFPE },	/* SIMD error */
};

static int signal_of_vector(u64 vector)
{
	for (size_t i = 0; i < ARRAY_SIZE(vector_signals); i++)
		if (vector_signals[i].vector == vector)
			return vector_signals[i].sig;
	return SIGSEGV;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGBUS: return "SIGBUS";
	}
	return "signal";
}

/* debug.late_cr2: read CR2 only after interrupts are on, as this kernel
 * once did by accident, with a wait of 200 us between: a tick there may
 * switch tasks, and another task's fault then decides where this one
 * faulted. A test of t_fault_addr. */
static bool late_cr2(void)
{
	static int on = -1;		/* [A] -1: not read from the command line yet */
	int v = READ_ONCE(on);
	if (v < 0)
		WRITE_ONCE(on, v = cmdline_get("debug.late_cr2") != NULL);
	return v;
}
CMDLINE_KEY(late_cr2_key, "debug.late_cr2",
	    "test of the tests: read a user page fault's CR2 late, 200 us after enabling interrupts");

/* Linux's siginfo codes for faults. */
#define SEGV_MAPERR 1		/* no mapping there */
#define SEGV_ACCERR 2		/* a mapping that forbids the access */
#define BUS_ADRERR 2
#define FPE_INTDIV 1
#define ILL_ILLOPN 2

/* SEGV_MAPERR or SEGV_ACCERR for a page fault at addr that failed. */
static int segv_code(struct mm_struct *mm, u64 addr)
{
	if (!mm)
		return SEGV_MAPERR;
	down_read(&mm->mmap_lock);
	struct vm_area *v = find_vma(mm, addr);
	bool mapped = v && v->start <= addr;
	up_read(&mm->mmap_lock);
	return mapped ? SEGV_ACCERR : SEGV_MAPERR;
}

/* What a fault's signal tells its handler, as Linux: the address and the
 * kind of fault. */
static struct ksiginfo fault_info(struct trap_frame *tf, int sig, u64 addr)
{
	struct ksiginfo info = { .code = SI_KERNEL };
	if (tf->vector == T_PF) {
		info.addr = addr;
		info.code = sig == SIGBUS ? BUS_ADRERR : segv_code(current_task()->mm, addr);
	} else if (tf->vector == T_DE) {
		info.code = FPE_INTDIV;
		info.addr = tf->rip;
	} else if (tf->vector == T_UD) {
		info.code = ILL_ILLOPN;
		info.addr = tf->rip;
	}
	return info;
}

void user_exception(struct trap_frame *tf, u64 cr2)
{
	struct task *me = current_task();
	u64 addr = cr2;
	int sig;
	if (tf->rflags & RFLAGS_IF)
		sti();
	if (tf->vector == T_PF) {
		if (late_cr2()) {	/* deliberately broken */
			udelay(200);
			addr = read_cr2();
		}
		int err = me->mm ? handle_mm_fault(me->mm, addr, tf->error) : -EFAULT;
		if (err == -ENOMEM)
			err = oom_fault(me->mm, addr, tf->error);
		if (!err)
			return;
		/* SIGSEGV for an access the mappings forbid; any other failure
		 * (past the end of the file, I/O error, disk full, no memory)
		 * is SIGBUS, as on Linux. */
		sig = err == -EFAULT ? SIGSEGV : SIGBUS;
		pr_info_ratelimited("pid %d (%s): %s: %s at %#llx, rip %#llx", me->tid, me->name, signame(sig),
			tf->error & PF_WRITE ? "write" : tf->error & PF_INSTR ? "fetch" : "read",
			(unsigned long long)addr, (unsigned long long)tf->rip);
	} else {
		sig = signal_of_vector(tf->vector);
		pr_info_ratelimited("pid %d (%s): %s: %s at rip %#llx", me->tid, me->name, signame(sig),
			trap_name(tf->vector), (unsigned long long)tf->rip);
	}
	if (READ_ONCE(me->proc->sigaction[sig].handler) > SIG_IGN &&
	    !(me->blocked & sigmask_of(sig))) {	/* the program catches it */
		/* Thread-directed: the faulting thread runs the handler. Sent to
		 * the process, any thread could take it while the faulting one
		 * faults again - and with SA_NODEFER a storm of other threads'
		 * faults nests handler frames on one thread until its stack
		 * overflows. */
		struct ksiginfo info = fault_info(tf, sig, addr);
		spin_lock(&proc_lock);
		me->siginfo[sig - 1] = info;
		__atomic_or_fetch(&me->sigpending, sigmask_of(sig), __ATOMIC_RELEASE);
		spin_unlock(&proc_lock);
		return;
	}
	do_exit_group(sig);
}

/* ------------------------------------------------------------ alarm */

static spinlock_t alarm_lock = SPINLOCK_INIT("alarm");
static LIST_HEAD(alarms);		/* [L:alarm_lock] process.alarm_link */
static unsigned alarm_gen;		/* [L:alarm_lock] bumped by each new alarm */
static struct wait_queue_head alarm_wq;
static bool itimer_one_shot;		/* [I] test of a test: intervals never re-arm */

CMDLINE_KEY(itimer_one_shot, "signal.debug_itimer_one_shot",
	    "tests of tests: a periodic setitimer fires once, as if the interval were lost");

static void __alarm_unlink(struct process *p)
{
	if (p->alarm_link.next) {
		list_del(&p->alarm_link);
		p->alarm_link.next = NULL;
	}
	p->alarm_ns = 0;
	p->alarm_interval_ns = 0;
}

/* The time left of an alarm due at deadline; armed but due is 1, never 0. */
static u64 alarm_left(u64 deadline, u64 now)
{
	if (!deadline)
		return 0;
	return deadline > now ? deadline - now : 1;
}

u64 alarm_set(u64 ns)
{
	u64 unused;
	return itimer_set(ns, 0, &unused);	/* alarm() clears an interval too, as Linux */
}

u64 itimer_set(u64 ns, u64 interval, u64 *old_interval)
{
	struct process *p = current_proc();
	u64 now = ktime_ns();
	spin_lock(&alarm_lock);
	u64 old = p->alarm_ns;
	*old_interval = p->alarm_interval_ns;
	__alarm_unlink(p);
	if (ns) {
		p->alarm_ns = now + ns;
		p->alarm_interval_ns = interval;
		list_add_tail(&p->alarm_link, &alarms);
	}
	alarm_gen++;
	spin_unlock(&alarm_lock);
	wake_up(&alarm_wq);
	return alarm_left(old, now);
}

u64 itimer_get(u64 *interval)
{
	struct process *p = current_proc();
	spin_lock(&alarm_lock);
	u64 left = alarm_left(p->alarm_ns, ktime_ns());
	*interval = p->alarm_interval_ns;
	spin_unlock(&alarm_lock);
	return left;
}

void alarm_cancel(struct process *p)
{
	spin_lock(&alarm_lock);
	__alarm_unlink(p);
	spin_unlock(&alarm_lock);
}

/* Send the alarms that are due; returns the next deadline (0: none). */
static u64 alarms_fire(unsigned *gen)
{
	u64 now = ktime_ns(), next = 0;
	spin_lock(&alarm_lock);
	for (struct list_head *l = alarms.next; l != &alarms;) {
		struct process *p = list_entry(l, struct process, alarm_link);
		l = l->next;
		if (p->alarm_ns <= now) {
			send_signal(p, SIGALRM);	/* p is alive: exit unlinks it first */
			if (!p->alarm_interval_ns || itimer_one_shot) {
				__alarm_unlink(p);
				continue;
			}
			/* Periodic: the next period after now; missed ones are one
			 * signal, as a pending signal is never counted twice. */
			u64 late = now - p->alarm_ns;
			p->alarm_ns += (late / p->alarm_interval_ns + 1) * p->alarm_interval_ns;
		}
		if (!next || p->alarm_ns < next) {
			next = p->alarm_ns;
		}
	}
	*gen = alarm_gen;
	spin_unlock(&alarm_lock);
	return next;
}

static int alarm_main(void *unused)
{
	for (;;) {
		unsigned gen;
		u64 next = alarms_fire(&gen);
		if (!next) {
			wait_event(alarm_wq, READ_ONCE(alarm_gen) != gen);
			continue;
		}
		u64 now = ktime_ns();
		if (next > now)
			wait_event_timeout(alarm_wq, READ_ONCE(alarm_gen) != gen,
					   (next - now + 999999) / 1000000);
	}
	return 0;
}

void alarm_init(void)
{
	itimer_one_shot = cmdline_get("signal.debug_itimer_one_shot") != NULL;
	init_waitqueue_head(&alarm_wq);
	kthread_run(alarm_main, NULL, "alarm");
}
/* ------------------------------------------------------------ sending */

/* Wake t if it sleeps interruptibly and sig (0: any) would end its sleep.
 * proc_lock held. */
static void __wake_thread(struct task *t, int sig)
{
	/* Seq-cst loads: the sender's half of wait.h's pairing. */
	if (!__atomic_load_n(&t->interruptible, __ATOMIC_SEQ_CST))
		return;
	if (sig && (__atomic_load_n(&t->blocked, __ATOMIC_SEQ_CST) & sigmask_of(sig)))
		return;		/* a blocked signal ends no sleep */
	wake_up_process(t);
}

void __signal_wake_threads(struct process *p, int sig)
{
	if (signal_debug_no_wake())
		return;		/* the old behaviour, for the test of the test */
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next)
		__wake_thread(list_entry(l, struct task, thread_link), sig);
}

/* Wake p's threads in interruptible sleeps: each sees signal_pending(). */
void signal_wake_threads(struct process *p)
{
	spin_lock(&proc_lock);
	__signal_wake_threads(p, 0);
	spin_unlock(&proc_lock);
}

/* Drop set from every pending set of p: the process's and its threads'.
 * proc_lock held (the list of threads). */
static void __flush_signals(struct process *p, u64 set)
{
	__atomic_and_fetch(&p->pending, ~set, __ATOMIC_RELAXED);
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
		struct task *t = list_entry(l, struct task, thread_link);
		__atomic_and_fetch(&t->sigpending, ~set, __ATOMIC_RELAXED);
	}
}

/* The signals t keeps though ignored: those it blocks (it may catch them
 * by the time it unblocks them) and those it waits for. */
static u64 holds(struct task *t)
{
	return __atomic_load_n(&t->blocked, __ATOMIC_RELAXED) |
	       __atomic_load_n(&t->sigwait_set, __ATOMIC_SEQ_CST);
}

/* An ignored signal is dropped when sent, unless its target keeps it
 * (holds, above). t NULL: any thread of p. */
static bool __dropped(struct process *p, struct task *t, int sig)
{
	if (!action_ignores(&p->sigaction[sig], sig))
		return false;
	u64 m = sigmask_of(sig);
	if (t)
		return !(holds(t) & m);
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next)
		if (holds(list_entry(l, struct task, thread_link)) & m)
			return false;
	return true;
}

/* Wake t for sig, which p's action ignores: only if t waits for it in
 * rt_sigtimedwait. Any other wake-up would end a sleep for nothing (8
 * threads forking, each child's SIGCHLD, while one thread sat in fork
 * with every signal blocked, kept waking a sleeper). proc_lock held. */
static void __wake_ignored(struct task *t, int sig)
{
	if (__atomic_load_n(&t->sigwait_set, __ATOMIC_SEQ_CST) & sigmask_of(sig))
		__wake_thread(t, sig);
}

/* The one path every signal takes: to thread t of p, or (t NULL) to p;
 * info: what the receiver is told, unless the signal is already pending
 * (the first sender's details stay, as Linux's for standard signals). */
static int __send(struct process *p, struct task *t, int sig, const struct ksiginfo *info)
{
	if (sig < 0 || sig >= NSIG)
		return -EINVAL;
	if (!sig || p->zombie)
		return 0;
	/* The last of stop and continue sent wins, whatever the actions. */
	if (stop_signal(sig))
		__flush_signals(p, sigmask_of(SIGCONT));
	if (sig == SIGCONT) {
		__flush_signals(p, STOP_SIGNALS);
		__group_continue(p);
	}
	if (__dropped(p, t, sig))
		return 0;
	/* Seq-cst (a lock or): a full barrier before reading
	 * task->interruptible (wait.h, the rule for sleeps). An ignored
	 * signal kept because a thread holds it wakes only its waiter. */
	bool wake = !action_ignores(&p->sigaction[sig], sig);
	u64 *set = t ? &t->sigpending : &p->pending;
	if (!(__atomic_load_n(set, __ATOMIC_RELAXED) & sigmask_of(sig)))
		(t ? t->siginfo : p->siginfo)[sig - 1] = *info;
	if (t) {
		__atomic_or_fetch(&t->sigpending, sigmask_of(sig), __ATOMIC_SEQ_CST);
		if (!signal_debug_no_wake())
			(wake ? __wake_thread : __wake_ignored)(t, sig);
	} else {
		__atomic_or_fetch(&p->pending, sigmask_of(sig), __ATOMIC_SEQ_CST);
		if (wake) {
			__signal_wake_threads(p, sig);
		} else if (!signal_debug_no_wake()) {
			for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next)
				__wake_ignored(list_entry(l, struct task, thread_link), sig);
		}
	}
	return 0;
}

static const struct ksiginfo from_kernel = { .code = SI_KERNEL };

void siginfo_fill(struct user_siginfo *u, int sig, const struct ksiginfo *info)
{
	memset(u, 0, sizeof(*u));
	u->signo = sig;
	u->code = info->code;
	bool fault = info->code > 0 && info->code < SI_KERNEL &&
		     (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL);
	if (fault) {
		u->data[0] = info->addr;	/* si_addr */
		return;
	}
	u->data[0] = (u32)info->pid | (u64)info->uid << 32;	/* si_pid, si_uid */
	if (sig == SIGCHLD && info->code > 0 && info->code < SI_KERNEL)
		u->data[1] = (u32)info->status;			/* si_status */
}

struct ksiginfo user_sender(void)
{
	struct process *me = current_proc();
	return (struct ksiginfo){ .code = SI_USER, .pid = me ? me->pid : 0 };
}

int __send_signal_info(struct process *p, int sig, const struct ksiginfo *info)
{
	return __send(p, NULL, sig, info);
}

int __send_signal_thread_info(struct task *t, int sig, const struct ksiginfo *info)
{
	return __send(t->proc, t, sig, info);
}

int send_signal_info(struct process *p, int sig, const struct ksiginfo *info)
{
	spin_lock(&proc_lock);
	int err = __send(p, NULL, sig, info);
	spin_unlock(&proc_lock);
	return err;
}

int __send_signal(struct process *p, int sig) { return __send_signal_info(p, sig, &from_kernel); }
int __send_signal_thread(struct task *t, int sig) { return __send_signal_thread_info(t, sig, &from_kernel); }
int send_signal(struct process *p, int sig) { return send_signal_info(p, sig, &from_kernel); }

long do_kill(int pid, int sig)
{
	if (pid <= 0)
		return -EINVAL;		/* process groups: not supported */
	struct ksiginfo info = user_sender();
	spin_lock(&proc_lock);
	struct process *p = find_proc(pid);
	int err = p ? __send(p, NULL, sig, &info) : -ESRCH;
	spin_unlock(&proc_lock);
	return err;
}

/* The live thread tid (of process tgid, if tgid > 0), proc_lock held;
 * NULL if there is none. */
static struct task *__find_thread(int tgid, int tid)
{
	for (int i = 0; i < MAX_PROCS; i++) {
		struct process *p = procs[i];
		if (!p || p->zombie || (tgid > 0 && p->pid != tgid))
			continue;
		for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
			struct task *t = list_entry(l, struct task, thread_link);
			if (t->tid == tid)
				return t;
		}
	}
	return NULL;
}

/* tkill and tgkill: a signal for one thread. */
static long kill_thread(int tgid, int tid, int sig)
{
	struct ksiginfo info = { .code = SI_TKILL, .pid = current_proc()->pid };
	spin_lock(&proc_lock);
	struct task *t = __find_thread(tgid, tid);
	int err = t ? __send(t->proc, t, sig, &info) : -ESRCH;
	spin_unlock(&proc_lock);
	return err;
}

/* ------------------------------------------------------------ the system calls */

SYSCALL_DEFINE2(tkill, int, tid, int, sig)
{
	return tid <= 0 ? -EINVAL : kill_thread(0, tid, sig);
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, tid, int, sig)
{
	return tgid <= 0 || tid <= 0 ? -EINVAL : kill_thread(tgid, tid, sig);
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, uaddr_t, uact, uaddr_t, uoldact, u64, sigsetsize)
{
	if (sig < 1 || sig >= NSIG || sigsetsize != 8)
		return -EINVAL;
	struct process *p = current_proc();
	struct k_sigaction act, old;
	if (uact) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copy_from_user(&act, (void *)uact, sizeof(act)))
			return -EFAULT;
		act.mask &= ~SIG_UNBLOCKABLE;
	}
	spin_lock(&proc_lock);		/* the old and the new action, each whole */
	old = p->sigaction[sig];
	if (uact) {
		p->sigaction[sig] = act;
		if (action_ignores(&act, sig))	/* as Linux: pending ones go too */
			__flush_signals(p, sigmask_of(sig));
	}
	spin_unlock(&proc_lock);
	if (uoldact && copy_to_user((void *)uoldact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE0(rt_sigreturn) { return do_rt_sigreturn(); }

SYSCALL_DEFINE4(rt_sigprocmask, int, how, uaddr_t, uset, uaddr_t, uoldset, u64, sigsetsize)
{
	if (sigsetsize != 8)
		return -EINVAL;
	u64 old = current_task()->blocked, set;
	if (uset) {	/* as Linux: how is looked at only when there is a set */
		if (copy_from_user(&set, (void *)uset, 8))
			return -EFAULT;
		if (how == SIG_BLOCK)
			set |= old;
		else if (how == SIG_UNBLOCK)
			set = old & ~set;
		else if (how != SIG_SETMASK)
			return -EINVAL;
		signal_set_blocked(set);	/* unblocked pending ones: taken on the way out */
	}
	if (uoldset && copy_to_user((void *)uoldset, &old, 8))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	u64 left = alarm_set((u64)seconds * 1000000000ULL);
	/* As Linux: rounded to the nearest second, and never 0 while armed. */
	return left ? MAX((long)((left + 500000000ULL) / 1000000000ULL), 1L) : 0;
}

/* setitimer and getitimer: ITIMER_REAL, with a repeating interval.
 * struct itimerval: interval, then value. */
struct itimerval { s64 isec, iusec, sec, usec; };

/* Nanoseconds as (seconds, microseconds rounded up): a timer never reads 0 while armed. */
static void tv_of_ns(u64 ns, s64 *sec, s64 *usec)
{
	u64 us = (ns + 999) / 1000;
	*sec = (s64)(us / 1000000);
	*usec = (s64)(us % 1000000);
}

static void itimer_of_ns(u64 ns, u64 interval, struct itimerval *v)
{
	tv_of_ns(interval, &v->isec, &v->iusec);
	tv_of_ns(ns, &v->sec, &v->usec);
}

SYSCALL_DEFINE3(setitimer, u64, which, uaddr_t, unew, uaddr_t, uold)
{
	struct itimerval v, old;
	if (which != 0)
		return -EINVAL;		/* ITIMER_VIRTUAL, ITIMER_PROF: not supported */
	if (copy_from_user(&v, (void *)unew, sizeof(v)))
		return -EFAULT;
	if (v.usec < 0 || v.usec >= 1000000 || v.sec < 0 || v.iusec < 0 || v.iusec >= 1000000 ||
	    v.isec < 0)
		return -EINVAL;
	u64 ns = (u64)v.sec * 1000000000ULL + (u64)v.usec * 1000ULL;
	u64 interval = (u64)v.isec * 1000000000ULL + (u64)v.iusec * 1000ULL, old_interval;
	u64 left = itimer_set(ns, interval, &old_interval);
	itimer_of_ns(left, old_interval, &old);
	return uold ? copy_to_user((void *)uold, &old, sizeof(old)) : 0;
}

SYSCALL_DEFINE2(getitimer, u64, which, uaddr_t, ucurr)
{
	struct itimerval v;
	if (which != 0)
		return -EINVAL;
	u64 interval, left = itimer_get(&interval);
	itimer_of_ns(left, interval, &v);
	return copy_to_user((void *)ucurr, &v, sizeof(v));
}

/* pause: sleep until a signal comes (wait.h: interruptible). */
SYSCALL_DEFINE0(pause)
{
	struct wait_queue_head nobody;
	init_waitqueue_head(&nobody);
	wait_event_interruptible(nobody, false);
	return -ERESTARTNOHAND;
}
