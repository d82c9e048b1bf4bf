/*
 * t_badptr - bad user pointers handed straight to the kernel with the raw
 * syscall() function (no libc wrapper in between). Each must come back as
 * -1 with EFAULT, or with exactly what Linux does where Linux does more
 * (a copy that runs into an unmapped page stops there for files, but fails
 * whole for pipes). The process must survive every one of them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "badaddr.h"

static int file_fd;    /* a regular file holding 8 KiB of 'f' */
static char good[PAGE];

/* A file to read and write, and a name that exists, in the scratch directory. */
static void setup(void)
{
	badaddr_setup();
	file_fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(good, 'f', sizeof good);
	write(file_fd, good, sizeof good);
	write(file_fd, good, sizeof good);
	close(open("exists", O_WRONLY | O_CREAT, 0644));
}

static void test_read_write(void)
{
	/* from offset 0: at end of file Linux returns 0 before touching the buffer */
	FOR_EACH_BAD("read into", (lseek(file_fd, 0, SEEK_SET), syscall(SYS_read, file_fd, bad, 16)));
	FOR_EACH_BAD("write from", syscall(SYS_write, file_fd, bad, 16));
	FOR_EACH_BAD("pread64 into", syscall(SYS_pread64, file_fd, bad, 16, 0));
	FOR_EACH_BAD("pwrite64 from", syscall(SYS_pwrite64, file_fd, bad, 16, 0));
	CHECK_EQ(syscall(SYS_read, file_fd, NULL, 0), 0, "read of 0 bytes into NULL returns 0");
	CHECK_EQ(syscall(SYS_write, file_fd, NULL, 0), 0, "write of 0 bytes from NULL returns 0");
	CHECK_ERR(syscall(SYS_read, file_fd, good, SIZE_MAX), EFAULT,
		  "read with a length of SIZE_MAX gives EFAULT");
	CHECK_ERR(syscall(SYS_write, file_fd, good, SIZE_MAX), EFAULT,
		  "write with a length of SIZE_MAX gives EFAULT");
	CHECK_ERR(syscall(SYS_pread64, file_fd, good, SIZE_MAX, 0), EFAULT,
		  "pread64 with a length of SIZE_MAX gives EFAULT");
	CHECK_ERR(syscall(SYS_pwrite64, file_fd, good, SIZE_MAX, 0), EFAULT,
		  "pwrite64 with a length of SIZE_MAX gives EFAULT");
}

/*
 * A buffer running past the top of user space is refused whole, before
 * any copy: its end is no user address at all.
 */
static void test_past_top(void)
{
	CHECK_ERR(syscall(SYS_pread64, file_fd, at_top(16), PAGE, 0), EFAULT,
		  "pread64 into a buffer running past the top of user space gives EFAULT");
	CHECK_ERR(syscall(SYS_pwrite64, file_fd, at_top(16), PAGE, 0), EFAULT,
		  "pwrite64 from a buffer running past the top of user space gives EFAULT");
	lseek(file_fd, 0, SEEK_SET);
	CHECK_ERR(syscall(SYS_read, file_fd, at_top(16), PAGE), EFAULT,
		  "read into a buffer running past the top of user space gives EFAULT");
	CHECK_ERR(syscall(SYS_write, file_fd, at_top(16), PAGE), EFAULT,
		  "write from a buffer running past the top of user space gives EFAULT");
	CHECK_EQ(lseek(file_fd, 0, SEEK_CUR), 0, "and the refused calls left the offset alone");
	CHECK_ERR(syscall(SYS_getrandom, at_top(16), PAGE, 0), EFAULT,
		  "getrandom into a buffer running past the top of user space gives EFAULT");
	CHECK_EQ(syscall(SYS_pread64, file_fd, at_top(16), 16, 0), 16,
		 "pread64 into the last 16 bytes of user space reads them");
}

