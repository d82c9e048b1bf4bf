/*
 * t_failnth - out of memory in a system call is an error, never a crash
 * (Roundabout only: it uses /proc/fail-nth, Roundabout's counterpart of
 * Linux's fault-injection file /proc/thread-self/fail-nth).
 *
 * Writing N to /proc/fail-nth makes this thread's Nth kernel allocation
 * from then on fail. For N = 1, 2, ... each call below is made with its
 * Nth allocation failing: it must either succeed as usual or fail with
 * ENOMEM and leave things as they were - and the kernel must live on.
 * The allocations a read() or write() makes for its bounce buffer and
 * getcwd() for its name buffer were once used unchecked: the first such
 * run then wrote through NULL in the kernel.
 */
#include "tap.h"
#include <fcntl.h>

#define BIG (64 * 1024)
#define ROUNDS 6

static char buf[BIG], back[BIG];
static int fail_fd = -1;

/* Arm the injection: this thread's nth allocation from now fails. */
static int fail_nth(int n)
{
	char s[16];
	int len = snprintf(s, sizeof s, "%d\n", n);
	return write(fail_fd, s, (size_t)len) == len ? 0 : -1;
}

/* Disarm it. */
static void disarm(void)
{
	fail_nth(0);
}

/* Outcome of one call: "ok", "ENOMEM" or what went wrong. */
static const char *outcome(long r, long want)
{
	static char s[80];
	if (r == want)
		return "ok";
	if (r == -1 && errno == ENOMEM)
		return "ENOMEM";
	snprintf(s, sizeof s, "returned %ld (errno %d), want %ld or ENOMEM", r, errno, want);
	return s;
}

static void check_read(int n)
{
	int fd = open("data", O_RDONLY);
	memset(back, 0, sizeof back);
	fail_nth(n);
	long r = read(fd, back, BIG);
	int e = errno;
	disarm();
	errno = e;
	const char *o = outcome(r, BIG);
	char what[100];
	snprintf(what, sizeof what, "read() of 64 KiB with allocation %d failing: data or ENOMEM", n);
	tap_check(!strcmp(o, "ok") ? !memcmp(back, buf, BIG) : !strcmp(o, "ENOMEM"), what, "%s", o);
	close(fd);
}

static void check_write(int n)
{
	int fd = open("data2", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fail_nth(n);
	long r = write(fd, buf, BIG);
	int e = errno;
	disarm();
	errno = e;
	const char *o = outcome(r, BIG);
	char what[100];
	snprintf(what, sizeof what, "write() of 64 KiB with allocation %d failing: written or ENOMEM", n);
	tap_check(!strcmp(o, "ok") || !strcmp(o, "ENOMEM"), what, "%s", o);
	close(fd);
}

static void check_getcwd(int n)
{
	char cwd[4096], want[4096];
	getcwd(want, sizeof want);
	fail_nth(n);
	char *r = getcwd(cwd, sizeof cwd);
	int e = errno;
	disarm();
	char what[100];
	snprintf(what, sizeof what, "getcwd() with allocation %d failing: the path or ENOMEM", n);
	tap_check(r ? !strcmp(cwd, want) : e == ENOMEM, what, "%s (errno %d)",
		  r ? cwd : "NULL", e);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_failnth\nSystem calls whose kernel allocations fail give ENOMEM\n"
		       "(Roundabout's /proc/fail-nth), and the kernel lives on.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	fail_fd = open("/proc/fail-nth", O_RDWR);
	if (!tap_check(fail_fd >= 0, "/proc/fail-nth opens for writing", "errno %d", errno))
		return tap_done();
	tap_enter_scratch("t_failnth");
	for (int i = 0; i < BIG; i++)
		buf[i] = (char)(i * 7 + 3);
	int fd = open("data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(write(fd, buf, BIG), BIG, "a 64 KiB file is written");
	close(fd);
	char cwd[256];
	int armed = fail_nth(1);	/* nothing in between: printing allocates too */
	errno = 0;
	char *got = getcwd(cwd, sizeof cwd);
	int e = errno;
	CHECK(armed == 0, "/proc/fail-nth takes a count");
	CHECK(!got && e == ENOMEM,
	      "armed with 1, the next call's first allocation fails: getcwd gives ENOMEM");
	CHECK(getcwd(cwd, sizeof cwd) != NULL, "the injection fires once: getcwd works again");
	for (int n = 1; n <= ROUNDS; n++) {
		check_read(n);
		check_write(n);
		check_getcwd(n);
	}
	CHECK(fail_nth(-1) == -1 && errno == EINVAL, "a negative count is EINVAL");
	tap_leave_scratch();
	return tap_done();
}
