/*
 * ls - list directory contents, one name a line, sorted by name (byte
 * order). -a includes names starting with '.'; -l prints the mode, link
 * count, numeric uid and gid, size and name. Operands that are not
 * directories are listed first, then each directory's contents.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct entry {
	char *name;
	struct stat st;
};

static int opt_all, opt_long;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* "drwxr-xr-x": the type letter and the nine permission bits. */
static void mode_string(mode_t m, char *s)
{
	static const char rwx[] = "rwxrwxrwx";
	s[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISCHR(m) ? 'c' :
	       S_ISBLK(m) ? 'b' : S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : '-';
	for (int i = 0; i < 9; i++)
		s[i + 1] = (m & (0400 >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		s[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = (m & S_IXOTH) ? 't' : 'T';
	s[10] = '\0';
}

static int digits(unsigned long long v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Print entries; with -l the numeric columns are right-aligned. */
static void print_entries(struct entry *e, size_t n)
{
	int wl = 1, wu = 1, wg = 1, ws = 1;
	for (size_t i = 0; opt_long && i < n; i++) {
		wl = digits(e[i].st.st_nlink) > wl ? digits(e[i].st.st_nlink) : wl;
		wu = digits(e[i].st.st_uid) > wu ? digits(e[i].st.st_uid) : wu;
		wg = digits(e[i].st.st_gid) > wg ? digits(e[i].st.st_gid) : wg;
		ws = digits(e[i].st.st_size) > ws ? digits(e[i].st.st_size) : ws;
	}
	for (size_t i = 0; i < n; i++) {
		if (!opt_long) {
			printf("%s\n", e[i].name);
			continue;
		}
		char mode[11];
		mode_string(e[i].st.st_mode, mode);
		printf("%s %*lu %*u %*u %*lld %s\n", mode, wl, (unsigned long)e[i].st.st_nlink,
		       wu, (unsigned)e[i].st.st_uid, wg, (unsigned)e[i].st.st_gid,
		       ws, (long long)e[i].st.st_size, e[i].name);
	}
}

/* Read a directory's names (and, for -l, their lstat); returns the count or -1. */
static long read_dir(const char *path, struct entry **out)
{
	DIR *d = opendir(path);
	struct dirent *de;
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	if (!d)
		return -1;
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && !opt_all)
			continue;
		if (n == cap && !(e = realloc(e, (cap = cap ? 2 * cap : 64) * sizeof *e)))
			err(1, "realloc");
		e[n].name = strdup(de->d_name);
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", path, de->d_name);
		if (opt_long && lstat(full, &e[n].st) < 0) {
			warn("%s", full);
			free(e[n].name);
			continue;
		}
		n++;
	}
	int saved = errno;
	closedir(d);
	qsort(e, n, sizeof *e, by_name);
	*out = e;
	errno = saved;
	return (long)n;
}

static int list_dir(const char *path, int header, int first)
{
	struct entry *e = NULL;
	long n = read_dir(path, &e);
	int status = 0;
	if (n < 0 || errno) {
		warn("%s", path);
		status = 1;
	}
	if (header)
		printf("%s%s:\n", first ? "" : "\n", path);
	print_entries(e, n > 0 ? (size_t)n : 0);
	for (long i = 0; i < n; i++)
		free(e[i].name);
	free(e);
	return status;
}

int main(int argc, char **argv)
{
	int c, status = 0;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: ls [-l] [-a] [PATH...]\n"
		       "Lists each PATH (default .), sorted by name.\n"
		       "  -a  include names starting with '.'\n"
		       "  -l  mode, links, uid, gid, size, name\n");
		return 0;
	}
	while ((c = getopt(argc, argv, "al")) != -1) {
		if (c == 'a')
			opt_all = 1;
		else if (c == 'l')
			opt_long = 1;
		else
			return 2;
	}
	char *dot[] = { ".", NULL };
	char **ops = optind < argc ? argv + optind : dot;
	int nops = optind < argc ? argc - optind : 1;
	struct entry *files = calloc(nops, sizeof *files), *dirs = calloc(nops, sizeof *dirs);
	size_t nf = 0, nd = 0;
	for (int i = 0; i < nops; i++) {
		struct stat st;
		if (lstat(ops[i], &st) < 0) {
			warn("%s", ops[i]);
			status = 1;
			continue;
		}
		struct entry *e = S_ISDIR(st.st_mode) ? &dirs[nd++] : &files[nf++];
		e->name = ops[i];
		e->st = st;
	}
	qsort(files, nf, sizeof *files, by_name);
	qsort(dirs, nd, sizeof *dirs, by_name);
	print_entries(files, nf);
	for (size_t i = 0; i < nd; i++)
		status |= list_dir(dirs[i].name, nops > 1, nf == 0 && i == 0);
	if (fflush(stdout) != 0)
		err(1, "write");
	return status;
}
