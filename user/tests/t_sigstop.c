/*
 * t_sigstop.c - what a parent hears of its children, and stop and
 * continue: SIGCHLD when a child exits, stops and continues (not for a
 * stop with SA_NOCLDSTOP); wait4 reports a stop once with WUNTRACED and a
 * continue once with WCONTINUED; SIGKILL ends a stopped child; a caught
 * SIGTSTP does not stop; SIGCONT drops a pending stop signal and a stop
 * signal a pending SIGCONT; every thread of a process stops; and children
 * of a parent that ignores SIGCHLD (or sets SA_NOCLDWAIT) are reaped
 * without it, so its wait ends with ECHILD.
 *
 * SIGCHLD is blocked and collected with sigtimedwait, which waits for it:
 * no check depends on when a signal comes. The one pause (100 ms) is the
 * time a stopped process is given to show that it does not run. With the
 * argument "threads", only the stop of a process with threads runs.
 */
#include "tap.h"
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

static const struct timespec ten_s = { 10, 0 }, zero = { 0, 0 };
static sigset_t chld;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A child that sleeps until a signal decides its fate. It leads a group
 * of its own, whose parent (this process) is outside it: otherwise, run
 * where our group is orphaned (a CI runner's setsid), Linux drops
 * SIGTSTP's default stop and a wait for it never ends. */
static pid_t sleeper(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	return pid;
}

static int take_sigchld(const struct timespec *wait)
{
	return sigtimedwait(&chld, NULL, wait) == SIGCHLD;
}

static void exit_and_stop(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(3);
	tap_check_exit(pid, 3, "a child exits with its status");
	CHECK(take_sigchld(&ten_s), "SIGCHLD comes when a child exits");

	int st = 0;
	pid = sleeper();
	kill(pid, SIGSTOP);
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid, "wait4(WUNTRACED) reports a stopped child");
	CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP && st == 0x137f, "its status is (SIGSTOP << 8) | 0x7f");
	CHECK(take_sigchld(&ten_s), "SIGCHLD comes when a child stops");
	CHECK_EQ(waitpid(pid, &st, WUNTRACED | WNOHANG), 0, "a stop is reported once");
	CHECK_EQ(waitpid(pid, &st, WNOHANG), 0, "without WUNTRACED a stop is not reported");
	kill(pid, SIGCONT);
	CHECK_EQ(waitpid(pid, &st, WCONTINUED), pid, "wait4(WCONTINUED) reports a continued child");
	CHECK(WIFCONTINUED(st) && st == 0xffff, "its status is 0xffff");
	CHECK(take_sigchld(&ten_s), "SIGCHLD comes when a child continues");
	CHECK_EQ(waitpid(pid, &st, WCONTINUED | WNOHANG), 0, "a continue is reported once");
	kill(pid, SIGTSTP);
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTSTP,
	      "SIGTSTP's default action stops it too");
	take_sigchld(&ten_s);
	kill(pid, SIGKILL);
	tap_check_killed(pid, SIGKILL, "SIGKILL ends a stopped child");
	CHECK(take_sigchld(&ten_s), "and its end sends SIGCHLD");
	CHECK_ERR(waitpid(-1, &st, 0x100), EINVAL, "wait4 with an unknown option: EINVAL");
	CHECK_ERR(waitpid(-1, &st, 0x01000000), EINVAL, "wait4 with WNOWAIT: EINVAL");
}

static void nocldstop(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &old);
	int st = 0;
	pid_t pid = sleeper();
	kill(pid, SIGSTOP);
	waitpid(pid, &st, WUNTRACED);
	CHECK(!take_sigchld(&zero), "SA_NOCLDSTOP: no SIGCHLD for a stop");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK(take_sigchld(&ten_s), "SA_NOCLDSTOP: SIGCHLD still comes at the end");
	sigaction(SIGCHLD, &old, NULL);
}

static int handshake[2], go[2];

static void on_tstp(int sig)
{
	(void)sig;
	write(handshake[1], "t", 1);
}

/* The child's side of the pending-set cases: block set, say so, wait for
 * the parent's signals, exit 0 if exactly `want` of them is pending. */
static void pending_child(int block1, int block2, int want, int absent)
{
	sigset_t b;
	char c;
	sigemptyset(&b);
	sigaddset(&b, block1);
	sigaddset(&b, block2);
	sigprocmask(SIG_BLOCK, &b, NULL);
	write(handshake[1], "r", 1);
	read(go[0], &c, 1);
	sigpending(&b);
	_exit(sigismember(&b, want) && !sigismember(&b, absent) ? 0 : 1);
}

