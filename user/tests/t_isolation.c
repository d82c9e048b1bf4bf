/*
 * t_isolation - every pointer-taking system call that t_badptr does not
 * already cover, handed each address of badaddr.h (kernel ranges, non-
 * canonical, NULL, holes, past the top of user space) for each of its
 * pointers: path names, structures read and structures written, and the
 * pointers a call only stores for later (clone's tid pointers,
 * set_tid_address, set_robust_list). Each gives EFAULT, or exactly what
 * Linux gives; the process survives all of them. Whether kernel memory
 * stayed unchanged is t_kernel_hash's business (Roundabout only).
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "badaddr.h"

#define FUTEX_WAIT_PRIVATE 128	/* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
#define FUTEX_WAKE_PRIVATE 129

static const char *self;	/* argv[0]: an executable for execve */

static void setup(void)
{
	badaddr_setup();
	close(open("file", O_WRONLY | O_CREAT, 0644));
	mkdir("dir", 0755);
}

/* Calls that take one path name. */
static void test_one_path(void)
{
	FOR_EACH_BAD("access of a path at", syscall(SYS_access, bad, F_OK));
	FOR_EACH_BAD("faccessat of a path at", syscall(SYS_faccessat, AT_FDCWD, bad, F_OK, 0));
	FOR_EACH_BAD("faccessat2 of a path at", syscall(SYS_faccessat2, AT_FDCWD, bad, F_OK, 0));
	FOR_EACH_BAD("openat of a path at", syscall(SYS_openat, AT_FDCWD, bad, O_RDONLY));
	FOR_EACH_BAD("creat of a path at", syscall(SYS_creat, bad, 0644));
	FOR_EACH_BAD("lstat of a path at", syscall(SYS_lstat, bad, edge));
	FOR_EACH_BAD("chdir to a path at", syscall(SYS_chdir, bad));
	FOR_EACH_BAD("chmod of a path at", syscall(SYS_chmod, bad, 0644));
	FOR_EACH_BAD("fchmodat of a path at", syscall(SYS_fchmodat, AT_FDCWD, bad, 0644));
	FOR_EACH_BAD("chown of a path at", syscall(SYS_chown, bad, 0, 0));
	FOR_EACH_BAD("fchownat of a path at", syscall(SYS_fchownat, AT_FDCWD, bad, 0, 0, 0));
	FOR_EACH_BAD("truncate of a path at", syscall(SYS_truncate, bad, 0));
	FOR_EACH_BAD("mkdirat of a path at", syscall(SYS_mkdirat, AT_FDCWD, bad, 0755));
	FOR_EACH_BAD("rmdir of a path at", syscall(SYS_rmdir, bad));
	FOR_EACH_BAD("unlinkat of a path at", syscall(SYS_unlinkat, AT_FDCWD, bad, 0));
	FOR_EACH_BAD("readlink of a path at", syscall(SYS_readlink, bad, edge, 16));
	FOR_EACH_BAD("readlinkat of a path at", syscall(SYS_readlinkat, AT_FDCWD, bad, edge, 16));
	BOTH_EDGES(16, "access of a path in", syscall(SYS_access, edgebuf, F_OK));
	BOTH_EDGES(16, "mkdirat of a path in", syscall(SYS_mkdirat, AT_FDCWD, edgebuf, 0755));
	BOTH_EDGES(16, "lstat into", syscall(SYS_lstat, "file", edgebuf));
	/* Linux looks at the file before the buffer: not a link, so EINVAL */
	CHECK_ERR(syscall(SYS_readlink, "file", BAD_KERNEL, 16), EINVAL,
		  "readlink of a regular file into a kernel address gives EINVAL");
	CHECK(access("dir", F_OK) == 0 && access("file", F_OK) == 0,
	      "the failed calls removed nothing");
}

