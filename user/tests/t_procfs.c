/*
 * t_procfs - /proc for ps-style tools: a directory per process, /proc/self,
 * and its stat, status, cmdline and maps in Linux's formats, read for
 * ourselves, a thread, a sleeping child and a zombie; processes exiting
 * and reaped while they are read; /proc/cpuinfo, uptime, stat and loadavg.
 * The same on Linux. Run with arguments (tests/user.txt gives two).
 */
#include "tap.h"
#include <sys/times.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#define BIG 65536

/* The whole file into buf (NUL-ended); its length, or -1 with errno. */
static long read_file(const char *path, char *buf, long size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	long len = 0, n;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return -1;
	buf[len] = 0;
	return len;
}

/* /proc/PID/stat, split: pid, comm, and fields[0..] from the state on (field 3
 * of Linux's numbering is fields[0]). The number of fields in all, or -1. */
struct pstat {
	int pid;
	char comm[64];
	char state;
	char fields[64][24];
};

static int parse_stat(const char *text, struct pstat *ps)
{
	const char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')');
	if (!open_paren || !close_paren || close_paren - open_paren > 63)
		return -1;
	ps->pid = atoi(text);
	memcpy(ps->comm, open_paren + 1, close_paren - open_paren - 1);
	ps->comm[close_paren - open_paren - 1] = 0;
	int n = 0, used;
	const char *p = close_paren + 1;
	while (n < 64 && sscanf(p, " %23s%n", ps->fields[n], &used) == 1) {
		p += used;
		n++;
	}
	ps->state = ps->fields[0][0];
	return n + 2;
}

static int read_stat(int pid, struct pstat *ps)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof buf) < 0)
		return -1;
	return parse_stat(buf, ps);
}

/* Linux's field N (1-based, N >= 3) of a parsed stat line. */
static long long stat_field(struct pstat *ps, int n)
{
	return atoll(ps->fields[n - 3]);
}

/* The value of "Key:\t..." in a status text, or NULL. */
static const char *status_value(const char *text, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!strncmp(line, key, k) && line[k] == ':' && line[k + 1] == '\t') {
			const char *v = line + k + 2, *end = strchr(v, '\n');
			size_t len = end ? (size_t)(end - v) : strlen(v);
			len = len < size - 1 ? len : size - 1;
			memcpy(out, v, len);
			out[len] = 0;
			return out;
		}
	}
	return NULL;
}

static int lists_name(const char *dir, const char *name, int want_dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (d && (e = readdir(d)) != NULL)
		if (!strcmp(e->d_name, name))
			found = !want_dir || e->d_type == DT_DIR || e->d_type == DT_UNKNOWN;
	if (d)
		closedir(d);
	return found;
}

static void check_listing(void)
{
	char me[16];
	snprintf(me, sizeof me, "%d", getpid());
	CHECK(lists_name("/proc", me, 1), "ls /proc lists our pid as a directory");
	DIR *d = opendir("/proc");
	struct dirent *e;
	int bad = 0;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		for (char *c = e->d_name; *c; c++)
			bad += *c < '0' || *c > '9';
	}
	if (d)
		closedir(d);
	CHECK_EQ(bad, 0, "every /proc entry that starts with a digit is a decimal pid");
	struct stat self, mine;
	char path[32];
	snprintf(path, sizeof path, "/proc/%d", getpid());
	CHECK(stat("/proc/self", &self) == 0 && stat(path, &mine) == 0 &&
	      self.st_ino == mine.st_ino && self.st_dev == mine.st_dev && S_ISDIR(self.st_mode),
	      "/proc/self is our own /proc/PID directory");
	struct stat up, proc;
	CHECK(stat("/proc/self/..", &up) == 0 && stat("/proc", &proc) == 0 &&
	      up.st_ino == proc.st_ino && up.st_dev == proc.st_dev, "/proc/self/.. is /proc");
	CHECK(lists_name("/proc/self", "stat", 0) && lists_name("/proc/self", "status", 0) &&
	      lists_name("/proc/self", "cmdline", 0) && lists_name("/proc/self", "maps", 0),
	      "/proc/self lists stat, status, cmdline and maps");
	CHECK_ERR(open("/proc/999999999/stat", O_RDONLY), ENOENT, "/proc/PID of no process is ENOENT");
}

