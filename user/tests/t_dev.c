/*
 * t_dev - the character devices in /dev: each is S_ISCHR with Linux's
 * numbers, and reads and writes do what Linux's do. Run on Linux too,
 * where /dev/tty and /dev/console may not open for want of a terminal.
 */
#include "tap.h"
#include <fcntl.h>
#include <stdbool.h>
#include <sys/sysmacros.h>

struct dev {
	const char *path;
	unsigned major, minor;
};

static const struct dev devs[] = {
	{ "/dev/null", 1, 3 }, { "/dev/zero", 1, 5 }, { "/dev/full", 1, 7 },
	{ "/dev/random", 1, 8 }, { "/dev/urandom", 1, 9 }, { "/dev/tty", 5, 0 },
	{ "/dev/console", 5, 1 },
};

static void check_numbers(const struct dev *d)
{
	char what[80];
	struct stat st;
	int r = stat(d->path, &st);
	snprintf(what, sizeof what, "%s is a character device %u,%u", d->path, d->major, d->minor);
	tap_check(!r && S_ISCHR(st.st_mode) && major(st.st_rdev) == d->major &&
		  minor(st.st_rdev) == d->minor, what, "stat %d, mode %o, rdev %u,%u", r,
		  (unsigned)st.st_mode, major(st.st_rdev), minor(st.st_rdev));
}

static bool all_zero(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i])
			return false;
	return true;
}

static void check_null(void)
{
	char buf[64];
	int fd = open("/dev/null", O_RDWR);
	CHECK(fd >= 0, "/dev/null opens for reading and writing");
	CHECK_EQ(read(fd, buf, sizeof buf), 0, "/dev/null reads end of file");
	CHECK_EQ(write(fd, "hello", 5), 5, "/dev/null takes all of a write");
	close(fd);
}

static void check_zero(void)
{
	char buf[4096];
	memset(buf, 'x', sizeof buf);
	int fd = open("/dev/zero", O_RDWR);
	CHECK(fd >= 0, "/dev/zero opens for reading and writing");
	CHECK(read(fd, buf, sizeof buf) == (ssize_t)sizeof buf && all_zero(buf, sizeof buf),
	      "/dev/zero reads a buffer of zeros");
	CHECK_EQ(write(fd, buf, 100), 100, "/dev/zero takes all of a write");
	close(fd);
}

static void check_full(void)
{
	char buf[64];
	memset(buf, 'x', sizeof buf);
	int fd = open("/dev/full", O_RDWR);
	CHECK(fd >= 0, "/dev/full opens for reading and writing");
	CHECK(read(fd, buf, sizeof buf) == (ssize_t)sizeof buf && all_zero(buf, sizeof buf),
	      "/dev/full reads zeros");
	CHECK_ERR(write(fd, "x", 1), ENOSPC, "/dev/full refuses a write with ENOSPC");
	close(fd);
}

static void check_random(const char *path)
{
	char buf[64], what[80];
	memset(buf, 0, sizeof buf);
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	snprintf(what, sizeof what, "%s reads 64 bytes, not all zero", path);
	tap_check(n == (ssize_t)sizeof buf && !all_zero(buf, sizeof buf), what, "read %zd", n);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY);
	snprintf(what, sizeof what, "%s takes a write", path);
	tap_check(fd >= 0 && write(fd, "seed", 4) == 4, what, "fd %d errno %d", fd, errno);
	if (fd >= 0)
		close(fd);
}

/*
 * The terminals: they open; only on a Linux host (which has no
 * /proc/kernel-hash) may they fail, with host_errno, for want of a
 * terminal of ours. The line printed is the same either way.
 */
static void check_terminal(const char *path, int host_errno, const char *host_case)
{
	char what[96];
	bool host = access("/proc/kernel-hash", F_OK) != 0;
	errno = 0;
	int fd = open(path, O_RDWR);
	int e = errno;
	snprintf(what, sizeof what, "%s opens, or %s", path, host_case);
	if (fd < 0 && host && e == host_errno)
		printf("# note: %s: %s on this host: not checked\n", path, strerror(e));
	tap_check(fd >= 0 || (host && e == host_errno), what, "errno %d (%s)", e, strerror(e));
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	tap_start();
	for (unsigned i = 0; i < sizeof devs / sizeof devs[0]; i++)
		check_numbers(&devs[i]);
	check_null();
	check_zero();
	check_full();
	check_random("/dev/random");
	check_random("/dev/urandom");
	check_terminal("/dev/tty", ENXIO, "the host has no controlling terminal");
	check_terminal("/dev/console", EACCES, "the host lets only root open it");
	return tap_done();
}
