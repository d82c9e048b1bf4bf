/*
 * t_limits - the edges of the system-call interface, checked against
 * Linux: mremap and msync on addresses that are not mapped, iovecs too
 * long to count, running out of descriptors, 10,000 names in one
 * directory, names of NAME_MAX and NAME_MAX + 1 bytes, paths of PATH_MAX
 * bytes, and directories nested 200 deep.
 *
 * It works in the current directory (on Linux, a fresh temporary one).
 */
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tap.h"

#define PAGE 4096
#define KERNEL_ADDR ((void *)0xffff800000000000UL)
#define NOWHERE ((void *)0x500000000000UL)	/* far from anything a program maps */
#define MANY 10000
#define DEEP 200

static void mremap_needs_a_mapping(void)
{
	CHECK(mremap(KERNEL_ADDR, 2 * PAGE, PAGE, 0) == MAP_FAILED && errno == EFAULT,
	      "mremap shrinking a kernel address gives EFAULT");
	CHECK(mremap(NOWHERE, 2 * PAGE, PAGE, 0) == MAP_FAILED && errno == EFAULT,
	      "mremap shrinking an unmapped address gives EFAULT");
	CHECK(mremap(NOWHERE, PAGE, PAGE, 0) == MAP_FAILED && errno == EFAULT,
	      "mremap to the same size at an unmapped address gives EFAULT");
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mremap(m, 2 * PAGE, PAGE, 0) == m, "mremap shrinking a mapping returns its address");
	munmap(m, 2 * PAGE);
}

static void iovec_lengths(void)
{
	char b[16] = "0123456789abcdef";
	int fd = open("iov", O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct iovec huge[1] = { { b, (size_t)1 << 63 } };
	CHECK_ERR(readv(fd, huge, 1), EINVAL, "readv with an iov_len above SSIZE_MAX gives EINVAL");
	CHECK_ERR(writev(fd, huge, 1), EINVAL, "writev with an iov_len above SSIZE_MAX gives EINVAL");
	CHECK_ERR(preadv(fd, huge, 1, 0), EINVAL, "preadv with an iov_len above SSIZE_MAX gives EINVAL");
	CHECK_ERR(pwritev(fd, huge, 1, 0), EINVAL, "pwritev with an iov_len above SSIZE_MAX gives EINVAL");
	struct iovec out[2] = { { b, 16 }, { (void *)0x7fff00000000UL, (size_t)1 << 60 } };
	CHECK_ERR(writev(fd, out, 2), EFAULT, "writev whose buffers leave user space gives EFAULT");
	CHECK_ERR(pwritev(fd, out, 2, 0), EFAULT, "pwritev whose buffers leave user space gives EFAULT");
	struct iovec two[2] = { { b, 10 }, { b + 10, 6 } };
	CHECK_EQ(pwritev(fd, two, 2, 4), 16, "pwritev of two buffers at offset 4 writes 16 bytes");
	char back[20] = { 0 };
	struct iovec in[2] = { { back, 4 }, { back + 4, 16 } };
	CHECK_EQ(preadv(fd, in, 2, 0), 20, "preadv of two buffers from offset 0 reads 20 bytes");
	CHECK(!memcmp(back + 4, b, 16) && !back[0], "preadv sees what pwritev wrote, after a hole");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0, "preadv and pwritev leave the file offset alone");
	CHECK_ERR(preadv(fd, in, 2, -1), EINVAL, "preadv at a negative offset gives EINVAL");
	close(fd);
	unlink("iov");
}