/* Regular files copy up to the first unmapped byte and return that count. */
static void test_partial_file(void)
{
	char back[16];
	CHECK_EQ(syscall(SYS_pread64, file_fd, partial(16), PAGE, 0), 16,
		 "pread64 into a buffer running into a hole reads the mapped 16 bytes");
	lseek(file_fd, 0, SEEK_SET);
	CHECK_EQ(syscall(SYS_read, file_fd, partial(16), PAGE), 16,
		 "read into a buffer running into a hole reads the mapped 16 bytes");
	CHECK_EQ(lseek(file_fd, 0, SEEK_CUR), 16, "that short read advanced the offset by 16");
	CHECK_EQ(syscall(SYS_pwrite64, file_fd, partial(16), PAGE, 100), 16,
		 "pwrite64 from a buffer running into a hole writes the mapped 16 bytes");
	CHECK(pread(file_fd, back, 16, 100) == 16 && !memcmp(back, "pppppppppppppppp", 16),
	      "the file holds the 16 bytes that were written");
	lseek(file_fd, 0, SEEK_SET);
	CHECK_EQ(syscall(SYS_write, file_fd, partial(16), PAGE), 16,
		 "write from a buffer running into a hole writes the mapped 16 bytes");
	CHECK_EQ(lseek(file_fd, 0, SEEK_CUR), 16, "that short write advanced the offset by 16");
}

/* Pipes fail the whole call when the copy faults, and lose nothing. */
static void test_partial_pipe(void)
{
	int p[2];
	char buf[100];
	pipe2(p, O_NONBLOCK);
	CHECK_ERR(syscall(SYS_write, p[1], partial(16), PAGE), EFAULT,
		  "write to a pipe from a buffer running into a hole gives EFAULT");
	CHECK_ERR(read(p[0], buf, sizeof buf), EAGAIN, "and puts nothing in the pipe");
	write(p[1], good, 100);
	CHECK_ERR(syscall(SYS_read, p[0], partial(16), 100), EFAULT,
		  "read from a pipe into a buffer running into a hole gives EFAULT");
	FOR_EACH_BAD("read from a non-empty pipe into", syscall(SYS_read, p[0], bad, 16));
	CHECK_EQ(read(p[0], buf, sizeof buf), 100, "and the failed reads left the data in the pipe");
	close(p[0]);
	close(p[1]);
}

static void test_paths(void)
{
	struct stat st;
	FOR_EACH_BAD("open of a path at", syscall(SYS_open, bad, O_RDONLY));
	FOR_EACH_BAD("stat of a path at", syscall(SYS_stat, bad, &st));
	FOR_EACH_BAD("stat into a buffer at", syscall(SYS_stat, "file", bad));
	FOR_EACH_BAD("fstat into a buffer at", syscall(SYS_fstat, file_fd, bad));
	FOR_EACH_BAD("newfstatat of a path at", syscall(SYS_newfstatat, AT_FDCWD, bad, &st, 0));
	FOR_EACH_BAD("newfstatat into a buffer at",
		     syscall(SYS_newfstatat, AT_FDCWD, "file", bad, 0));
	FOR_EACH_BAD("mkdir of a path at", syscall(SYS_mkdir, bad, 0755));
	FOR_EACH_BAD("unlink of a path at", syscall(SYS_unlink, bad));
	FOR_EACH_BAD("rename from a path at", syscall(SYS_rename, bad, "newname"));
	FOR_EACH_BAD("rename to a path at", syscall(SYS_rename, "exists", bad));
	CHECK_ERR(syscall(SYS_open, partial(16), O_RDONLY), EFAULT,
		  "open of a path running into a hole before its NUL gives EFAULT");
	CHECK_ERR(syscall(SYS_stat, "file", partial(16)), EFAULT,
		  "stat into a buffer running into a hole gives EFAULT");
	CHECK_ERR(syscall(SYS_fstat, file_fd, partial(16)), EFAULT,
		  "fstat into a buffer running into a hole gives EFAULT");
	static char longpath[2 * PATH_MAX];   /* not malloc: see setup() */
	memset(longpath, 'a', 2 * PATH_MAX - 1);
	longpath[2 * PATH_MAX - 1] = '\0';
	CHECK_ERR(syscall(SYS_open, longpath, O_RDONLY), ENAMETOOLONG,
		  "open of an 8 KiB path gives ENAMETOOLONG");
	CHECK_EQ(syscall(SYS_newfstatat, file_fd, NULL, &st, AT_EMPTY_PATH), 0,
		 "newfstatat of a NULL path with AT_EMPTY_PATH stats the descriptor");
	CHECK_ERR(syscall(SYS_newfstatat, AT_FDCWD, "", &st, 0), ENOENT,
		  "newfstatat of an empty path without AT_EMPTY_PATH gives ENOENT");
}

