/*
 * t_calls - the calls everyday programs make about the system: statfs
 * and fstatfs, select, pselect6 and ppoll, sched_setaffinity, getrusage,
 * times, sysinfo, setitimer with an interval, prctl's name. Run on Linux
 * too: values that differ by machine (free blocks, RAM, CPU counts) are
 * checked by their properties, never printed.
 */
#include "tap.h"
#include <sched.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

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
	CHECK(b.f_bfree <= b.f_blocks && b.f_bavail <= b.f_bfree, "and consistent counts");
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

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	got_usr1 = sig == SIGUSR1;
}

/*
 * A child that sends SIGUSR1 to its parent until the parent writes to
 * `done`: whenever the parent goes to sleep, a signal comes after it, so
 * the sleep ends with EINTR without guessing how long the parent takes.
 */
static pid_t signaller(int done_rd)
{
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		fcntl(done_rd, F_SETFL, O_NONBLOCK);
		char c;
		while (read(done_rd, &c, 1) < 0 && errno == EAGAIN) {
			kill(parent, SIGUSR1);
			usleep(2000);
		}
		_exit(0);
	}
	return pid;
}

static void select_calls(void)
{
	int p[2], done[2];
	fd_set r, w;
	CHECK_OK(pipe(p), "a pipe");
	struct timeval tv = { 0, 0 };
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK_EQ(select(p[0] + 1, &r, NULL, NULL, &tv), 0, "select: an empty pipe is not readable");
	CHECK(!FD_ISSET(p[0], &r), "and its bit is cleared");
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	CHECK_EQ(select(p[1] + 1, &r, &w, NULL, &tv), 1, "its write end is writable");
	CHECK(FD_ISSET(p[1], &w) && !FD_ISSET(p[0], &r), "only that bit is left");
	CHECK_EQ(write(p[1], "x", 1), 1, "write a byte");
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	CHECK_EQ(select(p[1] + 1, &r, &w, NULL, NULL), 2, "both ends ready: 2, no timeout needed");
	char c;
	read(p[0], &c, 1);
	tv = (struct timeval){ 0, 20000 };
	FD_SET(p[0], &r);
	CHECK_EQ(syscall(SYS_select, p[0] + 1, &r, NULL, NULL, &tv), 0, "a 20 ms timeout runs out");
	CHECK(tv.tv_sec == 0 && tv.tv_usec == 0, "and select writes the time left (none) back");
	tv = (struct timeval){ 0, 1500000 };
	FD_SET(p[1], &w);
	CHECK_EQ(select(p[1] + 1, NULL, &w, NULL, &tv), 1, "1500000 microseconds is a valid timeout");
	CHECK_EQ(select(0, NULL, NULL, NULL, &(struct timeval){ 0, 0 }), 0, "no sets, no wait: 0");
	/* A descriptor just closed, so it lies inside the table: Linux
	 * quietly ignores bits past the end of its descriptor table. */
	int shut = dup(p[0]);
	close(shut);
	FD_ZERO(&r);
	FD_SET(shut, &r);
	CHECK_ERR(select(shut + 1, &r, NULL, NULL, &(struct timeval){ 0, 0 }), EBADF,
		  "a closed descriptor in a set: EBADF");
	CHECK_ERR(select(-1, NULL, NULL, NULL, &(struct timeval){ 0, 0 }), EINVAL, "nfds < 0: EINVAL");
	CHECK_ERR(select(1, NULL, NULL, NULL, &(struct timeval){ -1, 0 }), EINVAL,
		  "a negative timeout: EINVAL");
	CHECK_ERR(select(p[0] + 1, BAD, NULL, NULL, &(struct timeval){ 0, 0 }), EFAULT,
		  "a bad set: EFAULT");

	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	CHECK_OK(pipe(done), "a handshake pipe");
	pid_t kid = signaller(done[0]);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	int n = select(p[0] + 1, &r, NULL, NULL, NULL);
	int e = errno;
	write(done[1], "x", 1);
	CHECK(n == -1 && e == EINTR && got_usr1, "a handled signal ends select with EINTR");
	waitpid(kid, NULL, 0);

	struct timespec ts = { 0, 0 };
	sigset_t mask;
	sigemptyset(&mask);
	FD_SET(p[1], &w);
	CHECK_EQ(pselect(p[1] + 1, NULL, &w, NULL, &ts, &mask), 1, "pselect with a mask");
	ts = (struct timespec){ 0, 20000000 };
	FD_SET(p[0], &r);
	CHECK_EQ(syscall(SYS_pselect6, p[0] + 1, &r, NULL, NULL, &ts, NULL), 0,
		 "pselect6: a 20 ms timeout runs out");
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == 0, "the raw call writes the time left back");
	long bad_size[2] = { (long)&mask, 4 }, bad_mask[2] = { (long)BAD, 8 };
	ts = (struct timespec){ 0, 0 };
	CHECK_ERR(syscall(SYS_pselect6, 1, NULL, NULL, NULL, &ts, bad_size), EINVAL,
		  "pselect6 with a mask size of 4: EINVAL");
	CHECK_ERR(syscall(SYS_pselect6, 1, NULL, NULL, NULL, &ts, bad_mask), EFAULT,
		  "pselect6 with a bad mask: EFAULT");
	CHECK_ERR(syscall(SYS_pselect6, 1, NULL, NULL, NULL, &ts, BAD), EFAULT,
		  "pselect6 with a bad mask argument: EFAULT");
	ts = (struct timespec){ 0, -1 };
	CHECK_ERR(syscall(SYS_pselect6, 1, NULL, NULL, NULL, &ts, NULL), EINVAL,
		  "pselect6 with a negative timeout: EINVAL");

	struct pollfd pfd = { p[0], POLLIN, 0 };
	ts = (struct timespec){ 0, 0 };
	CHECK_EQ(ppoll(&pfd, 1, &ts, &mask), 0, "ppoll: an empty pipe, no wait");
	write(p[1], "x", 1);
	CHECK(ppoll(&pfd, 1, NULL, NULL) == 1 && pfd.revents == POLLIN, "ppoll: readable after a write");
	CHECK_ERR(syscall(SYS_ppoll, &pfd, 1, &ts, &mask, 4), EINVAL, "ppoll with a mask size of 4: EINVAL");
	CHECK_ERR(syscall(SYS_ppoll, &pfd, 1, &ts, BAD, 8), EFAULT, "ppoll with a bad mask: EFAULT");
	ts = (struct timespec){ -1, 0 };
	CHECK_ERR(syscall(SYS_ppoll, &pfd, 1, &ts, NULL, 8), EINVAL, "ppoll with a negative timeout: EINVAL");
	CHECK_ERR(syscall(SYS_ppoll, &pfd, 1, BAD, NULL, 8), EFAULT, "ppoll with a bad timeout: EFAULT");
	close(p[0]);
	close(p[1]);
	close(done[0]);
	close(done[1]);
}

