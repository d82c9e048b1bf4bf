/*
 * t_kernel_hash - no system call reads or changes kernel memory, whatever
 * pointers it is handed (Roundabout only: /proc/kernel-hash).
 *
 * /proc/kernel-hash gives the address, length and hash of kernel text,
 * rodata, the system-call table and a canary data page (kernel/khash.c).
 * The test aims copies straight at those addresses (out of each region
 * through write(), into the canary through read(), uname(), pipe() ...),
 * each of which must give EFAULT, and checks every hash is unchanged;
 * then it runs t_badptr and t_isolation, every bad pointer to every
 * call, and checks the hashes again. With uaccess.debug_no_range_check
 * (the range check is skipped) the canary changes and this test says so.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define NREGIONS 4

struct region {
	char name[32];
	unsigned long start, len, hash;
};

/* Read /proc/kernel-hash into r[]; exits (status 2) if it cannot. */
static void read_hashes(struct region *r)
{
	FILE *f = fopen("/proc/kernel-hash", "r");
	int n = 0;
	while (f && n < NREGIONS && fscanf(f, "%31s %lx %lx %lx", r[n].name, &r[n].start,
					   &r[n].len, &r[n].hash) == 4)
		n++;
	if (!f || n != NREGIONS) {
		fprintf(stderr, "t_kernel_hash: /proc/kernel-hash: %d regions read\n", n);
		exit(2);
	}
	fclose(f);
}

/* Every region's hash must be as in before; when names each check. */
static int check_unchanged(const struct region *before, const char *when)
{
	struct region now[NREGIONS];
	int all = 1;
	read_hashes(now);
	for (int i = 0; i < NREGIONS; i++) {
		char what[160];
		snprintf(what, sizeof what, "kernel %s is unchanged %s", before[i].name, when);
		all &= tap_check(now[i].hash == before[i].hash && now[i].start == before[i].start,
				 what, "hash %lx, was %lx", now[i].hash, before[i].hash);
	}
	return all;
}

/* Copies out of each region and into the canary, aimed at their addresses. */
static void aim_at_kernel(const struct region *r)
{
	int p[2], fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char what[160], page[4096];
	memset(page, 'u', sizeof page);
	write(fd, page, sizeof page);
	pipe(p);
	for (int i = 0; i < NREGIONS; i++) {
		snprintf(what, sizeof what, "write() from kernel %s gives EFAULT", r[i].name);
		CHECK_ERR(write(p[1], (void *)r[i].start, 64), EFAULT, what);
		snprintf(what, sizeof what, "pwrite() to a file from kernel %s gives EFAULT",
			 r[i].name);
		CHECK_ERR(pwrite(fd, (void *)r[i].start, 64, 0), EFAULT, what);
	}
	void *canary = (void *)r[NREGIONS - 1].start;
	CHECK_ERR(pread(fd, canary, 64, 0), EFAULT, "pread() into the canary gives EFAULT");
	CHECK_ERR(syscall(SYS_uname, canary), EFAULT, "uname() into the canary gives EFAULT");
	CHECK_ERR(syscall(SYS_pipe, canary), EFAULT, "pipe() into the canary gives EFAULT");
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, canary), EFAULT,
		  "clock_gettime() into the canary gives EFAULT");
	CHECK_ERR(syscall(SYS_getcwd, canary, 64), EFAULT, "getcwd() into the canary gives EFAULT");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* Run a test program with its output in a file; it must exit 0. */
static void run_quietly(const char *prog)
{
	pid_t pid = fork();
	if (pid == 0) {
		int out = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(out, 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	char what[160];
	snprintf(what, sizeof what, "%s passes", prog);
	tap_check_exit(pid, 0, what);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_kernel_hash\nChecks that kernel text, rodata, the syscall table and"
		       " a canary data page\n(/proc/kernel-hash) are unchanged by system calls"
		       " aimed at them and by\nt_badptr and t_isolation.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	struct region before[NREGIONS];
	tap_start();
	tap_enter_scratch("t_kernel_hash");
	read_hashes(before);
	CHECK(check_unchanged(before, "between two reads"), "/proc/kernel-hash is stable");
	aim_at_kernel(before);
	/* A kernel already changed cannot be trusted to run more programs. */
	if (check_unchanged(before, "after copies aimed at it")) {
		run_quietly("/tests/t_badptr");
		run_quietly("/tests/t_isolation");
		check_unchanged(before, "after t_badptr and t_isolation");
	}
	tap_leave_scratch();
	return tap_done();
}
