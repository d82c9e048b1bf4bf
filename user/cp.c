/*
 * cp - copy the regular file SRC to DST, or each SRC into directory DIR.
 * The copy gets SRC's permission bits; directories are not copied.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Copy all of in to out; returns 0, or -1 with errno set. */
static int copy_data(int in, int out)
{
	static char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (ssize_t off = 0, w; off < n; off += w)
			if ((w = write(out, buf + off, n - off)) <= 0)
				return -1;
	}
	return 0;
}

static int copy_file(const char *src, const char *dst)
{
	struct stat ss, ds;
	int in = open(src, O_RDONLY);
	if (in < 0 || fstat(in, &ss) < 0) {
		warn("%s", src);
		return 1;
	}
	if (!S_ISREG(ss.st_mode)) {
		warnx("%s: not a regular file", src);
		close(in);
		return 1;
	}
	/* opening dst with O_TRUNC would destroy src if they are one file */
	if (stat(dst, &ds) == 0 && ds.st_dev == ss.st_dev && ds.st_ino == ss.st_ino) {
		warnx("%s and %s are the same file", src, dst);
		close(in);
		return 1;
	}
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, ss.st_mode & 07777);
	if (out < 0) {
		warn("%s", dst);
		close(in);
		return 1;
	}
	int status = 0;
	if (copy_data(in, out) < 0 || close(out) < 0) {
		warn("%s -> %s", src, dst);
		status = 1;
	}
	close(in);
	return status;
}

int main(int argc, char **argv)
{
	int status = 0;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: cp SRC DST\n"
		       "       cp SRC... DIR\n"
		       "Copies regular files: SRC to DST, or each SRC into DIR.\n");
		return 0;
	}
	if (argc < 3)
		errx(2, "missing operand (try --help)");
	const char *last = argv[argc - 1];
	if (!is_dir(last)) {
		if (argc > 3)
			errx(1, "%s: not a directory", last);
		return copy_file(argv[1], last);
	}
	for (int i = 1; i < argc - 1; i++) {
		char copy[4096], dst[4096];
		snprintf(copy, sizeof copy, "%s", argv[i]);
		if (snprintf(dst, sizeof dst, "%s/%s", last, basename(copy)) >= (int)sizeof dst) {
			warnx("%s: name too long", argv[i]);
			status = 1;
			continue;
		}
		status |= copy_file(argv[i], dst);
	}
	return status;
}
