/* uname.c - print the system's names, from the uname system call. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* LAB 1 BEGIN uname_program: the options, the call and the output (docs/labs/lab1.md) */
static const char usage[] =
	"usage: uname [-a] [-s] [-n] [-r] [-v] [-m]\n"
	"Prints the kernel's name (-s, the default), the host name (-n), the\n"
	"release (-r), the version (-v) and the machine (-m), in that order,\n"
	"separated by spaces; -a prints all five.\n";

/* The bits of the fields to print, in struct utsname's order; -1 if a word is bad. */
static int parse(int argc, char **argv)
{
	static const char letters[] = "snrvm";
	int want = 0;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			return -1;
		for (const char *c = argv[i] + 1; *c; c++) {
			const char *at = strchr(letters, *c);
			if (*c == 'a')
				want = 31;
			else if (at)
				want |= 1 << (at - letters);
			else
				return -1;
		}
	}
	return want ? want : 1;
}

int main(int argc, char **argv)
{
	struct utsname u;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	int want = parse(argc, argv);
	if (want < 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (uname(&u) != 0) {
		perror("uname: uname");
		return 1;
	}
	const char *field[5] = { u.sysname, u.nodename, u.release, u.version, u.machine };
	const char *sep = "";
	for (int i = 0; i < 5; i++) {
		if (want & (1 << i)) {
			printf("%s%s", sep, field[i]);
			sep = " ";
		}
	}
	printf("\n");
	return 0;
}
/* LAB 1 END uname_program */
