/*
 * echo - write the arguments, separated by spaces, and a newline.
 * -n leaves out the newline. No escapes are interpreted.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int newline = 1, i = 1;
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: echo [-n] [ARG...]\n"
		       "Writes the arguments separated by spaces; -n: no newline.\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-n")) {
		newline = 0;
		i = 2;
	}
	for (; i < argc; i++) {
		fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (newline)
		putchar('\n');
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("echo: write");
		return 1;
	}
	return 0;
}