static void check_own_stat(void)
{
	struct pstat ps;
	int n = read_stat(getpid(), &ps);
	CHECK_EQ(n, 52, "/proc/self/stat has Linux's 52 fields");
	CHECK_EQ(ps.pid, getpid(), "stat's pid is getpid()");
	CHECK(!strcmp(ps.comm, "t_procfs"), "stat's comm is the program's name");
	CHECK_EQ(ps.state, 'R', "stat's state of the reader itself is R");
	CHECK_EQ(stat_field(&ps, 4), getppid(), "stat's ppid is getppid()");
	CHECK_EQ(stat_field(&ps, 20), 1, "stat's num_threads is 1");
	/* Linux's rss count may lag (per-CPU counters): only vsize is sure. */
	CHECK(stat_field(&ps, 23) > 0 && stat_field(&ps, 24) >= 0, "stat's vsize is not 0");

	/* CPU time: spin 300 ms of the CPU clock; utime + stime (clock ticks,
	 * sysconf(_SC_CLK_TCK)) must cover most of it, and agree with times(). */
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 300);
	read_stat(getpid(), &ps);
	struct tms tm;
	times(&tm);
	long hz = sysconf(_SC_CLK_TCK), ticks = stat_field(&ps, 14) + stat_field(&ps, 15);
	CHECK(hz > 0 && ticks >= hz * 2 / 10 && ticks <= (long)(tm.tms_utime + tm.tms_stime) + 1,
	      "stat's utime + stime count the CPU time used (at least 0.2 s of 0.3 s spun)");
	CHECK(stat_field(&ps, 10) > 0, "stat's minflt counts the page faults taken");
	long cpu = stat_field(&ps, 39), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK(cpu >= 0 && cpu < ncpu, "stat's processor is an online CPU's number");
}

static void check_own_status(void)
{
	char buf[4096], v[64];
	CHECK(read_file("/proc/self/status", buf, sizeof buf) > 0, "/proc/self/status reads");
	CHECK(status_value(buf, "Name", v, sizeof v) && !strcmp(v, "t_procfs"), "status Name");
	CHECK(status_value(buf, "State", v, sizeof v) && !strcmp(v, "R (running)"), "status State");
	char pid[16], ppid[16];
	snprintf(pid, sizeof pid, "%d", getpid());
	snprintf(ppid, sizeof ppid, "%d", getppid());
	CHECK(status_value(buf, "Tgid", v, sizeof v) && !strcmp(v, pid), "status Tgid");
	CHECK(status_value(buf, "Pid", v, sizeof v) && !strcmp(v, pid), "status Pid");
	CHECK(status_value(buf, "PPid", v, sizeof v) && !strcmp(v, ppid), "status PPid");
	CHECK(status_value(buf, "Threads", v, sizeof v) && !strcmp(v, "1"), "status Threads");
	unsigned long kb;
	char unit[8];
	int ok = 1;
	const char *keys[] = { "VmSize", "VmRSS" };
	for (int i = 0; i < 2; i++)
		ok &= status_value(buf, keys[i], v, sizeof v) && strlen(v) == 11 &&
		      sscanf(v, "%8lu %7s", &kb, unit) == 2 && !strcmp(unit, "kB") && (i || kb > 0);
	CHECK(ok, "status VmSize and VmRSS are '%8lu kB', VmSize not 0");
	/* Groups: the supplementary groups getgroups gives (none, here). */
	gid_t groups[64];
	int ngroups = getgroups(64, groups), listed = 0, used;
	const char *g = status_value(buf, "Groups", v, sizeof v);
	for (unsigned gid; g && sscanf(g, "%u%n", &gid, &used) == 1; g += used)
		listed++;
	CHECK(ngroups >= 0 && getgroups(0, NULL) == ngroups && listed == ngroups,
	      "status Groups lists as many groups as getgroups gives");
	CHECK_ERR(getgroups(-1, groups), EINVAL, "getgroups with a negative size is EINVAL");
}

