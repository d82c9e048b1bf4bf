/*
 * t_files - file and directory system calls: what they return and which
 * errno they give when they refuse. Every expectation is what Linux does
 * on ext2/ext4 and tmpfs; Roundabout must give the same answers.
 * Pipes are made with pipe2(): musl's pipe() is the older syscall 22.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

/* Create name holding text; returns 0 or -1. */
static int put_file(const char *name, const char *text)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Read all of name into buf (NUL-terminated); returns the length or -1. */
static ssize_t get_file(const char *name, char *buf, size_t size)
{
	int fd = open(name, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static void test_open_create(void)
{
	int fd = open("a", O_RDWR | O_CREAT | O_EXCL, 0640);
	CHECK(fd >= 0, "open O_CREAT|O_EXCL creates a new file");
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	      (st.st_mode & 0777) == 0640 && st.st_size == 0,
	      "a new file is regular, mode 0640, size 0");
	close(fd);
	CHECK_ERR(open("a", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST,
		  "O_CREAT|O_EXCL on an existing file gives EEXIST");
	CHECK_ERR(open("missing", O_RDONLY), ENOENT,
		  "opening a missing file gives ENOENT");
	CHECK_ERR(open("nodir/x", O_RDWR | O_CREAT, 0644), ENOENT,
		  "creating in a missing directory gives ENOENT");
	CHECK_ERR(open("a/x", O_RDONLY), ENOTDIR,
		  "a regular file used as a directory gives ENOTDIR");
	CHECK_ERR(open("a", O_RDONLY | O_DIRECTORY), ENOTDIR,
		  "O_DIRECTORY on a regular file gives ENOTDIR");
	CHECK_ERR(open(".", O_WRONLY), EISDIR,
		  "opening a directory for writing gives EISDIR");
	CHECK_ERR(open(".", O_RDWR | O_CREAT, 0644), EISDIR,
		  "O_CREAT on an existing directory gives EISDIR");
	CHECK_ERR(open("", O_RDONLY), ENOENT, "an empty path gives ENOENT");
}

static void test_read_write(void)
{
	int fd = open("rw", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[64] = { 0 };
	CHECK_EQ(write(fd, "hello, world", 12), 12, "write returns the count");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 12, "write advances the offset");
	CHECK_EQ(read(fd, buf, sizeof buf), 0, "read at end of file returns 0");
	CHECK_EQ(lseek(fd, 7, SEEK_SET), 7, "lseek SEEK_SET returns the offset");
	CHECK(read(fd, buf, 5) == 5 && !memcmp(buf, "world", 5),
	      "read after lseek returns the bytes there");
	CHECK_EQ(lseek(fd, -5, SEEK_END), 7, "lseek SEEK_END counts from the end");
	CHECK_EQ(lseek(fd, -2, SEEK_CUR), 5, "lseek SEEK_CUR counts from the offset");
	CHECK_ERR(lseek(fd, -100, SEEK_SET), EINVAL,
		  "lseek to a negative offset gives EINVAL");
	CHECK_ERR(lseek(fd, 0, 42), EINVAL, "lseek with a bad whence gives EINVAL");
	CHECK_EQ(write(fd, buf, 0), 0, "write of 0 bytes returns 0");
	CHECK_EQ(read(fd, buf, 0), 0, "read of 0 bytes returns 0");
	close(fd);
}

static void test_pread_pwrite(void)
{
	int fd = open("p", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[16] = { 0 };
	write(fd, "0123456789", 10);
	lseek(fd, 3, SEEK_SET);
	CHECK(pread(fd, buf, 4, 5) == 4 && !memcmp(buf, "5678", 4),
	      "pread reads at the given offset");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3, "pread leaves the file offset alone");
	CHECK_EQ(pwrite(fd, "ab", 2, 1), 2, "pwrite returns the count");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3, "pwrite leaves the file offset alone");
	CHECK(pread(fd, buf, 10, 0) == 10 && !memcmp(buf, "0ab3456789", 10),
	      "pwrite stored its bytes at the offset");
	CHECK_ERR(pread(fd, buf, 1, -1), EINVAL,
		  "pread at a negative offset gives EINVAL");
	close(fd);
}

static void test_append_trunc(void)
{
	char buf[64];
	put_file("ap", "abc");
	int fd = open("ap", O_WRONLY | O_APPEND);
	lseek(fd, 0, SEEK_SET);
	write(fd, "de", 2);
	close(fd);
	CHECK(get_file("ap", buf, sizeof buf) == 5 && !strcmp(buf, "abcde"),
	      "O_APPEND writes at the end even after lseek to 0");
	fd = open("ap", O_WRONLY | O_TRUNC);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0,
	      "O_TRUNC empties an existing file");
	close(fd);
}