/* Calls that take two path names: each may be the bad one. */
static void test_two_paths(void)
{
	FOR_EACH_BAD("link from a path at", syscall(SYS_link, bad, "new"));
	FOR_EACH_BAD("link to a path at", syscall(SYS_link, "file", bad));
	FOR_EACH_BAD("linkat from a path at", syscall(SYS_linkat, AT_FDCWD, bad, AT_FDCWD, "new", 0));
	FOR_EACH_BAD("linkat to a path at", syscall(SYS_linkat, AT_FDCWD, "file", AT_FDCWD, bad, 0));
	FOR_EACH_BAD("renameat from a path at", syscall(SYS_renameat, AT_FDCWD, bad, AT_FDCWD, "new"));
	FOR_EACH_BAD("renameat to a path at", syscall(SYS_renameat, AT_FDCWD, "file", AT_FDCWD, bad));
	FOR_EACH_BAD("renameat2 from a path at",
		     syscall(SYS_renameat2, AT_FDCWD, bad, AT_FDCWD, "new", 0));
	FOR_EACH_BAD("renameat2 to a path at",
		     syscall(SYS_renameat2, AT_FDCWD, "file", AT_FDCWD, bad, 0));
	BOTH_EDGES(16, "rename to a path in", syscall(SYS_rename, "file", edgebuf));
	CHECK(access("file", F_OK) == 0 && access("new", F_OK) != 0,
	      "the failed calls left the names as they were");
}

static void test_signals(void)
{
	/* NULL: "no new mask" and "old mask not wanted" */
	FOR_EACH_BAD_FROM(1, "rt_sigprocmask reading the new mask from",
			  syscall(SYS_rt_sigprocmask, SIG_BLOCK, bad, NULL, 8));
	FOR_EACH_BAD_FROM(1, "rt_sigprocmask storing the old mask into",
			  syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, bad, 8));
	BOTH_EDGES(4, "rt_sigprocmask reading the new mask from",
		   syscall(SYS_rt_sigprocmask, SIG_BLOCK, edgebuf, NULL, 8));
	BOTH_EDGES(4, "rt_sigprocmask storing the old mask into",
		   syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, edgebuf, 8));
	FOR_EACH_BAD_FROM(1, "sigaltstack reading the new stack from",
			  syscall(SYS_sigaltstack, bad, NULL));
	FOR_EACH_BAD_FROM(1, "sigaltstack storing the old stack into",
			  syscall(SYS_sigaltstack, NULL, bad));
	BOTH_EDGES(16, "sigaltstack reading the new stack from", syscall(SYS_sigaltstack, edgebuf, NULL));
	BOTH_EDGES(16, "sigaltstack storing the old stack into", syscall(SYS_sigaltstack, NULL, edgebuf));
}

/* rt_sigreturn with the stack pointer at addr: the frame cannot be read. */
static void check_sigreturn(uintptr_t addr, const char *name)
{
	pid_t pid = fork();
	if (pid == 0) {
		__asm__ __volatile__("mov %0, %%rsp\n\tsyscall" :: "r"(addr), "a"(SYS_rt_sigreturn)
				     : "memory");
		_exit(0);
	}
	char what[160];
	snprintf(what, sizeof what, "rt_sigreturn with its frame at %s: SIGSEGV", name);
	tap_check_killed(pid, SIGSEGV, what);
}

static void test_sigreturn(void)
{
	for (size_t i = 1; i < NBADS; i++)
		check_sigreturn(bads[i].addr, bads[i].name);
}

static void test_time(void)
{
	struct timespec ts = { 0, 1000 };
	FOR_EACH_BAD_FROM(1, "gettimeofday into", syscall(SYS_gettimeofday, bad, NULL));
	FOR_EACH_BAD_FROM(1, "gettimeofday storing the time zone into",
			  syscall(SYS_gettimeofday, NULL, bad));
	BOTH_EDGES(8, "gettimeofday into", syscall(SYS_gettimeofday, edgebuf, NULL));
	FOR_EACH_BAD_FROM(1, "clock_getres into", syscall(SYS_clock_getres, CLOCK_MONOTONIC, bad));
	FOR_EACH_BAD_FROM(1, "time storing into", syscall(SYS_time, bad));
	FOR_EACH_BAD("clock_nanosleep reading its request from",
		     syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, bad, NULL));
	BOTH_EDGES(8, "clock_nanosleep reading its request from",
		   syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, edgebuf, NULL));
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, BAD_KERNEL), 0,
		 "clock_nanosleep ignores a bad remainder pointer when not interrupted");
}

