/*
 * t_sigwake.c - a signal ends any sleep a program can cause, and a handled
 * one makes the call fail with EINTR or go on, as Linux decides per call
 * (signal(7), "Interruption of system calls and library functions by
 * signal handlers").
 *
 * SIGKILL ends a child asleep in a futex wait (with and without a
 * timeout), a read of an empty pipe, a write to a full pipe, wait4,
 * nanosleep, clock_nanosleep (relative and TIMER_ABSTIME), poll, ppoll,
 * select, pselect6, pause, rt_sigsuspend and rt_sigtimedwait.
 *
 * A handled SIGUSR1, in a child asleep in the call:
 *   - without SA_RESTART a pipe read and wait4 fail with EINTR;
 *   - with SA_RESTART a pipe read, a pipe write that has written nothing,
 *     wait4 and a futex wait without a timeout are made again;
 *   - with SA_RESTART all the same, nanosleep, clock_nanosleep, poll,
 *     ppoll, select, pselect6, pause, rt_sigsuspend, rt_sigtimedwait and
 *     a futex wait with a timeout fail with EINTR; nanosleep and a
 *     relative clock_nanosleep write the time left, a TIMER_ABSTIME one
 *     leaves *rem as it was.
 *
 * Every sleep happens in a child, and the signal is sent only once
 * /proc/PID/stat shows the child asleep interruptibly (state S). Nothing
 * the child does between saying it is ready and making the call sleeps
 * that way (a sleeping lock is D), so the signal finds it inside the call
 * however busy the machine is. The parent never sleeps for more than a
 * millisecond at a time and gives each child a deadline, so a kernel
 * where the signal does not end the sleep prints 'not ok' instead of
 * hanging.
 *
 * With an argument WORD, only the SIGKILL cases whose sleep names WORD
 * run (tests/boots.txt: one case is enough to catch a broken kernel).
 */
#include "tap.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/select.h>
#include <sys/syscall.h>

#define FUTEX_WAIT 0

#define DEADLINE_MS 5000
#define LONG_S 1000		/* a sleep no case waits out */

static int hold[2];		/* a pipe kept empty (or full), never read by the parent */
static int ready[2];		/* the child says it is about to sleep */
static volatile sig_atomic_t handled;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* waitpid with a deadline: the pid, or 0 if the child is still there. */
static pid_t reap(pid_t pid, int *st)
{
	for (int waited = 0; waited < DEADLINE_MS; waited++) {
		pid_t got = waitpid(pid, st, WNOHANG);
		if (got)
			return got;
		nap_ms(1);
	}
	return 0;
}

/* Wait until pid sleeps interruptibly: 1, or 0 if it did not within the deadline. */
static int until_asleep(pid_t pid)
{
	for (int waited = 0; waited < DEADLINE_MS; waited++) {
		if (state_of(pid) == 'S')
			return 1;
		nap_ms(1);
	}
	return 0;
}

/* --------------------------------------------------- sleeps SIGKILL must end */

static int futex_wait(int *word, int val, const struct timespec *timeout)
{
	return (int)syscall(SYS_futex, word, FUTEX_WAIT, val, timeout, NULL, 0);
}

static void sleep_in_futex(void)
{
	static int word;
	futex_wait(&word, 0, NULL);
}

static void sleep_in_futex_timeout(void)
{
	static int word;
	struct timespec ts = { LONG_S, 0 };
	futex_wait(&word, 0, &ts);
}

static void sleep_in_pipe_read(void)
{
	char c;
	read(hold[0], &c, 1);
}

static void sleep_in_pipe_write(void)
{
	static char big[1 << 20];	/* more than a pipe holds */
	write(hold[1], big, sizeof(big));
}

/* Fork a child that sleeps reading hold until it gets a byte or the last
 * writer goes; returns its pid. */
static pid_t fork_reader(void)
{
	pid_t g = fork();
	if (g == 0) {
		char c;
		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 1 ? 0 : 1);
	}
	return g;
}

static void sleep_in_wait4(void)
{
	waitpid(fork_reader(), NULL, 0);
}

