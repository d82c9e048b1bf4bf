/*
 * mkdir - create directories; -p creates missing parents too and is
 * content when the directory already exists.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p: make each prefix of path in turn; returns 0 or -1. */
static int make_parents(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);
	if (len >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && !(errno == EEXIST && is_dir(buf))) {
			if (errno == EEXIST && c != '\0')
				errno = ENOTDIR;   /* a file where a parent should be */
			return -1;
		}
		if (c == '\0')
			return 0;
		*p = c;
		while (p[1] == '/')
			p++;
		if (p[1] == '\0')
			return 0;   /* a trailing slash */
	}
}

int main(int argc, char **argv)
{
	int parents = 0, status = 0, i = 1;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: mkdir [-p] DIR...\n"
		       "Creates each DIR; -p also creates missing parents.\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-p")) {
		parents = 1;
		i = 2;
	}
	if (i >= argc)
		errx(2, "missing operand (try --help)");
	for (; i < argc; i++) {
		if ((parents ? make_parents(argv[i]) : mkdir(argv[i], 0777)) < 0) {
			warn("%s", argv[i]);
			status = 1;
		}
	}
	return status;
}
