/*
 * t_canonical - addresses outside user space never reach ring 0's hands:
 * a TLS base given to clone(CLONE_SETTLS), and a signal handler, past the
 * end of the user half (or non-canonical). On real x86-64 hardware loading
 * such an FS base (wrmsr) or returning to such an rip (iretq) faults in
 * the kernel itself; Linux refuses the first (EPERM) and kills the
 * process with SIGSEGV for the second, and so must Roundabout.
 */
#include "tap.h"
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>

#define NONCANONICAL 0x8000000000000000ULL
#define KERNEL_HALF 0xffffffff80000000ULL

static void check_settls(uint64_t tls, const char *what)
{
	static char stack[16384];
	errno = 0;
	long r = syscall(SYS_clone, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			 CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS,
			 stack + sizeof stack, NULL, NULL, tls);
	if (r == 0)
		syscall(SYS_exit, 0);	/* the child, if the kernel let it through */
	tap_check(r == -1 && errno == EPERM, what, "returned %ld, errno %d", r, errno);
}

/* A child that makes SIGUSR1's handler addr and raises it: it must die of SIGSEGV. */
static void check_handler(uint64_t addr, const char *what)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = (void (*)(int))(uintptr_t)addr;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		_exit(0);
	}
	tap_check_killed(pid, SIGSEGV, what);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_canonical\nclone's TLS base and signal handlers outside user space\n"
		       "are refused (EPERM) or end the process with SIGSEGV, as on Linux.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	check_settls(NONCANONICAL, "clone(CLONE_SETTLS) with a non-canonical TLS base gives EPERM");
	check_settls(KERNEL_HALF, "clone(CLONE_SETTLS) with a kernel-half TLS base gives EPERM");
	check_handler(NONCANONICAL, "a signal handler at a non-canonical address: SIGSEGV");
	check_handler(KERNEL_HALF, "a signal handler in the kernel half: SIGSEGV");
	return tap_done();
}
