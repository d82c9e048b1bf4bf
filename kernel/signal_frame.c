/*
 * signal_frame.c - a handler's frame on the user stack, the way back out
 * of it (rt_sigreturn), and each thread's alternate signal stack
 * (sigaltstack, SA_ONSTACK). Which signal to deliver, and when, is
 * kernel/signal.c's business; this file only builds and unbuilds frames.
 *
 * The frame is Linux's (struct rt_sigframe): below the user stack (past
 * the 128-byte red zone), or at the top of the alternate stack when the
 * action has SA_ONSTACK and the thread is not on it already, go the FPU
 * state and a frame holding the return address (the sa_restorer musl
 * gives, which calls rt_sigreturn), a ucontext with every register, the
 * alternate stack's settings and the signal mask to restore, and a
 * siginfo. The handler starts with rdi = the signal, rsi = &siginfo, rdx =
 * &ucontext; rt_sigreturn puts the saved registers and mask back.
 *
 * Every field here is the running thread's own ([P] in kernel/task.h):
 * no locks.
 */
#include "kernel/process.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/trap.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "kernel/x86.h"
#include "mm/vm.h"

#define SA_RESTORER 0x04000000
#define SA_ONSTACK 0x08000000
#define SS_ONSTACK 1
#define SS_DISABLE 2
#define SS_AUTODISARM (1U << 31)
#define MINSIGSTKSZ 2048

struct sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp,
	    rip, eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2, fpstate, reserved[8];
};

/* stack_t */
struct user_stack {
	u64 sp;
	u32 flags, pad;
	u64 size;
};

struct rt_sigframe {
	u64 pretcode;
	u64 uc_flags, uc_link;
	struct user_stack uc_stack;
	struct sigcontext mc;
	u64 sigmask;
	struct user_siginfo info;
};
_Static_assert(sizeof(struct sigcontext) == 256, "Linux's struct sigcontext");
_Static_assert(sizeof(struct user_stack) == 24, "Linux's stack_t");

/* ------------------------------------------------------------ the alternate stack */

/* Whether sp is on t's alternate stack (which grows down from sp + size).
 * With SS_AUTODISARM a handler on it may take another signal there. */
static bool on_sig_stack(const struct task *t, u64 sp)
{
	if (t->sas_flags & SS_AUTODISARM)
		return false;
	return sp > t->sas_sp && sp - t->sas_sp <= t->sas_size;
}

/* The ss_flags sigaltstack reports for a thread whose stack pointer is sp. */
static u32 altstack_flags(const struct task *t, u64 sp)
{
	if (!t->sas_size)
		return SS_DISABLE;
	return (on_sig_stack(t, sp) ? SS_ONSTACK : 0) | t->sas_flags;
}

static void altstack_reset(struct task *t)
{
	t->sas_sp = t->sas_size = 0;
	t->sas_flags = 0;
}

/* Linux's checks, in its order: not while on it, known flags, big enough. */
static int altstack_set(struct task *me, const struct user_stack *ss, u64 sp)
{
	if (on_sig_stack(me, sp))
		return -EPERM;
	u32 mode = ss->flags & ~SS_AUTODISARM;
	if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
		return -EINVAL;
	if (mode == SS_DISABLE) {
		altstack_reset(me);
		return 0;
	}
	if (ss->size < MINSIGSTKSZ)
		return -ENOMEM;
	me->sas_sp = ss->sp;
	me->sas_size = ss->size;
	me->sas_flags = ss->flags & SS_AUTODISARM;
	return 0;
}

void signal_fork(struct task *child, const struct task *parent, bool thread)
{
	child->blocked = parent->blocked;
	if (thread) {		/* a new thread starts on its own stack, as Linux's */
		altstack_reset(child);
		return;
	}
	child->sas_sp = parent->sas_sp;
	child->sas_size = parent->sas_size;
	child->sas_flags = parent->sas_flags;
}

void signal_exec(struct task *me)
{
	altstack_reset(me);
}

SYSCALL_DEFINE2(sigaltstack, uaddr_t, uss, uaddr_t, uold)
{
	struct task *me = current_task();
	u64 sp = user_regs(me)->rsp;
	struct user_stack old = { me->sas_sp, altstack_flags(me, sp), 0, me->sas_size }, ss;
	if (uss) {
		if (copy_from_user(&ss, (void *)uss, sizeof(ss)))
			return -EFAULT;
		int err = altstack_set(me, &ss, sp);
		if (err)
			return err;
	}
	if (uold && copy_to_user((void *)uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/* ------------------------------------------------------------ frames */

/* Where the frame goes: below the red zone, or atop the alternate stack. */
static u64 frame_top(struct task *me, const struct trap_frame *tf, const struct k_sigaction *act)
{
	u64 sp = tf->rsp - 128;
	if ((act->flags & SA_ONSTACK) && me->sas_size && !on_sig_stack(me, sp))
		sp = me->sas_sp + me->sas_size;
	return sp;
}

bool signal_frame_push(struct trap_frame *tf, int sig, const struct ksiginfo *info,
		       const struct k_sigaction *act, u64 oldmask)
{
	struct task *me = current_task();
	if (!(act->flags & SA_RESTORER))
		return false;		/* no way back from the handler */
	u64 fp = (frame_top(me, tf, act) - 512) & ~63UL;
	__asm__ __volatile__("fxsave64 (%0)" :: "r"(me->fpu) : "memory");
	struct rt_sigframe f;
	memset(&f, 0, sizeof(f));
	u64 frame = ((fp - sizeof(f)) & ~15UL) - 8;	/* rsp+8 aligned at the entry */
	f.pretcode = act->restorer;
	f.uc_stack = (struct user_stack){ me->sas_sp, altstack_flags(me, tf->rsp), 0, me->sas_size };
	f.mc = (struct sigcontext){ tf->r8, tf->r9, tf->r10, tf->r11, tf->r12, tf->r13, tf->r14,
				    tf->r15, tf->rdi, tf->rsi, tf->rbp, tf->rbx, tf->rdx, tf->rax,
				    tf->rcx, tf->rsp, tf->rip, tf->rflags, (u16)tf->cs, 0, 0,
				    (u16)tf->ss, tf->error, tf->vector, oldmask, 0, fp, { 0 } };
	f.sigmask = oldmask;
	siginfo_fill(&f.info, sig, info);
	if (copy_to_user((void *)fp, me->fpu, 512) || copy_to_user((void *)frame, &f, sizeof(f)))
		return false;
	if (me->sas_flags & SS_AUTODISARM)
		altstack_reset(me);	/* rt_sigreturn sets it up again from uc_stack */
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
	/* The mask from before the handler (a handler may have edited it in
	 * uc_sigmask, as on Linux); newly unblocked signals are taken on the
	 * way out of this call. */
	signal_set_blocked(f.sigmask);
	if (f.uc_stack.flags & SS_AUTODISARM)
		altstack_set(me, &f.uc_stack, c->rsp);	/* as Linux: an error is ignored */
	return (long)c->rax;	/* the dispatcher puts it back in rax */
}