static void test_futex(void)
{
	static int word = 1;
	struct timespec ts = { 0, 1000 };
	FOR_EACH_BAD("futex FUTEX_WAIT on a word at",
		     syscall(SYS_futex, bad, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0));
	FOR_EACH_BAD_FROM(1, "futex FUTEX_WAIT reading its timeout from",
			  syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, bad, NULL, 0));
	CHECK_ERR(syscall(SYS_futex, BAD_KERNEL, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), EFAULT,
		  "futex FUTEX_WAKE on a kernel address gives EFAULT");
}

static void test_limits(void)
{
	struct rlimit cur;
	getrlimit(RLIMIT_NOFILE, &cur);
	FOR_EACH_BAD("getrlimit into", syscall(SYS_getrlimit, RLIMIT_NOFILE, bad));
	BOTH_EDGES(8, "getrlimit into", syscall(SYS_getrlimit, RLIMIT_NOFILE, edgebuf));
	FOR_EACH_BAD_FROM(1, "prlimit64 reading the new limit from",
			  syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, bad, NULL));
	FOR_EACH_BAD_FROM(1, "prlimit64 storing the old limit into",
			  syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, bad));
	BOTH_EDGES(8, "prlimit64 reading the new limit from",
		   syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, edgebuf, NULL));
	struct rlimit now;
	getrlimit(RLIMIT_NOFILE, &now);
	CHECK(now.rlim_cur == cur.rlim_cur && now.rlim_max == cur.rlim_max,
	      "the refused prlimit64 calls left the limit as it was");
	FOR_EACH_BAD("arch_prctl ARCH_GET_FS storing into",
		     syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, bad));
	BOTH_EDGES(4, "arch_prctl ARCH_GET_FS storing into", syscall(SYS_arch_prctl, 0x1003, edgebuf));
}

static void test_descriptors(void)
{
	int p[2];
	FOR_EACH_BAD("pipe into", syscall(SYS_pipe, bad));
	BOTH_EDGES(4, "pipe into", syscall(SYS_pipe, edgebuf));
	pipe(p);
	CHECK_ERR(syscall(SYS_ioctl, p[0], 0x5401 /* TCGETS */, BAD_KERNEL), ENOTTY,
		  "ioctl TCGETS on a pipe gives ENOTTY before looking at its pointer");
	FOR_EACH_BAD("fcntl F_GETLK with its lock at", syscall(SYS_fcntl, p[0], F_GETLK, bad));
	FOR_EACH_BAD("fcntl F_SETLK with its lock at", syscall(SYS_fcntl, p[0], F_SETLK, bad));
	close(p[0]);
	close(p[1]);
}

/* wait4's struct rusage: a bad one fails the call, the child is reaped. */
static void test_wait4_rusage(void)
{
	for (size_t i = 1; i < NBADS; i++) {   /* NULL: not wanted */
		pid_t pid = fork();
		if (pid == 0)
			_exit(4);
		char what[160];
		snprintf(what, sizeof what, "wait4 storing its rusage at %s gives EFAULT",
			 bads[i].name);
		CHECK_ERR(syscall(SYS_wait4, pid, NULL, 0, bads[i].addr), EFAULT, what);
		CHECK_ERR(syscall(SYS_wait4, pid, NULL, 0, NULL), ECHILD,
			  "and the child was reaped (ECHILD after)");
	}
	CHECK_ERR(syscall(SYS_wait4, -1, NULL, 0, BAD_KERNEL), ECHILD,
		  "wait4 with no children and a kernel rusage address gives ECHILD");
}

