/*
 * t_sigmask.c - blocked signals, Linux's way: a blocked signal waits
 * pending until it is unblocked and is then taken before the unblocking
 * call returns; handlers run with sa_mask and their own signal blocked
 * (not with SA_NODEFER) and rt_sigreturn restores the mask from the frame;
 * kill() goes to a thread that does not block the signal, tgkill to the
 * thread named; rt_sigsuspend, rt_sigtimedwait, rt_sigpending; the
 * alternate signal stack; what fork and execve keep; and every bad
 * argument's errno. The kernel's own answers are checked through raw
 * system calls where musl would check the argument itself.
 *
 * Nothing here waits for time to pass except the EINTR case of
 * sigtimedwait (a 100 ms interval timer against a five-second wait). With
 * the argument "blocking", only the checks of blocked signals run.
 */
#include "tap.h"
#include <sys/time.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

struct ksigaction {		/* the kernel's struct sigaction */
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static volatile sig_atomic_t got[65], order[8], norder, depth, max_depth;
static volatile pid_t handler_tid;
static volatile uint64_t mask_in_handler;
static volatile uintptr_t local_in_handler;
static volatile int altflags_in_handler, altset_in_handler;

static uint64_t bit(int sig) { return 1ULL << (sig - 1); }

static uint64_t cur_mask(void)
{
	uint64_t m = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

static void set_mask(uint64_t m)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, 8);
}

static uint64_t pending_set(void)
{
	uint64_t m = 0;
	syscall(SYS_rt_sigpending, &m, 8);
	return m;
}

/* Counts last: another thread that waits for the count then reads the rest. */
static void on_sig(int sig)
{
	if (norder < 8)
		order[norder++] = sig;
	mask_in_handler = cur_mask();
	handler_tid = (pid_t)syscall(SYS_gettid);
	got[sig]++;
}

static void catch(int sig, void (*fn)(int), int flags, uint64_t mask)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	for (int s = 1; s < 65; s++)
		if (mask & bit(s))
			sigaddset(&sa.sa_mask, s);
	sigaction(sig, &sa, NULL);
}

static void reset(void)
{
	memset((void *)got, 0, sizeof(got));
	norder = 0;
}

static void bad_arguments(void)
{
	struct ksigaction ka = { on_sig, SA_RESTORER, NULL, 0 }, old;
	uint64_t set = 0;
	CHECK_ERR(kill(999999999, SIGTERM), ESRCH, "kill of a pid nobody has: ESRCH");
	CHECK_ERR(kill(getpid(), 65), EINVAL, "kill with signal 65: EINVAL");
	CHECK_ERR(kill(getpid(), -1), EINVAL, "kill with signal -1: EINVAL");
	CHECK_EQ(kill(getpid(), 0), 0, "kill with signal 0 only checks the pid");
	CHECK_ERR(syscall(SYS_tkill, 0, SIGUSR1), EINVAL, "tkill of tid 0: EINVAL");
	CHECK_ERR(syscall(SYS_tgkill, getpid(), 999999999, 0), ESRCH, "tgkill of a tid nobody has: ESRCH");
	CHECK_ERR(syscall(SYS_tgkill, getpid(), getpid(), 65), EINVAL, "tgkill with signal 65: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigaction, 0, &ka, NULL, 8), EINVAL, "rt_sigaction of signal 0: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigaction, 65, &ka, NULL, 8), EINVAL, "rt_sigaction of signal 65: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGKILL, &ka, NULL, 8), EINVAL, "rt_sigaction(SIGKILL, act): EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGSTOP, &ka, NULL, 8), EINVAL, "rt_sigaction(SIGSTOP, act): EINVAL");
	CHECK_EQ(syscall(SYS_rt_sigaction, SIGKILL, NULL, &old, 8), 0, "rt_sigaction(SIGKILL) may be read");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, 4), EINVAL, "rt_sigaction with sigsetsize 4: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 4), EINVAL, "rt_sigprocmask with sigsetsize 4: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 16), EINVAL, "rt_sigprocmask with sigsetsize 16: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, (void *)1, NULL, 8), EFAULT, "rt_sigprocmask with a bad set: EFAULT");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, (void *)1, 8), EFAULT, "rt_sigprocmask with a bad old set: EFAULT");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, 3, &set, NULL, 8), EINVAL, "rt_sigprocmask with how 3: EINVAL");
	CHECK_EQ(syscall(SYS_rt_sigprocmask, 99, NULL, &set, 8), 0, "rt_sigprocmask ignores how without a set");
	CHECK_ERR(syscall(SYS_rt_sigpending, (void *)1, 8), EFAULT, "rt_sigpending with a bad set: EFAULT");
	CHECK_ERR(syscall(SYS_rt_sigpending, &set, 9), EINVAL, "rt_sigpending with sigsetsize 9: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigsuspend, &set, 4), EINVAL, "rt_sigsuspend with sigsetsize 4: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigsuspend, (void *)1, 8), EFAULT, "rt_sigsuspend with a bad set: EFAULT");
	struct timespec bad = { 0, 1000000000 };
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, &bad, 8), EINVAL, "rt_sigtimedwait with 1e9 ns: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &set, NULL, NULL, 4), EINVAL, "rt_sigtimedwait with sigsetsize 4: EINVAL");
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, (void *)1, NULL, NULL, 8), EFAULT, "rt_sigtimedwait with a bad set: EFAULT");
	uint64_t all = ~0ULL;
	set_mask(all);
	uint64_t m = cur_mask();
	set_mask(0);
	CHECK(m == (all & ~bit(SIGKILL) & ~bit(SIGSTOP)), "SIGKILL and SIGSTOP are never blocked");
}

