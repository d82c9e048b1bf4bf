/*
 * t_calls - the calls everyday programs make about the system: statfs
 * and fstatfs, select, pselect6 and ppoll, sched_setaffinity, getrusage,
 * times, sysinfo, setitimer with an interval, prctl's name. Run on Linux
 * too: values that differ by machine (free blocks, RAM, CPU counts) are
 * checked by their properties, never printed.
 */
#include "tap.h"
#include <fcntl.h>
#include <stdbool.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#define BAD ((void *)0x10)	/* an unmapped address */

static void statfs_calls(void)
{
	struct statfs a, b;
	CHECK_OK(statfs(".", &a), "statfs of the working directory");
	CHECK(a.f_bsize > 0 && a.f_bfree <= a.f_blocks && a.f_bavail <= a.f_bfree &&
	      a.f_ffree <= a.f_files && a.f_namelen == 255,
	      "its counts are consistent and names are 255 bytes");
	int fd = open("statfs.file", O_CREAT | O_RDWR | O_TRUNC, 0644);
	static char mib[1 << 20];
	memset(mib, 'x', sizeof mib);
	CHECK(fd >= 0 && write(fd, mib, sizeof mib) == sizeof mib && fsync(fd) == 0,
	      "write and fsync 1 MiB");
	CHECK_OK(fstatfs(fd, &b), "fstatfs of the file");
	CHECK(b.f_type == a.f_type && !memcmp(&b.f_fsid, &a.f_fsid, sizeof a.f_fsid),
	      "the same file system as statfs says");
	CHECK((a.f_bfree - b.f_bfree) * a.f_bsize >= sizeof mib, "1 MiB fewer blocks free");
	close(fd);
	unlink("statfs.file");
	CHECK(statfs("/proc", &a) == 0 && a.f_type == 0x9fa0, "/proc is PROC_SUPER_MAGIC");
	CHECK(statfs("/dev/null", &a) == 0 && a.f_type == 0x01021994, "/dev is devtmpfs's");
	CHECK_ERR(statfs("no/such/file", &a), ENOENT, "statfs of nothing: ENOENT");
	CHECK_ERR(syscall(SYS_statfs, ".", BAD), EFAULT, "statfs into a bad buffer: EFAULT");
	CHECK_ERR(syscall(SYS_statfs, BAD, &a), EFAULT, "statfs of a bad path: EFAULT");
	CHECK_ERR(syscall(SYS_fstatfs, 999, &a), EBADF, "fstatfs of a closed descriptor: EBADF");
	int p[2];
	CHECK(pipe(p) == 0 && fstatfs(p[0], &a) == 0 && a.f_type == 0x50495045,
	      "fstatfs of a pipe: pipefs");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	tap_start();
	tap_enter_scratch("calls");
	statfs_calls();
	tap_leave_scratch();
	return tap_done();
}
