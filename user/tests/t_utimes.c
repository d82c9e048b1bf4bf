/*
 * t_utimes - utimensat and futimens (touch): set times, UTIME_NOW and
 * UTIME_OMIT, NULL for now, and the errors. Run on Linux too.
 */
#include "tap.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	char path[64];
	struct stat st;
	tap_start();
	snprintf(path, sizeof path, "%s/utimes.%d", access("/tmp", W_OK) ? "." : "/tmp", (int)getpid());
	int fd = open(path, O_CREAT | O_RDWR, 0644);
	CHECK(fd >= 0, "create a file");
	struct timespec set[2] = { { 1000000000, 0 }, { 1234567890, 0 } };
	CHECK_OK(utimensat(AT_FDCWD, path, set, 0), "utimensat with two times");
	CHECK(!stat(path, &st) && st.st_atime == 1000000000 && st.st_mtime == 1234567890,
	      "stat shows both");
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 1111111111, 0 } };
	CHECK_OK(utimensat(AT_FDCWD, path, omit, 0), "UTIME_OMIT for the access time");
	CHECK(!stat(path, &st) && st.st_atime == 1000000000 && st.st_mtime == 1111111111,
	      "the access time is kept, the modification time set");
	time_t before = time(NULL);
	CHECK_OK(utimensat(AT_FDCWD, path, NULL, 0), "NULL times: now");
	CHECK(!stat(path, &st) && st.st_mtime >= before - 1 && st.st_atime >= before - 1,
	      "both are now");
	CHECK_OK(futimens(fd, set), "futimens on the descriptor");
	CHECK(!fstat(fd, &st) && st.st_mtime == 1234567890, "fstat shows it");
	struct timespec bad[2] = { { 0, 1000000000 }, { 0, 0 } };
	CHECK_ERR(utimensat(AT_FDCWD, path, bad, 0), EINVAL, "a nanosecond count past a second: EINVAL");
	CHECK_ERR(utimensat(AT_FDCWD, path, NULL, 0x4000), EINVAL, "an unknown flag: EINVAL");
	CHECK_ERR(utimensat(AT_FDCWD, "/no/such/file", NULL, 0), ENOENT, "a missing file: ENOENT");
	/* Raw: musl's wrapper reads the times itself before the call. */
	CHECK_ERR(syscall(SYS_utimensat, AT_FDCWD, path, 1L, 0), EFAULT, "a bad pointer: EFAULT");
	close(fd);
	unlink(path);
	return tap_done();
}
