/*
 * tap.h - the check reporter shared by the test programs in user/tests/.
 *
 * Each check prints one line, "ok N - what" or "not ok N - what: details",
 * and tap_done() prints "# P passed, F failed" and gives the exit status
 * (0 only when nothing failed). Output is line-buffered so that a fork()
 * never duplicates a half-written buffer; children leave with _exit().
 */
#ifndef USER_TESTS_TAP_H
#define USER_TESTS_TAP_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int tap_count, tap_failed;

static inline void tap_start(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Record one check; details (printf format) are printed only on failure. */
static inline int tap_check(int ok, const char *what, const char *fmt, ...)
{
	tap_count++;
	if (ok) {
		printf("ok %d - %s\n", tap_count, what);
		return 1;
	}
	tap_failed++;
	printf("not ok %d - %s: ", tap_count, what);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 0;
}

static inline int tap_done(void)
{
	printf("# %d passed, %d failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

/* A plain condition. */
#define CHECK(cond, what) tap_check(!!(cond), (what), "%s is false", #cond)

/* Two integers that must be equal; both are printed on failure. */
#define CHECK_EQ(got, want, what) do {                                      \
	long long got_ = (long long)(got), want_ = (long long)(want);       \
	tap_check(got_ == want_, (what), "got %lld, want %lld (%s)",         \
		  got_, want_, #got);                                       \
} while (0)

/*
 * A call that must fail with -1 and errno want_errno. errno is saved at
 * once, before printing can change it.
 */
#define CHECK_ERR(call, want_errno, what) do {                              \
	errno = 0;                                                          \
	long r_ = (long)(call);                                             \
	int e_ = errno;                                                     \
	tap_check(r_ == -1 && e_ == (want_errno), (what),                   \
		  "got %ld errno %d (%s), want -1 errno %d (%s)", r_, e_,    \
		  strerror(e_), (want_errno), strerror(want_errno));         \
} while (0)

/* A call that must succeed (not -1); its errno is shown if it did not. */
#define CHECK_OK(call, what) do {                                           \
	errno = 0;                                                          \
	long r_ = (long)(call);                                             \
	int e_ = errno;                                                     \
	tap_check(r_ != -1, (what), "%s failed: %s", #call, strerror(e_));  \
} while (0)

/* Describe a wait status for failure messages. */
static inline const char *tap_status(int st)
{
	static char buf[64];
	if (WIFEXITED(st))
		snprintf(buf, sizeof buf, "exited %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, sizeof buf, "status 0x%x", st);
	return buf;
}

/* The child pid must end killed by signal sig. */
static inline void tap_check_killed(pid_t pid, int sig, const char *what)
{
	int st = 0;
	pid_t r = waitpid(pid, &st, 0);
	tap_check(r == pid && WIFSIGNALED(st) && WTERMSIG(st) == sig, what,
		  "waitpid gave %d, %s, want signal %d", (int)r, tap_status(st),
		  sig);
}

/* The child pid must exit with code want. */
static inline void tap_check_exit(pid_t pid, int want, const char *what)
{
	int st = 0;
	pid_t r = waitpid(pid, &st, 0);
	tap_check(r == pid && WIFEXITED(st) && WEXITSTATUS(st) == want, what,
		  "waitpid gave %d, %s, want exit %d", (int)r, tap_status(st),
		  want);
}

/* Remove path and everything below it; errors are ignored (cleanup). */
static inline void tap_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char sub[4096];
			if (snprintf(sub, sizeof sub, "%s/%s", path,
				     e->d_name) < (int)sizeof sub)
				tap_remove_tree(sub);
		}
		if (d)
			closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static char tap_scratch_path[256];

/* Make DIR/NAME.PID (DIR "" is the root) and enter it; 0, or -1 with errno. */
static inline int tap_try_scratch(const char *dir, const char *name)
{
	snprintf(tap_scratch_path, sizeof tap_scratch_path, "%s/%s.%d", dir,
		 name, (int)getpid());
	if (mkdir(tap_scratch_path, 0755) != 0)
		return -1;
	return chdir(tap_scratch_path);
}

/* The current directory, as a prefix for tap_try_scratch ("" for "/"). */
static inline const char *tap_cwd_prefix(void)
{
	static char cwd[200];
	if (!getcwd(cwd, sizeof cwd))
		strcpy(cwd, ".");
	return strcmp(cwd, "/") ? cwd : "";
}

static inline void tap_scratch_failed(const char *name)
{
	fprintf(stderr, "%s: scratch directory %s: %s\n", name,
		tap_scratch_path, strerror(errno));
	exit(2);
}

/*
 * Make a fresh scratch directory NAME.PID under /tmp, or under the current
 * directory where there is no /tmp, and make it the current directory.
 * Exits the test (status 2) if neither works: nothing could be checked.
 */
static inline void tap_enter_scratch(const char *name)
{
	if (tap_try_scratch("/tmp", name) != 0 &&
	    tap_try_scratch(tap_cwd_prefix(), name) != 0)
		tap_scratch_failed(name);
}

/*
 * The same, always under the current directory: for tests whose results
 * depend on the file system (O_DIRECT), so the caller chooses it by where
 * it runs them; /tmp may be a tmpfs.
 */
static inline void tap_enter_scratch_here(const char *name)
{
	if (tap_try_scratch(tap_cwd_prefix(), name) != 0)
		tap_scratch_failed(name);
}

/* Leave the scratch directory and remove it. */
static inline void tap_leave_scratch(void)
{
	if (chdir("/") == 0)
		tap_remove_tree(tap_scratch_path);
}

/* The state letter of /proc/PID/stat (R, S, D, Z...), '?' if unreadable:
 * how a test knows a child is asleep before it signals it. */
static inline char state_of(pid_t pid)
{
	char path[32], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *p = strrchr(buf, ')');	/* the name may hold anything */
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

#endif
