/* syscall.h - the system calls (kernel/syscall.c has the table). */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "kernel/types.h"
#include "kernel/unistd_64.h"

/*
 * Roundabout's own calls are numbered from 1000, far above Linux's, so a
 * new Linux call never collides with one: add yours after the last and
 * move NR_SYSCALLS up with it (docs/syscalls.md, "Adding a system call").
 */
#define __NR_rb_pin 1000
#define NR_SYSCALLS (__NR_rb_pin + 1)	/* the last number, plus one */
_Static_assert(NR_LINUX_SYSCALLS <= 1000, "Linux's numbers reach Roundabout's own");

/* A user address: a number the kernel never dereferences; only the copy
 * functions of kernel/uaccess.h turn it into memory. */
typedef u64 uaddr_t;

/* The six argument registers of a call: rdi, rsi, rdx, r10, r8, r9. */
struct syscall_args {
	u64 a[6];
};
typedef long (*syscall_fn)(const struct syscall_args *args);

/*
 * SYSCALL_DEFINEn(name, type1, arg1, ..., typen, argn) { body }: the
 * handler of system call `name`, with its arguments named and typed as in
 * its Linux manual page. It defines sys_name(const struct syscall_args *),
 * the table's uniform entry, which converts each register to its type
 * and calls the body, a static function with the typed parameters. An int
 * argument is the register's low 32 bits, as on Linux.
 */
#define SYSCALL_DEFINE0(name)							\
	long sys_##name(const struct syscall_args *args)
#define SC_DEFINE(name, params, convert)					\
	static long do_sys_##name params;					\
	long sys_##name(const struct syscall_args *args)			\
	{									\
		return do_sys_##name convert;					\
	}									\
	static long do_sys_##name params
#define SYSCALL_DEFINE1(name, t0, n0)						\
	SC_DEFINE(name, (t0 n0), ((t0)args->a[0]))
#define SYSCALL_DEFINE2(name, t0, n0, t1, n1)					\
	SC_DEFINE(name, (t0 n0, t1 n1), ((t0)args->a[0], (t1)args->a[1]))
#define SYSCALL_DEFINE3(name, t0, n0, t1, n1, t2, n2)				\
	SC_DEFINE(name, (t0 n0, t1 n1, t2 n2),					\
		  ((t0)args->a[0], (t1)args->a[1], (t2)args->a[2]))
#define SYSCALL_DEFINE4(name, t0, n0, t1, n1, t2, n2, t3, n3)			\
	SC_DEFINE(name, (t0 n0, t1 n1, t2 n2, t3 n3),				\
		  ((t0)args->a[0], (t1)args->a[1], (t2)args->a[2], (t3)args->a[3]))
#define SYSCALL_DEFINE5(name, t0, n0, t1, n1, t2, n2, t3, n3, t4, n4)		\
	SC_DEFINE(name, (t0 n0, t1 n1, t2 n2, t3 n3, t4 n4),			\
		  ((t0)args->a[0], (t1)args->a[1], (t2)args->a[2], (t3)args->a[3],	\
		   (t4)args->a[4]))
#define SYSCALL_DEFINE6(name, t0, n0, t1, n1, t2, n2, t3, n3, t4, n4, t5, n5)	\
	SC_DEFINE(name, (t0 n0, t1 n1, t2 n2, t3 n3, t4 n4, t5 n5),		\
		  ((t0)args->a[0], (t1)args->a[1], (t2)args->a[2], (t3)args->a[3],	\
		   (t4)args->a[4], (t5)args->a[5]))

/* Where the system-call table lies (for /proc/kernel-hash): its length in bytes. */
size_t syscall_table_range(const void **start);

