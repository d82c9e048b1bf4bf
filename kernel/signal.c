/*
 * signal.c - delivering signals on the way back to user mode, Linux's
 * way, and what a syscall interrupted by one returns.
 *
 * Sending (send_signal, below) marks a signal pending on the
 * process, or on one thread for the faults it raises itself, and wakes the
 * threads that sleep interruptibly (kernel/wait.h says which sleeps are).
 * Each thread, before it returns to user mode, takes its pending signals
 * here: it runs a handler, ignores the signal, or takes the default
 * action (for most signals: the whole process ends).
 *
 * A system call that a signal interrupted returns one of the restart codes
 * below, never seen by the program: once we know whether a handler runs,
 * the call either returns EINTR or is made again from the start (rip moved
 * back over the two-byte syscall instruction, rax its number again):
 *   -ERESTARTSYS    again unless a handler without SA_RESTART runs
 *                   (pipe and tty read/write, wait4, futex without timeout)
 *   -ERESTARTNOHAND again only if no handler runs (poll, pause, nanosleep,
 *                   futex with a timeout)
 * As on Linux, with no handler to run (the signal was taken by another
 * thread, or is ignored) every call is made again; a relative nanosleep
 * made again sleeps its whole time again (Linux resumes where it was).
 *
 * alarm(): a process with an alarm is on a list; one kernel thread sleeps
 * until the earliest deadline and sends SIGALRM. Lock order: alarm_lock ->
 * proc_lock (the thread sends the signal under its lock).
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

/*
 * Signal delivery, Linux's way (struct rt_sigframe): below the user stack
 * (past the 128-byte red zone) go the FPU state and a frame holding the
 * return address (the sa_restorer musl gives, which calls rt_sigreturn),
 * a ucontext with every register, and a siginfo. The handler starts with
 * rdi = the signal, rsi = &siginfo, rdx = &ucontext; rt_sigreturn puts
 * the saved registers back.
 */
#define SA_RESTORER 0x04000000
#define SA_RESTART 0x10000000
#define SA_RESETHAND 0x80000000

struct sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
	    rip, eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2, fpstate, reserved[8];
};

struct rt_sigframe {
	u64 pretcode;
	u64 uc_flags, uc_link;
	u64 ss_sp;
	u32 ss_flags, ss_pad;
	u64 ss_size;
	struct sigcontext mc;
	u64 sigmask;
	struct { s32 signo, err, code, pad; u64 data[14]; } info;
};
_Static_assert(sizeof(struct sigcontext) == 256, "Linux's struct sigcontext");

static bool deliver(struct trap_frame *tf, int sig, struct k_sigaction *act)
{
	struct task *me = current_task();
	if (!(act->flags & SA_RESTORER))
		return false;		/* no way back from the handler */
	u64 sp = tf->rsp - 128;				/* the red zone */
	u64 fp = (sp - 512) & ~63UL;
	__asm__ __volatile__("fxsave64 (%0)" :: "r"(me->fpu) : "memory");
	struct rt_sigframe f;
	memset(&f, 0, sizeof(f));
	u64 frame = ((fp - sizeof(f)) & ~15UL) - 8;	/* rsp+8 aligned at the entry */
	f.pretcode = act->restorer;
	f.mc = (struct sigcontext){ tf->r8, tf->r9, tf->r10, tf->r11, tf->r12, tf->r13, tf->r14,
				    tf->r15, tf->rdi, tf->rsi, tf->rbp, tf->rbx, tf->rdx, tf->rax,
				    tf->rcx, tf->rsp, tf->rip, tf->rflags, (u16)tf->cs, 0, 0,
				    (u16)tf->ss, tf->error, tf->vector, 0, 0, fp, { 0 } };
	f.info.signo = sig;
	if (copy_to_user((void *)fp, me->fpu, 512) || copy_to_user((void *)frame, &f, sizeof(f)))
		return false;
	tf->rip = act->handler;
	tf->rsp = frame;
	tf->rdi = (u64)sig;
	tf->rsi = frame + offsetof(struct rt_sigframe, info);
	tf->rdx = frame + offsetof(struct rt_sigframe, uc_flags);
	tf->rax = 0;
	tf->rflags &= ~(0x100UL | 0x400UL);	/* TF and DF clear in the handler */
	return true;
}

