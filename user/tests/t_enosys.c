/*
 * t_enosys.c - a system call number the kernel does not know fails with
 * ENOSYS every time: 500 (inside Roundabout's table, a hole in it) and
 * 1999 (past its table), each made twice.
 *
 * `t_enosys log` (Roundabout only: its log is /proc/kmsg) then checks that
 * the kernel logged each number once, however often it was called; the
 * calls are made ten times more first.
 */
#include "tap.h"
#include <fcntl.h>
#include <sys/syscall.h>

static const long unknown[] = { 500, 1999 };

static void enosys_twice(long nr)
{
	char what[80];
	for (int i = 1; i <= 2; i++) {
		snprintf(what, sizeof(what), "syscall %ld fails with ENOSYS (call %d)", nr, i);
		CHECK_ERR(syscall(nr, 0, 0, 0, 0, 0, 0), ENOSYS, what);
	}
}

/* How many lines of the kernel log hold text. */
static int log_lines_with(const char *text)
{
	static char log[65536];
	int fd = open("/proc/kmsg", O_RDONLY), count = 0;
	long n = 0, r;
	while (fd >= 0 && n < (long)sizeof(log) - 1 &&
	       (r = read(fd, log + n, sizeof(log) - 1 - n)) > 0)
		n += r;
	if (fd >= 0)
		close(fd);
	log[n] = 0;
	for (char *p = log; (p = strstr(p, text)); p += strlen(text))
		count++;
	return count;
}

static void logged_once(long nr)
{
	char text[64], what[80];
	for (int i = 0; i < 10; i++)
		syscall(nr, 0, 0, 0, 0, 0, 0);
	snprintf(text, sizeof(text), "syscall %ld from ", nr);
	snprintf(what, sizeof(what), "the kernel logged syscall %ld once", nr);
	CHECK_EQ(log_lines_with(text), 1, what);
}

int main(int argc, char **argv)
{
	tap_start();
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		enosys_twice(unknown[i]);
	if (argc > 1 && !strcmp(argv[1], "log"))
		for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
			logged_once(unknown[i]);
	return tap_done();
}
