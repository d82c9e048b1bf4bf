/*
 * t_clone_flags - clone() refuses, with EINVAL, each combination of flags
 * that Linux refuses (man 2 clone): handlers shared without memory, a
 * thread without shared handlers or in new namespaces, a new mount or
 * user namespace that shares the directory, a pidfd and a parent TID in
 * the one pointer. The calls are raw: if a kernel wrongly lets one
 * through, its child leaves at once in assembly, on whatever stack.
 */
#include "tap.h"
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

static long raw_clone(unsigned long flags)
{
	static int tid;
	register long r10 __asm__("r10") = 0, r8 __asm__("r8") = 0;
	long ret;
	__asm__ __volatile__("syscall\n\t"
			     "test %%rax, %%rax\n\t"
			     "jnz 1f\n\t"
			     "mov $60, %%eax\n\t"
			     "xor %%edi, %%edi\n\t"
			     "syscall\n\t"
			     "1:"
			     : "=a"(ret)
			     : "a"((long)SYS_clone), "D"(flags), "S"(0L), "d"(&tid), "r"(r10), "r"(r8)
			     : "rcx", "r11", "memory");
	if (ret > 0 && !(flags & CLONE_THREAD))
		waitpid((pid_t)ret, NULL, __WALL);
	return ret;
}

static void check_einval(unsigned long flags, const char *what)
{
	long r = raw_clone(flags);
	tap_check(r == -EINVAL, what, "returned %ld", r);
}

int main(void)
{
	check_einval(CLONE_SIGHAND | SIGCHLD, "CLONE_SIGHAND without CLONE_VM is EINVAL");
	check_einval(CLONE_THREAD | CLONE_VM | SIGCHLD, "CLONE_THREAD without CLONE_SIGHAND is EINVAL");
	check_einval(CLONE_THREAD | SIGCHLD, "CLONE_THREAD alone is EINVAL");
	check_einval(CLONE_FS | CLONE_NEWNS | SIGCHLD, "CLONE_FS with CLONE_NEWNS is EINVAL");
	check_einval(CLONE_FS | CLONE_NEWUSER | SIGCHLD, "CLONE_FS with CLONE_NEWUSER is EINVAL");
	check_einval(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWPID,
		     "CLONE_THREAD with CLONE_NEWPID is EINVAL");
	check_einval(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWUSER,
		     "CLONE_THREAD with CLONE_NEWUSER is EINVAL");
	check_einval(CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD,
		     "CLONE_PIDFD with CLONE_PARENT_SETTID is EINVAL");
	return tap_done();
}
