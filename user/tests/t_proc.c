/*
 * t_proc - processes: fork, exit statuses, death by signal, execve,
 * process ids, reaping with wait4, and pipes between parent and child.
 *
 * To test execve without depending on /bin, the test runs itself again
 * in a child mode ("--child-echo", "--child-fds"); it finds its own
 * path from argv[0], searching PATH when argv[0] has no '/'.
 * Pipes are made with pipe2(): musl's pipe() is the older syscall 22.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

extern char **environ;
static char self[PATH_MAX];

/* Child mode: print the arguments and $T_PROC_VAR, exit 42. */
static int child_echo(int argc, char **argv)
{
	const char *v = getenv("T_PROC_VAR");
	for (int i = 2; i < argc; i++)
		printf("%s ", argv[i]);
	printf("[%s]", v ? v : "unset");
	fflush(stdout);
	return 42;
}

/* Child mode: descriptor argv[2] must be closed, argv[3] open. */
static int child_fds(char **argv)
{
	int closed = atoi(argv[2]), open_fd = atoi(argv[3]);
	if (fcntl(closed, F_GETFD) != -1 || errno != EBADF)
		return 1;
	return fcntl(open_fd, F_GETFD) == -1 ? 2 : 0;
}

/* Find our own executable, as an absolute path, before any chdir. */
static void find_self(const char *argv0)
{
	char cwd[PATH_MAX];
	if (argv0[0] == '/') {
		snprintf(self, sizeof self, "%s", argv0);
		return;
	}
	if (strchr(argv0, '/') && getcwd(cwd, sizeof cwd)) {
		if (snprintf(self, sizeof self, "%s/%s", cwd, argv0) < (int)sizeof self)
			return;
	}
	const char *path = getenv("PATH");
	char dirs[PATH_MAX];
	snprintf(dirs, sizeof dirs, "%s", path ? path : "/bin:/tests");
	for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
		struct stat st;   /* stat, not access(): one syscall fewer to need */
		snprintf(self, sizeof self, "%s/%s", d, argv0);
		if (stat(self, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return;
	}
	snprintf(self, sizeof self, "/tests/t_proc");
}

static void test_exit_status(void)
{
	static const int codes[] = { 0, 1, 255, 256 + 7 };
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(codes[i]);
		char what[80];
		snprintf(what, sizeof what, "_exit(%d) gives WIFEXITED with %d",
			 codes[i], codes[i] & 0xff);
		tap_check_exit(pid, codes[i] & 0xff, what);
	}
	pid_t pid = fork();
	if (pid == 0)
		exit(9);   /* through libc: exit_group */
	tap_check_exit(pid, 9, "exit(9) gives WIFEXITED with 9");
}

/* Faults in the child; each must end it with the right signal. */
static void fault_null(void)
{
	volatile uintptr_t addr = 0;
	*(volatile int *)addr = 1;
}

static void fault_kernel(void)
{
	volatile uintptr_t addr = 0xffffffff80000000ul;
	(void)*(volatile int *)addr;
}

static void fault_noncanonical(void)
{
	volatile uintptr_t addr = 0x0000800000000000ul;
	(void)*(volatile int *)addr;
}

static void fault_ud2(void)
{
	__asm__ volatile("ud2");
}

static void fault_divide(void)
{
	volatile int zero = 0, one = 1;
	one /= zero;
}

static void test_fault_signals(void)
{
	static const struct {
		void (*fn)(void);
		int sig;
		const char *what;
	} faults[] = {
		{ fault_null, SIGSEGV, "a store to NULL kills the child with SIGSEGV" },
		{ fault_kernel, SIGSEGV, "a load from a kernel address kills with SIGSEGV" },
		{ fault_noncanonical, SIGSEGV, "a load from a non-canonical address kills with SIGSEGV" },
		{ fault_ud2, SIGILL, "an undefined instruction kills with SIGILL" },
		{ fault_divide, SIGFPE, "a division by zero kills with SIGFPE" },
	};
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			faults[i].fn();
			_exit(0);
		}
		tap_check_killed(pid, faults[i].sig, faults[i].what);
	}
}

/* A child blocked reading a pipe that never gets data, then killed. */
static void test_kill(int sig, const char *what)
{
	int p[2];
	char c;
	pipe2(p, 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);   /* blocks: the parent holds the write end */
		_exit(0);
	}
	close(p[0]);
	CHECK_OK(kill(pid, sig), "kill of a live child succeeds");
	tap_check_killed(pid, sig, what);
	close(p[1]);
}

static void test_ids(void)
{
	int p[2];
	pipe2(p, 0);
	pid_t me = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		pid_t ids[2] = { getpid(), getppid() };
		write(p[1], ids, sizeof ids);
		_exit(0);
	}
	pid_t ids[2] = { 0, 0 };
	read(p[0], ids, sizeof ids);
	waitpid(pid, NULL, 0);
	CHECK(pid > 0 && pid != me, "fork returns a new pid to the parent");
	CHECK_EQ(ids[0], pid, "the child's getpid is what fork returned");
	CHECK_EQ(ids[1], me, "the child's getppid is the parent's getpid");
	CHECK_EQ(syscall(SYS_gettid), me, "a single-threaded process has tid == pid");
	close(p[0]);
	close(p[1]);
}

static int global_value = 1;