static void stop_and_continue_race(void)
{
	char c;
	pipe(handshake);
	pipe(go);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGTSTP, on_tstp);
		write(handshake[1], "r", 1);
		for (;;)
			pause();
	}
	read(handshake[0], &c, 1);
	kill(pid, SIGTSTP);
	read(handshake[0], &c, 1);
	int st = 0;
	CHECK(c == 't' && waitpid(pid, &st, WUNTRACED | WNOHANG) == 0, "a caught SIGTSTP runs its handler, no stop");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);

	pid = fork();
	if (pid == 0)
		pending_child(SIGTSTP, SIGUSR1, SIGUSR1, SIGTSTP);
	read(handshake[0], &c, 1);
	kill(pid, SIGUSR1);
	kill(pid, SIGTSTP);
	kill(pid, SIGCONT);
	write(go[1], "g", 1);
	tap_check_exit(pid, 0, "SIGCONT drops a pending stop signal");

	pid = fork();
	if (pid == 0) {
		signal(SIGCONT, on_tstp);
		pending_child(SIGTSTP, SIGCONT, SIGTSTP, SIGCONT);
	}
	read(handshake[0], &c, 1);
	kill(pid, SIGCONT);
	kill(pid, SIGTSTP);
	write(go[1], "g", 1);
	tap_check_exit(pid, 0, "a stop signal drops a pending SIGCONT");
	close(handshake[0]);
	close(handshake[1]);
	close(go[0]);
	close(go[1]);
	while (take_sigchld(&zero))
		;
}

/* ------------------------------------------------------------ threads */

static volatile uint64_t *counts;

static void *spin(void *arg)
{
	volatile uint64_t *c = arg;
	for (;;)
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Both counters moved past before, within 10 s. */
static int both_moved(const uint64_t *before)
{
	for (double end = now_s() + 10; now_s() < end; nap_ms(1))
		if (counts[0] != before[0] && counts[1] != before[1])
			return 1;
	return 0;
}

static void threads_stop(void)
{
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t;
		pthread_create(&t, NULL, spin, (void *)&counts[0]);
		pthread_create(&t, NULL, spin, (void *)&counts[1]);
		for (;;)
			pause();
	}
	uint64_t zeros[2] = { 0, 0 }, a[2], b[2];
	CHECK(both_moved(zeros), "a child's two threads run");
	int st = 0;
	kill(pid, SIGSTOP);
	CHECK_EQ(waitpid(pid, &st, WUNTRACED), pid, "the stop is reported once every thread stopped");
	a[0] = counts[0], a[1] = counts[1];
	nap_ms(100);
	b[0] = counts[0], b[1] = counts[1];
	tap_check(a[0] == b[0] && a[1] == b[1], "no thread of a stopped process runs",
		  "counts moved from %llu %llu to %llu %llu", (unsigned long long)a[0],
		  (unsigned long long)a[1], (unsigned long long)b[0], (unsigned long long)b[1]);
	kill(pid, SIGCONT);
	CHECK(both_moved(b), "after SIGCONT both threads run again");
	kill(pid, SIGKILL);
	tap_check_killed(pid, SIGKILL, "SIGKILL ends the threaded child");
	munmap((void *)counts, 4096);
	while (take_sigchld(&zero))
		;
}

/* ------------------------------------------------------------ reaping */

static void on_chld(int sig)
{
	(void)sig;
}

static void autoreap(void)
{
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	signal(SIGCHLD, SIG_IGN);
	for (int i = 0; i < 3; i++)
		if (fork() == 0)
			_exit(0);
	CHECK_ERR(wait(NULL), ECHILD, "SIGCHLD ignored: children leave no zombie, wait gives ECHILD");
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDWAIT | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	for (int i = 0; i < 3; i++)
		if (fork() == 0)
			_exit(0);
	CHECK_ERR(wait(NULL), ECHILD, "SA_NOCLDWAIT: the same with a handler");
	signal(SIGCHLD, SIG_DFL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(5);
	tap_check_exit(pid, 5, "back to SIG_DFL, a child is a zombie until waited for");
}

/*
 * A sleep that stops and continues goes on for only the time that was
 * left (Linux's restart_syscall), not its whole time again after every
 * SIGCONT. The child sleeps 2 s; it is stopped and continued 8 times in
 * its first 1.2 s. Going on: it wakes at about 2 s; starting over, not
 * before 1.2 + 2 s. The bound between is 2.7 s.
 */
static void sleep_goes_on_after_stops(void)
{
	CHECK_ERR(syscall(SYS_restart_syscall), EINTR,
		  "restart_syscall with no interrupted sleep to go on with: EINTR");
	int p[2];
	CHECK_OK(pipe(p), "a pipe for the sleeper's time");
	pid_t pid = fork();
	if (pid == 0) {
		double t0 = now_s();
		struct timespec two = { 2, 0 };
		nanosleep(&two, NULL);
		double took = now_s() - t0;
		write(p[1], &took, sizeof(took));
		_exit(0);
	}
	for (int i = 0; i < 8; i++) {
		nap_ms(150);
		kill(pid, SIGSTOP);
		nap_ms(1);
		kill(pid, SIGCONT);
	}
	double took = 0;
	CHECK(read(p[0], &took, sizeof(took)) == sizeof(took), "the sleeper says how long it slept");
	waitpid(pid, NULL, 0);
	tap_check(took >= 1.99 && took < 2.7, "a 2 s nanosleep stopped and continued 8 times ends "
		  "after about 2 s, not after its whole time again", "took %.2f s", took);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	tap_start();
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (argc > 1 && !strcmp(argv[1], "threads")) {	/* tests/boots.txt: enough to catch */
		threads_stop();
		return tap_done();
	}
	exit_and_stop();
	nocldstop();
	stop_and_continue_race();
	threads_stop();
	autoreap();
	sleep_goes_on_after_stops();
	return tap_done();
}