/* Spin until getrusage(who) shows at least us microseconds of CPU time
 * (ticks must land: no wall-clock guess). */
static int burn_until_charged(int who, long us)
{
	struct rusage ru;
	for (long i = 0; i < 20000000000L; i++) {
		if (i % 100000 == 0 && getrusage(who, &ru) == 0 &&
		    (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
		    ru.ru_stime.tv_usec >= us)
			return 1;
		__asm__ volatile("" ::: "memory");
	}
	return 0;
}

/* Touch n new anonymous pages (each one fault). */
static void touch_pages(int n)
{
	char *m = mmap(NULL, n * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; m != MAP_FAILED && i < n; i++)
		m[i * 4096L] = 1;
	munmap(m, n * 4096L);
}

static long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	if (f)
		fclose(f);
	return v;
}

static void usage_calls(void)
{
	struct rusage a, b;
	CHECK(burn_until_charged(RUSAGE_SELF, 20000), "getrusage(RUSAGE_SELF): spinning shows CPU time");
	CHECK_OK(getrusage(RUSAGE_SELF, &a), "getrusage");
	touch_pages(64);
	CHECK_OK(getrusage(RUSAGE_SELF, &b), "again after touching 64 new pages");
	CHECK(b.ru_minflt - a.ru_minflt >= 64, "at least 64 more minor faults");
	CHECK(getrusage(RUSAGE_THREAD, &b) == 0 && b.ru_minflt >= 64, "RUSAGE_THREAD counts them too");
	CHECK_ERR(getrusage(5, &a), EINVAL, "an unknown who: EINVAL");
	CHECK_ERR(syscall(SYS_getrusage, RUSAGE_SELF, BAD), EFAULT, "a bad buffer: EFAULT");

	pid_t kid = fork();
	if (kid == 0) {
		touch_pages(64);
		_exit(burn_until_charged(RUSAGE_SELF, 50000) ? 0 : 1);	/* 5 ticks */
	}
	int st = 0;
	struct rusage kr;
	CHECK(wait4(kid, &st, 0, &kr) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a child that spins and faults");
	CHECK(kr.ru_utime.tv_sec || kr.ru_utime.tv_usec || kr.ru_stime.tv_sec || kr.ru_stime.tv_usec,
	      "wait4's rusage shows its CPU time");
	CHECK(kr.ru_minflt >= 64, "and its faults");
	CHECK(getrusage(RUSAGE_CHILDREN, &a) == 0 && a.ru_minflt >= kr.ru_minflt,
	      "RUSAGE_CHILDREN includes the reaped child");
	struct tms t;
	clock_t now = times(&t);
	CHECK(now != (clock_t)-1 && t.tms_utime + t.tms_stime > 0, "times: our CPU time");
	CHECK(t.tms_cutime + t.tms_cstime > 0, "and the reaped child's");
	CHECK_ERR(syscall(SYS_times, BAD), EFAULT, "times into a bad buffer: EFAULT");

	struct sysinfo si;
	CHECK_OK(sysinfo(&si), "sysinfo");
	CHECK_EQ(si.mem_unit, 1, "mem_unit is 1");
	CHECK((long)(si.totalram / 1024) == meminfo_kb("MemTotal:"), "totalram is /proc/meminfo's MemTotal");
	CHECK(si.freeram > 0 && si.freeram <= si.totalram, "freeram is some of it");
	CHECK(si.procs >= 1, "procs counts us");
	CHECK_ERR(syscall(SYS_sysinfo, BAD), EFAULT, "sysinfo into a bad buffer: EFAULT");
}

static void affinity_calls(void)
{
	cpu_set_t all, one, got;
	CHECK_OK(sched_getaffinity(0, sizeof all, &all), "sched_getaffinity: where we may run");
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CHECK_OK(sched_setaffinity(0, sizeof one, &one), "sched_setaffinity to CPU 0 alone");
	CHECK(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &one),
	      "sched_getaffinity gives it back");
	pid_t kid = fork();
	if (kid == 0)
		_exit(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &one) ? 0 : 1);
	tap_check_exit(kid, 0, "a child inherits it");
	CHECK(sched_getaffinity(getpid(), sizeof got, &got) == 0 && CPU_EQUAL(&got, &one),
	      "by pid too");
	cpu_set_t none;
	CPU_ZERO(&none);
	CHECK_ERR(sched_setaffinity(0, sizeof none, &none), EINVAL, "an empty mask: EINVAL");
	CPU_SET(63, &none);
	CHECK_ERR(sched_setaffinity(0, sizeof none, &none), EINVAL, "only an offline CPU: EINVAL");
	CHECK_ERR(sched_setaffinity(0, sizeof one, (cpu_set_t *)BAD), EFAULT, "a bad mask: EFAULT");
	CHECK_ERR(sched_setaffinity(999999, sizeof one, &one), ESRCH, "no such thread: ESRCH");
	CHECK_OK(sched_setaffinity(0, sizeof all, &all), "back to every CPU");
	CHECK(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &all), "as at the start");
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	alarms += sig == SIGALRM;
}