static void blocking(void)
{
	reset();
	catch(SIGUSR1, on_sig, 0, 0);
	set_mask(bit(SIGUSR1));
	raise(SIGUSR1);
	tap_check(got[SIGUSR1] == 0, "a blocked signal waits", "handler ran %d times", got[SIGUSR1]);
	CHECK(pending_set() == bit(SIGUSR1), "rt_sigpending shows it");
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	CHECK_EQ(got[SIGUSR1], 1, "unblocking takes it before sigprocmask returns");
	CHECK_EQ(pending_set(), 0, "and it is no longer pending");
	CHECK(mask_in_handler == bit(SIGUSR1), "the handler ran with its own signal blocked");

	/* Two pending at once, a handler that blocks everything: lowest first. */
	reset();
	catch(SIGUSR1, on_sig, 0, ~0ULL);
	catch(SIGUSR2, on_sig, 0, ~0ULL);
	set_mask(bit(SIGUSR1) | bit(SIGUSR2));
	raise(SIGUSR2);
	raise(SIGUSR1);
	set_mask(0);
	CHECK(norder == 2 && order[0] == SIGUSR1 && order[1] == SIGUSR2,
	      "two unblocked at once: the lower number first when handlers block all");
	uint64_t some = bit(SIGHUP) | bit(SIGUSR1) | bit(SIGTERM) | bit(64);
	CHECK((mask_in_handler & some) == some, "sa_mask was blocked in the handler");
	/* Handlers that block nothing more: the second frame goes on top of
	 * the first, so the higher number's handler runs first. */
	reset();
	catch(SIGUSR1, on_sig, 0, 0);
	catch(SIGUSR2, on_sig, 0, 0);
	set_mask(bit(SIGUSR1) | bit(SIGUSR2));
	raise(SIGUSR2);
	raise(SIGUSR1);
	set_mask(0);
	CHECK(norder == 2 && order[0] == SIGUSR2 && order[1] == SIGUSR1,
	      "two unblocked at once, handlers nest: the later frame runs first");
	CHECK_EQ(cur_mask(), 0, "the mask is back after the handlers");
	signal(SIGUSR1, SIG_IGN);
	set_mask(bit(SIGUSR1));
	raise(SIGUSR1);
	CHECK(pending_set() == bit(SIGUSR1), "an ignored signal that is blocked stays pending");
	signal(SIGUSR1, SIG_IGN);
	CHECK_EQ(pending_set(), 0, "setting SIG_IGN again drops it");
	set_mask(0);
}

