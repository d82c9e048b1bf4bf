/*
 * rm - remove files. -r removes directories and everything below them;
 * -f ignores missing names and gives no error for no operands.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int opt_recursive, opt_force;

/* Report a failure unless -f covers it; returns the status to add. */
static int failed(const char *path)
{
	if (opt_force && errno == ENOENT)
		return 0;
	warn("%s", path);
	return 1;
}

static int remove_path(const char *path);

/* Remove everything in directory path, then path itself. */
static int remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int status = 0;
	if (!d)
		return failed(path);
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[4096];
		if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= (int)sizeof sub) {
			errno = ENAMETOOLONG;
			status |= failed(sub);
			continue;
		}
		status |= remove_path(sub);
	}
	closedir(d);
	if (rmdir(path) < 0)
		status |= failed(path);
	return status;
}

static int remove_path(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return failed(path);
	if (S_ISDIR(st.st_mode)) {
		if (opt_recursive)
			return remove_tree(path);
		errno = EISDIR;
		return failed(path);
	}
	return unlink(path) < 0 ? failed(path) : 0;
}

int main(int argc, char **argv)
{
	int c, status = 0;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: rm [-r] [-f] PATH...\n"
		       "Removes each PATH.\n"
		       "  -r  remove directories and their contents\n"
		       "  -f  ignore missing paths\n");
		return 0;
	}
	while ((c = getopt(argc, argv, "rfR")) != -1) {
		if (c == 'r' || c == 'R')
			opt_recursive = 1;
		else if (c == 'f')
			opt_force = 1;
		else
			return 2;
	}
	if (optind >= argc && !opt_force)
		errx(2, "missing operand (try --help)");
	for (int i = optind; i < argc; i++)
		status |= remove_path(argv[i]);
	return status;
}
