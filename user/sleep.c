/*
 * sleep - wait SECONDS (a decimal number, fractions allowed), with
 * nanosleep; a signal that ends it ends the program (by default).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "--help")) {
		printf("usage: sleep SECONDS\nWaits SECONDS (e.g. 1, 0.5) and exits 0.\n");
		return argc == 2 ? 0 : 1;
	}
	char *end;
	double s = strtod(argv[1], &end);
	if (*end || end == argv[1] || s < 0) {
		fprintf(stderr, "sleep: %s: not a number of seconds\n", argv[1]);
		return 1;
	}
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}
