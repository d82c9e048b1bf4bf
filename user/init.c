/*
 * init - the first process (PID 1).
 *
 * 1. If /etc/rc exists, run "/bin/sh /etc/rc" and wait for it.
 * 2. If /etc/run.argv exists, it holds the argv of one program, each
 *    argument ended by a NUL byte (argv[0] is the program's path); run it.
 *    An empty file means there is nothing to run. Without the file, run
 *    /bin/sh on the console.
 * 3. Reap every child, orphans included, until that program ends, then
 *    exit with its status as a shell reports it: the exit code, or 128 +
 *    the signal that killed it. The kernel turns init's exit into its
 *    final "exit N" line and powers off.
 *
 * The kernel hands init descriptors 0, 1 and 2 open on the console; the
 * programs inherit them, with PATH=/bin:/tests HOME=/ TERM=dumb, each in
 * a process group of its own that is the console's foreground group.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_ARGS = 256 };

static char *const envp[] = { "PATH=/bin:/tests", "HOME=/", "TERM=dumb", NULL };

/* Start argv[0] in a child; returns its pid, or -1 if fork failed. */
static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		/* A process group of its own, made the terminal's foreground
		 * (as a shell does for a job), so that a typed ^C or ^Z goes
		 * to the program, never to init. SIGTTOU is ignored meanwhile:
		 * until tcsetpgrp the child is in the background. */
		setpgid(0, 0);
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(0, getpid());
		signal(SIGTTOU, SIG_DFL);
		execve(argv[0], argv, envp);
		fprintf(stderr, "init: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0)
		fprintf(stderr, "init: fork: %s\n", strerror(errno));
	return pid;
}

/*
 * Reap children until pid ends; as PID 1 we also collect every orphan.
 * Returns pid's status as a shell reports it.
 */
static int reap_until(pid_t pid)
{
	for (;;) {
		int st;
		pid_t r = waitpid(-1, &st, 0);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "init: wait: %s\n", strerror(errno));
			return 127;
		}
	}
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Read all of path into a NUL-terminated buffer; returns its length or -1. */
static ssize_t read_all(const char *path, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;
	if (fd < 0 || !buf) {
		free(buf);
		return -1;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap && !(buf = realloc(buf, (cap *= 2) + 1)))
			break;
	}
	close(fd);
	if (n < 0 || !buf) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

/* Split a NUL-separated buffer into argv; returns argc. */
static int split_argv(char *buf, size_t len, char **argv)
{
	int argc = 0;
	for (size_t i = 0; i < len && argc < MAX_ARGS; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	return argc;
}

/* Run the program named by /etc/run.argv; returns its status. */
static int run_argv_file(void)
{
	char *buf, *argv[MAX_ARGS + 1];
	ssize_t len = read_all("/etc/run.argv", &buf);
	if (len < 0) {
		fprintf(stderr, "init: /etc/run.argv: %s\n", strerror(errno));
		return 127;
	}
	if (split_argv(buf, (size_t)len, argv) == 0)
		return 0;      /* an empty file: nothing to run */
	pid_t pid = spawn(argv);
	return pid < 0 ? 127 : reap_until(pid);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: init\nThe first process: runs /etc/rc, then the argv in"
		       " /etc/run.argv (NUL-separated)\nor else /bin/sh, and exits"
		       " with that program's status.\n");
		return 0;
	}
	if (exists("/etc/rc")) {
		char *rc[] = { "/bin/sh", "/etc/rc", NULL };
		pid_t pid = spawn(rc);
		int st = pid > 0 ? reap_until(pid) : 127;
		if (st != 0)       /* worth a line, but the boot goes on */
			fprintf(stderr, "init: /etc/rc: exit %d\n", st);
	}
	if (exists("/etc/run.argv"))
		return run_argv_file();
	char *sh[] = { "/bin/sh", NULL };
	pid_t pid = spawn(sh);
	return pid < 0 ? 127 : reap_until(pid);
}
