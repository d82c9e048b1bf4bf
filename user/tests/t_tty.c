/*
 * t_tty - the console as a controlling terminal (Roundabout only: it
 * needs the console as its standard input, in init's session, started
 * by init in a foreground group of its own, which a test on the host has
 * no way to be sure of).
 *
 * termios: Linux's settings at boot, TCSETS/TCGETS round trips, raw reads
 * by VMIN and VTIME; SIGKILL ends a read asleep on the terminal; job
 * control: tcgetpgrp/tcsetpgrp and their errors, a background group's read
 * gets SIGTTIN (EIO when it ignores it), its tcsetattr SIGTTOU, and with
 * TOSTOP its write too; TIOCSCTTY's refusals; kill(-1). Nothing is typed:
 * the typed signals are checked by tests/tty/run-tty-tests, through tmux.
 *
 * `t_tty raw` is the typed half of that script's raw-mode test: it turns
 * ICANON, ECHO and ISIG off, and prints what each read returns (VMIN 3,
 * then VMIN 1 for a C-c) as "raw: read N: HEX..." for the script to judge.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <sys/wait.h>

#include "tap.h"

static void boot_settings(void)
{
	struct termios t;
	CHECK_OK(tcgetattr(0, &t), "tcgetattr on the console");
	CHECK_EQ(t.c_iflag, ICRNL | IXON, "c_iflag is Linux's default (icrnl ixon)");
	CHECK_EQ(t.c_oflag, OPOST | ONLCR, "c_oflag is opost onlcr");
	CHECK_EQ(t.c_cflag, B38400 | CS8 | CREAD | HUPCL, "c_cflag is 38400 cs8 cread hupcl");
	CHECK_EQ(t.c_lflag, ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
		 "c_lflag is isig icanon echo echoe echok echoctl echoke iexten");
	CHECK(t.c_cc[VINTR] == 3 && t.c_cc[VQUIT] == 034 && t.c_cc[VERASE] == 0177 &&
	      t.c_cc[VKILL] == 025 && t.c_cc[VEOF] == 4 && t.c_cc[VSUSP] == 032 &&
	      t.c_cc[VWERASE] == 027 && t.c_cc[VMIN] == 1 && t.c_cc[VTIME] == 0,
	      "c_cc: intr ^C quit ^\\ erase ^? kill ^U eof ^D susp ^Z werase ^W min 1 time 0");
}

static void round_trip(void)
{
	struct termios old, t, back;
	tcgetattr(0, &old);
	t = old;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_oflag &= ~ONLCR;
	t.c_cc[VMIN] = 3;
	t.c_cc[VTIME] = 7;
	CHECK_OK(tcsetattr(0, TCSANOW, &t), "tcsetattr TCSANOW");
	tcgetattr(0, &back);
	CHECK(back.c_lflag == t.c_lflag && back.c_oflag == t.c_oflag &&
	      back.c_cc[VMIN] == 3 && back.c_cc[VTIME] == 7, "TCGETS returns what TCSETS stored");
	CHECK_OK(tcsetattr(0, TCSAFLUSH, &old), "tcsetattr TCSAFLUSH puts the old settings back");
	tcgetattr(0, &back);
	CHECK(back.c_lflag == old.c_lflag && back.c_oflag == old.c_oflag, "and TCGETS sees them");
	CHECK_OK(tcflush(0, TCIFLUSH), "tcflush TCIFLUSH");
	CHECK_ERR(tcflush(0, 7), EINVAL, "tcflush with a bad queue is EINVAL");
	int n = -1;
	CHECK(ioctl(0, FIONREAD, &n) == 0 && n == 0, "FIONREAD: nothing typed");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Raw reads with nothing typed: VMIN 0 returns at once, or after VTIME. */
static void raw_reads(void)
{
	struct termios old, t;
	char c;
	tcgetattr(0, &old);
	t = old;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tcsetattr(0, TCSANOW, &t);
	CHECK_EQ(read(0, &c, 1), 0, "raw, VMIN 0 VTIME 0: read returns 0 at once");
	t.c_cc[VTIME] = 2;
	tcsetattr(0, TCSANOW, &t);
	double t0 = now_s();
	ssize_t r = read(0, &c, 1);
	double took = now_s() - t0;
	CHECK(r == 0 && took >= 0.15, "raw, VMIN 0 VTIME 2: read returns 0 after 0.2 s");
	tcsetattr(0, TCSANOW, &old);
}

