/*
 * t_exec_threads.c - execve in a process with other live threads, as
 * Linux: the other threads end (asleep in a futex wait, spinning, asleep
 * in a pipe read), whichever thread calls execve; the new program runs as
 * the same process (getpid unchanged, the caller's thread id becomes the
 * pid) and ends normally.
 *
 * The program runs itself again: "t_exec_threads after PID FD" is the
 * new image, which checks its ids and reads one byte from descriptor FD -
 * the pipe the old reader thread slept on - so that a surviving old thread
 * would steal the byte and leave it waiting (a 'not ok' at the deadline).
 *
 * "t_exec_threads leak N" (Roundabout only, tests/user.txt) runs both
 * cases N times and checks that /proc/meminfo's free memory comes back.
 */
#include "tap.h"
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define DEADLINE_MS 5000
#define FUTEX_WAIT 0

static char *self;		/* argv[0]: this program */
static volatile long *spins;	/* shared with the parent: the spinner's count */
static int from_parent[2];	/* the old reader thread sleeps on [0] */
static int to_parent[2];	/* the new image says it runs */
static int futex_word;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---------------------------------------------------------- the new image */

static int after_exec(char **argv)
{
	int pid = atoi(argv[2]), fd = atoi(argv[3]), out = atoi(argv[4]);
	if (getpid() != pid)
		return 2;
	if (syscall(SYS_gettid) != pid)
		return 3;
	write(out, "e", 1);
	char c = 0;
	if (read(fd, &c, 1) != 1 || c != 'z')
		return 4;
	return 0;
}

/* ---------------------------------------------------------- the old threads */

static void *futex_sleeper(void *unused)
{
	(void)unused;
	for (;;)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT, 0, NULL, NULL, 0);
	return NULL;
}

static void *spinner(void *unused)
{
	(void)unused;
	for (;;)
		__atomic_add_fetch(spins, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *pipe_reader(void *unused)
{
	(void)unused;
	char c;
	read(from_parent[0], &c, 1);
	return NULL;
}

static void exec_self(void)
{
	char pid[16], fd[16], out[16];
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(fd, sizeof(fd), "%d", from_parent[0]);
	snprintf(out, sizeof(out), "%d", to_parent[1]);
	char *argv[] = { self, "after", pid, fd, out, NULL };
	execv(self, argv);
	_exit(50);
}

static void *exec_from_thread(void *unused)
{
	(void)unused;
	nap_ms(50);		/* the main thread is asleep in its read by now */
	exec_self();
	return NULL;
}

/* The child: three sleeping or spinning threads, then execve from the main
 * thread (or from a fourth thread while the main one sleeps in a read). */
static void child(int from_thread)
{
	pthread_t t;
	pthread_create(&t, NULL, futex_sleeper, NULL);
	pthread_create(&t, NULL, spinner, NULL);
	pthread_create(&t, NULL, pipe_reader, NULL);
	while (!__atomic_load_n(spins, __ATOMIC_RELAXED))
		sched_yield();
	nap_ms(50);		/* let the sleepers fall asleep */
	if (!from_thread)
		exec_self();
	pthread_create(&t, NULL, exec_from_thread, NULL);
	pipe_reader(NULL);
	_exit(60);
}

static pid_t reap(pid_t pid, int *st)
{
	for (int waited = 0; waited < DEADLINE_MS; waited += 10) {
		pid_t got = waitpid(pid, st, WNOHANG);
		if (got)
			return got;
		nap_ms(10);
	}
	return 0;
}

/* One exec with live threads; reports (quiet: only failures) and returns ok. */
static int one_case(int from_thread, int quiet)
{
	const char *who = from_thread ? "a second thread" : "the main thread";
	char what[128];
	int st = 0, ok = 1;
	pipe(from_parent);
	pipe(to_parent);
	*spins = 0;
	pid_t pid = fork();
	if (pid == 0)
		child(from_thread);
	close(to_parent[1]);		/* EOF if the child dies without a new image */
	struct pollfd p = { to_parent[0], POLLIN, 0 };
	char c = 0;
	if (poll(&p, 1, DEADLINE_MS) == 1)
		read(to_parent[0], &c, 1);	/* 'e': the new image runs */
	long before = __atomic_load_n(spins, __ATOMIC_RELAXED);
	nap_ms(50);
	long after = __atomic_load_n(spins, __ATOMIC_RELAXED);
	snprintf(what, sizeof(what), "execve from %s: the spinning thread is gone", who);
	if (!quiet || before != after)
		ok &= tap_check(c == 'e' && before == after, what, "new image %s; %ld spins in 50 ms",
				c == 'e' ? "runs" : "did not start", after - before);
	write(from_parent[1], "z", 1);	/* for the new image, not the old reader */
	pid_t got = reap(pid, &st);
	snprintf(what, sizeof(what),
		 "execve from %s: same pid, tid = pid, the sleepers gone, a clean exit", who);
	int good = got == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!quiet || !good)
		ok &= tap_check(good, what, got ? "wait status %#x (exit 2: pid, 3: tid, 4: byte)"
					      : "no exit in %d ms (%#x)", got ? st : DEADLINE_MS, st);
	if (!got) {
		kill(pid, SIGKILL);
		reap(pid, &st);
	}
	close(from_parent[0]);
	close(from_parent[1]);
	close(to_parent[0]);
	return ok;
}

static long mem_available_kb(void)
{
	char buf[512];
	FILE *f = fopen("/proc/meminfo", "r");
	long kb = -1;
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "MemAvailable: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "after"))
		return after_exec(argv);
	tap_start();
	self = argv[0];
	spins = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (argc >= 3 && !strcmp(argv[1], "leak")) {
		int rounds = atoi(argv[2]), ok = 1;
		one_case(0, 1);		/* warm the caches up */
		one_case(1, 1);
		nap_ms(200);
		long before = mem_available_kb();
		for (int i = 0; i < rounds && ok; i++)
			ok = one_case(0, 1) && one_case(1, 1);
		nap_ms(200);		/* exited threads' stacks are freed by the reaper */
		long after = mem_available_kb();
		CHECK(ok, "every execve with live threads went as on Linux");
		tap_check(after >= before - 256, "the memory of the old images and their threads comes back",
			  "MemAvailable %ld kB before, %ld kB after %d rounds", before, after, rounds);
		return tap_done();
	}
	one_case(0, 0);
	one_case(1, 0);
	return tap_done();
}