static void on_nodefer(int sig)
{
	got[sig]++;
	if (++depth > max_depth)
		max_depth = depth;
	if (got[sig] < 3)
		raise(sig);
	depth--;
}

static void on_edit_mask(int sig, siginfo_t *info, void *ucp)
{
	(void)info;
	got[sig]++;
	sigaddset(&((ucontext_t *)ucp)->uc_sigmask, SIGUSR2);
}

static void handlers(void)
{
	reset();
	depth = max_depth = 0;
	catch(SIGUSR1, on_nodefer, SA_NODEFER, 0);
	raise(SIGUSR1);
	CHECK(got[SIGUSR1] == 3 && max_depth == 3, "SA_NODEFER: the handler nests in itself");
	reset();
	depth = max_depth = 0;
	catch(SIGUSR1, on_nodefer, 0, 0);
	raise(SIGUSR1);
	CHECK(got[SIGUSR1] == 3 && max_depth == 1, "without SA_NODEFER: each waits for the last to return");
	reset();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_edit_mask;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	CHECK(got[SIGUSR1] == 1 && cur_mask() == bit(SIGUSR2), "rt_sigreturn takes the mask from uc_sigmask");
	set_mask(0);
}

static void suspend_and_wait(void)
{
	reset();
	catch(SIGUSR1, on_sig, 0, 0);
	set_mask(bit(SIGUSR1));
	pid_t pid = fork();
	if (pid == 0) {
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	uint64_t temp = bit(SIGUSR2);
	errno = 0;
	long r = syscall(SYS_rt_sigsuspend, &temp, 8);
	CHECK(r == -1 && errno == EINTR, "rt_sigsuspend ends with EINTR once a handler ran");
	CHECK(got[SIGUSR1] == 1 && mask_in_handler == (bit(SIGUSR1) | bit(SIGUSR2)),
	      "the handler ran with the temporary mask");
	CHECK_EQ(cur_mask(), bit(SIGUSR1), "the old mask is back after rt_sigsuspend");
	waitpid(pid, NULL, 0);

	reset();
	catch(SIGUSR2, on_sig, 0, 0);
	set_mask(bit(SIGUSR2));
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	struct timespec ten_ms = { 0, 10000000 }, zero = { 0, 0 }, five_s = { 5, 0 };
	CHECK_ERR(sigtimedwait(&set, NULL, &ten_ms), EAGAIN, "sigtimedwait with nothing pending: EAGAIN after the timeout");
	CHECK_ERR(sigtimedwait(&set, NULL, &zero), EAGAIN, "sigtimedwait with a zero timeout polls: EAGAIN");
	raise(SIGUSR2);
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	CHECK_EQ(sigtimedwait(&set, &info, &ten_ms), SIGUSR2, "sigtimedwait takes a blocked pending signal");
	CHECK(info.si_signo == SIGUSR2 && got[SIGUSR2] == 0, "it fills siginfo and runs no handler");
	CHECK_EQ(pending_set(), 0, "and it is no longer pending");
	/* Raw: musl's sigtimedwait() tries again after EINTR. */
	uint64_t usr2 = bit(SIGUSR2);
	/* A SIGALRM every 100 ms, not one alarm: one that fired before the call
	 * began (a busy host) would leave nothing to interrupt it. */
	catch(SIGALRM, on_sig, 0, 0);
	struct itimerval every = { { 0, 100000 }, { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &every, NULL);
	CHECK_ERR(syscall(SYS_rt_sigtimedwait, &usr2, NULL, &five_s, 8), EINTR,
		  "rt_sigtimedwait ends with EINTR when another signal is handled");
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(got[SIGALRM] >= 1, "that signal's handler ran");
	set_mask(0);
}

/* ------------------------------------------------------------ threads */

static int gate[2];

static void *reader(void *arg)
{
	(void)arg;
	char c;
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void threads(void)
{
	reset();
	catch(SIGUSR1, on_sig, SA_RESTART, 0);
	pipe(gate);
	set_mask(bit(SIGUSR1));		/* the new thread's mask is its creator's ... */
	pthread_t th;
	volatile pid_t tid = 0;
	pthread_create(&th, NULL, reader, (void *)&tid);
	while (!tid)
		sched_yield();
	/* ... so both block SIGUSR1: it waits for the process. */
	kill(getpid(), SIGUSR1);
	CHECK(got[SIGUSR1] == 0 && (pending_set() & bit(SIGUSR1)), "kill: every thread blocks it, it waits");
	set_mask(0);
	CHECK(got[SIGUSR1] == 1 && handler_tid == getpid(), "the first thread to unblock it takes it");
	write(gate[1], "x", 1);
	pthread_join(th, NULL);

	/* A reader that does not block SIGUSR1, and a main thread that does. */
	reset();
	tid = 0;
	pthread_create(&th, NULL, reader, (void *)&tid);
	while (!tid)
		sched_yield();
	set_mask(bit(SIGUSR1));
	kill(getpid(), SIGUSR1);
	while (!got[SIGUSR1])
		sched_yield();
	CHECK_EQ(handler_tid, tid, "kill: the thread that does not block it takes it");
	catch(SIGUSR2, on_sig, 0, 0);
	set_mask(bit(SIGUSR1) | bit(SIGUSR2));
	syscall(SYS_tgkill, getpid(), getpid(), SIGUSR2);
	CHECK(got[SIGUSR2] == 0 && (pending_set() & bit(SIGUSR2)),
	      "tgkill to a thread that blocks it: pending there, not taken by the other");
	set_mask(0);
	CHECK(got[SIGUSR2] == 1 && handler_tid == getpid(), "unblocked, the thread named takes it");
	write(gate[1], "x", 1);
	pthread_join(th, NULL);
	close(gate[0]);
	close(gate[1]);
}

/* ------------------------------------------------------------ the alternate stack */

static char *alt;
static int alt_try_set = 1;	/* on_alt tries to change the alternate stack */
#define ALT_SIZE 65536

static void on_alt(int sig)
{
	volatile char here;
	got[sig]++;
	local_in_handler = (uintptr_t)&here;
	stack_t o, n = { .ss_sp = alt, .ss_size = ALT_SIZE, .ss_flags = 0 };
	sigaltstack(NULL, &o);
	altflags_in_handler = o.ss_flags;
	if (alt_try_set)
		altset_in_handler = syscall(SYS_sigaltstack, &n, NULL) == -1 ? errno : 0;
}

static void *thread_altstack(void *arg)
{
	stack_t o;
	sigaltstack(NULL, &o);
	*(int *)arg = o.ss_flags;
	return NULL;
}

static void altstack(void)
{
	alt = malloc(ALT_SIZE);
	stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE, .ss_flags = 0 }, o;
	CHECK_EQ(sigaltstack(NULL, &o), 0, "sigaltstack reads the settings");
	CHECK_EQ(o.ss_flags, SS_DISABLE, "at first there is none: SS_DISABLE");
	/* Raw: musl checks the size and SS_ONSTACK itself. */
	ss.ss_flags = 4;
	CHECK_ERR(syscall(SYS_sigaltstack, &ss, NULL), EINVAL, "sigaltstack with unknown flags: EINVAL");
	ss.ss_flags = 0;
	ss.ss_size = 2047;
	CHECK_ERR(syscall(SYS_sigaltstack, &ss, NULL), ENOMEM, "sigaltstack below MINSIGSTKSZ: ENOMEM");
	CHECK_ERR(syscall(SYS_sigaltstack, (void *)1, NULL), EFAULT, "sigaltstack with a bad pointer: EFAULT");
	CHECK_ERR(syscall(SYS_sigaltstack, NULL, (void *)1), EFAULT, "sigaltstack with a bad old pointer: EFAULT");
	ss.ss_size = ALT_SIZE;
	CHECK_EQ(sigaltstack(&ss, NULL), 0, "sigaltstack sets one up");
	sigaltstack(NULL, &o);
	CHECK(o.ss_sp == alt && o.ss_size == ALT_SIZE && o.ss_flags == 0, "it reads back, not in use");
	reset();
	catch(SIGUSR1, on_alt, SA_ONSTACK, 0);
	raise(SIGUSR1);
	CHECK(got[SIGUSR1] == 1 && local_in_handler >= (uintptr_t)alt &&
	      local_in_handler < (uintptr_t)alt + ALT_SIZE, "SA_ONSTACK: the handler's locals are on it");
	CHECK_EQ(altflags_in_handler, SS_ONSTACK, "inside, sigaltstack reports SS_ONSTACK");
	CHECK_EQ(altset_in_handler, EPERM, "inside, changing it is EPERM");
	catch(SIGUSR2, on_alt, 0, 0);
	raise(SIGUSR2);
	CHECK(local_in_handler < (uintptr_t)alt || local_in_handler >= (uintptr_t)alt + ALT_SIZE,
	      "without SA_ONSTACK the handler stays on the thread's stack");
	int tflags = 0;
	pthread_t th;
	pthread_create(&th, NULL, thread_altstack, &tflags);
	pthread_join(th, NULL);
	CHECK_EQ(tflags, SS_DISABLE, "a new thread has no alternate stack");
	pid_t pid = fork();
	if (pid == 0) {
		sigaltstack(NULL, &o);
		_exit(o.ss_sp == alt && o.ss_size == ALT_SIZE ? 0 : 1);
	}
	tap_check_exit(pid, 0, "fork keeps the alternate stack");
	ss.ss_flags = SS_AUTODISARM;
	sigaltstack(&ss, NULL);
	alt_try_set = 0;
	raise(SIGUSR1);
	CHECK(local_in_handler >= (uintptr_t)alt && local_in_handler < (uintptr_t)alt + ALT_SIZE &&
	      altflags_in_handler == SS_DISABLE, "SS_AUTODISARM: the handler runs on it, disarmed");
	sigaltstack(NULL, &o);
	CHECK(o.ss_sp == alt && o.ss_flags == (int)SS_AUTODISARM, "and rt_sigreturn arms it again");
	ss.ss_flags = SS_DISABLE;
	CHECK_EQ(sigaltstack(&ss, NULL), 0, "SS_DISABLE turns it off");
	sigaltstack(NULL, &o);
	CHECK_EQ(o.ss_flags, SS_DISABLE, "and it reads back SS_DISABLE");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* ------------------------------------------------------------ execve */

/* The program again, as "exec-check": exit 0 if what execve must keep
 * and reset is so, or the number of the first thing that is not. */
static int exec_check(void)
{
	stack_t o;
	struct sigaction sa;
	sigaltstack(NULL, &o);
	if (o.ss_flags != SS_DISABLE)
		return 1;
	if (cur_mask() != bit(SIGUSR1))
		return 2;
	if (pending_set() != bit(SIGUSR1))
		return 3;
	sigaction(SIGUSR2, NULL, &sa);
	if (sa.sa_handler != SIG_DFL)
		return 4;
	sigaction(SIGTERM, NULL, &sa);
	if (sa.sa_handler != SIG_IGN)
		return 5;
	return 0;
}

static void exec_keeps(const char *self)
{
	pid_t pid = fork();
	if (pid == 0) {
		stack_t ss = { .ss_sp = alt, .ss_size = ALT_SIZE, .ss_flags = 0 };
		sigaltstack(&ss, NULL);
		catch(SIGUSR2, on_sig, 0, 0);
		signal(SIGTERM, SIG_IGN);
		set_mask(bit(SIGUSR1));
		raise(SIGUSR1);
		execl(self, self, "exec-check", (char *)NULL);
		_exit(99);
	}
	tap_check_exit(pid, 0, "execve keeps the mask, pending signals and SIG_IGN, drops handlers and the alternate stack");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec-check"))
		return exec_check();
	tap_start();
	if (argc > 1 && !strcmp(argv[1], "blocking")) {	/* tests/boots.txt: enough to catch */
		blocking();
		return tap_done();
	}
	bad_arguments();
	blocking();
	handlers();
	suspend_and_wait();
	threads();
	altstack();
	exec_keeps(argv[0]);
	return tap_done();
}