static void test_truncate_holes(void)
{
	int fd = open("h", O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct stat st;
	char buf[8192];
	write(fd, "abcdef", 6);
	CHECK_OK(ftruncate(fd, 3), "ftruncate shrinks a file");
	CHECK(fstat(fd, &st) == 0 && st.st_size == 3, "fstat sees the new size");
	ftruncate(fd, 10000);
	memset(buf, 'x', sizeof buf);
	CHECK(pread(fd, buf, 10, 0) == 10 && !memcmp(buf, "abc\0\0\0\0\0\0\0", 10),
	      "ftruncate grows a file with zeros");
	lseek(fd, 1 << 20, SEEK_SET);
	write(fd, "z", 1);
	fstat(fd, &st);
	CHECK_EQ(st.st_size, (1 << 20) + 1, "a write past the end sets the size");
	memset(buf, 'x', sizeof buf);
	ssize_t n = pread(fd, buf, sizeof buf, 500000);
	int zero = n == (ssize_t)sizeof buf;
	for (ssize_t i = 0; zero && i < n; i++)
		zero = buf[i] == 0;
	CHECK(zero, "a hole reads as zeros");
	CHECK_ERR(ftruncate(fd, -1), EINVAL, "ftruncate to a negative size gives EINVAL");
	close(fd);
	fd = open("h", O_RDONLY);
	CHECK_ERR(ftruncate(fd, 0), EINVAL,
		  "ftruncate on a read-only descriptor gives EINVAL");
	close(fd);
	CHECK_OK(fd = open("h", O_RDWR), "reopen for fsync");
	CHECK_OK(fsync(fd), "fsync on a regular file succeeds");
	close(fd);
}

static void test_big_roundtrip(void)
{
	static unsigned char out[1 << 20], in[1 << 20];
	for (size_t i = 0; i < sizeof out; i++)
		out[i] = (unsigned char)(i * 7 + (i >> 12));
	int fd = open("big", O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(write(fd, out, sizeof out), sizeof out, "a 1 MiB write is complete");
	lseek(fd, 0, SEEK_SET);
	size_t got = 0;
	ssize_t n;
	while (got < sizeof in && (n = read(fd, in + got, sizeof in - got)) > 0)
		got += n;
	CHECK(got == sizeof in && !memcmp(in, out, sizeof in),
	      "a 1 MiB file reads back byte for byte");
	close(fd);
}

static void test_unlink(void)
{
	char buf[16];
	struct stat st;
	put_file("u", "keep");
	int fd = open("u", O_RDONLY);
	CHECK_OK(unlink("u"), "unlink removes a file");
	CHECK_ERR(stat("u", &st), ENOENT, "stat after unlink gives ENOENT");
	CHECK(read(fd, buf, 4) == 4 && !memcmp(buf, "keep", 4),
	      "an open descriptor still reads an unlinked file");
	CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0,
	      "an unlinked open file has nlink 0");
	close(fd);
	CHECK_ERR(unlink("u"), ENOENT, "unlink of a missing file gives ENOENT");
	mkdir("ud", 0755);
	CHECK_ERR(unlink("ud"), EISDIR, "unlink of a directory gives EISDIR");
	CHECK_OK(unlinkat(AT_FDCWD, "ud", AT_REMOVEDIR),
		 "unlinkat AT_REMOVEDIR removes a directory");
}

static void test_rename(void)
{
	char buf[16];
	put_file("r1", "one");
	put_file("r2", "two");
	CHECK_OK(rename("r1", "r2"), "rename over an existing file succeeds");
	CHECK(get_file("r2", buf, sizeof buf) == 3 && !strcmp(buf, "one"),
	      "the target now holds the source's data");
	CHECK_ERR(open("r1", O_RDONLY), ENOENT, "the source name is gone");
	CHECK_ERR(rename("r1", "r3"), ENOENT, "rename of a missing file gives ENOENT");
	mkdir("rd", 0755);
	mkdir("rd/sub", 0755);
	mkdir("re", 0755);
	put_file("re/x", "x");
	CHECK_ERR(rename("rd", "rd/sub/in"), EINVAL,
		  "moving a directory into itself gives EINVAL");
	CHECK_ERR(rename("r2", "rd"), EISDIR,
		  "renaming a file over a directory gives EISDIR");
	CHECK_ERR(rename("rd", "r2"), ENOTDIR,
		  "renaming a directory over a file gives ENOTDIR");
	CHECK_ERR(rename("rd", "re"), ENOTEMPTY,
		  "renaming over a non-empty directory gives ENOTEMPTY");
	CHECK_OK(rename("rd/sub", "re2"), "a directory can move to another parent");
	CHECK_OK(rename("re2", "rd"), "a directory can replace an empty directory");
	int dfd = open("re", O_RDONLY | O_DIRECTORY);
	CHECK_OK(renameat(dfd, "x", AT_FDCWD, "rx"),
		 "renameat moves between directory descriptors");
	close(dfd);
	struct stat st;
	CHECK(stat("rx", &st) == 0 && stat("re/x", &st) != 0,
	      "renameat left the file only at its new name");
}

static void test_mkdir_rmdir(void)
{
	struct stat st;
	CHECK_OK(mkdir("m", 0750), "mkdir creates a directory");
	CHECK(stat("m", &st) == 0 && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 0777) == 0750 && st.st_nlink == 2,
	      "a new directory has mode 0750 and nlink 2");
	mkdir("m/s", 0755);
	CHECK(stat("m", &st) == 0 && st.st_nlink == 3,
	      "a subdirectory adds one link to its parent");
	CHECK_ERR(mkdir("m", 0755), EEXIST, "mkdir of an existing name gives EEXIST");
	CHECK_ERR(mkdir("nodir/m", 0755), ENOENT,
		  "mkdir in a missing directory gives ENOENT");
	put_file("mf", "");
	CHECK_ERR(mkdir("mf/m", 0755), ENOTDIR,
		  "mkdir below a regular file gives ENOTDIR");
	CHECK_ERR(rmdir("m"), ENOTEMPTY, "rmdir of a non-empty directory gives ENOTEMPTY");
	CHECK_ERR(rmdir("mf"), ENOTDIR, "rmdir of a regular file gives ENOTDIR");
	CHECK_ERR(rmdir("nothere"), ENOENT, "rmdir of a missing name gives ENOENT");
	CHECK_ERR(rmdir("m/s/."), EINVAL, "rmdir of a path ending in . gives EINVAL");
	CHECK_OK(rmdir("m/s"), "rmdir removes an empty directory");
	CHECK(stat("m", &st) == 0 && st.st_nlink == 2,
	      "removing a subdirectory drops the parent's link");
}