static void foreground(void)
{
	CHECK_EQ(tcgetpgrp(0), getpgrp(), "tcgetpgrp: we are in the foreground group");
	pid_t sid = -1;
	CHECK(ioctl(0, TIOCGSID, &sid) == 0 && sid == getsid(0), "TIOCGSID is our session");
	CHECK_EQ(getsid(1), 1, "init leads the first session");
	CHECK_EQ(getpgid(1), 1, "and the first group");
	CHECK_OK(tcsetpgrp(0, getpgrp()), "tcsetpgrp to our own group");
	CHECK_ERR(tcsetpgrp(0, 999999), ESRCH, "tcsetpgrp to a group nobody is in is ESRCH");
	CHECK_ERR(tcsetpgrp(0, -5), EINVAL, "tcsetpgrp to a negative group is EINVAL");
	CHECK_ERR(ioctl(0, TIOCSCTTY, 0), EPERM, "TIOCSCTTY by a process that leads no session");
}

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

#define DEADLINE_MS 5000

/* A child of our foreground group asleep reading the terminal (nothing is
 * typed) is ended by SIGKILL, sent once /proc shows it asleep (S). */
static void killed_reading(void)
{
	char c;
	int st = 0, waited = 0;
	pid_t pid = fork(), got = 0;
	if (pid == 0) {
		read(0, &c, 1);
		_exit(99);
	}
	while (state_of(pid) != 'S' && waited++ < DEADLINE_MS)
		nap_ms(1);
	kill(pid, SIGKILL);
	for (waited = 0; !got && waited < DEADLINE_MS; waited++) {
		got = waitpid(pid, &st, WNOHANG);
		if (!got)
			nap_ms(1);
	}
	tap_check(got == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		  "SIGKILL ends a foreground read asleep on the terminal",
		  got ? "wait status %#x" : "still asleep %d ms after SIGKILL", got ? st : DEADLINE_MS);
	if (!got) {		/* leave no reader behind */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

/* In a child: a session of its own may not take init's terminal, nor
 * may init's session make the child's group its foreground. */
static int child_other_session(int ready_fd, int hold_fd)
{
	char c;
	setsid();
	if (ioctl(0, TIOCSCTTY, 0) != -1 || errno != EPERM)
		return 1;
	write(ready_fd, "s", 1);
	read(hold_fd, &c, 1);
	return 0;
}

static void other_session(void)
{
	int ready[2], hold[2];
	char c;
	pipe2(ready, O_CLOEXEC);
	pipe2(hold, O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		close(hold[1]);
		_exit(child_other_session(ready[1], hold[0]));
	}
	read(ready[0], &c, 1);
	CHECK_ERR(tcsetpgrp(0, pid), EPERM, "tcsetpgrp to a group of another session is EPERM");
	close(hold[1]);
	tap_check_exit(pid, 0, "a new session's TIOCSCTTY on a taken terminal is EPERM");
	close(ready[0]);
	close(ready[1]);
	close(hold[0]);
}

static volatile sig_atomic_t got;
static void on_sig(int sig) { got = sig; }

/* In a child moved to a background group: what reading and setting the
 * terminal do. Exit status: 0, or the number of the check that failed. */
static int child_background(void)
{
	char c;
	struct termios t;
	struct sigaction sa = { .sa_handler = on_sig };	/* no SA_RESTART */
	if (setpgid(0, 0) != 0 || tcgetpgrp(0) == getpgrp())
		return 1;
	sigaction(SIGTTIN, &sa, NULL);
	if (read(0, &c, 1) != -1 || errno != EINTR || got != SIGTTIN)
		return 2;		/* SIGTTIN came, its handler ran, read gave EINTR */
	signal(SIGTTIN, SIG_IGN);
	if (read(0, &c, 1) != -1 || errno != EIO)
		return 3;		/* ignored: EIO */
	tcgetattr(0, &t);
	got = 0;
	sigaction(SIGTTOU, &sa, NULL);
	if (tcsetattr(0, TCSANOW, &t) != -1 || errno != EINTR || got != SIGTTOU)
		return 4;		/* tcsetattr from the background: SIGTTOU */
	signal(SIGTTOU, SIG_IGN);
	if (tcsetattr(0, TCSANOW, &t) != 0)
		return 5;		/* ignored: it goes ahead */
	if (write(1, "", 0) != 0)
		return 6;		/* writing is allowed without TOSTOP */
	return 0;
}

static void background(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_background());
	tap_check_exit(pid, 0,
		       "a background read gets SIGTTIN (EIO if ignored), tcsetattr SIGTTOU");
}

/* In a child moved to a background group, TOSTOP set: a write gets
 * SIGTTOU; blocked or ignored, it goes ahead. 0, or the failed step.
 * Each write is a newline, so what gets through is an empty line, never
 * the start of a result line. */
static int child_tostop(void)
{
	struct sigaction sa = { .sa_handler = on_sig };	/* no SA_RESTART */
	sigset_t ttou;
	if (setpgid(0, 0) != 0 || tcgetpgrp(0) == getpgrp())
		return 1;
	got = 0;
	sigaction(SIGTTOU, &sa, NULL);
	if (write(1, "\n", 1) != -1 || errno != EINTR || got != SIGTTOU)
		return 2;		/* SIGTTOU came, its handler ran, write gave EINTR */
	got = 0;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	if (write(1, "\n", 1) != 1 || got)
		return 3;		/* blocked: it goes ahead (an empty line), nothing sent */
	sigprocmask(SIG_UNBLOCK, &ttou, NULL);
	signal(SIGTTOU, SIG_IGN);
	if (write(1, "\n", 1) != 1)
		return 4;		/* ignored: it goes ahead */
	return 0;
}

static void background_write_tostop(void)
{
	struct termios old, t;
	tcgetattr(0, &old);
	t = old;
	t.c_lflag |= TOSTOP;
	tcsetattr(0, TCSANOW, &t);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_tostop());
	tap_check_exit(pid, 0,
		       "with TOSTOP a background write gets SIGTTOU (goes ahead if blocked or ignored)");
	tcsetattr(0, TCSANOW, &old);
}

