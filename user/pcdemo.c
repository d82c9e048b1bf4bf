/*
 * pcdemo - drive the page cache from user space: T threads each read the
 * same N MiB file K times, all at once, so their lookups hit the same
 * pages concurrently. Every 8-byte word of the file holds its own offset
 * (tagged), and every read is checked, so a cache that returned a wrong
 * page would show as a data error, not just a number.
 *
 * Prints the timing, and the /proc/pagecache counters (Roundabout's:
 * lookups, hits, misses, speculative and recheck retries, evictions...)
 * before, after, and their difference. On Linux only the timing is shown.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TAG 0x5043000000000000ull   /* "PC" in the top bytes */
#define CHUNK (64 * 1024)
#define MAX_COUNTERS 64

/* /proc/pagecache's lines; a value that is not a number (a mode) is kept as text. */
struct counters {
	int n;
	char name[MAX_COUNTERS][48];
	char text[MAX_COUNTERS][24];
	unsigned long long value[MAX_COUNTERS];
	int numeric[MAX_COUNTERS];
};

static int fd;
static off_t file_size;
static int passes = 4;
static unsigned long errors;   /* [A] */

static void fill_chunk(uint64_t *words, off_t off)
{
	for (size_t i = 0; i < CHUNK / 8; i++)
		words[i] = TAG | (uint64_t)(off + (off_t)i * 8);
}

/* Write the file afresh; exits on error. */
static void create_file(const char *path, off_t size)
{
	static uint64_t words[CHUNK / 8];
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		err(1, "%s", path);
	for (off_t off = 0; off < size; off += CHUNK) {
		fill_chunk(words, off);
		if (write(out, words, CHUNK) != CHUNK)
			err(1, "%s: write", path);
	}
	if (close(out) < 0)
		err(1, "%s", path);
}

/* Reuse path if it has the right size and its first and last words look right. */
static int reusable(const char *path, off_t size)
{
	struct stat st;
	uint64_t first = 0, last = 0;
	int in = open(path, O_RDONLY);
	if (in < 0)
		return 0;
	int ok = fstat(in, &st) == 0 && st.st_size == size &&
		 pread(in, &first, 8, 0) == 8 && pread(in, &last, 8, size - 8) == 8 &&
		 first == TAG && last == (TAG | (uint64_t)(size - 8));
	close(in);
	return ok;
}

/* One reader: the whole file, passes times, every word checked. */
static void *reader(void *arg)
{
	uint64_t *buf = malloc(CHUNK);
	(void)arg;
	if (!buf)
		err(1, "malloc");
	for (int k = 0; k < passes; k++) {
		for (off_t off = 0; off < file_size; off += CHUNK) {
			ssize_t n = pread(fd, buf, CHUNK, off);
			unsigned long bad = n == CHUNK ? 0 : 1;
			for (ssize_t i = 0; !bad && i < n / 8; i++)
				bad = buf[i] != (TAG | (uint64_t)(off + i * 8));
			if (bad && __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) == 0)
				warnx("wrong data in the chunk at offset %lld", (long long)off);
		}
	}
	free(buf);
	return NULL;
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

/* Read /proc/pagecache; returns 0, or -1 if there is none. */
static int read_counters(struct counters *c)
{
	char text[8192];
	int in = open("/proc/pagecache", O_RDONLY);
	ssize_t len = 0, n;
	c->n = 0;
	if (in < 0)
		return -1;
	while (len < (ssize_t)sizeof text - 1 &&
	       (n = read(in, text + len, sizeof text - 1 - len)) > 0)
		len += n;
	close(in);
	text[len] = '\0';
	for (char *line = strtok(text, "\n"); line && c->n < MAX_COUNTERS;
	     line = strtok(NULL, "\n")) {
		char *value = split_counter(line);
		if (!value)
			continue;
		char *end;
		snprintf(c->name[c->n], sizeof c->name[0], "%s", line);
		snprintf(c->text[c->n], sizeof c->text[0], "%s", value);
		c->value[c->n] = strtoull(value, &end, 10);
		c->numeric[c->n++] = *end == '\0';
	}
	return 0;
}

static void print_counters(const struct counters *before, const struct counters *after)
{
	printf("%-24s %14s %14s %14s\n", "counter", "before", "after", "difference");
	for (int i = 0; i < after->n; i++) {
		int j = 0;
		while (j < before->n && strcmp(before->name[j], after->name[i]))
			j++;
		if (!after->numeric[i] || j == before->n || !before->numeric[j]) {
			printf("%-24s %14s %14s %14s\n", after->name[i],
			       j < before->n ? before->text[j] : "-", after->text[i], "-");
			continue;
		}
		printf("%-24s %14llu %14llu %14lld\n", after->name[i], before->value[j],
		       after->value[i], (long long)(after->value[i] - before->value[j]));
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	printf("usage: pcdemo [-s MIB] [-t THREADS] [-k PASSES] [-f FILE]\n"
	       "T threads each read an N MiB file K times at once and check every word;\n"
	       "prints the time and the /proc/pagecache counters before and after.\n"
	       "  -s MIB      file size (default 4)\n"
	       "  -t THREADS  reader threads (default 8)\n"
	       "  -k PASSES   times each thread reads the file (default 4)\n"
	       "  -f FILE     the file (default /tmp/pcdemo.dat, or ./pcdemo.dat\n"
	       "              without /tmp); created, or reused if it is right\n");
}

static long number(const char *s, const char *what, long max)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > max)
		errx(2, "%s: must be 1 to %ld", what, max);
	return v;
}

int main(int argc, char **argv)
{
	int c, threads = 8;
	long mib = 4;
	struct stat st;
	const char *path = stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode) ?
			   "/tmp/pcdemo.dat" : "pcdemo.dat";
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage();
		return 0;
	}
	while ((c = getopt(argc, argv, "s:t:k:f:")) != -1) {
		switch (c) {
		case 's': mib = number(optarg, "-s", 4096); break;
		case 't': threads = (int)number(optarg, "-t", 256); break;
		case 'k': passes = (int)number(optarg, "-k", 100000); break;
		case 'f': path = optarg; break;
		default: return 2;
		}
	}
	file_size = (off_t)mib << 20;
	int reuse = reusable(path, file_size);
	if (!reuse)
		create_file(path, file_size);
	if ((fd = open(path, O_RDONLY)) < 0)
		err(1, "%s", path);
	printf("file %s: %ld MiB (%s); %d threads x %d passes\n", path, mib,
	       reuse ? "reused" : "created", threads, passes);

	struct counters before, after;
	int have = read_counters(&before) == 0;
	pthread_t *t = calloc(threads, sizeof *t);
	double t0 = now();
	for (int i = 0; i < threads; i++)
		if ((errno = pthread_create(&t[i], NULL, reader, NULL)) != 0)
			err(1, "pthread_create");
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	double secs = now() - t0;
	double total = (double)mib * threads * passes;
	printf("read %.0f MiB in %.3f s: %.1f MiB/s\n", total, secs, secs > 0 ? total / secs : 0);
	if (have && read_counters(&after) == 0)
		print_counters(&before, &after);
	else
		printf("no /proc/pagecache here: the counters are Roundabout's; timing only\n");
	if (errors)
		errx(1, "%lu chunks read back wrong", errors);
	return 0;
}