static void test_long_names(void)
{
	char name[300], path[PATH_MAX + 100];
	memset(name, 'n', 256);
	name[256] = '\0';
	CHECK_ERR(open(name, O_RDWR | O_CREAT, 0644), ENAMETOOLONG,
		  "a 256-byte name gives ENAMETOOLONG");
	CHECK_ERR(mkdir(name, 0755), ENAMETOOLONG,
		  "mkdir of a 256-byte name gives ENAMETOOLONG");
	name[255] = '\0';
	CHECK_OK(close(open(name, O_RDWR | O_CREAT, 0644)),
		 "a 255-byte name is allowed");
	unlink(name);
	for (size_t i = 0; i < sizeof path - 1; i += 2)
		memcpy(path + i, "./", 2);
	path[sizeof path - 1] = '\0';
	CHECK_ERR(open(path, O_RDONLY), ENAMETOOLONG,
		  "a path longer than PATH_MAX gives ENAMETOOLONG");
}

/* Find name in a getdents64 listing of dir; returns its d_type or -1. */
static int dirent_type(const char *dir, const char *name, int *count)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), type = -1;
	long n;
	*count = 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent *d = (struct dirent *)(buf + off);
			(*count)++;
			if (!strcmp(d->d_name, name))
				type = d->d_type;
			off += d->d_reclen;
		}
	}
	close(fd);
	return type;
}

