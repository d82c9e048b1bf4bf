/* syscall.h - the system calls (kernel/syscall.c has the table). */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "kernel/types.h"

#define NR_SYSCALLS 1001

/* Each takes up to six u64 arguments and returns a value or -errno. */
#define SYSCALL(name) long sys_##name(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
/* Where the system-call table lies (for /proc/kernel-hash): its length in bytes. */
size_t syscall_table_range(const void **start);
long sys_alarm(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pause(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_poll(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_setitimer(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getitimer(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_access(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_arch_prctl(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_brk(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_chdir(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_chmod(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_chown(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_clock_getres(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_clock_gettime(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_clock_nanosleep(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_clone(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_close(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_creat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_dup(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_dup2(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_dup3(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_execve(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_exit(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_exit_group(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_faccessat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_faccessat2(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fchdir(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fchmod(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fchmodat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fchownat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fcntl(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fork(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fstat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_fsync(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_ftruncate(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_futex(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getcwd(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getdents64(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getpid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getppid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getrandom(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getrlimit(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_gettid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_gettimeofday(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_getuid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_ioctl(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_kill(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_link(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_linkat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_lseek(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_lstat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_madvise(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_mkdir(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_mkdirat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_mmap(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_mprotect(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_mremap(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_msync(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_preadv(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pwritev(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_munmap(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_nanosleep(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_newfstatat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_open(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_openat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pipe(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pipe2(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pread64(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_prlimit64(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_pwrite64(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_read(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_readlink(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_readlinkat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_readv(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rename(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_renameat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_renameat2(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rmdir(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rt_sigaction(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rt_sigprocmask(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_sched_yield(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_set_robust_list(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_set_tid_address(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_setpgid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_setuid(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_sigaltstack(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_stat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_sync(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_tgkill(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_time(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_tkill(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_truncate(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_umask(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_uname(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_unlink(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_unlinkat(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_wait4(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_write(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_writev(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rt_sigreturn(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
long sys_rb_pin(u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);

#endif
