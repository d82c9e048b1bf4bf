/*
 * t_siginfo - what a signal's receiver is told (siginfo_t): the sender's
 * pid and SI_USER for kill, SI_TKILL for tgkill, SI_KERNEL for a timer,
 * the child, CLD_* and its status for SIGCHLD (exit, death by a signal,
 * stop, continue), the address and SEGV_MAPERR/SEGV_ACCERR for a fault,
 * and the first sender's details when a second send finds the signal
 * pending. Through rt_sigtimedwait and through an SA_SIGINFO handler.
 * Run on Linux too.
 */
#include "tap.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>

static sigset_t only(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	return s;
}

/* Wait for sig (blocked) and return what rt_sigtimedwait says of it. */
static siginfo_t wait_for(int sig)
{
	siginfo_t si;
	sigset_t s = only(sig);
	memset(&si, 0x5a, sizeof si);
	struct timespec ts = { 5, 0 };
	if (sigtimedwait(&s, &si, &ts) != sig)
		si.si_signo = -1;
	return si;
}

static void check_child(pid_t pid, int code, int status, const char *what)
{
	siginfo_t si = wait_for(SIGCHLD);
	tap_check(si.si_signo == SIGCHLD && si.si_pid == pid && si.si_code == code &&
		  si.si_status == status, what, "signo %d pid %d (want %d) code %d (want %d) status %d (want %d)",
		  si.si_signo, si.si_pid, (int)pid, si.si_code, code, si.si_status, status);
}

static void from_senders(void)
{
	sigset_t s = only(SIGUSR1);
	sigaddset(&s, SIGUSR2);
	sigaddset(&s, SIGCHLD);
	sigaddset(&s, SIGALRM);
	sigaddset(&s, SIGPIPE);
	sigprocmask(SIG_BLOCK, &s, NULL);

	kill(getpid(), SIGUSR1);
	siginfo_t si = wait_for(SIGUSR1);
	tap_check(si.si_signo == SIGUSR1 && si.si_code == SI_USER && si.si_pid == getpid() &&
		  si.si_uid == getuid(), "kill: SI_USER, the sender's pid and uid",
		  "signo %d code %d pid %d uid %d", si.si_signo, si.si_code, si.si_pid, (int)si.si_uid);

	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR2);
	si = wait_for(SIGUSR2);
	tap_check(si.si_code == SI_TKILL && si.si_pid == getpid(), "tgkill: SI_TKILL and the sender",
		  "code %d pid %d", si.si_code, si.si_pid);

	setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 10000 } }, NULL);
	si = wait_for(SIGALRM);
	CHECK_EQ(si.si_code, SI_KERNEL, "a timer's SIGALRM: SI_KERNEL");

	int p[2];
	pipe(p);
	close(p[0]);
	CHECK_ERR(write(p[1], "x", 1), EPIPE, "a write with no reader: EPIPE");
	si = wait_for(SIGPIPE);
	tap_check(si.si_code == SI_USER && si.si_pid == getpid(), "and SIGPIPE from the writer itself",
		  "code %d pid %d", si.si_code, si.si_pid);
	close(p[1]);

	/* A second sender finds SIGUSR1 pending: the first one's details stay. */
	pid_t child = fork();
	if (child == 0) {
		kill(getppid(), SIGUSR1);
		_exit(0);
	}
	check_child(child, CLD_EXITED, 0, "the child that sent SIGUSR1 exited: CLD_EXITED 0");
	waitpid(child, NULL, 0);
	kill(getpid(), SIGUSR1);
	si = wait_for(SIGUSR1);
	tap_check(si.si_pid == child, "a signal sent while pending keeps the first sender's pid",
		  "pid %d, want the child's %d", si.si_pid, (int)child);

	child = fork();
	if (child == 0)
		_exit(42);
	check_child(child, CLD_EXITED, 42, "SIGCHLD of _exit(42): CLD_EXITED, status 42");
	waitpid(child, NULL, 0);

	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	kill(child, SIGSTOP);
	check_child(child, CLD_STOPPED, SIGSTOP, "stopped by SIGSTOP: CLD_STOPPED, status SIGSTOP");
	kill(child, SIGCONT);
	check_child(child, CLD_CONTINUED, SIGCONT, "continued: CLD_CONTINUED, status SIGCONT");
	kill(child, SIGTERM);
	check_child(child, CLD_KILLED, SIGTERM, "ended by SIGTERM: CLD_KILLED, status SIGTERM");
	waitpid(child, NULL, 0);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static sigjmp_buf back;
static siginfo_t got;
static void *got_ctx;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	got = *si;
	got_ctx = ctx;
	siglongjmp(back, 1);
}

static void faults(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	char *ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *none = ro + 4096;
	mprotect(none, 4096, PROT_NONE);
	char *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 4096);

	struct { char *addr; int code; const char *what; } cases[] = {
		{ gone + 16, SEGV_MAPERR, "a store to an unmapped page: SEGV_MAPERR and its address" },
		{ ro + 8, SEGV_ACCERR, "a store to a read-only page: SEGV_ACCERR and its address" },
		{ none + 24, SEGV_ACCERR, "a store to a PROT_NONE page: SEGV_ACCERR and its address" },
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&got, 0, sizeof got);
		if (!sigsetjmp(back, 1))
			*(volatile char *)cases[i].addr = 1;
		tap_check(got.si_signo == SIGSEGV && got.si_code == cases[i].code &&
			  got.si_addr == cases[i].addr, cases[i].what, "signo %d code %d addr %p (want %p)",
			  got.si_signo, got.si_code, got.si_addr, (void *)cases[i].addr);
	}
	memset(&got, 0, sizeof got);
	if (!sigsetjmp(back, 1))
		kill(getpid(), SIGUSR1);
	tap_check(got.si_signo == SIGUSR1 && got.si_code == SI_USER && got.si_pid == getpid() && got_ctx,
		  "an SA_SIGINFO handler gets the sender too", "signo %d code %d pid %d",
		  got.si_signo, got.si_code, got.si_pid);
}

int main(void)
{
	tap_start();
	from_senders();
	faults();
	return tap_done();
}