static void test_getdents(void)
{
	int count;
	mkdir("g", 0755);
	put_file("g/a", "");
	put_file("g/b", "");
	mkdir("g/c", 0755);
	CHECK_EQ(dirent_type("g", "a", &count), DT_REG, "getdents64 types a file DT_REG");
	CHECK_EQ(count, 5, "getdents64 lists . .. and the three entries");
	CHECK_EQ(dirent_type("g", "c", &count), DT_DIR, "getdents64 types a directory DT_DIR");
	CHECK_EQ(dirent_type("g", "..", &count), DT_DIR, "getdents64 lists .. as DT_DIR");
	unlink("g/b");
	CHECK(dirent_type("g", "b", &count) == -1 && count == 4,
	      "an unlinked name leaves the listing");
	char small[8];
	int fd = open("g", O_RDONLY | O_DIRECTORY);
	CHECK_ERR(syscall(SYS_getdents64, fd, small, sizeof small), EINVAL,
		  "getdents64 with a buffer too small for one entry gives EINVAL");
	close(fd);
	fd = open("g/a", O_RDONLY);
	CHECK_ERR(syscall(SYS_getdents64, fd, small, sizeof small), ENOTDIR,
		  "getdents64 on a regular file gives ENOTDIR");
	close(fd);
	fd = open("g", O_RDONLY | O_DIRECTORY);
	CHECK_ERR(read(fd, small, sizeof small), EISDIR,
		  "read on a directory gives EISDIR");
	close(fd);
}

