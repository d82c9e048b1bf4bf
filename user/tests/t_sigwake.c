/*
 * t_sigwake.c - a signal ends any sleep a program can cause. SIGKILL ends
 * a child asleep in a futex wait without a timeout, a read of an empty
 * pipe, a write to a full pipe, wait4, nanosleep, poll and pause; a handled
 * signal without SA_RESTART makes a read of an empty pipe fail with EINTR,
 * with SA_RESTART the read goes on; poll fails with EINTR either way, and
 * an alarm interrupting nanosleep leaves the time still to sleep.
 *
 * Every sleep happens in a child; the parent never sleeps for more than
 * 10 ms at a time and gives each child a deadline, so a kernel where the
 * signal does not end the sleep prints 'not ok' instead of hanging. A
 * SIGKILL may come before or during the sleep (both must end it); a
 * handled signal must come during it, so the child's own alarm(1) sends
 * it a whole second after the child starts the call.
 *
 * With an argument WORD, only the SIGKILL cases whose sleep names WORD
 * run (tests/boots.txt: one case is enough to catch a broken kernel).
 */
#include "tap.h"
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/syscall.h>

#define FUTEX_WAIT 0

#define DEADLINE_MS 5000

static int hold[2];		/* a pipe kept empty, and never read */
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
	for (int waited = 0; waited < DEADLINE_MS; waited += 10) {
		pid_t got = waitpid(pid, st, WNOHANG);
		if (got)
			return got;
		nap_ms(10);
	}
	return 0;
}

static void sleep_in_futex(void)
{
	static int word;
	syscall(SYS_futex, &word, FUTEX_WAIT, 0, NULL, NULL, 0);
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

static void sleep_in_wait4(void)
{
	pid_t g = fork();
	if (g == 0) {			/* ends when every write end of hold is closed */
		close(hold[1]);
		sleep_in_pipe_read();
		_exit(0);
	}
	waitpid(g, NULL, 0);
}

static void sleep_in_nanosleep(void)
{
	struct timespec ts = { 1000, 0 };
	nanosleep(&ts, NULL);
}

static void sleep_in_poll(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	poll(&p, 1, -1);
}

static void sleep_in_pause(void)
{
	pause();
}

/* Start a child that signals `ready` and then runs fn; returns its pid. */
static pid_t start(void (*fn)(void))
{
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
	nap_ms(50);		/* let it fall asleep (the signal must end the sleep either way) */
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
	kill(pid, SIGKILL);
	pid_t got = reap(pid, &st);
	snprintf(what, sizeof(what), "SIGKILL ends a child asleep in %s", where);
	tap_check(got == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, what,
		  got ? "wait status %#x" : "still asleep %d ms after SIGKILL (%d)",
		  got ? st : DEADLINE_MS, st);
	if (!got) {		/* leave no sleeper behind for the next case */
		kill(pid, SIGKILL);
		reap(pid, &st);
	}
	finish();
}

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

static void catch(int sig, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void on_signal_write(int sig)
{
	(void)sig;
	handled++;
	write(hold[1], "y", 1);		/* what the restarted read will find */
}

/* Children of the handled-signal cases: SIGALRM arrives one second into
 * the call; exit 0 when the call did as Linux. */
static void read_eintr(void)
{
	char c;
	catch(SIGALRM, 0);
	alarm(1);
	ssize_t n = read(hold[0], &c, 1);
	_exit(n == -1 && errno == EINTR && handled == 1 ? 0 : 10 + (int)n);
}

static void read_restarted(void)
{
	char c = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal_write;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	ssize_t n = read(hold[0], &c, 1);
	_exit(n == 1 && c == 'y' && handled == 1 ? 0 : 20 + (int)n);
}

static void poll_eintr(void)
{
	struct pollfd p = { hold[0], POLLIN, 0 };
	catch(SIGALRM, SA_RESTART);
	alarm(1);
	int n = poll(&p, 1, -1);
	_exit(n == -1 && errno == EINTR && handled == 1 ? 0 : 30 + n);
}

static void nanosleep_eintr_with_time_left(void)
{
	struct timespec ts = { 5, 0 }, left = { 0, 0 };
	catch(SIGALRM, 0);
	alarm(1);
	int r = nanosleep(&ts, &left);
	_exit(r == -1 && errno == EINTR && handled == 1 && left.tv_sec >= 3 && left.tv_sec <= 4
		      ? 0 : 40);
}

static void handled_in(const char *what, void (*fn)(void))
{
	int st = 0;
	pid_t pid = start(fn);
	pid_t got = reap(pid, &st);
	tap_check(got == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, what,
		  got ? "wait status %#x" : "no answer in %d ms (%d)", got ? st : DEADLINE_MS, st);
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
	killed_in("a read of an empty pipe", sleep_in_pipe_read);
	killed_in("a write to a full pipe", sleep_in_pipe_write);
	killed_in("wait4 for a sleeping child", sleep_in_wait4);
	killed_in("nanosleep", sleep_in_nanosleep);
	killed_in("poll", sleep_in_poll);
	killed_in("pause", sleep_in_pause);
	if (only)
		return tap_done();
	handled_in("a handled SIGALRM without SA_RESTART: a read of an empty pipe fails with EINTR",
		   read_eintr);
	handled_in("with SA_RESTART the read goes on, and returns what the handler wrote",
		   read_restarted);
	handled_in("poll fails with EINTR even with SA_RESTART", poll_eintr);
	handled_in("SIGALRM interrupts nanosleep: EINTR, and the time left is returned",
		   nanosleep_eintr_with_time_left);
	return tap_done();
}