static void sleep_in_nanosleep(void)
{
	struct timespec ts = { LONG_S, 0 };
	nanosleep(&ts, NULL);
}

/* clock_nanosleep itself: it returns -1 and errno, not musl's error number. */
static long clock_sleep(int flags, const struct timespec *req, struct timespec *rem)
{
	return syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, flags, req, rem);
}

/* A deadline LONG_S from now on CLOCK_MONOTONIC. */
static struct timespec far_deadline(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += LONG_S;
	return ts;
}

static void sleep_in_clock_nanosleep(void)
{
	struct timespec ts = { LONG_S, 0 };
	clock_sleep(0, &ts, NULL);
}

static void sleep_in_clock_nanosleep_abs(void)
{
	struct timespec ts = far_deadline();
	clock_sleep(TIMER_ABSTIME, &ts, NULL);
}

static void sleep_in_poll(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	poll(&p, 1, -1);
}

static void sleep_in_ppoll(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	sigset_t none;
	sigemptyset(&none);
	ppoll(&p, 1, NULL, &none);
}

static void sleep_in_select(void)
{
	fd_set in;
	FD_ZERO(&in);
	FD_SET(hold[0], &in);
	select(hold[0] + 1, &in, NULL, NULL, NULL);
}

static void sleep_in_pselect6(void)
{
	fd_set in;
	sigset_t none;
	FD_ZERO(&in);
	FD_SET(hold[0], &in);
	sigemptyset(&none);
	pselect(hold[0] + 1, &in, NULL, NULL, NULL, &none);
}

static void sleep_in_pause(void)
{
	pause();
}

static void sleep_in_sigsuspend(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigsuspend(&none);
}

/* rt_sigtimedwait itself, for SIGUSR2, which nobody sends (musl's
 * sigwaitinfo would hide an EINTR: it calls again). */
static long wait_for_sigusr2(void)
{
	sigset_t these;
	sigemptyset(&these);
	sigaddset(&these, SIGUSR2);
	sigprocmask(SIG_BLOCK, &these, NULL);
	return syscall(SYS_rt_sigtimedwait, &these, NULL, NULL, 8);	/* the kernel's 64 bits */
}

static void sleep_in_sigtimedwait(void)
{
	wait_for_sigusr2();
}

/* Start a child that signals `ready` and then runs fn; returns its pid. */
static pid_t start(void (*fn)(void))
{
	handled = 0;
	pipe(hold);
	pipe(ready);
	pid_t pid = fork();
	if (pid == 0) {
		write(ready[1], "r", 1);
		fn();
		_exit(99);
	}
	char c;
	read(ready[0], &c, 1);
	return pid;
}

static void finish(void)
{
	close(hold[0]);
	close(hold[1]);
	close(ready[0]);
	close(ready[1]);
}

static const char *only;	/* argv[1]: run the SIGKILL cases naming it */

static void killed_in(const char *where, void (*fn)(void))
{
	char what[96];
	int st = 0;
	if (only && !strstr(where, only))
		return;
	pid_t pid = start(fn);
	char before = until_asleep(pid) ? 'S' : state_of(pid);
	kill(pid, SIGKILL);
	pid_t got = reap(pid, &st);
	snprintf(what, sizeof(what), "SIGKILL ends a child asleep in %s", where);
	tap_check(got == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, what,
		  got ? "wait status %#x (state %c before the kill)"
		      : "still asleep %d ms after SIGKILL (state %c before it)",
		  got ? st : DEADLINE_MS, before);
	if (!got) {		/* leave no sleeper behind for the next case */
		kill(pid, SIGKILL);
		reap(pid, &st);
	}
	finish();
}

/* ------------------------------------------------ handled signals: EINTR or again */

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

static void catch_with(void (*handler)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigaction(SIGUSR1, &sa, NULL);
}

/* The child's answer: exit 0 when the call gave what Linux gives. */
static void verdict(int as_linux)
{
	_exit(as_linux && handled == 1 ? 0 : 1);
}

static void verdict_eintr(long r)
{
	verdict(r == -1 && errno == EINTR);
}

/* Handlers that make the call, made again, succeed at once. */
static void give_a_byte(int sig)
{
	on_signal(sig);
	write(hold[1], "y", 1);
}