/* execve in a child, which exits with the errno (0 if it came back without one). */
static int execve_errno(const char *path, void *argv, void *envp)
{
	pid_t pid = fork();
	if (pid == 0) {
		errno = 0;
		syscall(SYS_execve, path, argv, envp);
		_exit(errno);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static void test_execve(void)
{
	char *good[] = { (char *)self, "--help", NULL };
	for (size_t i = 0; i < NBADS; i++) {
		void *bad = (void *)bads[i].addr;
		char *vec[] = { (char *)self, bad, NULL };
		char what[160];
		snprintf(what, sizeof what, "execve of a path at %s gives EFAULT", bads[i].name);
		CHECK_EQ(execve_errno(bad, good, NULL), EFAULT, what);
		if (i == 0)
			continue;	/* NULL argv/envp: none; NULL entry: the end */
		snprintf(what, sizeof what, "execve with argv at %s gives EFAULT", bads[i].name);
		CHECK_EQ(execve_errno(self, bad, NULL), EFAULT, what);
		snprintf(what, sizeof what, "execve with envp at %s gives EFAULT", bads[i].name);
		CHECK_EQ(execve_errno(self, good, bad), EFAULT, what);
		snprintf(what, sizeof what, "execve with an argv string at %s gives EFAULT",
			 bads[i].name);
		CHECK_EQ(execve_errno(self, vec, NULL), EFAULT, what);
		snprintf(what, sizeof what, "execve with an envp string at %s gives EFAULT",
			 bads[i].name);
		CHECK_EQ(execve_errno(self, good, vec), EFAULT, what);
	}
	CHECK_EQ(execve_errno(self, partial(8), NULL), EFAULT,
		 "execve with an argv array running into a hole gives EFAULT");
}

/*
 * Pointers stored for later: Linux accepts them and ignores a failed
 * store at the moment it comes (start, exit). The child must run and end
 * normally, the kernel must not write through them.
 */
static void test_stored_pointers(void)
{
	for (size_t i = 1; i < NBADS; i++) {
		void *bad = (void *)bads[i].addr;
		char what[160];
		long pid = syscall(SYS_clone, SIGCHLD | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID |
				   CLONE_CHILD_CLEARTID, NULL, bad, bad, 0);
		if (pid == 0)
			_exit(7);
		snprintf(what, sizeof what, "clone with its tid pointers at %s runs the child",
			 bads[i].name);
		if (pid > 0)
			tap_check_exit((pid_t)pid, 7, what);
		else
			tap_check(0, what, "clone failed: %s", strerror(errno));
		pid = fork();
		if (pid == 0) {
			syscall(SYS_set_tid_address, bad);
			syscall(SYS_set_robust_list, bad, 24);
			_exit(5);
		}
		snprintf(what, sizeof what,
			 "a child whose clear-tid and robust-list pointers are at %s exits cleanly",
			 bads[i].name);
		tap_check_exit((pid_t)pid, 5, what);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_isolation\nHands kernel, non-canonical, NULL, unmapped and"
		       " straddling addresses to every\npointer argument of the system calls"
		       " t_badptr does not cover; each gives\nEFAULT (or what Linux gives).\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	static char path[512];	/* argv[0], absolute: the test changes directory */
	if (argv[0][0] != '/' && getcwd(path, 256))
		strcat(strcat(path, "/"), argv[0]);
	else
		snprintf(path, sizeof path, "%s", argv[0]);
	self = path;
	tap_start();
	tap_enter_scratch("t_isolation");
	setup();
	test_one_path();
	test_two_paths();
	test_signals();
	test_sigreturn();
	test_time();
	test_futex();
	test_limits();
	test_descriptors();
	test_wait4_rusage();
	test_execve();
	test_stored_pointers();
	CHECK(1, "the process survived every bad pointer");
	tap_leave_scratch();
	return tap_done();
}