static void msync_checks(void)
{
	int fd = open("ms", O_RDWR | O_CREAT | O_TRUNC, 0644);
	ftruncate(fd, 3 * PAGE);
	char *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memcpy(m + PAGE, "synced", 6);
	CHECK_OK(msync(m, 3 * PAGE, MS_SYNC), "msync MS_SYNC of a shared file mapping succeeds");
	char back[6] = { 0 };
	pread(fd, back, 6, PAGE);
	CHECK(!memcmp(back, "synced", 6), "after msync the file holds the store made through the mapping");
	CHECK_OK(msync(m, PAGE, MS_ASYNC), "msync MS_ASYNC succeeds");
	CHECK_OK(msync(m, PAGE, MS_INVALIDATE), "msync MS_INVALIDATE succeeds");
	CHECK_OK(msync(m, PAGE, 0), "msync with no flags succeeds");
	CHECK_OK(msync(m, 0, MS_SYNC), "msync of length 0 succeeds");
	CHECK_OK(msync(m, 100, MS_SYNC), "msync of a length that is not a page multiple succeeds");
	CHECK_ERR(msync(m + 1, PAGE, MS_SYNC), EINVAL, "msync at an unaligned address gives EINVAL");
	CHECK_ERR(msync(m, PAGE, MS_SYNC | MS_ASYNC), EINVAL, "msync with MS_SYNC and MS_ASYNC gives EINVAL");
	CHECK_ERR(msync(m, PAGE, 8), EINVAL, "msync with an unknown flag gives EINVAL");
	CHECK_ERR(msync(NOWHERE, PAGE, MS_SYNC), ENOMEM, "msync of an unmapped range gives ENOMEM");
	CHECK_ERR(msync(KERNEL_ADDR, PAGE, MS_ASYNC), ENOMEM, "msync of a kernel address gives ENOMEM");
	CHECK_ERR(msync(m, -(long)PAGE, MS_ASYNC), ENOMEM, "msync whose length wraps gives ENOMEM");
	munmap(m + PAGE, PAGE);
	CHECK_ERR(msync(m, 3 * PAGE, MS_SYNC), ENOMEM, "msync over a hole in the mapping gives ENOMEM");
	CHECK_OK(msync(NOWHERE, 0, MS_SYNC), "msync of length 0 at an unmapped address succeeds");
	munmap(m, 3 * PAGE);
	close(fd);
	unlink("ms");

	char *a = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_OK(msync(a, PAGE, MS_SYNC), "msync MS_SYNC of anonymous memory succeeds");
	munmap(a, PAGE);
}

static void descriptors_run_out(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur > 256) {
		rl.rlim_cur = 256;
		setrlimit(RLIMIT_NOFILE, &rl);	/* Linux lowers it; Roundabout's is fixed */
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	int opened = 0, last = -1, e = 0;
	for (;;) {
		int fd = dup(0);
		if (fd < 0) {
			e = errno;
			break;
		}
		last = fd;
		opened++;
	}
	CHECK(e == EMFILE, "dup until the table is full ends with EMFILE");
	CHECK_EQ(last + 1, (long)rl.rlim_cur, "the last descriptor given is RLIMIT_NOFILE - 1");
	CHECK_ERR(open(".", O_RDONLY), EMFILE, "open with a full table gives EMFILE");
	int p[2];
	CHECK_ERR(pipe(p), EMFILE, "pipe with a full table gives EMFILE");
	close(last);
	CHECK_EQ(open(".", O_RDONLY), last, "after one close, open gets that descriptor");
	for (int fd = 3; fd <= last; fd++)
		close(fd);
}

/*
 * 10,000 names in one directory: one file and 9,999 hard links to it (the
 * test image has fewer than 10,000 free inodes; the directory is the same).
 */
static void ten_thousand_names(void)
{
	char name[32];
	int made = 0;
	mkdir("many", 0755);
	int fd = open("many/f00000", O_WRONLY | O_CREAT | O_EXCL, 0644);
	made += fd >= 0;
	close(fd);
	for (int i = 1; i < MANY; i++) {
		snprintf(name, sizeof name, "many/f%05d", i);
		if (link("many/f00000", name))
			break;
		made++;
	}
	CHECK_EQ(made, MANY, "10,000 names are made in one directory");
	int seen = 0;
	DIR *d = opendir("many");
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL)
		seen += de->d_name[0] == 'f';
	if (d)
		closedir(d);
	CHECK_EQ(seen, MANY, "readdir lists each of the 10,000 once");
	struct stat st;
	CHECK(stat("many/f09999", &st) == 0 && st.st_nlink == MANY,
	      "the last one is found by name, and the file has 10,000 links");
	CHECK_ERR(link("many/f00000", "many/f05000"), EEXIST, "a name already there gives EEXIST");
	int gone = 0;
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof name, "many/f%05d", i);
		gone += unlink(name) == 0;
	}
	CHECK_EQ(gone, MANY, "all 10,000 are unlinked");
	CHECK_OK(rmdir("many"), "and the directory is empty again");
}