static void check_cmdline(int argc, char **argv)
{
	char want[4096], got[4096];
	long len = 0;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;
		memcpy(want + len, argv[i], n);
		len += n;
	}
	long n = read_file("/proc/self/cmdline", got, sizeof got);
	CHECK(n == len && !memcmp(got, want, len), "/proc/self/cmdline is argv, NUL-separated");
}

/* The maps line of addr: its perms and name; 1 if found and well formed. */
static int maps_line(unsigned long addr, char *perms, char *name)
{
	static char buf[BIG];
	if (read_file("/proc/self/maps", buf, sizeof buf) <= 0)
		return 0;
	for (char *line = buf; *line;) {
		char *end = strchr(line, '\n');
		if (!end)
			return 0;
		*end = 0;
		unsigned long start, stop, ino;
		unsigned long long off;
		unsigned maj, min;
		int used = 0;
		if (sscanf(line, "%lx-%lx %4s %llx %x:%x %lu %n", &start, &stop, perms, &off, &maj,
			   &min, &ino, &used) != 7 || !used)
			return 0;
		if (start <= addr && addr < stop) {
			/* The name, if any, starts at column 73, as Linux pads it. */
			int len = (int)strlen(line);
			strcpy(name, len > 73 && line[72] == ' ' && line[73] != ' ' ? line + 73 : "");
			return len == used || len > 73;
		}
		line = end + 1;
	}
	return 0;
}

static void check_maps(void)
{
	char perms[8] = "", name[4096] = "";
	int found = maps_line((unsigned long)check_maps, perms, name);
	size_t n = strlen(name), k = strlen("/t_procfs");
	CHECK(found && !strcmp(perms, "r-xp") && name[0] == '/' && n > k &&
	      !strcmp(name + n - k, "/t_procfs"),
	      "maps: our text is r-xp, named by the program's absolute path");
	int local;
	found = maps_line((unsigned long)&local, perms, name);
	CHECK(found && !strcmp(perms, "rw-p") && !strcmp(name, "[stack]"), "maps: [stack] is rw-p");
	unsigned long brk0 = syscall(SYS_brk, 0);
	syscall(SYS_brk, brk0 + 8192);
	found = maps_line(brk0, perms, name);
	CHECK(found && !strcmp(perms, "rw-p") && !strcmp(name, "[heap]"), "maps: brk's memory is [heap]");
}

static int thread_pipe[2];

static void *thread_body(void *arg)
{
	char c;
	(void)arg;
	return read(thread_pipe[0], &c, 1) == 1 ? NULL : arg;
}

static void check_thread(void)
{
	pthread_t t;
	if (pipe(thread_pipe) || pthread_create(&t, NULL, thread_body, NULL)) {
		CHECK(0, "a thread starts");
		return;
	}
	struct pstat ps;
	char buf[4096], v[16];
	int n = read_stat(getpid(), &ps);
	CHECK(n == 52 && stat_field(&ps, 20) == 2, "stat's num_threads counts a second thread");
	CHECK(read_file("/proc/self/status", buf, sizeof buf) > 0 &&
	      status_value(buf, "Threads", v, sizeof v) && !strcmp(v, "2"), "status Threads is 2");
	if (write(thread_pipe[1], "x", 1) != 1)
		CHECK(0, "the thread is released");
	pthread_join(t, NULL);
	close(thread_pipe[0]);
	close(thread_pipe[1]);
}

/* Read /proc/pid/stat until its state is want (a forced wait: no timing). */
static int wait_state(int pid, char want)
{
	struct pstat ps;
	for (;;) {
		if (read_stat(pid, &ps) != 52)
			return 0;
		if (ps.state == want)
			return 1;
		sched_yield();
	}
}