static void test_getdents(void)
{
	int d = open(".", O_RDONLY | O_DIRECTORY);
	FOR_EACH_BAD("getdents64 into", syscall(SYS_getdents64, d, bad, PAGE));
	CHECK_ERR(syscall(SYS_getdents64, d, partial(16), PAGE), EFAULT,
		  "getdents64 into 16 mapped bytes (less than one entry) gives EFAULT");
	lseek(d, 0, SEEK_SET);
	/*
	 * The names here ("." ".." "file" "exists") take 24 or 32 bytes, so
	 * exactly one fits; which comes first depends on the file system.
	 */
	char *buf = partial(40);
	long n = syscall(SYS_getdents64, d, buf, PAGE);
	struct dirent *e = (struct dirent *)buf;
	tap_check(n > 0 && n <= 40 && n == e->d_reclen,
		  "getdents64 into 40 mapped bytes returns the one entry that fit",
		  "returned %ld, first entry \"%.8s\" of %d bytes", n,
		  n > 0 ? e->d_name : "", n > 0 ? e->d_reclen : 0);
	close(d);
}

static void test_info(void)
{
	FOR_EACH_BAD("getcwd into", syscall(SYS_getcwd, bad, PAGE));
	CHECK_ERR(syscall(SYS_getcwd, partial(4), PAGE), EFAULT,
		  "getcwd into 4 mapped bytes gives EFAULT");
	FOR_EACH_BAD("uname into", syscall(SYS_uname, bad));
	CHECK_ERR(syscall(SYS_uname, partial(16)), EFAULT,
		  "uname into a buffer running into a hole gives EFAULT");
	FOR_EACH_BAD("clock_gettime into", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, bad));
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, partial(8)), EFAULT,
		  "clock_gettime into 8 mapped bytes of 16 gives EFAULT");
	FOR_EACH_BAD("getrandom into", syscall(SYS_getrandom, bad, 16, 0));
	CHECK_EQ(syscall(SYS_getrandom, partial(16), PAGE, 0), 16,
		 "getrandom into a buffer running into a hole fills the mapped 16 bytes");
	CHECK_EQ(syscall(SYS_getrandom, NULL, 0, 0), 0, "getrandom of 0 bytes into NULL returns 0");
}

static void test_time(void)
{
	struct timespec ts = { 0, 1000 };
	FOR_EACH_BAD("nanosleep reading its request from", syscall(SYS_nanosleep, bad, NULL));
	CHECK_EQ(syscall(SYS_nanosleep, &ts, (void *)bads[1].addr), 0,
		 "nanosleep ignores a bad remainder pointer when not interrupted");
	ts.tv_nsec = 1000000000;
	CHECK_ERR(syscall(SYS_nanosleep, &ts, NULL), EINVAL,
		  "nanosleep with tv_nsec of 1e9 gives EINVAL");
}

/* Lowest free descriptor number, to see that a failed call leaked none. */
static int lowest_free_fd(void)
{
	int fd = dup(0);
	close(fd);
	return fd;
}

static void test_pipe2(void)
{
	int before = lowest_free_fd();
	FOR_EACH_BAD("pipe2 into", syscall(SYS_pipe2, bad, 0));
	CHECK_ERR(syscall(SYS_pipe2, partial(4), 0), EFAULT,
		  "pipe2 into 4 mapped bytes of 8 gives EFAULT");
	CHECK_EQ(lowest_free_fd(), before, "a failed pipe2 leaves no descriptor open");
}

