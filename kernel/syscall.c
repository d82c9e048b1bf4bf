/*
 * syscall.c - the system-call table: Linux x86-64 numbers, arguments in
 * rdi, rsi, rdx, r10, r8, r9, the result (or -errno) in rax.
 *
 * The numbers come from Linux's asm/unistd_64.h; each implementation is in
 * the subsystem it serves: fs/read_write.c, open.c, fcntl.c, stat.c,
 * readdir.c, names.c, sync.c, direct-io.c, exec.c (files and programs);
 * mm/syscalls.c (memory); kernel/fork.c, exit.c, signal.c, futex.c,
 * sys.c and sys_rusage.c (processes, signals, futexes, ids, time and
 * what processes have used).
 * An unknown number returns -ENOSYS and is logged once per number (past
 * the table, for the first 16 such numbers only), so a student who meets
 * it knows which call to add. docs/user.md lists what
 * each supported call does differently from Linux, if anything.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/trap.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/printk.h"
#include "kernel/percpu.h"
#include "mm/vm.h"

static const syscall_fn table[NR_SYSCALLS] = {
	[__NR_read]             = sys_read,
	[__NR_write]            = sys_write,
	[__NR_open]             = sys_open,
	[__NR_close]            = sys_close,
	[__NR_stat]             = sys_stat,
	[__NR_fstat]            = sys_fstat,
	[__NR_lstat]            = sys_lstat,
	[__NR_poll]             = sys_poll,
	[__NR_lseek]            = sys_lseek,
	[__NR_mmap]             = sys_mmap,
	[__NR_mprotect]         = sys_mprotect,
	[__NR_munmap]           = sys_munmap,
	[__NR_brk]              = sys_brk,
	[__NR_rt_sigaction]     = sys_rt_sigaction,
	[__NR_rt_sigprocmask]   = sys_rt_sigprocmask,
	[__NR_rt_sigreturn]     = sys_rt_sigreturn,
	[__NR_ioctl]            = sys_ioctl,
	[__NR_pread64]          = sys_pread64,
	[__NR_pwrite64]         = sys_pwrite64,
	[__NR_readv]            = sys_readv,
	[__NR_writev]           = sys_writev,
	[__NR_access]           = sys_access,
	[__NR_pipe]             = sys_pipe,
	[__NR_select]           = sys_select,
	[__NR_sched_yield]      = sys_sched_yield,
	[__NR_mremap]           = sys_mremap,
	[__NR_msync]            = sys_msync,
	[__NR_madvise]          = sys_madvise,
	[__NR_dup]              = sys_dup,
	[__NR_dup2]             = sys_dup2,
	[__NR_nanosleep]        = sys_nanosleep,
	[__NR_pause]            = sys_pause,
	[__NR_getitimer]        = sys_getitimer,
	[__NR_alarm]            = sys_alarm,
	[__NR_setitimer]        = sys_setitimer,
	[__NR_getpid]           = sys_getpid,
	[__NR_clone]            = sys_clone,
	[__NR_fork]             = sys_fork,
	[__NR_execve]           = sys_execve,
	[__NR_exit]             = sys_exit,
	[__NR_wait4]            = sys_wait4,
	[__NR_kill]             = sys_kill,
	[__NR_uname]            = sys_uname,
	[__NR_fcntl]            = sys_fcntl,
	[__NR_fsync]            = sys_fsync,
	[__NR_truncate]         = sys_truncate,
	[__NR_ftruncate]        = sys_ftruncate,
	[__NR_getcwd]           = sys_getcwd,
	[__NR_chdir]            = sys_chdir,
	[__NR_fchdir]           = sys_fchdir,
	[__NR_rename]           = sys_rename,
	[__NR_mkdir]            = sys_mkdir,
	[__NR_rmdir]            = sys_rmdir,
	[__NR_creat]            = sys_creat,
	[__NR_link]             = sys_link,
	[__NR_unlink]           = sys_unlink,
	[__NR_symlink]          = sys_symlink,
	[__NR_readlink]         = sys_readlink,
	[__NR_chmod]            = sys_chmod,
	[__NR_fchmod]           = sys_fchmod,
	[__NR_chown]            = sys_chown,
	[__NR_umask]            = sys_umask,
	[__NR_gettimeofday]     = sys_gettimeofday,
	[__NR_getrlimit]        = sys_getrlimit,
	[__NR_getrusage]        = sys_getrusage,
	[__NR_sysinfo]          = sys_sysinfo,
	[__NR_times]            = sys_times,
	[__NR_getuid]           = sys_getuid,
	[__NR_setuid]           = sys_setuid,
	[__NR_setpgid]          = sys_setpgid,
	[__NR_getppid]          = sys_getppid,
	[__NR_getpgrp]          = sys_getpgrp,
	[__NR_setsid]           = sys_setsid,
	[__NR_getgroups]        = sys_getgroups,
	[__NR_getpgid]          = sys_getpgid,
	[__NR_getsid]           = sys_getsid,
	[__NR_rt_sigpending]    = sys_rt_sigpending,
	[__NR_rt_sigtimedwait]  = sys_rt_sigtimedwait,
	[__NR_rt_sigsuspend]    = sys_rt_sigsuspend,
	[__NR_sigaltstack]      = sys_sigaltstack,
	[__NR_statfs]           = sys_statfs,
	[__NR_fstatfs]          = sys_fstatfs,
	[__NR_prctl]            = sys_prctl,
	[__NR_arch_prctl]       = sys_arch_prctl,
	[__NR_sync]             = sys_sync,
	[__NR_gettid]           = sys_gettid,
	[__NR_tkill]            = sys_tkill,
	[__NR_time]             = sys_time,
	[__NR_futex]            = sys_futex,
	[__NR_sched_setaffinity] = sys_sched_setaffinity,
	[__NR_sched_getaffinity] = sys_sched_getaffinity,
	[__NR_getcpu] = sys_getcpu,
	[__NR_getdents64]       = sys_getdents64,
	[__NR_set_tid_address]  = sys_set_tid_address,
	[__NR_restart_syscall]  = sys_restart_syscall,
	[__NR_clock_gettime]    = sys_clock_gettime,
	[__NR_clock_getres]     = sys_clock_getres,
	[__NR_clock_nanosleep]  = sys_clock_nanosleep,
	[__NR_exit_group]       = sys_exit_group,
	[__NR_tgkill]           = sys_tgkill,
	[__NR_openat]           = sys_openat,
	[__NR_mkdirat]          = sys_mkdirat,
	[__NR_fchownat]         = sys_fchownat,
	[__NR_newfstatat]       = sys_newfstatat,
	[__NR_unlinkat]         = sys_unlinkat,
	[__NR_renameat]         = sys_renameat,
	[__NR_linkat]           = sys_linkat,
	[__NR_symlinkat]        = sys_symlinkat,
	[__NR_readlinkat]       = sys_readlinkat,
	[__NR_fchmodat]         = sys_fchmodat,
	[__NR_faccessat]        = sys_faccessat,
	[__NR_pselect6]         = sys_pselect6,
	[__NR_ppoll]            = sys_ppoll,
	[__NR_set_robust_list]  = sys_set_robust_list,
	[__NR_utimensat]        = sys_utimensat,
	[__NR_dup3]             = sys_dup3,
	[__NR_pipe2]            = sys_pipe2,
	[__NR_preadv]           = sys_preadv,
	[__NR_pwritev]          = sys_pwritev,
	[__NR_prlimit64]        = sys_prlimit64,
	[__NR_renameat2]        = sys_renameat2,
	[__NR_getrandom]        = sys_getrandom,
	[__NR_faccessat2]       = sys_faccessat2,

	/* Aliases: calls that share another's handler, and why that is enough. */
	[__NR_vfork]            = sys_fork,    	/* the parent does not wait for the child to exec or exit */
	[__NR_fdatasync]        = sys_fsync,   	/* the inode is written too, which fdatasync may skip */
	[__NR_fchown]           = sys_fchown,
	[__NR_lchown]           = sys_lchown,
	[__NR_getgid]           = sys_getuid,  	/* every id is 0 (root) */
	[__NR_setgid]           = sys_setuid,  	/* only 0 is accepted, as for setuid */
	[__NR_geteuid]          = sys_getuid,  	/* every id is 0 */
	[__NR_getegid]          = sys_getuid,  	/* every id is 0 */

	/* Roundabout's own (kernel/syscall.h, user/include/roundabout.h). */
	[__NR_rb_pin] = sys_rb_pin,
};