static void test_stat(void)
{
	struct stat a, b;
	put_file("s", "12345");
	int fd = open("s", O_RDONLY);
	CHECK(stat("s", &a) == 0 && a.st_size == 5 && S_ISREG(a.st_mode) &&
	      a.st_nlink == 1, "stat gives size, type and links");
	CHECK(fstat(fd, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev,
	      "fstat and stat agree on device and inode");
	CHECK(a.st_blksize > 0, "st_blksize is positive");
	CHECK(fstatat(AT_FDCWD, "s", &b, AT_SYMLINK_NOFOLLOW) == 0 && b.st_ino == a.st_ino,
	      "fstatat with AT_FDCWD finds the same inode");
	int dfd = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(fstatat(dfd, "s", &b, 0) == 0 && b.st_ino == a.st_ino,
	      "fstatat relative to a directory descriptor");
	int rfd = openat(dfd, "s", O_RDONLY);
	CHECK(rfd >= 0 && fstat(rfd, &b) == 0 && b.st_ino == a.st_ino,
	      "openat relative to a directory descriptor");
	close(rfd);
	close(dfd);
	CHECK_ERR(stat("nope", &a), ENOENT, "stat of a missing name gives ENOENT");
	CHECK_ERR(stat("s/x", &a), ENOTDIR, "stat through a file gives ENOTDIR");
	close(fd);
}

static void test_bad_fds(void)
{
	char c;
	struct stat st;
	int fd = open("bf", O_RDWR | O_CREAT | O_TRUNC, 0644);
	close(fd);
	CHECK_ERR(read(fd, &c, 1), EBADF, "read on a closed descriptor gives EBADF");
	CHECK_ERR(close(fd), EBADF, "close of a closed descriptor gives EBADF");
	CHECK_ERR(fstat(-1, &st), EBADF, "fstat of -1 gives EBADF");
	CHECK_ERR(write(9999, &c, 1), EBADF, "write to an unopened number gives EBADF");
	fd = open("bf", O_RDONLY);
	CHECK_ERR(write(fd, "x", 1), EBADF, "write to a read-only descriptor gives EBADF");
	close(fd);
	fd = open("bf", O_WRONLY);
	CHECK_ERR(read(fd, &c, 1), EBADF, "read from a write-only descriptor gives EBADF");
	close(fd);
	int p[2];
	pipe2(p, 0);
	CHECK_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek on a pipe gives ESPIPE");
	close(p[0]);
	close(p[1]);
}

static void test_dup_fcntl(void)
{
	char buf[8];
	put_file("d", "abcdef");
	int fd = open("d", O_RDWR);
	int low = dup(fd);
	CHECK(low > fd, "dup returns a new descriptor");
	close(low);
	CHECK_EQ(dup(fd), low, "dup returns the lowest free number");
	read(fd, buf, 2);
	CHECK(read(low, buf, 2) == 2 && !memcmp(buf, "cd", 2),
	      "a dup shares the file offset");
	CHECK_EQ(dup2(fd, 20), 20, "dup2 returns the requested number");
	CHECK_EQ(dup2(fd, fd), fd, "dup2 onto itself returns the descriptor");
	CHECK_ERR(dup2(-1, 21), EBADF, "dup2 from a bad descriptor gives EBADF");
	CHECK_EQ(dup2(low, 20), 20, "dup2 onto an open number replaces it");
	CHECK_EQ(fcntl(fd, F_GETFD), 0, "a new descriptor has no FD_CLOEXEC");
	CHECK_OK(fcntl(fd, F_SETFD, FD_CLOEXEC), "F_SETFD sets FD_CLOEXEC");
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC, "F_GETFD reads FD_CLOEXEC back");
	int d2 = dup(fd);
	CHECK_EQ(fcntl(d2, F_GETFD), 0, "dup clears FD_CLOEXEC on the copy");
	close(d2);
	CHECK(fcntl(fd, F_DUPFD, 30) >= 30, "F_DUPFD returns a number at least the minimum");
	CHECK_EQ(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND), O_RDWR,
		 "F_GETFL gives the access mode");
	CHECK_OK(fcntl(fd, F_SETFL, O_APPEND), "F_SETFL sets O_APPEND");
	CHECK_EQ(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND), O_RDWR | O_APPEND,
		 "F_GETFL shows O_APPEND and keeps the access mode");
	lseek(fd, 0, SEEK_SET);
	write(fd, "g", 1);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 7, "a write after F_SETFL O_APPEND goes to the end");
	CHECK_ERR(fcntl(fd, 12345), EINVAL, "fcntl with an unknown command gives EINVAL");
	CHECK_ERR(fcntl(-1, F_GETFD), EBADF, "fcntl on a bad descriptor gives EBADF");
	errno = 0;
	int tty = isatty(fd);
	CHECK(tty == 0 && errno == ENOTTY, "isatty on a regular file is false with ENOTTY");
	close(fd);
	close(low);
}

static void test_cwd(void)
{
	char cwd[PATH_MAX];
	mkdir("cw", 0755);
	CHECK_OK(chdir("cw"), "chdir into a directory");
	CHECK(getcwd(cwd, sizeof cwd) && strlen(cwd) > 3 &&
	      !strcmp(cwd + strlen(cwd) - 3, "/cw"),
	      "getcwd names the new directory");
	CHECK_OK(chdir(".."), "chdir .. goes back");
	put_file("cf", "");
	CHECK_ERR(chdir("cf"), ENOTDIR, "chdir to a regular file gives ENOTDIR");
	CHECK_ERR(chdir("gone"), ENOENT, "chdir to a missing name gives ENOENT");
	CHECK_ERR(getcwd(cwd, 1) ? 0 : -1, ERANGE, "getcwd into a 1-byte buffer gives ERANGE");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: t_files\nChecks file and directory system calls"
		       " in a scratch directory; prints one line per check.\n");
		return 0;
	}
	tap_start();
	tap_enter_scratch("t_files");
	test_open_create();
	test_read_write();
	test_pread_pwrite();
	test_append_trunc();
	test_truncate_holes();
	test_big_roundtrip();
	test_unlink();
	test_rename();
	test_mkdir_rmdir();
	test_long_names();
	test_getdents();
	test_stat();
	test_bad_fds();
	test_dup_fcntl();
	test_cwd();
	tap_leave_scratch();
	return tap_done();
}