/* A bad status pointer fails wait4, but the child is reaped all the same. */
static void test_wait4(void)
{
	for (size_t i = 1; i < NBADS; i++) {   /* NULL: status not wanted */
		pid_t pid = fork();
		if (pid == 0)
			_exit(3);
		char what[160];
		snprintf(what, sizeof what, "wait4 storing status at %s gives EFAULT",
			 bads[i].name);
		CHECK_ERR(syscall(SYS_wait4, pid, bads[i].addr, 0, NULL), EFAULT, what);
		CHECK_ERR(syscall(SYS_wait4, pid, NULL, 0, NULL), ECHILD,
			  "and the child was reaped (ECHILD after)");
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(3);
	CHECK_EQ(syscall(SYS_wait4, pid, NULL, 0, NULL), pid, "wait4 with a NULL status reaps");
}

static void test_sigaction(void)
{
	/* NULL means "no new action" and "old action not wanted" */
	FOR_EACH_BAD_FROM(1, "rt_sigaction reading an action from",
			  syscall(SYS_rt_sigaction, SIGUSR1, bad, NULL, 8));
	FOR_EACH_BAD_FROM(1, "rt_sigaction storing the old action into",
			  syscall(SYS_rt_sigaction, SIGUSR1, NULL, bad, 8));
	CHECK_EQ(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 8), 0,
		 "rt_sigaction with both pointers NULL succeeds");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, partial(16), NULL, 8), EFAULT,
		  "rt_sigaction reading an action running into a hole gives EFAULT");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, partial(16), 8), EFAULT,
		  "rt_sigaction storing into a buffer running into a hole gives EFAULT");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 4), EINVAL,
		  "rt_sigaction with a sigset size other than 8 gives EINVAL");
}

static void test_iovec(void)
{
	struct iovec iov[2] = { { good, 10 }, { NULL, 10 } };
	FOR_EACH_BAD("writev reading its iovec array from", syscall(SYS_writev, file_fd, bad, 2));
	FOR_EACH_BAD("readv reading its iovec array from", syscall(SYS_readv, file_fd, bad, 2));
	for (size_t i = 0; i < NBADS; i++) {
		char what[160];
		iov[0] = (struct iovec){ (void *)bads[i].addr, 10 };
		snprintf(what, sizeof what, "writev with iov_base at %s gives EFAULT",
			 bads[i].name);
		CHECK_ERR(syscall(SYS_writev, file_fd, iov, 1), EFAULT, what);
		snprintf(what, sizeof what, "readv with iov_base at %s gives EFAULT",
			 bads[i].name);
		CHECK_ERR(syscall(SYS_readv, file_fd, iov, 1), EFAULT, what);
	}
	CHECK_ERR(syscall(SYS_writev, file_fd, partial(8), 2), EFAULT,
		  "writev with an iovec array running into a hole gives EFAULT");
	iov[0] = (struct iovec){ good, 10 };
	iov[1] = (struct iovec){ NULL, 10 };
	CHECK_EQ(syscall(SYS_writev, file_fd, iov, 2), 10,
		 "writev with a good then a NULL iov_base writes the first 10 bytes");
	iov[1] = (struct iovec){ (void *)bads[1].addr, 10 };
	CHECK_ERR(syscall(SYS_writev, file_fd, iov, 2), EFAULT,
		  "writev with a good then a kernel iov_base gives EFAULT, writing nothing");
	iov[1] = (struct iovec){ partial(16), PAGE };
	CHECK_EQ(syscall(SYS_writev, file_fd, iov, 2), 26,
		 "writev whose second buffer runs into a hole writes 10 + 16 bytes");
	iov[1] = (struct iovec){ good, SSIZE_MAX };
	iov[0] = (struct iovec){ good, SSIZE_MAX };
	CHECK_ERR(syscall(SYS_writev, file_fd, iov, 2), EFAULT,
		  "writev with lengths beyond user space gives EFAULT");
	CHECK_ERR(syscall(SYS_writev, file_fd, iov, -1), EINVAL,
		  "writev with a negative count gives EINVAL");
	CHECK_ERR(syscall(SYS_writev, file_fd, iov, 1025), EINVAL,
		  "writev with more than IOV_MAX buffers gives EINVAL");
	CHECK_EQ(syscall(SYS_writev, file_fd, NULL, 0), 0, "writev of 0 buffers returns 0");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: t_badptr\nPasses bad pointers to system calls and"
		       " checks each gives EFAULT (or what Linux gives).\n");
		return 0;
	}
	tap_start();
	tap_enter_scratch("t_badptr");
	setup();
	test_read_write();
	test_past_top();
	test_partial_file();
	test_partial_pipe();
	test_paths();
	test_getdents();
	test_info();
	test_time();
	test_pipe2();
	test_wait4();
	test_sigaction();
	test_iovec();
	close(file_fd);
	CHECK(1, "the process survived every bad pointer");
	tap_leave_scratch();
	return tap_done();
}