static void name_lengths(void)
{
	char name[300];
	memset(name, 'n', 255);
	name[255] = 0;
	int fd = open(name, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0, "a 255-byte name can be created");
	close(fd);
	struct stat st;
	CHECK_OK(stat(name, &st), "and found");
	CHECK_OK(unlink(name), "and unlinked");
	name[255] = 'n';
	name[256] = 0;
	CHECK_ERR(open(name, O_WRONLY | O_CREAT, 0644), ENAMETOOLONG, "a 256-byte name gives ENAMETOOLONG");
	CHECK_ERR(mkdir(name, 0755), ENAMETOOLONG, "mkdir of a 256-byte name gives ENAMETOOLONG");
	CHECK_ERR(stat(name, &st), ENAMETOOLONG, "stat of a 256-byte name gives ENAMETOOLONG");
}

static void path_lengths(void)
{
	static char path[PATH_MAX + 8];
	int fd = open("target", O_WRONLY | O_CREAT, 0644);
	close(fd);
	/* "./" repeated (one "//" if need be), then the name: n bytes. */
	size_t n = PATH_MAX - 1;
	size_t pre = n - strlen("target");
	for (size_t i = 0; i < pre; i++)
		path[i] = i % 2 ? '/' : '.';
	path[pre - 1] = '/';
	strcpy(path + pre, "target");
	struct stat st;
	CHECK_EQ(strlen(path), PATH_MAX - 1, "(a path of PATH_MAX - 1 bytes)");
	CHECK_OK(stat(path, &st), "a path of PATH_MAX - 1 bytes resolves");
	memmove(path + 1, path, strlen(path) + 1);	/* ".//./..." one byte longer */
	path[1] = '/';
	CHECK_EQ(strlen(path), PATH_MAX, "(a path of PATH_MAX bytes)");
	CHECK_ERR(stat(path, &st), ENAMETOOLONG, "a path of PATH_MAX bytes gives ENAMETOOLONG");
	CHECK_ERR(open(path, O_RDONLY), ENAMETOOLONG, "open of it gives ENAMETOOLONG");
	unlink("target");
}

static void deep_nesting(void)
{
	int made = 0;
	for (int i = 0; i < DEEP; i++) {
		if (mkdir("d", 0755) || chdir("d"))
			break;
		made++;
	}
	CHECK_EQ(made, DEEP, "directories nest 200 deep");
	int fd = open("bottom", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "deep", 4) == 4, "a file at the bottom is written");
	close(fd);
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof cwd) && strlen(cwd) >= 2 * DEEP, "getcwd names the whole chain");
	for (int i = 0; i < made; i++)
		chdir("..");
	char path[2 * DEEP + 16];
	path[0] = 0;
	for (int i = 0; i < DEEP; i++)
		strcat(path, "d/");
	strcat(path, "bottom");
	char back[4] = { 0 };
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, back, 4) == 4 && !memcmp(back, "deep", 4),
	      "the file is read back through a 200-component path");
	close(fd);
	unlink(path);
	int removed = 0;
	for (int i = DEEP; i > 0; i--) {
		path[2 * i - 1] = 0;	/* "d/d/.../d" of i components */
		removed += rmdir(path) == 0;
	}
	CHECK_EQ(removed, DEEP, "the 200 directories are removed, deepest first");
}

int main(void)
{
	tap_start();
	mremap_needs_a_mapping();
	iovec_lengths();
	msync_checks();
	descriptors_run_out();
	ten_thousand_names();
	name_lengths();
	path_lengths();
	deep_nesting();
	return tap_done();
}