static double seconds_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void itimer_calls(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval v = { { 0, 10000 }, { 0, 10000 } }, old, cur;
	CHECK_OK(setitimer(ITIMER_REAL, &v, &old), "setitimer: every 10 ms");
	CHECK(!old.it_value.tv_sec && !old.it_value.tv_usec && !old.it_interval.tv_usec,
	      "no timer before");
	CHECK(getitimer(ITIMER_REAL, &cur) == 0 && cur.it_interval.tv_sec == 0 &&
	      cur.it_interval.tv_usec == 10000 && cur.it_value.tv_sec == 0 &&
	      cur.it_value.tv_usec > 0 && cur.it_value.tv_usec <= 10000,
	      "getitimer: the interval and the time left");
	double until = seconds_now() + 5;	/* only a timer that stops could need it */
	while (alarms < 3 && seconds_now() < until)
		usleep(1000);
	CHECK(alarms >= 3, "SIGALRM comes again and again");
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	CHECK(setitimer(ITIMER_REAL, &off, &old) == 0 && old.it_interval.tv_usec == 10000,
	      "disarm: the old interval comes back");
	CHECK(getitimer(ITIMER_REAL, &cur) == 0 && !cur.it_value.tv_sec && !cur.it_value.tv_usec,
	      "and nothing is left");
	struct itimerval bad = { { 0, 1000000 }, { 1, 0 } };
	CHECK_ERR(setitimer(ITIMER_REAL, &bad, NULL), EINVAL, "an interval of 1000000 us: EINVAL");
	bad = (struct itimerval){ { -1, 0 }, { 1, 0 } };
	CHECK_ERR(setitimer(ITIMER_REAL, &bad, NULL), EINVAL, "a negative interval: EINVAL");
	CHECK(alarm(5) == 0 && getitimer(ITIMER_REAL, &cur) == 0 && cur.it_interval.tv_usec == 0 &&
	      cur.it_value.tv_sec >= 4, "alarm is a one-shot timer");
	alarm(0);
}

