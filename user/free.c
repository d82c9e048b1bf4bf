/*
 * free - memory statistics from /proc/meminfo, then the page cache's
 * counters from /proc/pagecache, which Roundabout provides (lines of
 * "name value"); Linux has no such file, and free says so.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int opt_mib;

/* Read a whole /proc file (its size reads as 0, so read to EOF). */
static char *slurp(const char *path)
{
	static char buf[16384];
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n = 0;
	if (fd < 0)
		return NULL;
	while (len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (n < 0)
		return NULL;
	buf[len] = '\0';
	return buf;
}

/* The value, in KiB, of "Name: value kB" in meminfo text; -1 if absent. */
static long long meminfo_field(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

static void print_cell(long long kib)
{
	if (kib < 0)
		printf(" %11s", "-");
	else
		printf(" %11lld", opt_mib ? kib / 1024 : kib);
}

static int print_meminfo(void)
{
	char *text = slurp("/proc/meminfo");
	if (!text) {
		warn("/proc/meminfo");
		return 1;
	}
	long long total = meminfo_field(text, "MemTotal");
	long long mfree = meminfo_field(text, "MemFree");
	long long shared = meminfo_field(text, "Shmem");
	long long buffers = meminfo_field(text, "Buffers");
	long long cached = meminfo_field(text, "Cached");
	long long avail = meminfo_field(text, "MemAvailable");
	long long cache = (buffers > 0 ? buffers : 0) + (cached > 0 ? cached : 0);
	long long used = total >= 0 && mfree >= 0 ? total - mfree - cache : -1;
	printf("%-5s %11s %11s %11s %11s %11s %11s\n", "", "total", "used", "free",
	       "shared", "buff/cache", "available");
	printf("%-5s", "Mem:");
	print_cell(total), print_cell(used), print_cell(mfree);
	print_cell(shared), print_cell(cache), print_cell(avail);
	printf("\n");
	long long stotal = meminfo_field(text, "SwapTotal");
	long long sfree = meminfo_field(text, "SwapFree");
	if (stotal >= 0) {
		printf("%-5s", "Swap:");
		print_cell(stotal), print_cell(sfree >= 0 ? stotal - sfree : -1), print_cell(sfree);
		printf("\n");
	}
	printf("(%s)\n", opt_mib ? "MiB" : "KiB");
	return 0;
}

/*
 * Split a "name value" line at its last blank (the name may have blanks
 * in it); returns the value text, or NULL for a line without one.
 */
static char *split_counter(char *line)
{
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	while (n > 0 && line[n - 1] != ' ' && line[n - 1] != '\t')
		n--;
	if (n == 0)
		return NULL;
	char *value = line + n;
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	return value;
}

/* Each "name value" line of /proc/pagecache, name left-aligned. */
static int print_pagecache(void)
{
	char *text = slurp("/proc/pagecache");
	if (!text) {
		if (errno != ENOENT) {
			warn("/proc/pagecache");
			return 1;
		}
		printf("page cache: no /proc/pagecache here (its counters are Roundabout's)\n");
		return 0;
	}
	printf("page cache (/proc/pagecache):\n");
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *value = split_counter(line);
		if (value)
			printf("  %-24s %s\n", line, value);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: free [-m]\n"
		       "Prints memory use from /proc/meminfo (KiB; -m: MiB) and the\n"
		       "page-cache counters from /proc/pagecache where it exists.\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-m"))
		opt_mib = 1;
	else if (argc > 1)
		errx(2, "unknown option %s (try --help)", argv[1]);
	int status = print_meminfo();
	status |= print_pagecache();
	return status;
}
