/*
 * fuzz_calls.c - drawing a call, taming it, making it, and printing it.
 *
 * A call is a number from the build-time table of Linux x86-64's numbers
 * (syscall_names.h, made from asm/unistd_64.h) or Roundabout's SYS_rb_pin,
 * and six arguments, each from a pool that suits what the argument is
 * (a descriptor, a pointer, a length, a path, ...) where we know it, and
 * from any pool where we do not. Then the call is tamed, so that it can
 * hurt nothing but its own process's arena and cannot wait forever:
 *
 *  - memory calls (mmap with MAP_FIXED, munmap, mprotect, mremap, madvise,
 *    ...) get an address inside the arena and a length that ends there;
 *  - kill-like calls name only this process or its own children;
 *  - no call names REPORT_FD, the console; pipes are made non-blocking
 *    (and F_SETFL keeps O_NONBLOCK), wait4 and waitid get WNOHANG;
 *  - sleeps (nanosleep, clock_nanosleep, futex's timeout, rb_pin's hold)
 *    get a timespec or argument from the read-only safe page, or a bad
 *    pointer: today's kernel does not end those sleeps on SIGKILL;
 *  - SET_FS is only tried with addresses outside user space;
 *  - shared anonymous mmap is at most 1 MiB (Roundabout allocates it all
 *    at once, and a larger one would starve every process of memory).
 *
 * Never drawn: calls that would end the run (reboot, kexec_load,
 * kexec_file_load), rt_sigreturn (it resumes the fuzzer at whatever its
 * own stack holds), and calls that wait with no bound we can give
 * (pause, the sigsuspend/sigtimedwait family, select, poll and epoll
 * waits, accept, recv and send, SysV message and semaphore waits, flock,
 * message queues, AIO and io_uring waits, futex_waitv, connect).
 */
#include "fuzz.h"
#include "syscall_names.h"
#include <stdio.h>
#include <string.h>

#define NONCANON 0x8000000000000000UL
#define DIRECT_MAP 0xffff800000000000UL
#define KERNEL_TEXT 0xffffffff80000000UL

static const int never[] = { 15, 169, 246, 320, 34, 130, 128, 23, 270, 7, 271, 232, 281, 441,
			     43, 288, 45, 47, 299, 70, 69, 65, 220, 73, 242, 243, 208, 333,
			     449, 426, 42, 44, 46, 307 };
/* Memory calls: argument 0 (and mremap's new address, 4) stays in the arena. */
static const int memory_calls[] = { 9, 10, 11, 25, 26, 27, 28, 30, 67, 149, 150, 216, 237, 325,
				    329, 440, 1000 };

/* What each argument is, for the calls we know: f descriptor, p pointer,
 * l length, i integer or flags, s path, a arena address, m mmap flags,
 * g signal, n pid, t timespec, x program path, c clone flags; '?' any. */