size_t syscall_table_range(const void **start)
{
	*start = table;
	return sizeof(table);
}

/*
 * Which unknown numbers were logged already. Inside the table, one bit
 * each. Past it (any u64 can come in rax) the first UNKNOWN_FAR_MAX
 * distinct numbers are remembered and logged once each; later ones are
 * not logged at all, so a program trying numbers in a loop cannot fill
 * the log. Relaxed throughout: only the value itself matters, no other
 * memory is published with it.
 */
#define UNKNOWN_FAR_MAX 16
static u64 unknown_logged[(NR_SYSCALLS + 63) / 64];	/* [A] */
static u64 unknown_far[UNKNOWN_FAR_MAX];		/* [A] a number, or 0: free */

/* Whether nr (past the table, so never 0) is seen here for the first time. */
static bool unknown_far_first(u64 nr)
{
	for (int i = 0; i < UNKNOWN_FAR_MAX; i++) {
		u64 seen = 0;
		/* lock cmpxchg: claim a free slot, or learn whose it is. */
		if (__atomic_compare_exchange_n(&unknown_far[i], &seen, nr, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
		if (seen == nr)
			return false;
	}
	return false;		/* full: stay quiet */
}

/* Whether unknown number nr is seen for the first time (then it is logged). */
static bool unknown_first(u64 nr)
{
	if (nr >= NR_SYSCALLS)
		return unknown_far_first(nr);
	u64 bit = 1ULL << (nr % 64);
	/* lock or: one CPU sees the bit clear. */
	return !(__atomic_fetch_or(&unknown_logged[nr / 64], bit, __ATOMIC_RELAXED) & bit);
}

void syscall_dispatch(struct trap_frame *tf)
{
	u64 nr = tf->rax;
	long ret;
	syscall_fn fn = nr < NR_SYSCALLS ? table[nr] : NULL;
	if (fn) {
		const struct syscall_args args = { { tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9 } };
		ret = fn(&args);
	} else {
		ret = -ENOSYS;
		if (unknown_first(nr) && printk_ratelimit())
			pr_warn("syscall %llu from %s (pid %d) is not implemented: ENOSYS",
				(unsigned long long)nr, current_task()->name, current_task()->tid);
	}
	tf->rax = (u64)ret;
	if (current_task()->unmapped_vmas)
		mm_free_unmapped_vmas();	/* no lock held here (mm/mmap.c says why) */
	if (READ_ONCE(this_cpu()->need_resched))
		schedule();
	/* rt_sigreturn's rax is the interrupted program's: never a restart. */
	handle_signals_syscall(tf, nr == __NR_rt_sigreturn ? (u64)-1 : nr);
}