long sys_access(const struct syscall_args *args);
long sys_alarm(const struct syscall_args *args);
long sys_arch_prctl(const struct syscall_args *args);
long sys_brk(const struct syscall_args *args);
long sys_chdir(const struct syscall_args *args);
long sys_chmod(const struct syscall_args *args);
long sys_chown(const struct syscall_args *args);
long sys_lchown(const struct syscall_args *args);
long sys_fchown(const struct syscall_args *args);
long sys_clock_getres(const struct syscall_args *args);
long sys_clock_gettime(const struct syscall_args *args);
long sys_clock_nanosleep(const struct syscall_args *args);
long sys_clone(const struct syscall_args *args);
long sys_close(const struct syscall_args *args);
long sys_creat(const struct syscall_args *args);
long sys_dup(const struct syscall_args *args);
long sys_dup2(const struct syscall_args *args);
long sys_dup3(const struct syscall_args *args);
long sys_execve(const struct syscall_args *args);
long sys_exit(const struct syscall_args *args);
long sys_exit_group(const struct syscall_args *args);
long sys_faccessat(const struct syscall_args *args);
long sys_faccessat2(const struct syscall_args *args);
long sys_fchdir(const struct syscall_args *args);
long sys_fchmod(const struct syscall_args *args);
long sys_fchmodat(const struct syscall_args *args);
long sys_fchownat(const struct syscall_args *args);
long sys_fcntl(const struct syscall_args *args);
long sys_fork(const struct syscall_args *args);
long sys_fstat(const struct syscall_args *args);
long sys_fstatfs(const struct syscall_args *args);
long sys_fsync(const struct syscall_args *args);
long sys_ftruncate(const struct syscall_args *args);
long sys_futex(const struct syscall_args *args);
long sys_getcwd(const struct syscall_args *args);
long sys_getdents64(const struct syscall_args *args);
long sys_getgroups(const struct syscall_args *args);
long sys_getitimer(const struct syscall_args *args);
long sys_getpgid(const struct syscall_args *args);
long sys_getpgrp(const struct syscall_args *args);
long sys_getpid(const struct syscall_args *args);
long sys_getppid(const struct syscall_args *args);
long sys_getrandom(const struct syscall_args *args);
long sys_getrlimit(const struct syscall_args *args);
long sys_getrusage(const struct syscall_args *args);
long sys_getsid(const struct syscall_args *args);
long sys_gettid(const struct syscall_args *args);
long sys_gettimeofday(const struct syscall_args *args);
long sys_getuid(const struct syscall_args *args);
long sys_ioctl(const struct syscall_args *args);
long sys_kill(const struct syscall_args *args);
long sys_link(const struct syscall_args *args);
long sys_linkat(const struct syscall_args *args);
long sys_lseek(const struct syscall_args *args);
long sys_lstat(const struct syscall_args *args);
long sys_madvise(const struct syscall_args *args);
long sys_mkdir(const struct syscall_args *args);
long sys_mkdirat(const struct syscall_args *args);
long sys_mmap(const struct syscall_args *args);
long sys_mprotect(const struct syscall_args *args);
long sys_mremap(const struct syscall_args *args);
long sys_msync(const struct syscall_args *args);
long sys_munmap(const struct syscall_args *args);
long sys_nanosleep(const struct syscall_args *args);
long sys_newfstatat(const struct syscall_args *args);
long sys_open(const struct syscall_args *args);
long sys_openat(const struct syscall_args *args);
long sys_pause(const struct syscall_args *args);
long sys_pipe(const struct syscall_args *args);
long sys_pipe2(const struct syscall_args *args);
long sys_poll(const struct syscall_args *args);
long sys_ppoll(const struct syscall_args *args);
long sys_prctl(const struct syscall_args *args);
long sys_pread64(const struct syscall_args *args);
long sys_preadv(const struct syscall_args *args);
long sys_prlimit64(const struct syscall_args *args);
long sys_pselect6(const struct syscall_args *args);
long sys_pwrite64(const struct syscall_args *args);
long sys_pwritev(const struct syscall_args *args);
long sys_rb_pin(const struct syscall_args *args);
long sys_read(const struct syscall_args *args);
long sys_readlink(const struct syscall_args *args);
long sys_readlinkat(const struct syscall_args *args);
long sys_readv(const struct syscall_args *args);
long sys_rename(const struct syscall_args *args);
long sys_renameat(const struct syscall_args *args);
long sys_renameat2(const struct syscall_args *args);
long sys_rmdir(const struct syscall_args *args);
long sys_rt_sigaction(const struct syscall_args *args);
long sys_rt_sigpending(const struct syscall_args *args);
long sys_rt_sigprocmask(const struct syscall_args *args);
long sys_rt_sigreturn(const struct syscall_args *args);
long sys_rt_sigsuspend(const struct syscall_args *args);
long sys_rt_sigtimedwait(const struct syscall_args *args);
long sys_sched_getaffinity(const struct syscall_args *args);
long sys_getcpu(const struct syscall_args *args);
long sys_sched_setaffinity(const struct syscall_args *args);
long sys_sched_yield(const struct syscall_args *args);
long sys_select(const struct syscall_args *args);
long sys_set_robust_list(const struct syscall_args *args);
long sys_set_tid_address(const struct syscall_args *args);
long sys_restart_syscall(const struct syscall_args *args);
long sys_setitimer(const struct syscall_args *args);
long sys_setpgid(const struct syscall_args *args);
long sys_setsid(const struct syscall_args *args);
long sys_setuid(const struct syscall_args *args);
long sys_sigaltstack(const struct syscall_args *args);
long sys_stat(const struct syscall_args *args);
long sys_statfs(const struct syscall_args *args);
long sys_symlink(const struct syscall_args *args);
long sys_symlinkat(const struct syscall_args *args);
long sys_sync(const struct syscall_args *args);
long sys_sysinfo(const struct syscall_args *args);
long sys_tgkill(const struct syscall_args *args);
long sys_time(const struct syscall_args *args);
long sys_times(const struct syscall_args *args);
long sys_tkill(const struct syscall_args *args);
long sys_truncate(const struct syscall_args *args);
long sys_umask(const struct syscall_args *args);
long sys_uname(const struct syscall_args *args);
long sys_unlink(const struct syscall_args *args);
long sys_unlinkat(const struct syscall_args *args);
long sys_wait4(const struct syscall_args *args);
long sys_utimensat(const struct syscall_args *args);
long sys_write(const struct syscall_args *args);
long sys_writev(const struct syscall_args *args);

#endif