static const struct { short nr; const char *kinds; } hints[] = {
	{ 0, "fpl" }, { 1, "fpl" }, { 2, "sii" }, { 3, "f" }, { 4, "sp" }, { 5, "fp" },
	{ 6, "sp" }, { 8, "fii" }, { 9, "alimfi" }, { 10, "ali" }, { 11, "al" }, { 12, "a" },
	{ 13, "gppi" }, { 14, "ippi" }, { 16, "fip" }, { 17, "fpli" }, { 18, "fpli" },
	{ 19, "fpi" }, { 20, "fpi" }, { 21, "si" }, { 22, "p" }, { 25, "allia" }, { 26, "ali" },
	{ 28, "ali" }, { 32, "f" }, { 33, "ff" }, { 35, "tp" }, { 39, "" }, { 56, "cppip" },
	{ 59, "xpp" }, { 60, "i" }, { 61, "npip" }, { 62, "ng" }, { 63, "p" }, { 72, "fii" },
	{ 74, "f" }, { 75, "f" }, { 76, "sl" }, { 77, "fl" }, { 78, "fpl" }, { 79, "pl" },
	{ 80, "s" }, { 81, "f" }, { 82, "ss" }, { 83, "si" }, { 84, "s" }, { 85, "si" },
	{ 86, "ss" }, { 87, "s" }, { 88, "ss" }, { 89, "spl" }, { 90, "si" }, { 91, "fi" },
	{ 92, "sii" }, { 95, "i" }, { 96, "pp" }, { 97, "ip" }, { 109, "nn" }, { 131, "pp" },
	{ 133, "sii" }, { 158, "ip" }, { 200, "ng" }, { 202, "pii" "tpi" }, { 217, "fpl" },
	{ 218, "p" }, { 228, "ip" }, { 229, "ip" }, { 230, "iitp" }, { 231, "i" },
	{ 234, "nng" }, { 247, "innip" }, { 257, "fsii" }, { 258, "fsi" }, { 259, "fsii" },
	{ 260, "fsiii" }, { 262, "fspi" }, { 263, "fsi" }, { 264, "fsfs" }, { 265, "fsfsi" },
	{ 267, "fspl" }, { 268, "fsi" }, { 269, "fsi" }, { 273, "pl" }, { 292, "ffi" },
	{ 293, "pi" }, { 302, "nipp" }, { 316, "fsfsi" }, { 318, "pli" }, { 322, "fxppi" },
	{ 129, "ngp" }, { 297, "nngp" }, { 434, "ni" }, { 436, "ffi" }, { 439, "fsii" },
	{ 1000, "p" },
	/* Calls that act on another process: only ours (ptrace, process_vm_*, priorities, ...). */
	{ 101, "in" }, { 310, "n" }, { 311, "n" }, { 141, "in" }, { 142, "n" }, { 143, "n" },
	{ 144, "n" }, { 145, "n" }, { 203, "n" }, { 204, "n" }, { 251, "in" }, { 252, "in" },
	{ 256, "n" }, { 279, "n" }, { 312, "nn" }, { 121, "n" }, { 124, "n" },
};

/* ------------------------------------------------------------ the pools */

static const u64 bad_pointers[] = { 0, DIRECT_MAP, DIRECT_MAP + 0x100000, KERNEL_TEXT,
				    KERNEL_TEXT + 0x1234, NONCANON, 0x0000800000000000UL,
				    0xdead000000000000UL, USER_TOP - 1, 0x7fffffffffffUL, ~0UL,
				    ARENA + 56 * PAGE, ARENA_END - 8 };
static const u64 lengths[] = { 0, 1, 7, 8, 64, 4095, 4096, 4097, 8192, 65536, 1 << 20,
			       1UL << 32, 1UL << 46, ~0UL, ~0UL >> 1, 0x7ffff000,
			       /* all of user space, and just more than fits below the
			        * mmap top: where a gap search's top - len would wrap */
			       USER_TOP, 0x7f0000000000UL - 0x8000000UL };
static const u64 integers[] = { 0, 1, 2, 3, 4, 5, 8, 16, 64, 127, 128, 255, 256, 4096,
				0x7fffffff, 0x80000000, 0xffffffff, ~0UL, ~0UL >> 1,
				1UL << 63, (u64)-2, 0x40, 0x800, 0x10000, 0x80000 };
static const long fds[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, -1, -100 /* AT_FDCWD */,
			    1000, 65535, 0x7fffffff, 255, 256 };
static const unsigned clone_bits[] = { 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000,
				       0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000,
				       0x200000, 0x400000, 0x800000, 0x1000000, 0x2000000,
				       0x4000000, 0x10000000, 0x20000000, 0x40000000, 0x80000000 };

/* The safe page: strings and structures that bound what a call may do. */
#define SAFE_STR(i) (SAFE_AT + 64 * (u64)(i))
static const char *const paths[] = { "f0", "f1", "d0", "f2", "nope", "d0/x", "/", ".", "..",
				      "/proc/meminfo", "/proc/self", "/tmp", "/bin/echo", "",
				      "d0/../f1", "/proc/pagecache", "f1/x", "////f0" };
