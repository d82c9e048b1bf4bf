/*
 * t_exhaust - running out of memory and of tasks (Roundabout only: it reads
 * /proc/meminfo and the kernel log, /proc/kmsg, and needs a small machine
 * and task limit: tests/user.txt boots it with --mem 128M and
 * kernel.max_tasks=48).
 *
 *   - A huge MAP_SHARED|MAP_ANONYMOUS mapping costs nothing until it is
 *     touched; its pages, made at the first touch, are shared with a child
 *     forked before they existed.
 *   - A child that touches more anonymous memory than the machine has is
 *     killed by SIGKILL (the OOM killer, which logs one line naming it);
 *     the parent lives on and can allocate again.
 *   - fork at the task limit fails with EAGAIN, and works again once the
 *     children are reaped.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define PAGE 4096
#define HUGE_SHARED (64UL << 30)	/* 64 GiB: 500 times the machine */
#define TOO_MUCH (512UL << 20)		/* anonymous memory beyond 128 MiB of RAM */

static long meminfo_kb(const char *field)
{
	char buf[4096];
	int fd = open("/proc/meminfo", O_RDONLY);
	long n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *at = strstr(buf, field);
	return at ? atol(at + strlen(field) + 1) : -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void shared_anonymous_is_lazy(void)
{
	long before = meminfo_kb("MemFree:");
	double t0 = now_s();
	char *m = mmap(NULL, HUGE_SHARED, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double took = now_s() - t0;
	long after = meminfo_kb("MemFree:");
	if (!CHECK(m != MAP_FAILED, "mmap of 64 GiB MAP_SHARED|MAP_ANONYMOUS succeeds"))
		return;
	tap_check(took < 0.5, "and takes no time", "took %.3f s", took);
	tap_check(before - after < 1024, "and no memory", "MemFree went from %ld to %ld kB",
		  before, after);
	m[0] = 'p';
	pid_t pid = fork();
	if (pid == 0) {
		int ok = m[0] == 'p';
		m[HUGE_SHARED - PAGE] = 'c';	/* a page nobody touched before the fork */
		m[0] = 'C';
		_exit(ok ? 0 : 1);
	}
	tap_check_exit(pid, 0, "a child sees the parent's store made before the fork");
	CHECK(m[0] == 'C', "the parent sees the child's store to a page it had touched");
	CHECK(m[HUGE_SHARED - PAGE] == 'c', "and to a page first touched by the child");
	CHECK(m[PAGE * 1000] == 0, "an untouched page reads as zeros");
	long used = before - meminfo_kb("MemFree:");
	tap_check(used < 4096, "touching three pages costs about three pages",
		  "MemFree dropped by %ld kB", used);
	CHECK_OK(munmap(m, HUGE_SHARED), "munmap of the whole mapping");
}

/* The kernel log holds "Out of memory: killed process PID (". */
static int log_names_victim(pid_t pid)
{
	static char log[65536];
	char want[64];
	snprintf(want, sizeof want, "Out of memory: killed process %d (", (int)pid);
	int fd = open("/proc/kmsg", O_RDONLY);
	long n = 0, r;
	while (fd >= 0 && n < (long)sizeof log - 1 && (r = read(fd, log + n, sizeof log - 1 - n)) > 0)
		n += r;
	close(fd);
	log[n] = 0;
	return strstr(log, want) != NULL;
}

static void out_of_memory_kills_the_hog(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *p = mmap(NULL, TOO_MUCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (size_t off = 0; p != MAP_FAILED && off < TOO_MUCH; off += PAGE)
			p[off] = 1;
		_exit(p == MAP_FAILED ? 2 : 3);		/* it all fitted: the machine is too big */
	}
	tap_check_killed(pid, SIGKILL, "a child touching 512 MiB on a 128 MiB machine is killed by SIGKILL");
	CHECK(log_names_victim(pid), "the kernel log says 'Out of memory: killed process PID (...'");
	char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t off = 0; p != MAP_FAILED && off < (16 << 20); off += PAGE)
		p[off] = 1;
	CHECK(p != MAP_FAILED, "the parent lives on and touches 16 MiB afterwards");
	munmap(p, 16 << 20);
}

static void fork_until_eagain(void)
{
	int gate[2];
	pipe(gate);
	pid_t kids[256];
	int n = 0, e = 0;
	while (n < 256) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(gate[1]);
			read(gate[0], &c, 1);	/* until the parent closes its end */
			_exit(0);
		}
		if (pid < 0) {
			e = errno;
			break;
		}
		kids[n++] = pid;
	}
	CHECK(n > 0 && n < 256, "fork stops succeeding at the task limit");
	tap_check(e == EAGAIN, "fork at the task limit gives EAGAIN", "errno %d (%s)", e, strerror(e));
	close(gate[0]);
	close(gate[1]);
	int reaped = 0;
	for (int i = 0; i < n; i++)
		reaped += waitpid(kids[i], NULL, 0) == kids[i];
	CHECK_EQ(reaped, n, "every child exits once the gate closes");
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0, "after they are reaped fork works again");
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(void)
{
	tap_start();
	shared_anonymous_is_lazy();
	out_of_memory_kills_the_hog();
	fork_until_eagain();
	return tap_done();
}
