/*
 * syscall.c - the system-call table: Linux x86-64 numbers, arguments in
 * rdi, rsi, rdx, r10, r8, r9, the result (or -errno) in rax.
 *
 * The numbers come from Linux's asm/unistd_64.h; each implementation is in
 * the subsystem it serves: fs/read_write.c, open.c, fcntl.c, stat.c,
 * readdir.c, names.c, sync.c, direct-io.c, exec.c (files and programs);
 * mm/syscalls.c (memory); kernel/fork.c, exit.c, signal.c, futex.c and
 * sys.c (processes, signals, futexes, ids and time).
 * An unknown number returns -ENOSYS and is logged once per number, so a
 * student who meets it knows which call to add. docs/user.md lists what
 * each supported call does differently from Linux, if anything.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/trap.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/percpu.h"

typedef long (*syscall_fn)(u64, u64, u64, u64, u64, u64);

#define SYS(nr, fn) [nr] = (syscall_fn)(fn)

static const syscall_fn table[NR_SYSCALLS] = {
	SYS(0, sys_read), SYS(1, sys_write), SYS(2, sys_open), SYS(3, sys_close),
	SYS(4, sys_stat), SYS(5, sys_fstat), SYS(6, sys_lstat), SYS(7, sys_poll), SYS(8, sys_lseek),
	SYS(9, sys_mmap), SYS(10, sys_mprotect), SYS(11, sys_munmap), SYS(12, sys_brk),
	SYS(13, sys_rt_sigaction), SYS(14, sys_rt_sigprocmask), SYS(15, sys_rt_sigreturn), SYS(16, sys_ioctl),
	SYS(17, sys_pread64), SYS(18, sys_pwrite64), SYS(19, sys_readv), SYS(20, sys_writev),
	SYS(21, sys_access), SYS(22, sys_pipe), SYS(24, sys_sched_yield), SYS(25, sys_mremap),
	SYS(26, sys_msync),
	SYS(28, sys_madvise), SYS(32, sys_dup), SYS(33, sys_dup2), SYS(35, sys_nanosleep),
	SYS(34, sys_pause), SYS(36, sys_getitimer), SYS(37, sys_alarm), SYS(38, sys_setitimer), SYS(39, sys_getpid), SYS(56, sys_clone), SYS(57, sys_fork), SYS(58, sys_fork),
	SYS(59, sys_execve), SYS(60, sys_exit), SYS(61, sys_wait4), SYS(62, sys_kill),
	SYS(63, sys_uname), SYS(72, sys_fcntl), SYS(74, sys_fsync), SYS(75, sys_fsync),
	SYS(76, sys_truncate), SYS(77, sys_ftruncate), SYS(79, sys_getcwd), SYS(80, sys_chdir),
	SYS(81, sys_fchdir), SYS(82, sys_rename), SYS(83, sys_mkdir), SYS(84, sys_rmdir),
	SYS(85, sys_creat), SYS(86, sys_link), SYS(87, sys_unlink), SYS(89, sys_readlink),
	SYS(90, sys_chmod), SYS(91, sys_fchmod), SYS(92, sys_chown), SYS(93, sys_fchmod),
	SYS(94, sys_chown), SYS(95, sys_umask), SYS(96, sys_gettimeofday),
	SYS(97, sys_getrlimit), SYS(102, sys_getuid), SYS(104, sys_getuid),
	SYS(105, sys_setuid), SYS(106, sys_setuid), SYS(107, sys_getuid), SYS(108, sys_getuid),
	SYS(109, sys_setpgid), SYS(110, sys_getppid), SYS(111, sys_getpid), SYS(112, sys_getpid),
	SYS(121, sys_getpid), SYS(124, sys_getpid),
	SYS(131, sys_sigaltstack), SYS(158, sys_arch_prctl), SYS(162, sys_sync),
	SYS(186, sys_gettid), SYS(200, sys_tkill), SYS(201, sys_time), SYS(202, sys_futex),
	SYS(217, sys_getdents64), SYS(218, sys_set_tid_address), SYS(228, sys_clock_gettime),
	SYS(229, sys_clock_getres), SYS(230, sys_clock_nanosleep), SYS(231, sys_exit_group),
	SYS(234, sys_tgkill), SYS(257, sys_openat), SYS(258, sys_mkdirat),
	SYS(260, sys_fchownat), SYS(262, sys_newfstatat), SYS(263, sys_unlinkat),
	SYS(264, sys_renameat), SYS(265, sys_linkat), SYS(267, sys_readlinkat),
	SYS(268, sys_fchmodat), SYS(269, sys_faccessat), SYS(273, sys_set_robust_list),
	SYS(292, sys_dup3), SYS(293, sys_pipe2), SYS(295, sys_preadv), SYS(296, sys_pwritev), SYS(302, sys_prlimit64),
	SYS(316, sys_renameat2), SYS(318, sys_getrandom), SYS(439, sys_faccessat2),
	SYS(1000, sys_rb_pin),	/* Roundabout's own: user/include/roundabout.h */
};

size_t syscall_table_range(const void **start)
{
	*start = table;
	return sizeof(table);
}

static u64 unknown_logged[(NR_SYSCALLS + 63) / 64];	/* [A] */

void syscall_dispatch(struct trap_frame *tf)
{
	u64 nr = tf->rax;
	long ret;
	syscall_fn fn = nr < NR_SYSCALLS ? table[nr] : NULL;
	if (fn) {
		ret = fn(tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9);
	} else {
		ret = -ENOSYS;
		bool first = nr >= NR_SYSCALLS ||
			     !(__atomic_fetch_or(&unknown_logged[nr / 64], 1ULL << (nr % 64),
						 __ATOMIC_RELAXED) & (1ULL << (nr % 64)));
		if (first && printk_ratelimit())
			pr_warn("syscall %llu from %s (pid %d) is not implemented: ENOSYS",
				(unsigned long long)nr, current_task()->name, current_task()->tid);
	}
	tf->rax = (u64)ret;
	if (READ_ONCE(this_cpu()->need_resched))
		schedule();
	/* rt_sigreturn's rax is the interrupted program's: never a restart. */
	handle_signals_syscall(tf, nr == 15 ? (u64)-1 : nr);
}