#define NPATHS (sizeof paths / sizeof paths[0])
#define SAFE_TS (SAFE_AT + 2048)		/* { 0, 1 ms } */
#define SAFE_TS_ZERO (SAFE_AT + 2064)		/* { 0, 0 } */
#define SAFE_ONE (SAFE_AT + 2080)		/* the int 1, for FIONBIO */
#define SAFE_PIN (SAFE_AT + 2560)		/* 16 struct rb_pin */
#define SAFE_LONG_NAME (SAFE_AT + 3072)		/* 300 'a's */

struct rb_pin_args { u64 addr, len, flags, hold_us, pinned, fast, first_word, changed; };

void safe_page_init(void)
{
	for (unsigned i = 0; i < NPATHS; i++)
		strcpy((char *)SAFE_STR(i), paths[i]);
	u64 *ts = (u64 *)SAFE_TS;
	ts[0] = 0, ts[1] = 1000000, ts[2] = 0, ts[3] = 0;
	*(int *)SAFE_ONE = 1;
	struct rb_pin_args *p = (struct rb_pin_args *)SAFE_PIN;
	struct rng r = rng_seeded(cfg.seed, 0xb1b1);
	for (int i = 0; i < 16; i++) {
		p[i].addr = ARENA + (rng_next(&r) % ARENA_PAGES) * PAGE + (i & 1 ? 100 : 0);
		p[i].len = lengths[rng_next(&r) % 10];
		p[i].flags = rng_next(&r) & 7;
		p[i].hold_us = rng_next(&r) % 1000;
	}
	memset((char *)SAFE_LONG_NAME, 'a', 300);
}

static u64 pick(struct rng *r, const u64 *pool, unsigned n)
{
	return pool[rng_next(r) % n];
}

static u64 arena_pointer(struct rng *r)
{
	u64 page = rng_next(r) % ARENA_PAGES, at = ARENA + page * PAGE;
	switch (rng_next(r) % 4) {
	case 0: return at;
	case 1: return at + (rng_next(r) % PAGE);
	case 2: return at + PAGE - 8;
	default: return at + 1;
	}
}

static u64 draw_arg(struct rng *r, char kind, unsigned char *pid)
{
	u64 x = rng_next(r);
	if (kind == '?')
		kind = "fplisagn"[x % 8];
	switch (kind) {
	case 'f': return (u64)fds[rng_next(r) % (sizeof fds / sizeof fds[0])];
	case 'p': return x % 4 ? arena_pointer(r) : pick(r, bad_pointers, sizeof bad_pointers / 8);
	case 'l': return pick(r, lengths, sizeof lengths / 8);
	case 's':
		if (x % 8 == 0)
			return x % 16 ? SAFE_LONG_NAME : pick(r, bad_pointers, sizeof bad_pointers / 8);
		return x % 8 == 1 ? arena_pointer(r) : SAFE_STR(rng_next(r) % NPATHS);
	case 'x': return x % 4 == 0 ? SAFE_STR(12) : x % 4 == 1 ? SAFE_STR(0) : draw_arg(r, 's', pid);
	case 'a': return x % 8 ? ARENA + (rng_next(r) % (ARENA_PAGES + 8)) * PAGE + (x % 16 == 1)
			       : pick(r, bad_pointers, sizeof bad_pointers / 8);
	case 'm': return (x % 3 ? 0x20 : 0) | (x & 0x10 ? 0x10 : 0) | (1 + (x >> 8) % 3) |
			 (x % 7 == 0 ? (rng_next(r) & 0x1fffff) : 0);
	case 'g': return x % 8 ? (x >> 8) % 65 : pick(r, integers, sizeof integers / 8);
	case 't': return x % 4 ? (x & 16 ? SAFE_TS : SAFE_TS_ZERO)
			       : pick(r, bad_pointers, sizeof bad_pointers / 8);
	case 'c': {
		u64 f = (x >> 8) % 65;		/* the exit signal */
		for (int n = (int)(x % 4); n > 0; n--)
			f |= clone_bits[rng_next(r) % (sizeof clone_bits / sizeof clone_bits[0])];
		return f;
	}
	case 'n':
		*pid = x % 3 == 0 ? PID_SELF : x % 3 == 1 ? PID_CHILD : PID_NUMBER;
		return x % 3 == 2 ? 0x7fffffff : 0;
	default:
		return x % 3 ? pick(r, integers, sizeof integers / 8) : (x >> 4) & rng_next(r);
	}
}