long do_rt_sigreturn(void)
{
	struct task *me = current_task();
	struct trap_frame *tf = user_regs(me);
	struct rt_sigframe f;
	u64 frame = tf->rsp - 8;	/* the handler's ret popped pretcode */
	if (copy_from_user(&f, (void *)frame, sizeof(f)))
		do_exit_group(SIGSEGV);
	struct sigcontext *c = &f.mc;
	if (c->rip >= USER_TOP || c->rsp >= USER_TOP)
		do_exit_group(SIGSEGV);
	tf->r8 = c->r8, tf->r9 = c->r9, tf->r10 = c->r10, tf->r11 = c->r11;
	tf->r12 = c->r12, tf->r13 = c->r13, tf->r14 = c->r14, tf->r15 = c->r15;
	tf->rdi = c->rdi, tf->rsi = c->rsi, tf->rbp = c->rbp, tf->rbx = c->rbx;
	tf->rdx = c->rdx, tf->rcx = c->rcx, tf->rsp = c->rsp, tf->rip = c->rip;
	/* Only the flags a program may set: never IOPL or IF off. */
	tf->rflags = (tf->rflags & ~0xdd5UL) | (c->eflags & 0xdd5UL) | RFLAGS_IF;
	if (c->fpstate && copy_from_user(me->fpu, (void *)c->fpstate, 512) == 0) {
		((u32 *)me->fpu)[6] &= 0xffff;	/* MXCSR: no reserved bits, or fxrstor faults */
		__asm__ __volatile__("fxrstor64 (%0)" :: "r"(me->fpu) : "memory");
	}
	return (long)c->rax;	/* the dispatcher puts it back in rax */
}

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
	if (nr < 0 || (ret != -ERESTARTSYS && ret != -ERESTARTNOHAND))
		return;
	if (act && (ret == -ERESTARTNOHAND || !(act->flags & SA_RESTART))) {
		tf->rax = (u64)-EINTR;
		return;
	}
	tf->rax = (u64)nr;	/* the call again, with the same arguments */
	tf->rip -= 2;		/* back over the syscall instruction (0f 05) */
}

/*
 * On the way back to user mode: each pending signal runs its handler, is
 * ignored, or (the default for most) ends the process with the signal in
 * the wait status. nr: the system call we return from, -1 for a trap.
 */
