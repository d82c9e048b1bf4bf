/*
 * t_symlink - symbolic links: symlink, readlink, the path walk through
 * them (middle and last components, relative and absolute targets, the
 * 40-link limit), and the calls that act on the link itself (lstat,
 * O_NOFOLLOW, unlink, rename, link, utimensat with AT_SYMLINK_NOFOLLOW).
 * Run on Linux too.
 *
 * With --image (a tests/disks.txt boot on an image with build/symlink-stage
 * added): also read back the links mke2fs -d made (/links: a fast and a
 * slow one), and leave links of both kinds in /guest for e2fsck to judge.
 */
#include "tap.h"
#include <fcntl.h>
#include <sys/syscall.h>
#include <stdbool.h>
#include <time.h>

#define BAD ((void *)0x10)	/* an unmapped address */

/* "./" n times, then name: a target of 2n + strlen(name) bytes. */
static char *dots_then(int n, const char *name)
{
	static char buf[512];
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		strcat(buf, "./");
	strcat(buf, name);
	return buf;
}

static int is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int read_is(const char *path, const char *want)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

static int readlink_is(const char *path, const char *want)
{
	char buf[512];
	ssize_t n = readlink(path, buf, sizeof buf);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

static void creating_and_reading(void)
{
	struct stat st;
	CHECK_OK(symlink("target", "fast"), "symlink: a short (fast) link");
	CHECK(lstat("fast", &st) == 0 && S_ISLNK(st.st_mode) && (st.st_mode & 07777) == 0777,
	      "lstat: S_IFLNK, mode 0777");
	CHECK_EQ(st.st_size, 6, "its size is the target's length");
	CHECK(readlink_is("fast", "target"), "readlink gives the target");
	char buf[8];
	memset(buf, '#', sizeof buf);
	CHECK_EQ(readlink("fast", buf, 3), 3, "readlink into a short buffer: truncated");
	CHECK(!memcmp(buf, "tar#", 4), "with no NUL added");
	CHECK_ERR(syscall(SYS_readlink, "fast", buf, 0), EINVAL, "readlink with size 0: EINVAL");
	CHECK_ERR(stat("fast", &st), ENOENT, "stat of a dangling link: ENOENT");
	CHECK_ERR(open("fast", O_RDONLY), ENOENT, "open of a dangling link: ENOENT");
	int fd = open("fast", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "hello", 5) == 5, "open(O_CREAT) through a dangling link");
	close(fd);
	CHECK(lstat("target", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5,
	      "creates its target");
	CHECK(stat("fast", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5,
	      "stat follows the link to it");
	CHECK(read_is("fast", "hello"), "open and read through the link");
	CHECK_ERR(open("fast", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST,
		  "O_CREAT|O_EXCL on a link: EEXIST");
	CHECK_ERR(open("fast", O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW on a link: ELOOP");
	CHECK_OK(close(open("target", O_RDONLY | O_NOFOLLOW)), "O_NOFOLLOW on a file opens it");

	const char *long_target = dots_then(100, "target");
	CHECK_OK(symlink(long_target, "slow"), "symlink: a 206-byte (slow) link");
	CHECK(lstat("slow", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 206,
	      "lstat: a link of size 206");
	CHECK(readlink_is("slow", long_target), "readlink gives the long target");
	CHECK(read_is("slow", "hello"), "and the walk follows it");
	CHECK(fstatat(AT_FDCWD, "slow", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode),
	      "fstatat(AT_SYMLINK_NOFOLLOW) stats the link");
	int dfd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0 && readlinkat(dfd, "fast", buf, sizeof buf) == 6, "readlinkat from a dirfd");
	close(dfd);
}

static void errors(void)
{
	char buf[16];
	CHECK_ERR(readlink("target", buf, sizeof buf), EINVAL, "readlink of a file: EINVAL");
	CHECK_ERR(readlink(".", buf, sizeof buf), EINVAL, "readlink of a directory: EINVAL");
	CHECK_ERR(readlink("missing", buf, sizeof buf), ENOENT, "readlink of nothing: ENOENT");
	CHECK_ERR(symlink("x", "fast"), EEXIST, "symlink over a link: EEXIST");
	CHECK_ERR(symlink("x", "target"), EEXIST, "symlink over a file: EEXIST");
	CHECK_ERR(symlink("", "empty"), ENOENT, "an empty target: ENOENT");
	CHECK_ERR(syscall(SYS_symlink, BAD, "bad"), EFAULT, "symlink with a bad target: EFAULT");
	CHECK_ERR(syscall(SYS_symlink, "x", BAD), EFAULT, "symlink with a bad path: EFAULT");
	CHECK_ERR(syscall(SYS_readlink, "fast", BAD, 16), EFAULT, "readlink into a bad buffer: EFAULT");
	CHECK_ERR(syscall(SYS_readlink, BAD, buf, 16), EFAULT, "readlink of a bad path: EFAULT");
	CHECK_ERR(mkdir("fast", 0755), EEXIST, "mkdir over a link: EEXIST");
	CHECK_OK(symlink("nowhere", "dangling"), "a dangling link");
	CHECK_ERR(mkdir("dangling", 0755), EEXIST, "mkdir over a dangling link: EEXIST");
	CHECK_ERR(symlinkat("x", 999, "y"), EBADF, "symlinkat with a bad dirfd: EBADF");
}

static void walking(void)
{
	struct stat st, want;
	CHECK_OK(mkdir("dir", 0755), "a directory");
	int fd = open("dir/inner", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "inner", 5) == 5, "a file in it");
	close(fd);
	CHECK_OK(symlink("dir", "dl"), "a link to the directory");
	CHECK(read_is("dl/inner", "inner"), "a link in the middle of a path is followed");
	char abs[512];
	CHECK(getcwd(abs, 400) != NULL, "getcwd");
	strcat(abs, "/dir");
	CHECK_OK(symlink(abs, "abs"), "a link with an absolute target");
	CHECK(read_is("abs/inner", "inner"), "is followed from the root");
	CHECK_OK(symlink("../target", "dir/up"), "a relative link in the directory");
	CHECK(stat("dir/up", &st) == 0 && stat("target", &want) == 0 && st.st_ino == want.st_ino,
	      "resolves from the link's own directory");
	CHECK(read_is("dl/up", "hello"), "links within links");
	CHECK(stat("dl/", &st) == 0 && S_ISDIR(st.st_mode), "stat with a trailing slash");
	CHECK(lstat("dl/", &st) == 0 && S_ISDIR(st.st_mode), "lstat with a trailing slash follows");
	CHECK_ERR(stat("fast/", &st), ENOTDIR, "a trailing slash on a link to a file: ENOTDIR");
	CHECK_ERR(stat("fast/x", &st), ENOTDIR, "a link to a file in the middle: ENOTDIR");
	CHECK_ERR(stat("dangling/x", &st), ENOENT, "a dangling link in the middle: ENOENT");
	int d = open("dl", O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0, "O_DIRECTORY through a link to a directory");
	close(d);
	CHECK_ERR(open("dl", O_RDONLY | O_DIRECTORY | O_NOFOLLOW), ENOTDIR,
		  "O_DIRECTORY|O_NOFOLLOW on the link: ENOTDIR");
	CHECK_OK(chdir("dl"), "chdir through a link");
	char cwd[512];
	CHECK(getcwd(cwd, sizeof cwd) && strlen(cwd) >= 4 && !strcmp(cwd + strlen(cwd) - 4, "/dir"),
	      "getcwd names the directory, not the link");
	CHECK_OK(chdir(".."), "and .. is the directory's parent");
	CHECK(is_link("dl"), "back where the link is");
}

static void loops(void)
{
	struct stat st;
	CHECK_OK(symlink("loop2", "loop1"), "loop1 -> loop2");
	CHECK_OK(symlink("loop1", "loop2"), "loop2 -> loop1");
	CHECK_ERR(stat("loop1", &st), ELOOP, "stat of a loop: ELOOP");
	CHECK_ERR(open("loop1/x", O_RDONLY), ELOOP, "a loop in the middle: ELOOP");
	CHECK_ERR(open("loop1", O_CREAT | O_WRONLY, 0644), ELOOP, "O_CREAT through a loop: ELOOP");
	CHECK(lstat("loop1", &st) == 0 && S_ISLNK(st.st_mode), "lstat of a loop is fine");
	char name[16], prev[16] = "target";
	int ok = 1;
	for (int i = 1; i <= 41; i++) {
		snprintf(name, sizeof name, "c%d", i);
		ok &= symlink(prev, name) == 0;
		strcpy(prev, name);
	}
	CHECK(ok, "a chain of 41 links");
	CHECK(stat("c40", &st) == 0 && S_ISREG(st.st_mode), "40 links are followed");
	CHECK_ERR(stat("c41", &st), ELOOP, "41 are ELOOP");
	CHECK_ERR(stat("c41/", &st), ELOOP, "41 with a trailing slash: ELOOP");
}

static void on_the_link_itself(void)
{
	struct stat st;
	CHECK_OK(rename("fast", "fast2"), "rename moves the link");
	CHECK(is_link("fast2") && !is_link("fast") && read_is("target", "hello"),
	      "the link itself, not its target");
	CHECK_OK(link("fast2", "hard"), "link() makes a hard link to the link");
	CHECK(is_link("hard") && lstat("hard", &st) == 0 && st.st_nlink == 2, "itself a link, nlink 2");
	CHECK_OK(linkat(AT_FDCWD, "slow", AT_FDCWD, "hard2", AT_SYMLINK_FOLLOW),
		 "linkat(AT_SYMLINK_FOLLOW) links the target");
	CHECK(lstat("hard2", &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 2, "a file, nlink 2");
	CHECK_ERR(linkat(AT_FDCWD, "slow", AT_FDCWD, "hard3", 0x8000), EINVAL,
		  "linkat with an unknown flag: EINVAL");
	struct stat before;
	stat("target", &before);
	struct timespec ts[2] = { { 1000000000, 0 }, { 1111111111, 0 } };
	CHECK_OK(utimensat(AT_FDCWD, "fast2", ts, AT_SYMLINK_NOFOLLOW),
		 "utimensat(AT_SYMLINK_NOFOLLOW) on a link");
	CHECK(lstat("fast2", &st) == 0 && st.st_mtime == 1111111111, "sets the link's time");
	CHECK(stat("target", &st) == 0 && st.st_mtime == before.st_mtime, "not the target's");
	CHECK_OK(utimensat(AT_FDCWD, "fast2", ts, 0), "utimensat without it");
	CHECK(stat("target", &st) == 0 && st.st_mtime == 1111111111, "sets the target's");
	CHECK_ERR(rmdir("dl"), ENOTDIR, "rmdir of a link to a directory: ENOTDIR");
	CHECK_OK(unlink("dl"), "unlink removes the link");
	CHECK(lstat("dl", &st) != 0 && stat("dir", &st) == 0, "and leaves the directory");
	CHECK_OK(unlink("slow"), "unlink of a slow link");
	CHECK(read_is("target", "hello"), "the target is untouched");
	DIR *d = opendir(".");
	struct dirent *e;
	int type = -1;
	while (d && (e = readdir(d)))
		if (!strcmp(e->d_name, "fast2"))
			type = e->d_type;
	if (d)
		closedir(d);
	CHECK_EQ(type, DT_LNK, "getdents: d_type DT_LNK");
}

/* --image: the links mke2fs -d made, and links left for e2fsck. */
static void image(void)
{
	CHECK(readlink_is("/links/fast", "file"), "host-made fast link reads back");
	CHECK(readlink_is("/links/slow", dots_then(100, "file")), "host-made slow link reads back");
	CHECK(read_is("/links/slow", "host file\n"), "and both are followed");
	CHECK(read_is("/links/dir/up", "host file\n"), "a host-made relative link");
	CHECK_OK(mkdir("/guest", 0755), "/guest");
	CHECK_OK(symlink("../links/file", "/guest/fast"), "a guest fast link");
	CHECK_OK(symlink(dots_then(120, "../links/file"), "/guest/slow"), "a guest slow link");
	int ok = 1;
	for (int i = 0; i < 20; i++) {
		char name[32];
		snprintf(name, sizeof name, "/guest/gone%d", i);
		ok &= symlink(dots_then(100 + i, "x"), name) == 0 && unlink(name) == 0;
	}
	CHECK(ok, "20 slow links made and removed (their blocks freed)");
	CHECK(read_is("/guest/slow", "host file\n"), "the guest links are followed");
}

int main(int argc, char **argv)
{
	bool on_image = argc > 1 && !strcmp(argv[1], "--image");
	tap_start();
	if (on_image)
		image();
	tap_enter_scratch("symlink");
	creating_and_reading();
	errors();
	walking();
	loops();
	on_the_link_itself();
	tap_leave_scratch();
	int status = tap_done();
	if (on_image)	/* the ktest-style verdict a tests/disks.txt boot counts */
		printf("%s 1 ext2_symlinks_read_back_and_written\n", status ? "not ok" : "ok");
	return status;
}