/* ------------------------------------------------------------ drawing and taming */

static short drawable[MAX_NR];
static int ndrawable;

static bool in_list(const int *l, int n, long nr)
{
	for (int i = 0; i < n; i++)
		if (l[i] == nr)
			return true;
	return false;
}

int drawable_count(void)
{
	if (!ndrawable) {
		for (int nr = 0; nr < (int)(sizeof syscall_names / sizeof syscall_names[0]); nr++)
			if (syscall_names[nr] && !in_list(never, sizeof never / sizeof never[0], nr))
				drawable[ndrawable++] = (short)nr;
		drawable[ndrawable++] = 1000;	/* SYS_rb_pin */
	}
	return ndrawable;
}

/* -x: numbers left out of this run (to find which calls a failure needs). */
static bool excluded(long nr)
{
	for (int i = 0; i < cfg.nexclude; i++)
		if (cfg.exclude[i] == nr)
			return true;
	return false;
}

static const char *kinds_of(long nr)
{
	for (unsigned i = 0; i < sizeof hints / sizeof hints[0]; i++)
		if (hints[i].nr == nr)
			return hints[i].kinds;
	return "??????";
}

/* A memory call's range must lie in the arena; a user address outside it moves in. */
static void tame_range(u64 *addr, u64 *len)
{
	if (*addr < USER_TOP && (*addr < ARENA || *addr >= ARENA_END))
		*addr = ARENA + (*addr % (ARENA_PAGES * PAGE));
	if (*addr >= ARENA && *addr < ARENA_END && *len > ARENA_END - *addr)
		*len = ARENA_END - *addr;
}

static void tame(struct call *c)
{
	u64 *a = c->arg;
	if (in_list(memory_calls, sizeof memory_calls / sizeof memory_calls[0], c->nr)) {
		if (c->nr == 1000) {	/* rb_pin: the args struct, with a bounded hold */
			a[0] = a[0] % 4 ? SAFE_PIN + (a[0] % 16) * sizeof(struct rb_pin_args) : a[0];
		} else if (c->nr != 9 || (a[3] & 0x100010)) {	/* mmap: only MAP_FIXED* binds */
			tame_range(&a[0], &a[1]);
		}
		/* Shared anonymous memory is all allocated at once here: at most 1 MiB, or
		 * one call would take every free page and the run would test only ENOMEM. */
		if (c->nr == 9 && (a[3] & 0x21) == 0x21 && a[1] > (1 << 20))
			a[1] = 1 << 20;
		if (c->nr == 25 && (a[3] & 2))		/* MREMAP_FIXED: its new address too */
			tame_range(&a[4], &a[2]);
	}
	switch (c->nr) {
	case 35: case 230: {			/* sleeps: a small timespec or a bad pointer */
		int i = c->nr == 35 ? 0 : 2;
		if (a[i] < USER_TOP)
			a[i] = a[i] & 1 ? SAFE_TS_ZERO : SAFE_TS;
		break;
	}
	case 202:				/* futex: never an unbounded or long wait */
		a[3] = a[3] % 3 == 0 ? 0x7fffffffffffUL : (a[3] & 1 ? SAFE_TS : SAFE_TS_ZERO);
		break;
	case 61: a[2] |= WNOHANG; break;
	case 247: a[3] |= WNOHANG; break;
	case 293: a[1] |= O_NONBLOCK; break;
	case 72: if (a[1] == F_SETFL) a[2] |= O_NONBLOCK; break;
	case 16: if (a[1] == 0x5421) a[2] = SAFE_ONE; break;	/* FIONBIO: stay non-blocking */
	case 133: case 259: a[c->nr == 133 ? 1 : 2] &= 07777; break;	/* mknod: no FIFOs */
	case 158: if (a[0] == 0x1002 && a[1] < USER_TOP) a[1] |= NONCANON; break;
	case 436: if (a[1] >= REPORT_FD && a[0] <= REPORT_FD) a[1] = REPORT_FD - 1; break;
	case 62: case 200: case 234: case 129: case 297: case 434: case 424: {
		int n = c->nr == 234 || c->nr == 297 ? 2 : 1;
		for (int i = 0; i < n; i++)
			if (c->pid[i] == PID_NUMBER)
				a[i] = 0x7fffffff;	/* never a pid we did not make */
		/* Mostly a signal that does not end us, so a child lives long enough to matter. */
		static const u64 harmless[] = { 0, SIGCHLD, SIGURG, SIGWINCH, SIGCONT, 0, 0 };
		if (c->pid[n - 1] == PID_SELF && a[n] % 8)
			a[n] = harmless[a[n] % 7];
		break;
	}
	}
	for (int i = 0; i < 6; i++)
		if (a[i] == REPORT_FD)
			a[i] = REPORT_FD + 1;
	c->forks = c->nr == 56 || c->nr == 57 || c->nr == 58 || c->nr == 435;
	c->child_exits = c->nr == 58 || c->nr == 435 ||
			 (c->nr == 56 && ((a[0] & (0x100 | 0x4000 | 0x80000 | 0x10000)) || a[1]));
}