static void take_signals(struct trap_frame *tf, long nr)
{
	struct process *p = current_proc();
	if (!p)
		return;
	struct task *me = current_task();
	u64 mine = __atomic_exchange_n(&me->sigpending, 0, __ATOMIC_ACQ_REL);
	u64 theirs = __atomic_exchange_n(&p->pending, 0, __ATOMIC_ACQ_REL);
	u64 pending = mine | theirs;
	struct k_sigaction *act = NULL, taken;
	int sig;
	if (pending)
		exit_if_group_ends(theirs);	/* exit_group, or another thread's execve */
	for (sig = 1; sig < NSIG; sig++) {
		if (!(pending & (1ULL << sig)))
			continue;
		spin_lock(&proc_lock);		/* a whole action: another thread's sigaction may be writing it */
		taken = p->sigaction[sig];
		if (taken.handler > SIG_IGN && (taken.flags & SA_RESETHAND))
			p->sigaction[sig].handler = SIG_DFL;	/* this delivery is the last */
		spin_unlock(&proc_lock);
		if (sig == SIGKILL || taken.handler == SIG_DFL)
			do_exit_group(sig);
		if (taken.handler == SIG_IGN)
			continue;
		act = &taken;
		break;
	}
	restart_fixup(tf, nr, act);	/* before the frame saves rax and rip */
	if (act) {
		if (!deliver(tf, sig, act))
			do_exit_group(SIGSEGV);	/* no room or no restorer: as Linux, SIGSEGV */
		/* One handler per return; the rest stay pending for the next,
		 * each where it came from (this thread, or the process). */
		u64 rest = pending & ~((2ULL << sig) - 1);
		if (rest & mine)
			__atomic_or_fetch(&me->sigpending, rest & mine, __ATOMIC_RELEASE);
		if (rest & ~mine)
			__atomic_or_fetch(&p->pending, rest & ~mine, __ATOMIC_RELEASE);
	}
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

void user_exception(struct trap_frame *tf, u64 cr2)
{
	struct task *me = current_task();
	int sig;
	if (tf->rflags & RFLAGS_IF)
		sti();
	if (tf->vector == T_PF) {
		u64 addr = cr2;
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
	if (READ_ONCE(me->proc->sigaction[sig].handler) > SIG_IGN) {	/* the program catches it */
		/* Thread-directed: the faulting thread runs the handler. Sent to
		 * the process, any thread could take it while the faulting one
		 * faults again - and with SA_NODEFER a storm of other threads'
		 * faults nests handler frames on one thread until its stack
		 * overflows. */
		__atomic_or_fetch(&me->sigpending, 1ULL << sig, __ATOMIC_RELEASE);
		return;
	}
	do_exit_group(sig);
}


/* ------------------------------------------------------------ alarm */

static spinlock_t alarm_lock = SPINLOCK_INIT("alarm");
static LIST_HEAD(alarms);		/* [L:alarm_lock] process.alarm_link */
static unsigned alarm_gen;		/* [L:alarm_lock] bumped by each new alarm */
static struct wait_queue_head alarm_wq;

static void __alarm_unlink(struct process *p)
{
	if (p->alarm_link.next) {
		list_del(&p->alarm_link);
		p->alarm_link.next = NULL;
	}
	p->alarm_ns = 0;
}

u64 alarm_set(u64 ns)
{
	struct process *p = current_proc();
	u64 now = ktime_ns();
	spin_lock(&alarm_lock);
	u64 old = p->alarm_ns;
	__alarm_unlink(p);
	if (ns) {
		p->alarm_ns = now + ns;
		list_add_tail(&p->alarm_link, &alarms);
	}
	alarm_gen++;
	spin_unlock(&alarm_lock);
	wake_up(&alarm_wq);
	if (!old)
		return 0;
	return old > now ? old - now : 1;	/* armed, due any moment: not 0 */
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
			__alarm_unlink(p);
			send_signal(p, SIGALRM);	/* p is alive: exit unlinks it first */
		} else if (!next || p->alarm_ns < next) {
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
	init_waitqueue_head(&alarm_wq);
	kthread_run(alarm_main, NULL, "alarm");
}

/* ------------------------------------------------------------ sending */

static bool default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

int send_signal(struct process *p, int sig)
{
	if (sig < 0 || sig >= NSIG)
		return -EINVAL;
	if (!sig)
		return 0;
	spin_lock(&proc_lock);
	u64 h = p->sigaction[sig].handler;
	bool zombie = p->zombie;
	spin_unlock(&proc_lock);
	if (zombie)
		return 0;
	if (sig != SIGKILL && (h == SIG_IGN || (h == SIG_DFL && default_ignored(sig))))
		return 0;
	/* Seq-cst: a full barrier before reading task->interruptible (wait.h). */
	__atomic_or_fetch(&p->pending, 1ULL << sig, __ATOMIC_SEQ_CST);
	signal_wake_threads(p);
	return 0;
}

/* Wake p's threads in interruptible sleeps: each sees signal_pending(). */
void signal_wake_threads(struct process *p)
{
	if (signal_debug_no_wake())
		return;		/* the old behaviour, for the test of the test */
	spin_lock(&proc_lock);
	for (struct list_head *l = p->threads.next; l != &p->threads; l = l->next) {
		struct task *t = list_entry(l, struct task, thread_link);
		if (__atomic_load_n(&t->interruptible, __ATOMIC_SEQ_CST))
			wake_up_process(t);
	}
	spin_unlock(&proc_lock);
}

long do_kill(int pid, int sig)
{
	if (pid <= 0)
		return -EINVAL;		/* process groups: not supported */
	spin_lock(&proc_lock);
	struct process *p = find_proc(pid);
	if (p)
		atomic_inc(&p->refcount);
	spin_unlock(&proc_lock);
	if (!p)
		return -ESRCH;
	int err = send_signal(p, sig);
	if (atomic_dec_and_test(&p->refcount))
		kfree(p);
	return err;
}

/* ------------------------------------------------------------ the system calls */

SYSCALL_DEFINE2(tkill, int, tid, int, sig)
{
	return tid == current_task()->tid || tid == current_proc()->pid
		       ? send_signal(current_proc(), sig) : do_kill(tid, sig);
}

SYSCALL_DEFINE3(tgkill, int, tgid, u64, tid, int, sig) { return do_kill(tgid, sig); }

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
	}
	spin_lock(&proc_lock);		/* the old and the new action, each whole */
	old = p->sigaction[sig];
	if (uact)
		p->sigaction[sig] = act;
	spin_unlock(&proc_lock);
	if (uoldact && copy_to_user((void *)uoldact, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE0(rt_sigreturn) { return do_rt_sigreturn(); }

SYSCALL_DEFINE4(rt_sigprocmask, u64, how, uaddr_t, uset, uaddr_t, uoldset, u64, sigsetsize)
{
	if (sigsetsize != 8 || how > 2)
		return -EINVAL;
	if (uoldset && clear_user((void *)uoldset, 8))	/* nothing is ever blocked */
		return -EFAULT;
	if (uset) {
		u64 set;
		if (copy_from_user(&set, (void *)uset, 8))
			return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	u64 left = alarm_set((u64)seconds * 1000000000ULL);
	/* As Linux: rounded to the nearest second, and never 0 while armed. */
	return left ? MAX((long)((left + 500000000ULL) / 1000000000ULL), 1L) : 0;
}

/* setitimer and getitimer: ITIMER_REAL, one shot (a repeating interval is
 * refused rather than ignored). struct itimerval: interval, then value. */
struct itimerval { s64 isec, iusec, sec, usec; };

static void itimer_of_ns(u64 ns, struct itimerval *v)
{
	*v = (struct itimerval){ 0, 0, (s64)(ns / 1000000000ULL), (s64)(ns % 1000000000ULL + 999) / 1000 };
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
	if (v.isec || v.iusec)
		return -EINVAL;		/* repeating timers: not supported */
	u64 ns = (u64)v.sec * 1000000000ULL + (u64)v.usec * 1000ULL;
	itimer_of_ns(alarm_set(ns), &old);
	return uold ? copy_to_user((void *)uold, &old, sizeof(old)) : 0;
}

SYSCALL_DEFINE2(getitimer, u64, which, uaddr_t, ucurr)
{
	struct itimerval v;
	if (which != 0)
		return -EINVAL;
	u64 left = alarm_set(0);	/* read it by taking it ... */
	if (left)
		alarm_set(left);	/* ... and putting it back */
	itimer_of_ns(left, &v);
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

SYSCALL_DEFINE2(sigaltstack, uaddr_t, uss, uaddr_t, uold)
{
	u8 ss[24];	/* stack_t: read as Linux does, then ignored (no alternate stacks) */
	if (uss && copy_from_user(ss, (void *)uss, sizeof(ss)))
		return -EFAULT;
	if (uold && clear_user((void *)uold, 24))
		return -EFAULT;
	return 0;
}

