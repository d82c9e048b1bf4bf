/*
 * t_mounts - /proc is a file system mounted on the root's directory /proc:
 * "/" lists it, it has a device of its own, ".." leads back out of it (from
 * a path and from the working directory), its files open, and
 * /proc/mounts lists it and the root. The same on Linux.
 */
#include "tap.h"
#include <fcntl.h>

/* Does directory path list name, as a directory (or of unknown type)? */
static int lists_dir(const char *path, const char *name)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;
	while (d && (e = readdir(d)) != NULL)
		if (!strcmp(e->d_name, name))
			found = e->d_type == DT_DIR || e->d_type == DT_UNKNOWN;
	if (d)
		closedir(d);
	return found;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Does /proc/mounts have a line "SOURCE dir type ..." with this dir and type? */
static int mounts_has(const char *dir, const char *type)
{
	FILE *f = fopen("/proc/mounts", "r");
	char line[512], src[256], mnt[256], fstype[64];
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%255s %255s %63s", src, mnt, fstype) == 3 &&
		    !strcmp(mnt, dir) && (!type || !strcmp(fstype, type)))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	tap_start();
	struct stat root, proc, up, sh, sh2;
	CHECK(lists_dir("/", "proc"), "readdir of / lists proc, a directory");
	CHECK_OK(stat("/", &root), "stat /");
	CHECK_OK(stat("/proc", &proc), "stat /proc");
	CHECK(S_ISDIR(proc.st_mode), "/proc is a directory");
	CHECK(proc.st_dev != root.st_dev, "/proc has a device of its own");
	CHECK_OK(stat("/proc/..", &up), "stat /proc/..");
	CHECK(same_file(&up, &root), "/proc/.. is / (same st_dev and st_ino)");
	CHECK_OK(stat("/proc/../proc/.", &up), "stat /proc/../proc/.");
	CHECK(same_file(&up, &proc), "/proc/../proc/. is /proc");

	int fd = open("/proc/meminfo", O_RDONLY);
	char buf[64] = "";
	CHECK(fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && !strncmp(buf, "MemTotal:", 9),
	      "/proc/meminfo opens and reads");
	if (fd >= 0)
		close(fd);
	CHECK(mounts_has("/proc", "proc"), "/proc/mounts lists proc on /proc");
	CHECK(mounts_has("/", NULL), "/proc/mounts lists the root");

	CHECK_OK(chdir("/proc"), "chdir /proc");
	char cwd[64] = "";
	CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/proc"), "getcwd in /proc is /proc");
	CHECK_OK(stat("..", &up), "stat .. from /proc");
	CHECK(same_file(&up, &root), ".. from /proc is /");
	CHECK(lists_dir("..", "proc"), "readdir of .. from /proc lists proc");
	fd = open("../bin/sh", O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &sh) == 0 && stat("/bin/sh", &sh2) == 0 && same_file(&sh, &sh2),
	      "open ../bin/sh from /proc is /bin/sh");
	if (fd >= 0)
		close(fd);
	fd = open("meminfo", O_RDONLY);
	CHECK(fd >= 0, "open meminfo relative to /proc");
	if (fd >= 0)
		close(fd);
	CHECK_OK(chdir(".."), "chdir .. from /proc");
	CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/"), "getcwd after chdir .. is /");
	return tap_done();
}