void draw_call(struct rng *r, struct call *c, bool may_fork)
{
	int n = drawable_count();
	memset(c, 0, sizeof *c);
	for (;;) {
		c->nr = drawable[rng_next(r) % (u64)n];
		bool rare = c->nr == 60 || c->nr == 231 || c->nr == 59 || c->nr == 322;
		bool fork = c->nr == 56 || c->nr == 57 || c->nr == 58 || c->nr == 435;
		if ((rare && rng_next(r) % 16) || excluded(c->nr))
			continue;
		if (!fork || may_fork)
			break;
	}
	const char *k = kinds_of(c->nr);
	for (int i = 0; i < 6; i++)
		c->arg[i] = draw_arg(r, i < (int)strlen(k) ? k[i] : '?', &c->pid[i]);
	tame(c);
}

/* ------------------------------------------------------------ making calls */

static long kids[16];

void note_child(long pid)
{
	for (int i = 0; i < 16; i++)
		if (!kids[i]) {
			kids[i] = pid;
			return;
		}
	raw6(SYS_kill, (u64)pid, SIGKILL, 0, 0, 0, 0);	/* too many: this one goes */
	raw6(SYS_wait4, (u64)pid, 0, 0, 0, 0, 0);
}

void reap_children(bool all)
{
	for (int i = 0; i < 16; i++) {
		if (!kids[i])
			continue;
		if (all)
			raw6(SYS_kill, (u64)kids[i], SIGKILL, 0, 0, 0, 0);
		long r = raw6(SYS_wait4, (u64)kids[i], 0, all ? 0 : WNOHANG, 0, 0, 0);
		if (r == kids[i] || r == -ECHILD)
			kids[i] = 0;
	}
}

static u64 pid_value(unsigned char name, u64 drawn)
{
	if (name == PID_SELF)
		return (u64)raw6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	if (name == PID_CHILD)
		for (int i = 0; i < 16; i++)
			if (kids[i])
				return (u64)kids[i];
	return name == PID_CHILD ? 0x7fffffff : drawn;
}

