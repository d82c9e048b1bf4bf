/*
 * mv - rename SRC to DST, or move each SRC into the directory DIR.
 * It uses rename() only: moving between file systems is refused (EXDEV).
 */
#include <err.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Move src into directory dir under its last path component. */
static int move_into(const char *src, const char *dir)
{
	char copy[4096], dst[4096];
	snprintf(copy, sizeof copy, "%s", src);
	if (snprintf(dst, sizeof dst, "%s/%s", dir, basename(copy)) >= (int)sizeof dst) {
		warnx("%s/%s: name too long", dir, src);
		return 1;
	}
	if (rename(src, dst) < 0) {
		warn("%s -> %s", src, dst);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: mv SRC DST\n"
		       "       mv SRC... DIR\n"
		       "Renames SRC to DST, or moves each SRC into directory DIR.\n");
		return 0;
	}
	if (argc < 3)
		errx(2, "missing operand (try --help)");
	const char *last = argv[argc - 1];
	if (is_dir(last)) {
		for (int i = 1; i < argc - 1; i++)
			status |= move_into(argv[i], last);
		return status;
	}
	if (argc > 3)
		errx(1, "%s: not a directory", last);
	if (rename(argv[1], last) < 0)
		err(1, "%s -> %s", argv[1], last);
	return 0;
}