static void check_child(int argc, char **argv)
{
	int fds[2];
	if (pipe(fds))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 0 ? 0 : 1);
	}
	close(fds[0]);
	struct pstat ps;
	CHECK(wait_state(pid, 'S'), "a child asleep in read is S");
	CHECK(read_stat(pid, &ps) == 52 && stat_field(&ps, 4) == getpid() &&
	      !strcmp(ps.comm, "t_procfs"), "the child's stat has our pid as ppid, and our comm");
	char path[64], got[4096], want[4096];
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	long n = read_file(path, got, sizeof got), len = 0;
	for (int i = 0; i < argc; i++) {
		memcpy(want + len, argv[i], strlen(argv[i]) + 1);
		len += strlen(argv[i]) + 1;
	}
	CHECK(n == len && !memcmp(got, want, len), "a forked child's cmdline is its parent's");
	close(fds[1]);					/* the child reads EOF and exits */
	CHECK(wait_state(pid, 'Z'), "an exited, unreaped child is Z");
	CHECK(read_file(path, got, sizeof got) == 0, "a zombie's cmdline is empty");
	char status[4096], v[64];
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	CHECK(read_file(path, status, sizeof status) > 0 &&
	      status_value(status, "State", v, sizeof v) && !strcmp(v, "Z (zombie)") &&
	      !status_value(status, "VmRSS", v, sizeof v), "a zombie's status: Z (zombie), no VmRSS");
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child is reaped");
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	CHECK_ERR(open(path, O_RDONLY), ENOENT, "a reaped child's /proc/PID/stat is ENOENT");
	snprintf(path, sizeof path, "%d", pid);
	CHECK(!lists_name("/proc", path, 0), "a reaped child is not listed");
}

/* One pass over /proc: every file of every process listed, read whole. Each
 * read gives text whose pid is the directory's, or the process is gone
 * (ENOENT at open, ESRCH at read, or empty), or Linux forbids it (EACCES). The number of bad readings. */
static int read_everyone(void)
{
	static char buf[BIG];
	const char *files[] = { "stat", "status", "cmdline", "maps" };
	int bad = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		int pid = atoi(e->d_name);
		if (pid <= 0)
			continue;
		for (int i = 0; i < 4; i++) {
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/%s", pid, files[i]);
			long n = read_file(path, buf, sizeof buf);
			if (n < 0) {
				/* EACCES: Linux's ptrace check on others' maps. */
				bad += errno != ENOENT && errno != ESRCH && errno != EACCES;
				continue;
			}
			struct pstat ps;
			if (i == 0 && (parse_stat(buf, &ps) != 52 || ps.pid != pid))
				bad++;
		}
	}
	if (d)
		closedir(d);
	return bad;
}

/* A child forks 40 short-lived grandchildren and reaps them, while we read
 * every process's files over and over. */
static void check_readers_vs_exits(void)
{
	int fds[2];
	if (pipe(fds))
		return;
	pid_t spawner = fork();
	if (spawner == 0) {
		close(fds[0]);
		for (int i = 0; i < 40; i++) {
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			if (c > 0)
				waitpid(c, NULL, 0);
		}
		_exit(0);
	}
	close(fds[1]);
	int bad = 0;
	char c;
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	/* Until the spawner has exited (EOF on the pipe), and at least once. */
	do {
		bad += read_everyone();
	} while (read(fds[0], &c, 1) < 0 && errno == EAGAIN);
	close(fds[0]);
	waitpid(spawner, NULL, 0);
	CHECK_EQ(bad, 0, "reading every process's files while processes exit and are reaped");
}

static void check_cpuinfo(void)
{
	static char buf[BIG];
	CHECK(read_file("/proc/cpuinfo", buf, sizeof buf) > 0, "/proc/cpuinfo reads");
	int next = 0, ok = 1;
	for (char *p = buf; (p = strstr(p, "processor\t: ")) != NULL; p++) {
		char *block_end = strstr(p, "\n\n");
		ok &= atoi(p + 12) == next++ && block_end;
		if (block_end) {
			*block_end = 0;
			ok &= strstr(p, "\nvendor_id\t: ") && strstr(p, "\nmodel name\t: ") &&
			      strstr(p, "\nflags\t\t: ") && strstr(p, "\ncpu MHz\t\t: ");
			p = block_end;
		}
	}
	cpu_set_t set;
	CHECK(ok && sched_getaffinity(0, sizeof set, &set) == 0 && next >= CPU_COUNT(&set),
	      "/proc/cpuinfo has a numbered block with Linux's keys per CPU");
}