static void take_a_page(int sig)
{
	static char page[4096];
	on_signal(sig);
	read(hold[0], page, sizeof(page));
}

static int futex_word;

static void change_the_word(int sig)
{
	on_signal(sig);
	futex_word = 1;
}

static void read_eintr(void)
{
	char c;
	catch_with(on_signal, 0);
	verdict_eintr(read(hold[0], &c, 1));
}

static void read_again(void)
{
	char c = 0;
	catch_with(give_a_byte, SA_RESTART);
	verdict(read(hold[0], &c, 1) == 1 && c == 'y');
}

/* Fill hold (whole pages, then bytes) so that a 1-byte write sleeps. */
static void fill_pipe(void)
{
	static char page[4096];
	fcntl(hold[1], F_SETFL, O_NONBLOCK);
	while (write(hold[1], page, sizeof(page)) > 0)
		;
	while (write(hold[1], page, 1) > 0)
		;
	fcntl(hold[1], F_SETFL, 0);
}

static void write_again(void)
{
	fill_pipe();
	catch_with(take_a_page, SA_RESTART);
	verdict(write(hold[1], "z", 1) == 1);
}

static void wait4_eintr(void)
{
	pid_t g = fork_reader();
	catch_with(on_signal, 0);
	verdict_eintr(waitpid(g, NULL, 0));
}

static void wait4_again(void)
{
	int st = -1;
	pid_t g = fork_reader();
	catch_with(give_a_byte, SA_RESTART);
	verdict(waitpid(g, &st, 0) == g && st == 0);
}

static void futex_again(void)
{
	catch_with(change_the_word, SA_RESTART);
	long r = futex_wait(&futex_word, 0, NULL);
	verdict(r == -1 && errno == EAGAIN);	/* made again: the word is no longer 0 */
}

static void futex_timeout_eintr(void)
{
	static int word;
	struct timespec ts = { LONG_S, 0 };
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(futex_wait(&word, 0, &ts));
}

/* The time left of a 5 s sleep interrupted at once: between 3 and 5 s,
 * and a little more than 5 s is Linux's too (its timer slack, 50 us, is
 * counted in the time left). */
static int left_of_5s(const struct timespec *left)
{
	long long ns = left->tv_sec * 1000000000LL + left->tv_nsec;
	return left->tv_nsec >= 0 && left->tv_nsec < 1000000000L &&
	       ns >= 3000000000LL && ns <= 5001000000LL;
}

static void nanosleep_eintr(void)
{
	struct timespec ts = { 5, 0 }, left = { 0, 0 };
	catch_with(on_signal, SA_RESTART);
	long r = nanosleep(&ts, &left);
	verdict(r == -1 && errno == EINTR && left_of_5s(&left));
}

static void clock_nanosleep_eintr(void)
{
	struct timespec ts = { 5, 0 }, left = { 0, 0 };
	catch_with(on_signal, SA_RESTART);
	long r = clock_sleep(0, &ts, &left);
	verdict(r == -1 && errno == EINTR && left_of_5s(&left));
}

static void clock_nanosleep_abs_eintr(void)
{
	struct timespec ts = far_deadline(), left = { 77, 77 };
	catch_with(on_signal, SA_RESTART);
	long r = clock_sleep(TIMER_ABSTIME, &ts, &left);
	verdict(r == -1 && errno == EINTR && left.tv_sec == 77 && left.tv_nsec == 77);
}

static void poll_eintr(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(poll(&p, 1, -1));
}

static void ppoll_eintr(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	sigset_t none;
	sigemptyset(&none);
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(ppoll(&p, 1, NULL, &none));
}

static void select_eintr(void)
{
	fd_set in;
	FD_ZERO(&in);
	FD_SET(hold[0], &in);
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(select(hold[0] + 1, &in, NULL, NULL, NULL));
}

static void pselect6_eintr(void)
{
	fd_set in;
	sigset_t none;
	FD_ZERO(&in);
	FD_SET(hold[0], &in);
	sigemptyset(&none);
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(pselect(hold[0] + 1, &in, NULL, NULL, NULL, &none));
}

