/*
 * t_pgrp - process groups and sessions as Linux has them: setsid,
 * setpgid and its errors, getpgid, getpgrp, getsid, and kill of a group
 * (kill(0, ...), kill(-pgid, ...)).
 *
 * It runs on the host too, so it assumes nothing about where it was
 * started (its session, group, or whether it has a terminal): every check
 * is relative to its own ids, and terminal checks are made from a new
 * session, which has no controlling terminal anywhere (ENOTTY).
 *
 * Children that must stay alive block reading a pipe until the parent
 * closes it ("sleepers"), so no check depends on timing.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "tap.h"

/* A child blocked reading a pipe; it exits 0 when the pipe is closed. */
struct sleeper {
	pid_t pid;
	int wfd;		/* closing it ends the child */
};

static struct sleeper spawn_sleeper(void)
{
	int p[2];
	struct sleeper s = { -1, -1 };
	if (pipe2(p, O_CLOEXEC) < 0)
		return s;
	s.pid = fork();
	if (s.pid == 0) {
		char c;
		for (int fd = 3; fd < 64; fd++)	/* other sleepers' pipes too */
			if (fd != p[0])
				close(fd);
		while (read(p[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	s.wfd = p[1];
	return s;
}

static void end_sleeper(struct sleeper *s, const char *what)
{
	close(s->wfd);
	tap_check_exit(s->pid, 0, what);
}

/* Run fn in a child; its exit status is fn's result (0: all good). */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn());
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void ids_of_self(void)
{
	pid_t me = getpid();
	CHECK_EQ(getpgid(0), getpgrp(), "getpgid(0) is getpgrp()");
	CHECK_EQ(getpgid(me), getpgrp(), "getpgid(getpid()) is getpgrp()");
	CHECK_EQ(getsid(me), getsid(0), "getsid(getpid()) is getsid(0)");
	CHECK_ERR(getpgid(-1), ESRCH, "getpgid(-1) is ESRCH");
	CHECK_ERR(getsid(-5), ESRCH, "getsid(-5) is ESRCH");
}

static void ids_of_gone_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	CHECK_ERR(getpgid(pid), ESRCH, "getpgid of a reaped child is ESRCH");
	CHECK_ERR(getsid(pid), ESRCH, "getsid of a reaped child is ESRCH");
}

static int child_inherits(void)
{
	return getpgrp() == getpgid(getppid()) && getsid(0) == getsid(getppid()) ? 0 : 1;
}

/* A new session: led by the caller, its own group, and no terminal. */
static int child_new_session(void)
{
	pid_t me = getpid();
	if (setsid() != me)
		return 1;
	if (getsid(0) != me || getpgrp() != me)
		return 2;
	if (setpgid(0, 0) != -1 || errno != EPERM)
		return 3;			/* a session leader cannot move */
	if (setsid() != -1 || errno != EPERM)
		return 4;			/* it already leads a group */
	pid_t pg = 0;
	int fd = isatty(0) ? 0 : isatty(2) ? 2 : 1;	/* a terminal if we have one */
	if (ioctl(fd, TIOCGPGRP, &pg) != -1 || errno != ENOTTY)
		return 5;			/* no controlling terminal */
	if (ioctl(fd, TIOCSPGRP, &me) != -1 || errno != ENOTTY)
		return 6;
	if (ioctl(fd, TIOCGSID, &pg) != -1 || errno != ENOTTY)
		return 7;
	return 0;
}

static int child_group_leader_setsid(void)
{
	if (setpgid(0, 0) != 0 || getpgrp() != getpid())
		return 1;
	return setsid() == -1 && errno == EPERM ? 0 : 2;
}

static void sessions(void)
{
	CHECK_EQ(in_child(child_inherits), 0, "fork inherits the group and the session");
	CHECK_EQ(in_child(child_new_session), 0,
		 "setsid makes a session and group led by the caller, without a terminal");
	CHECK_EQ(in_child(child_group_leader_setsid), 0, "setsid by a group leader is EPERM");
}

static void setpgid_moves(void)
{
	struct sleeper a = spawn_sleeper(), b = spawn_sleeper();
	CHECK_OK(setpgid(a.pid, 0), "setpgid(child, 0) makes the child a group leader");
	CHECK_EQ(getpgid(a.pid), a.pid, "getpgid(child) is its own pid");
	CHECK_OK(setpgid(b.pid, a.pid), "setpgid moves another child into that group");
	CHECK_EQ(getpgid(b.pid), a.pid, "getpgid(second child) is the first's group");
	CHECK_EQ(getsid(a.pid), getsid(0), "the group is in the caller's session");
	CHECK_OK(setpgid(b.pid, getpgrp()), "setpgid moves a child back to the parent's group");
	CHECK_EQ(getpgid(b.pid), getpgrp(), "and getpgid sees it back");
	CHECK_ERR(setpgid(b.pid, b.pid + 100000), EPERM, "setpgid to a group nobody leads is EPERM");
	CHECK_ERR(setpgid(0, -1), EINVAL, "setpgid with a negative group is EINVAL");
	CHECK_ERR(setpgid(getppid(), 0), ESRCH, "setpgid of a process not our child is ESRCH");
	CHECK_ERR(setpgid(-3, getpgrp()), ESRCH, "setpgid of a negative pid is ESRCH");
	CHECK_ERR(setpgid(-3, 0), EINVAL, "setpgid(-3, 0): the group -3 is EINVAL first");
	end_sleeper(&a, "first sleeper ends");
	end_sleeper(&b, "second sleeper ends");
}

/* A child that has called execve: cat, reading the pipe until it closes. */
static void setpgid_after_exec(void)
{
	int in[2], execd[2];
	char c;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(execd, O_CLOEXEC) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		execl("/bin/cat", "cat", (char *)0);
		_exit(127);
	}
	close(in[0]);
	close(execd[1]);
	/* execve closes the child's copy of execd[1]: then read sees EOF. */
	CHECK_EQ(read(execd[0], &c, 1), 0, "the child has called execve");
	CHECK_ERR(setpgid(pid, pid), EACCES, "setpgid of a child after its execve is EACCES");
	close(in[1]);
	close(execd[0]);
	tap_check_exit(pid, 0, "cat ends at the end of its input");
}

/* A child in a session of its own: the parent may not move it. */
static void setpgid_other_session(void)
{
	int ready[2], hold[2];
	char c;
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(hold[1]);
		setsid();
		write(ready[1], "s", 1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	CHECK_EQ(read(ready[0], &c, 1), 1, "the child has made its own session");
	CHECK_EQ(getsid(pid), pid, "getsid of that child is its pid");
	CHECK_ERR(setpgid(pid, pid), EPERM, "setpgid of a child in another session is EPERM");
	CHECK_ERR(setpgid(0, pid), EPERM, "joining a group of another session is EPERM");
	CHECK_EQ(kill(-pid, 0), 0, "kill(-pgid, 0) finds a group of another session");
	close(hold[1]);
	close(ready[0]);
	tap_check_exit(pid, 0, "that child ends");
}

static void kill_group(void)
{
	struct sleeper a = spawn_sleeper(), b = spawn_sleeper();
	setpgid(a.pid, a.pid);
	setpgid(b.pid, a.pid);
	CHECK_ERR(kill(-a.pid, 99), EINVAL, "kill(-pgid) with a bad signal is EINVAL");
	CHECK_OK(kill(-a.pid, SIGTERM), "kill(-pgid, SIGTERM) succeeds");
	tap_check_killed(a.pid, SIGTERM, "it reaches the group's leader");
	tap_check_killed(b.pid, SIGTERM, "and the group's other member");
	close(a.wfd);
	close(b.wfd);
	CHECK_ERR(kill(-a.pid, SIGTERM), ESRCH, "kill(-pgid) of an empty group is ESRCH");
	CHECK_ERR(kill(-a.pid, 99), ESRCH, "an empty group is ESRCH before a bad signal");
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { (void)sig; got_usr1 = 1; }

/* kill(0, SIGUSR1) from a group leader reaches itself and its child. */
static int child_kill_own_group(void)
{
	if (setpgid(0, 0) != 0)
		return 1;
	struct sleeper s = spawn_sleeper();	/* it keeps SIGUSR1's default */
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	if (kill(0, SIGUSR1) != 0)
		return 2;
	int st = 0;
	if (waitpid(s.pid, &st, 0) != s.pid || !WIFSIGNALED(st) || WTERMSIG(st) != SIGUSR1)
		return 3;
	return got_usr1 ? 0 : 4;	/* delivered before kill returned */
}

static void kill_zero(void)
{
	CHECK_EQ(in_child(child_kill_own_group), 0,
		 "kill(0, sig) reaches the caller and the rest of its group");
	struct sleeper s = spawn_sleeper();
	CHECK_EQ(kill(-1, 0), 0, "kill(-1, 0) finds another process");
	end_sleeper(&s, "the sleeper ends");
}

int main(void)
{
	tap_start();
	ids_of_self();
	ids_of_gone_pid();
	sessions();
	setpgid_moves();
	setpgid_after_exec();
	setpgid_other_session();
	kill_group();
	kill_zero();
	return tap_done();
}