static void test_copy_on_fork(void)
{
	int local = 10;
	pid_t pid = fork();
	if (pid == 0) {
		global_value = 2;
		local = 20;
		_exit(global_value == 2 && local == 20 ? 0 : 1);
	}
	tap_check_exit(pid, 0, "the child changes its own copies of memory");
	CHECK(global_value == 1 && local == 10, "the child's stores are not seen by the parent");
}

static void test_reap(void)
{
	pid_t kids[3];
	for (int i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(10 + i);
	}
	int found = 0, st;
	pid_t r;
	while ((r = wait4(-1, &st, 0, NULL)) > 0) {
		for (int i = 0; i < 3; i++)
			if (r == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 10 + i)
				found |= 1 << i;
	}
	CHECK_EQ(found, 7, "wait4(-1) reaps every zombie with its own status");
	CHECK_ERR(wait4(-1, &st, 0, NULL), ECHILD, "wait4 with no children gives ECHILD");
	CHECK_ERR(waitpid(getpid(), &st, 0), ECHILD, "waitpid of a non-child gives ECHILD");

	int p[2];
	char c;
	pipe2(p, 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);
		_exit(5);
	}
	CHECK_EQ(wait4(pid, &st, WNOHANG, NULL), 0, "WNOHANG on a running child returns 0");
	close(p[0]);
	close(p[1]);   /* the child's read now returns 0 */
	tap_check_exit(pid, 5, "the child ends once the pipe's writer closes");
}

static void test_pipe(void)
{
	enum { SIZE = 200000 };   /* more than a pipe holds: the writer blocks */
	int p[2];
	pipe2(p, 0);
	pid_t pid = fork();
	if (pid == 0) {
		static unsigned char out[SIZE];
		close(p[0]);
		for (int i = 0; i < SIZE; i++)
			out[i] = (unsigned char)(i % 251);
		for (ssize_t off = 0, n; off < SIZE; off += n)
			if ((n = write(p[1], out + off, SIZE - off)) <= 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	static unsigned char in[SIZE + 1];
	ssize_t got = 0, n;
	while ((n = read(p[0], in + got, sizeof in - got)) > 0)
		got += n;
	int same = got == SIZE;
	for (ssize_t i = 0; same && i < got; i++)
		same = in[i] == (unsigned char)(i % 251);
	CHECK(same, "200000 bytes cross a pipe from child to parent intact");
	CHECK_EQ(n, 0, "read returns 0 once every writer has closed");
	tap_check_exit(pid, 0, "the writing child exits 0");
	close(p[0]);
}

static void test_execve(void)
{
	int p[2];
	pipe2(p, 0);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { self, "--child-echo", "hello", "world", NULL };
		char *envp[] = { "T_PROC_VAR=passed", NULL };
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execve(self, argv, envp);
		_exit(127);
	}
	close(p[1]);
	char buf[128] = { 0 };
	ssize_t got = 0, n;
	while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
		got += n;
	close(p[0]);
	tap_check_exit(pid, 42, "execve runs the program, which sets the exit status");
	tap_check(!strcmp(buf, "hello world [passed]"), "execve passes argv and envp",
		  "output \"%s\"", buf);
}

static void test_execve_cloexec(void)
{
	int keep = open(self, O_RDONLY);
	int shut = open(self, O_RDONLY | O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		char a[16], b[16];
		snprintf(a, sizeof a, "%d", shut);
		snprintf(b, sizeof b, "%d", keep);
		char *argv[] = { self, "--child-fds", a, b, NULL };
		execve(self, argv, environ);
		_exit(127);
	}
	tap_check_exit(pid, 0, "execve closes O_CLOEXEC descriptors and keeps the others");
	close(keep);
	close(shut);
}

static void test_execve_errors(void)
{
	char *argv[] = { "x", NULL };
	CHECK_ERR(execve("no-such-program", argv, environ), ENOENT,
		  "execve of a missing file gives ENOENT");
	CHECK_ERR(execve(".", argv, environ), EACCES, "execve of a directory gives EACCES");
	int fd = open("notelf", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	write(fd, "\1\2\3\4 this is not a program\n", 28);
	close(fd);
	CHECK_ERR(execve("notelf", argv, environ), ENOEXEC,
		  "execve of an executable file that is no ELF gives ENOEXEC");
	fd = open("noexec", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	/* root bypasses permission bits, but not a missing execute bit */
	CHECK_ERR(execve("noexec", argv, environ), EACCES,
		  "execve of a file without execute permission gives EACCES");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--child-echo"))
		return child_echo(argc, argv);
	if (argc > 3 && !strcmp(argv[1], "--child-fds"))
		return child_fds(argv);
	if (argc > 1) {
		printf("usage: t_proc\nChecks fork, exit, wait4, signals,"
		       " execve and pipes; prints one line per check.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	find_self(argv[0]);
	tap_enter_scratch("t_proc");
	test_exit_status();
	test_fault_signals();
	test_kill(SIGKILL, "kill(SIGKILL) ends the child with SIGKILL");
	test_kill(SIGTERM, "kill(SIGTERM) with the default action ends it with SIGTERM");
	test_ids();
	test_copy_on_fork();
	test_reap();
	test_pipe();
	test_execve();
	test_execve_cloexec();
	test_execve_errors();
	tap_leave_scratch();
	return tap_done();
}
