/*
 * t_signals.c - signal handlers: a handler runs with the signal number
 * and its siginfo, returning resumes the program with every register and
 * the FPU state as they were, SIG_IGN ignores, SA_RESETHAND restores the
 * default after one delivery, and a handler for SIGSEGV can leave the
 * faulting code with siglongjmp.
 */
#include "tap.h"
#include <setjmp.h>
#include <signal.h>

static volatile sig_atomic_t got, got_code;
static volatile double in_handler;
static sigjmp_buf env;
static volatile int *volatile nowhere = (int *)8;	/* an unmapped address */

static void on_usr1(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	got = sig;
	got_code = info->si_signo;
	volatile double d = 3.0;
	in_handler = d * d * 1.5;	/* SSE work inside the handler */
}

static void on_segv(int sig)
{
	siglongjmp(env, sig);
}

static void on_once(int sig)
{
	got = sig;
}

int main(void)
{
	tap_start();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0, "sigaction installs a handler");
	volatile double x = 1.25;
	raise(SIGUSR1);
	CHECK_EQ(got, SIGUSR1, "the handler ran with the signal number");
	CHECK_EQ(got_code, SIGUSR1, "siginfo carries the signal number");
	CHECK(in_handler == 13.5, "floating point works inside the handler");
	CHECK(x * 4 == 5.0, "the program's floating-point state survived the handler");

	struct sigaction old;
	CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0, "sigaction reads the action back");
	CHECK(old.sa_sigaction == on_usr1, "the action read back is the handler installed");

	signal(SIGUSR2, SIG_IGN);
	CHECK_EQ(raise(SIGUSR2), 0, "an ignored signal does nothing");

	got = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_once;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGUSR2, &sa, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		raise(SIGUSR2);		/* handled once ... */
		if (got != SIGUSR2)
			_exit(1);
		raise(SIGUSR2);		/* ... then the default: terminate */
		_exit(2);
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR2, "SA_RESETHAND: the second one kills");

	signal(SIGSEGV, on_segv);
	int r = sigsetjmp(env, 1);
	if (r == 0)
		*nowhere = 1;
	CHECK_EQ(r, SIGSEGV, "a SIGSEGV handler leaves the fault with siglongjmp");

	pid = fork();
	if (pid == 0) {
		signal(SIGTERM, on_once);
		got = 0;
		kill(getpid(), SIGTERM);
		_exit(got == SIGTERM ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "kill() of itself runs its handler");
	return tap_done();
}