/* Hand the terminal to a child's group and take it back, as a shell does. */
static void hand_over(void)
{
	int hold[2];
	char c;
	pipe2(hold, O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		close(hold[1]);
		read(hold[0], &c, 1);
		_exit(0);
	}
	setpgid(pid, pid);
	CHECK_OK(tcsetpgrp(0, pid), "tcsetpgrp hands the terminal to a child's group");
	CHECK_EQ(tcgetpgrp(0), pid, "tcgetpgrp names that group");
	/* init started us in a group of our own: our parent is init, so
	 * the group is orphaned and cannot be stopped: EIO, not a signal. */
	CHECK_ERR(read(0, &c, 1), EIO, "a background read of an orphaned group is EIO");
	CHECK_ERR(tcsetpgrp(0, getpgrp()), EIO,
		  "so is its tcsetpgrp while it does not ignore SIGTTOU");
	signal(SIGTTOU, SIG_IGN);
	CHECK_OK(tcsetpgrp(0, getpgrp()), "ignoring SIGTTOU, we take the terminal back");
	signal(SIGTTOU, SIG_DFL);
	CHECK_EQ(tcgetpgrp(0), getpgrp(), "and are the foreground again");
	close(hold[1]);
	close(hold[0]);
	tap_check_exit(pid, 0, "the child ends");
}

static void kill_everyone(void)
{
	int hold[2];
	char c;
	pipe2(hold, O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		close(hold[1]);
		read(hold[0], &c, 1);
		_exit(0);
	}
	signal(SIGUSR1, on_sig);
	got = 0;
	CHECK_OK(kill(-1, SIGUSR1), "kill(-1, SIGUSR1)");
	tap_check_killed(pid, SIGUSR1, "reaches another process");
	CHECK_EQ(got, 0, "but not the caller");
	close(hold[0]);
	close(hold[1]);
}

/* One read of up to 16 bytes, printed as "raw: read N: HEX HEX ...". */
static void read_and_show(void)
{
	unsigned char buf[16];
	ssize_t n = read(0, buf, sizeof(buf));
	printf("raw: read %zd:", n);
	for (ssize_t i = 0; i < n; i++)
		printf(" %02x", buf[i]);
	printf("\n");
}

/* `t_tty raw`: typed at by tests/tty/run-tty-tests, which waits for each
 * "ready" line before it types. */
static int typed_raw(void)
{
	struct termios old, t;
	tcgetattr(0, &old);
	t = old;
	t.c_lflag &= ~(ICANON | ECHO | ISIG);
	t.c_cc[VMIN] = 3;
	t.c_cc[VTIME] = 0;
	tcsetattr(0, TCSANOW, &t);
	printf("raw: ready for 3 bytes\n");
	read_and_show();
	t.c_cc[VMIN] = 1;
	tcsetattr(0, TCSANOW, &t);
	printf("raw: ready for C-c\n");
	read_and_show();
	tcsetattr(0, TCSANOW, &old);
	printf("raw: done\n");
	return 0;
}

int main(int argc, char **argv)
{
	tap_start();
	if (argc > 1 && !strcmp(argv[1], "raw"))
		return typed_raw();
	boot_settings();
	round_trip();
	raw_reads();
	foreground();
	killed_reading();
	other_session();
	background();
	background_write_tostop();
	hand_over();
	kill_everyone();
	return tap_done();
}