static void name_calls(void)
{
	char name[32];
	memset(name, '#', sizeof name);
	CHECK_OK(prctl(PR_SET_NAME, "worker"), "PR_SET_NAME");
	CHECK(prctl(PR_GET_NAME, name) == 0 && !strcmp(name, "worker"), "PR_GET_NAME gives it back");
	CHECK_OK(prctl(PR_SET_NAME, "a-name-longer-than-sixteen"), "a longer name");
	CHECK(prctl(PR_GET_NAME, name) == 0 && !strcmp(name, "a-name-longer-t"), "is cut to 15 bytes");
	CHECK_ERR(prctl(PR_SET_NAME, BAD), EFAULT, "PR_SET_NAME of a bad pointer: EFAULT");
	CHECK_ERR(prctl(PR_GET_NAME, BAD), EFAULT, "PR_GET_NAME into a bad buffer: EFAULT");
	CHECK_ERR(prctl(0x7fff, 0, 0, 0, 0), EINVAL, "an unknown option: EINVAL");
}

/*
 * ppoll's and pselect6's mask is the thread's for the call: a blocked,
 * pending signal the call's mask lets through ends it with EINTR (its
 * handler runs, and the mask from before comes back), and one the call's
 * mask blocks neither ends it nor runs until unblocked afterwards.
 */
static void mask_calls(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t usr1, empty, now;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&empty);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	got_usr1 = 0;
	raise(SIGUSR1);
	int p[2];
	CHECK_OK(pipe(p), "a pipe for ppoll and pselect6");
	struct pollfd pfd = { p[0], POLLIN, 0 };
	struct timespec ts = { 5, 0 };
	CHECK_ERR(ppoll(&pfd, 1, &ts, &empty), EINTR,
		  "ppoll's mask lets a blocked pending signal through: EINTR");
	CHECK(got_usr1, "its handler ran");
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR1), "the mask from before the call is back");
	got_usr1 = 0;
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	raise(SIGUSR1);
	ts = (struct timespec){ 0, 20000000 };
	fd_set r;
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK_EQ(pselect(p[0] + 1, &r, NULL, NULL, &ts, &usr1), 0,
		 "pselect6's mask keeps a pending signal out: the timeout runs out");
	CHECK(!got_usr1, "no handler ran during the call");
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	CHECK(got_usr1, "unblocked afterwards, the signal is delivered");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	tap_start();
	tap_enter_scratch("calls");
	statfs_calls();
	select_calls();
	usage_calls();
	affinity_calls();
	itimer_calls();
	name_calls();
	mask_calls();
	tap_leave_scratch();
	return tap_done();
}
