/*
 * cat - copy each FILE (or standard input, also for "-") to standard
 * output, in the order given.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Write all of buf, retrying short writes; returns 0 or -1. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy fd to standard output; returns 0, or 1 after reporting an error. */
static int copy(int fd, const char *name)
{
	static char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warn("%s", name);
			return 1;
		}
		if (write_all(1, buf, (size_t)n) < 0)
			err(1, "write");
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: cat [FILE...]\n"
		       "Writes each FILE, or standard input, to standard output.\n");
		return 0;
	}
	if (argc < 2)
		return copy(0, "stdin");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			status |= copy(0, "stdin");
			continue;
		}
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		status |= copy(fd, argv[i]);
		close(fd);
	}
	return status;
}