static void pause_eintr(void)
{
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(pause());
}

static void sigsuspend_eintr(void)
{
	sigset_t none;
	sigemptyset(&none);
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(sigsuspend(&none));
}

static void sigtimedwait_eintr(void)
{
	catch_with(on_signal, SA_RESTART);
	verdict_eintr(wait_for_sigusr2());
}

/* fn's child gets SIGUSR1 once asleep, and exits 0 if its call did as Linux's. */
static void handled_in(const char *what, void (*fn)(void))
{
	int st = 0;
	pid_t pid = start(fn);
	int asleep = until_asleep(pid);
	if (asleep)
		kill(pid, SIGUSR1);
	pid_t got = asleep ? reap(pid, &st) : 0;
	tap_check(got == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, what,
		  !asleep ? "the child never fell asleep (%d ms, %d)"
		  : got ? "wait status %#x" : "no answer in %d ms (%d)",
		  got ? st : DEADLINE_MS, st);
	if (!got) {
		kill(pid, SIGKILL);
		reap(pid, &st);
	}
	finish();
}

int main(int argc, char **argv)
{
	tap_start();
	only = argc > 1 ? argv[1] : NULL;
	killed_in("a futex wait without timeout", sleep_in_futex);
	killed_in("a futex wait with a timeout", sleep_in_futex_timeout);
	killed_in("a read of an empty pipe", sleep_in_pipe_read);
	killed_in("a write to a full pipe", sleep_in_pipe_write);
	killed_in("wait4 for a sleeping child", sleep_in_wait4);
	killed_in("nanosleep", sleep_in_nanosleep);
	killed_in("a relative clock_nanosleep", sleep_in_clock_nanosleep);
	killed_in("a TIMER_ABSTIME clock_nanosleep", sleep_in_clock_nanosleep_abs);
	killed_in("poll", sleep_in_poll);
	killed_in("ppoll", sleep_in_ppoll);
	killed_in("select", sleep_in_select);
	killed_in("pselect6", sleep_in_pselect6);
	killed_in("pause", sleep_in_pause);
	killed_in("rt_sigsuspend", sleep_in_sigsuspend);
	killed_in("rt_sigtimedwait", sleep_in_sigtimedwait);
	if (only)
		return tap_done();
	handled_in("without SA_RESTART a handled signal makes a read of an empty pipe fail with EINTR",
		   read_eintr);
	handled_in("without SA_RESTART wait4 fails with EINTR", wait4_eintr);
	handled_in("with SA_RESTART the read is made again, and returns what the handler wrote",
		   read_again);
	handled_in("with SA_RESTART a write to a full pipe that wrote nothing is made again",
		   write_again);
	handled_in("with SA_RESTART wait4 is made again, and reaps the child the handler ended",
		   wait4_again);
	handled_in("with SA_RESTART a futex wait without timeout is made again (EAGAIN: the word moved)",
		   futex_again);
	handled_in("a futex wait with a timeout fails with EINTR even with SA_RESTART",
		   futex_timeout_eintr);
	handled_in("nanosleep fails with EINTR even with SA_RESTART, and writes the time left",
		   nanosleep_eintr);
	handled_in("a relative clock_nanosleep fails with EINTR even with SA_RESTART, and writes the time left",
		   clock_nanosleep_eintr);
	handled_in("a TIMER_ABSTIME clock_nanosleep fails with EINTR and leaves *rem as it was",
		   clock_nanosleep_abs_eintr);
	handled_in("poll fails with EINTR even with SA_RESTART", poll_eintr);
	handled_in("ppoll fails with EINTR even with SA_RESTART", ppoll_eintr);
	handled_in("select fails with EINTR even with SA_RESTART", select_eintr);
	handled_in("pselect6 fails with EINTR even with SA_RESTART", pselect6_eintr);
	handled_in("pause fails with EINTR even with SA_RESTART", pause_eintr);
	handled_in("rt_sigsuspend fails with EINTR even with SA_RESTART", sigsuspend_eintr);
	handled_in("rt_sigtimedwait fails with EINTR even with SA_RESTART", sigtimedwait_eintr);
	return tap_done();
}