/* fork, vfork, clone: a child that must not run our C code leaves in assembly. */
static long fork_call(long nr, const u64 *a, bool child_exits)
{
	register u64 r10 __asm__("r10") = a[3], r8 __asm__("r8") = a[4], r9 __asm__("r9") = a[5];
	long ret;
	__asm__ __volatile__("syscall\n\t"
			     "test %%rax, %%rax\n\t"
			     "jnz 1f\n\t"
			     "test %[ex], %[ex]\n\t"
			     "jz 1f\n\t"
			     "mov $60, %%eax\n\t"
			     "xor %%edi, %%edi\n\t"
			     "syscall\n\t"
			     "1:"
			     : "=a"(ret)
			     : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9),
			       [ex] "r"((u64)child_exits)
			     : "rcx", "r11", "memory");
	return ret;
}

long make_call(const struct call *c)
{
	u64 a[6];
	for (int i = 0; i < 6; i++)
		a[i] = c->pid[i] ? pid_value(c->pid[i], c->arg[i]) : c->arg[i];
	if (c->forks)
		return fork_call(c->nr, a, c->child_exits);
	long ret = raw6(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (c->nr == 22 && ret == 0) {		/* pipe: both ends non-blocking */
		int *fd = (int *)a[0];
		raw6(SYS_fcntl, (u64)fd[0], F_SETFL, O_NONBLOCK, 0, 0, 0);
		raw6(SYS_fcntl, (u64)fd[1], F_SETFL, O_NONBLOCK, 0, 0, 0);
	}
	return ret;
}

/* ------------------------------------------------------------ the arena */

/*
 * Pages 0-31 anonymous and writable, 32-39 file f0 MAP_SHARED, 40-43
 * read-only, 44-47 PROT_NONE, 48-63 a hole; filled with words a call may
 * take for a structure: zeros, small numbers, pointers from the pools.
 */
void arena_build(long batch)
{
	raw6(SYS_munmap, ARENA, ARENA_PAGES * PAGE, 0, 0, 0, 0);
	raw6(SYS_mmap, ARENA, 40 * PAGE, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
	     (u64)-1, 0);
	struct rng r = rng_seeded(cfg.seed ^ 0xa7e4a, (u64)batch);
	u64 *w = (u64 *)ARENA;
	for (u64 i = 0; i < 40 * PAGE / 8; i++) {
		u64 x = rng_next(&r);
		w[i] = x % 4 == 0 ? 0 : x % 4 == 1 ? x % 64 : x % 4 == 2 ? arena_pointer(&r) : x;
	}
	long fd = raw6(SYS_open, (u64)"f0", O_RDWR, 0, 0, 0, 0);
	if (fd >= 0) {
		raw6(SYS_mmap, ARENA + 32 * PAGE, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED,
		     (u64)fd, 0);
		raw6(SYS_close, (u64)fd, 0, 0, 0, 0, 0);
	}
	raw6(SYS_mprotect, ARENA + 40 * PAGE, 4 * PAGE, PROT_READ, 0, 0, 0);
	raw6(SYS_mmap, ARENA + 44 * PAGE, 4 * PAGE, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
	     (u64)-1, 0);
}

/* ------------------------------------------------------------ replay */

void replay(long child, int batches)
{
	struct rng r = rng_seeded(cfg.seed, (u64)child + 1);
	static const char *const pid_names[] = { "", "self", "child" };
	for (int b = 0; b < batches; b++) {
		for (int i = 0; i < cfg.calls; i++) {
			struct call c;
			draw_call(&r, &c, true);
			const char *name = c.nr == 1000 ? "rb_pin"
					   : c.nr < (long)(sizeof syscall_names / sizeof syscall_names[0])
						   ? syscall_names[c.nr] : "?";
			printf("batch %d call %d: %s(%ld)", b, i, name, c.nr);
			for (int j = 0; j < 6; j++) {
				if (c.pid[j])
					printf(" %s", pid_names[c.pid[j]]);
				else
					printf(" %#llx", (unsigned long long)c.arg[j]);
			}
			if (c.forks)
				printf("  [its child: %s]", c.child_exits ? "exits at once"
						: "one batch of its own stream, then exits");
			printf("\n");
		}
	}
}