static void check_uptime_loadavg(void)
{
	char buf[8192];
	unsigned long s, cs, is, ics;
	int used = 0;
	CHECK(read_file("/proc/uptime", buf, sizeof buf) > 0 &&
	      sscanf(buf, "%lu.%2lu %lu.%2lu\n%n", &s, &cs, &is, &ics, &used) == 4 &&
	      used == (int)strlen(buf) && buf[strchr(buf, '.') - buf + 3] == ' ',
	      "/proc/uptime is 'SECONDS.CC IDLE.CC'");
	double a, b, c;
	int running, total, last;
	unsigned long long t[8], btime = 0;
	char *line;
	CHECK(read_file("/proc/stat", buf, sizeof buf) > 0 &&
	      sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3],
		     &t[4], &t[5], &t[6], &t[7]) == 8 && !strncmp(buf, "cpu  ", 5) &&
	      (line = strstr(buf, "\nbtime ")) && sscanf(line, "\nbtime %llu", &btime) == 1 &&
	      btime > 1000000000ULL, "/proc/stat has the cpu line and btime, as top reads them");
	CHECK(read_file("/proc/loadavg", buf, sizeof buf) > 0 &&
	      sscanf(buf, "%lf %lf %lf %d/%d %d", &a, &b, &c, &running, &total, &last) == 6 &&
	      running >= 1 && total >= running && last > 0,
	      "/proc/loadavg has Linux's five fields, us running");
}

/* Does the kernel log (/proc/kmsg) have a line containing text? */
static int kmsg_has(const char *text)
{
	static char buf[BIG];
	return read_file("/proc/kmsg", buf, sizeof buf) > 0 && strstr(buf, text);
}

/*
 * Roundabout only, 'race' (tests/user.txt and tests/boots.txt): with
 * proc.debug_window_ms a reader R of /proc/C/cmdline is held inside the
 * kernel after it found C (the log says so), while C exits and is reaped;
 * R must still read C's cmdline as it was. proc.debug_unlocked, broken on
 * purpose, reads C after its memory is gone, and this check must catch it.
 */
static int check_reader_outlives_reap(int argc, char **argv)
{
	int c_pipe[2];
	if (pipe(c_pipe))
		return 1;
	pid_t c = fork();
	if (c == 0) {
		char ch;
		close(c_pipe[1]);
		_exit(read(c_pipe[0], &ch, 1) == 0 ? 0 : 1);
	}
	close(c_pipe[0]);
	pid_t r = fork();
	if (r == 0) {
		char path[64], got[4096], want[4096];
		long len = 0;
		close(c_pipe[1]);	/* only the parent's end keeps C alive */
		for (int i = 0; i < argc; i++) {
			memcpy(want + len, argv[i], strlen(argv[i]) + 1);
			len += strlen(argv[i]) + 1;
		}
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)c);
		long n = read_file(path, got, sizeof got);
		if (n != len || memcmp(got, want, len))
			printf("# read while reaped: %ld bytes, want %ld\n", n, len);
		_exit(n == len && !memcmp(got, want, len) ? 0 : 2);
	}
	char line[64];
	snprintf(line, sizeof line, "proc: %d reads %d in the debug window", (int)r, (int)c);
	while (!kmsg_has(line))		/* a forced order: R is inside, holding what it found */
		sched_yield();
	close(c_pipe[1]);
	int st_c, st_r;
	waitpid(c, &st_c, 0);		/* C is reaped while R is still inside */
	waitpid(r, &st_r, 0);
	CHECK(WIFEXITED(st_r) && WEXITSTATUS(st_r) == 0,
	      "a process reaped while its /proc/PID/cmdline is read is read as it was");
	return tap_done();
}

int main(int argc, char **argv)
{
	tap_start();
	if (argc == 2 && !strcmp(argv[1], "race"))
		return check_reader_outlives_reap(argc, argv);
	check_listing();
	check_own_stat();
	check_own_status();
	check_cmdline(argc, argv);
	check_maps();
	check_thread();
	check_child(argc, argv);
	check_readers_vs_exits();
	check_cpuinfo();
	check_uptime_loadavg();
	return tap_done();
}
