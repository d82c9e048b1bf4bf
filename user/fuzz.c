/*
 * fuzz - a seeded system-call fuzzer for Roundabout (tools/fuzz drives it).
 *
 *   fuzz [-s SEED] [-c CHILDREN] [-t SECONDS] [-b CALLS] [-n BATCHES]
 *   fuzz --replay SEED CHILD [BATCHES]
 *
 * The parent (the supervisor) keeps CHILDREN children alive for SECONDS.
 * Child k draws its calls from a generator seeded by (SEED, k) alone: every
 * system-call number of Linux x86-64 (asm/unistd_64.h, the table made at
 * build time) and Roundabout's own, with arguments drawn from pools of
 * interesting values (fuzz_args.h). Nothing a call returns changes what is
 * drawn, so `--replay SEED CHILD` prints child k's calls without making
 * them (on any system). Children fork (fork, vfork, clone); a fork's child
 * runs one batch of a stream of its own and exits.
 *
 * Canaries, each a known pattern: a private region written before any
 * fork (copy-on-write into every child), a MAP_SHARED region, and a private
 * region every process rewrites with its own identity and a new version
 * after each batch. Every process checks them all after every batch; a
 * changed word prints the seed, child, batch and the first bad offset, and
 * the run fails. The random calls never reach the canaries: their memory
 * calls are confined to an arena above them, rebuilt before each batch.
 * A success of mmap or mremap whose range leaves user space (a length that
 * wraps the gap search into the kernel half, or a kernel address handed
 * back) fails the run the same way.
 *
 * At the end it prints calls per second and the number of distinct system
 * calls reached (entered and returned anything but ENOSYS), as TAP lines.
 * It refuses to run unless uname says Roundabout: it unmaps, renames and
 * kills at random, which no one wants on their own machine.
 */
#include "fuzz.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

struct fuzz_cfg cfg = { .seed = 1, .children = 4, .seconds = 10, .calls = 32, .batches = 40 };
struct stats *stats = (struct stats *)STATS_AT;

/* This process: who it is and which version of its private canary it wrote. */
static struct { u64 id, version; long child, batch; } me;

/* ------------------------------------------------------------ reporting */

void report(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	raw6(SYS_write, REPORT_FD, (u64)buf, (u64)n, 0, 0, 0);
}

/* ------------------------------------------------------------ canaries */

static u64 pattern(u64 tag, u64 i)
{
	return mix64(tag * 0x9e3779b97f4a7c15ULL + i + 1);
}

static void fill(u64 at, int pages, u64 tag)
{
	u64 *w = (u64 *)at;
	for (u64 i = 0; i < (u64)pages * 512; i++)
		w[i] = pattern(tag, i);
}

/* True if every word holds its pattern; else reports the first bad one. */
static bool check(u64 at, int pages, u64 tag, const char *what)
{
	u64 *w = (u64 *)at;
	for (u64 i = 0; i < (u64)pages * 512; i++) {
		if (w[i] == pattern(tag, i))
			continue;
		u64 bad = 0;
		for (u64 j = i; j < (u64)pages * 512; j++)
			bad += w[j] != pattern(tag, j);
		report("not ok - canary changed: seed %llu child %ld batch %ld pid %ld: %s region "
		       "at offset %#llx holds %#llx, want %#llx (%llu words wrong)",
		       (unsigned long long)cfg.seed, me.child, me.batch, raw6(SYS_getpid, 0, 0, 0, 0, 0, 0),
		       what, (unsigned long long)(i * 8), (unsigned long long)w[i],
		       (unsigned long long)pattern(tag, i), (unsigned long long)bad);
		__atomic_fetch_add(&stats->canary_failures, 1, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

static u64 cow_tag(void) { return cfg.seed ^ 0xc0c0c0c0ULL; }
static u64 shared_tag(void) { return cfg.seed ^ 0x5a5a5a5aULL; }
static u64 private_tag(void) { return cfg.seed ^ (me.id << 24) ^ me.version; }

/* Check every canary this process can see; then write a new version of its own. */
static bool check_canaries(void)
{
	bool ok = check(CANARY_COW, CANARY_PAGES, cow_tag(), "copy-on-write");
	ok = check(CANARY_SHARED, CANARY_PAGES, shared_tag(), "MAP_SHARED") && ok;
	ok = check(CANARY_PRIVATE, CANARY_PAGES, private_tag(), "private") && ok;
	me.version++;
	fill(CANARY_PRIVATE, CANARY_PAGES, private_tag());
	return ok;
}

/* Become a new identity: check what we inherited, then write our own. */
static bool become(u64 id, long child)
{
	bool ok = check_canaries();
	me.id = id;
	me.child = child;
	me.version = 0;
	me.batch = 0;
	fill(CANARY_PRIVATE, CANARY_PAGES, private_tag());
	return ok;
}

static bool map_fixed(u64 at, int pages, int prot, int flags)
{
	long r = raw6(SYS_mmap, at, (u64)pages * PAGE, (u64)prot, MAP_FIXED | MAP_ANONYMOUS | flags,
		      (u64)-1, 0);
	return r == (long)at;
}

/* The supervisor's regions, made and written before any fork. */
static bool setup_regions(void)
{
	if (!map_fixed(STATS_AT, 1, PROT_READ | PROT_WRITE, MAP_SHARED) ||
	    !map_fixed(CANARY_COW, CANARY_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE) ||
	    !map_fixed(CANARY_SHARED, CANARY_PAGES, PROT_READ | PROT_WRITE, MAP_SHARED) ||
	    !map_fixed(CANARY_PRIVATE, CANARY_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE) ||
	    !map_fixed(SAFE_AT, 1, PROT_READ | PROT_WRITE, MAP_PRIVATE))
		return false;
	fill(CANARY_COW, CANARY_PAGES, cow_tag());
	fill(CANARY_SHARED, CANARY_PAGES, shared_tag());
	fill(CANARY_PRIVATE, CANARY_PAGES, private_tag());
	safe_page_init();
	return raw6(SYS_mprotect, SAFE_AT, PAGE, PROT_READ, 0, 0, 0) == 0;
}

/* ------------------------------------------------------------ children */

static u64 now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

/*
 * Descriptors: the console moves to REPORT_FD (no drawn call names it),
 * 0, 1 and 2 become a non-blocking pipe, so no read waits for the console
 * and no drawn write reaches it; 3..6 are files in the child's directory.
 */
static void child_setup(long k)
{
	int p[2];
	char dir[64];
	signal(SIGPIPE, SIG_IGN);	/* a write to a pipe nobody reads fails, as EPIPE */
	raw6(SYS_pipe2, (u64)p, O_NONBLOCK, 0, 0, 0, 0);
	for (int fd = 0; fd < 3; fd++)
		raw6(SYS_dup2, (u64)(fd ? p[1] : p[0]), (u64)fd, 0, 0, 0, 0);
	snprintf(dir, sizeof dir, "/tmp/fuzz.%ld", k);
	raw6(SYS_mkdir, (u64)"/tmp", 0777, 0, 0, 0, 0);
	raw6(SYS_mkdir, (u64)dir, 0777, 0, 0, 0, 0);
	raw6(SYS_chdir, (u64)dir, 0, 0, 0, 0, 0);
	static const char *const names[] = { "f0", "f1", "d0", "f2" };
	for (int i = 0; i < 4; i++) {
		if (i == 2) {
			raw6(SYS_mkdir, (u64)"d0", 0777, 0, 0, 0, 0);
			continue;
		}
		long fd = raw6(SYS_open, (u64)names[i], O_RDWR | O_CREAT, 0644, 0, 0, 0);
		char buf[PAGE];
		memset(buf, 'a' + i, sizeof buf);
		for (int j = 0; fd >= 0 && j < 4; j++)
			raw6(SYS_write, (u64)fd, (u64)buf, sizeof buf, 0, 0, 0);
	}
	raw6(SYS_open, (u64)"d0", O_RDONLY, 0, 0, 0, 0);
}

/*
 * mmap and mremap may place a mapping anywhere in user space, but never
 * beyond it: the kernel half of the page tables is shared by every process,
 * so a user mapping there is one process's page in all of them.
 */
static void check_placement(const struct call *c, long ret)
{
	if ((c->nr != SYS_mmap && c->nr != SYS_mremap) || (ret < 0 && ret >= -4095))
		return;
	u64 len = c->nr == SYS_mmap ? c->arg[1] : c->arg[2];
	u64 at = (u64)ret;
	if (at < USER_TOP && len <= USER_TOP - at)
		return;
	report("not ok - %s returned a range outside user space: seed %llu child %ld batch %ld: "
	       "%#llx, %#llx bytes", c->nr == SYS_mmap ? "mmap" : "mremap",
	       (unsigned long long)cfg.seed, me.child, me.batch, (unsigned long long)at,
	       (unsigned long long)len);
	__atomic_fetch_add(&stats->escapes, 1, __ATOMIC_RELAXED);
}

/* One batch: a fresh arena, cfg.calls drawn calls, then the canaries. */
static bool run_batch(struct rng *r, bool may_fork)
{
	arena_build(me.batch);
	for (int i = 0; i < cfg.calls; i++) {
		struct call c;
		draw_call(r, &c, may_fork);
		long ret = make_call(&c);
		__atomic_fetch_add(&stats->calls, 1, __ATOMIC_RELAXED);
		check_placement(&c, ret);
		if (c.nr < MAX_NR && ret != -ENOSYS)
			__atomic_store_n(&stats->reached[c.nr], 1, __ATOMIC_RELAXED);
		if (ret == 0 && c.forks) {	/* a fork's child: a short life of its own */
			u64 id = me.id * 1000 + (u64)i + 1;
			bool ok = become(id, me.child);
			struct rng sub = rng_seeded(cfg.seed, id);
			ok = run_batch(&sub, false) && ok;
			raw6(SYS_exit_group, ok ? 0 : 3, 0, 0, 0, 0, 0);
		}
		if (c.forks && ret > 0)
			note_child(ret);
	}
	reap_children(false);
	return check_canaries();
}

static __attribute__((noreturn)) void child_main(long k, u64 deadline)
{
	bool ok = become((u64)k + 1, k);
	child_setup(k);
	struct rng r = rng_seeded(cfg.seed, (u64)k + 1);
	for (me.batch = 0; ok && me.batch < cfg.batches && now_ms() < deadline; me.batch++)
		ok = run_batch(&r, true);
	reap_children(true);
	raw6(SYS_exit_group, ok ? 0 : 3, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* ------------------------------------------------------------ the supervisor */

struct slot { long pid, k; u64 started, killed; };

static long spawn(struct slot *s, long k, u64 deadline)
{
	long pid = raw6(SYS_fork, 0, 0, 0, 0, 0, 0);
	if (pid == 0)
		child_main(k, deadline);
	s->pid = pid > 0 ? pid : 0;
	s->k = k;
	s->started = now_ms();
	s->killed = 0;
	return pid;
}

struct tally { long exited, signalled, stuck; };

/* Reap what has ended; SIGKILL a child far past its time. (A child's exit
 * status says nothing: it may call exit with any number. Canary failures
 * are counted in the shared stats page and reported by whoever saw them.) */
static void supervise(struct slot *slots, struct tally *t, u64 child_ms)
{
	int status;
	long pid;
	while ((pid = raw6(SYS_wait4, (u64)-1, (u64)&status, WNOHANG, 0, 0, 0)) > 0) {
		for (int i = 0; i < cfg.children; i++) {
			if (slots[i].pid != pid)
				continue;
			slots[i].pid = 0;
			if (status & 0x7f) {
				t->signalled++;
				if (cfg.verbose)
					report("# child %ld: signal %d", slots[i].k, status & 0x7f);
			}
			else
				t->exited++;
		}
	}
	u64 now = now_ms();
	for (int i = 0; i < cfg.children; i++) {
		struct slot *s = &slots[i];
		if (!s->pid)
			continue;
		if (!s->killed && now - s->started > child_ms) {
			raw6(SYS_kill, (u64)s->pid, SIGKILL, 0, 0, 0, 0);
			s->killed = now;
		} else if (s->killed && now - s->killed > 30000) {
			report("not ok - child %ld (pid %ld, seed %llu) did not die of SIGKILL in 30 s",
			       s->k, s->pid, (unsigned long long)cfg.seed);
			t->stuck++;
			s->pid = 0;
		}
	}
}

static int supervisor(void)
{
	if (!setup_regions()) {
		fprintf(stderr, "fuzz: cannot map the canary regions\n");
		return 1;
	}
	report("# fuzz: seed %llu, %d children, %d s, %d calls a batch",
	       (unsigned long long)cfg.seed, cfg.children, cfg.seconds, cfg.calls);
	u64 start = now_ms(), end = start + (u64)cfg.seconds * 1000;
	u64 child_ms = 10000 + (u64)cfg.seconds * 100;
	struct slot slots[MAX_CHILDREN] = { 0 };
	struct tally t = { 0 };
	long next = 0;
	bool ok = true;
	struct timespec tick = { 0, 20 * 1000000 };
	while (now_ms() < end) {
		for (int i = 0; i < cfg.children; i++)
			if (!slots[i].pid)
				spawn(&slots[i], next++, end);
		nanosleep(&tick, NULL);
		supervise(slots, &t, child_ms);
		ok = check_canaries() && ok;
	}
	for (int i = 0; i < cfg.children; i++)
		if (slots[i].pid)
			raw6(SYS_kill, (u64)slots[i].pid, SIGKILL, 0, 0, 0, 0);
	for (u64 wait_end = now_ms() + 40000; now_ms() < wait_end;) {
		supervise(slots, &t, child_ms);
		bool left = false;
		for (int i = 0; i < cfg.children; i++)
			left |= slots[i].pid != 0;
		if (!left)
			break;
		nanosleep(&tick, NULL);
	}
	ok = check_canaries() && ok;
	double secs = (double)(now_ms() - start) / 1000.0;
	long reached = 0, calls = (long)stats->calls;
	for (int i = 0; i < MAX_NR; i++)
		reached += stats->reached[i];
	report("# seed %llu: %ld children (%ld exited, %ld killed by signals)",
	       (unsigned long long)cfg.seed, next, t.exited, t.signalled);
	report("# %ld calls in %.1f s: %.0f calls/s; %ld distinct syscalls reached, of %d drawn",
	       calls, secs, calls / secs, reached, drawable_count());
	ok = ok && !t.stuck && !stats->canary_failures && !stats->escapes;
	report("%s 1 - no canary changed, no mapping left user space, every child died when "
	       "killed (seed %llu)",
	       ok ? "ok" : "not ok", (unsigned long long)cfg.seed);
	report("%s 2 - the children made calls (%ld)", calls > 0 ? "ok" : "not ok", calls);
	return ok && calls > 0 ? 0 : 1;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f, "usage: fuzz [-s SEED] [-c CHILDREN] [-t SECONDS] [-b CALLS] [-n BATCHES] [-x NR,...] [-v]\n"
		   "       fuzz --replay SEED CHILD [BATCHES [-x NR,...]]\n"
		   "Random system calls from CHILDREN (default 4, at most %d) forked children\n"
		   "for SECONDS (default 10), CALLS a batch (default 32), BATCHES a child\n"
		   "(default 40), checking canary memory after every batch. Roundabout only.\n"
		   "-x leaves those call numbers out; -v reports each child killed by a signal.\n"
		   "--replay prints child CHILD's calls for SEED without making them.\n",
		MAX_CHILDREN);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "--replay")) {
		if (argc > 6 && !strcmp(argv[5], "-x"))
			for (char *t = strtok(argv[6], ","); t && cfg.nexclude < 64; t = strtok(NULL, ","))
				cfg.exclude[cfg.nexclude++] = atoi(t);
		cfg.seed = strtoull(argv[2], NULL, 0);
		replay(strtol(argv[3], NULL, 0), argc > 4 ? atoi(argv[4]) : cfg.batches);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		long v = i + 1 < argc ? strtol(argv[i + 1], NULL, 0) : -1;
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			cfg.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-c") && v > 0 && v <= MAX_CHILDREN)
			cfg.children = (int)v, i++;
		else if (!strcmp(argv[i], "-t") && v > 0)
			cfg.seconds = (int)v, i++;
		else if (!strcmp(argv[i], "-b") && v > 0)
			cfg.calls = (int)v, i++;
		else if (!strcmp(argv[i], "-x") && i + 1 < argc) {
			for (char *t = strtok(argv[++i], ","); t && cfg.nexclude < 64; t = strtok(NULL, ","))
				cfg.exclude[cfg.nexclude++] = atoi(t);
		} else if (!strcmp(argv[i], "-v"))
			cfg.verbose = 1;
		else if (!strcmp(argv[i], "-n") && v > 0)
			cfg.batches = (int)v, i++;
		else {
			usage(stderr);
			return 2;
		}
	}
	struct utsname u;
	if (uname(&u) || strcmp(u.sysname, "Roundabout")) {
		fprintf(stderr, "fuzz: refusing to run on %s: it is for Roundabout only\n", u.sysname);
		return 2;
	}
	if (raw6(SYS_dup2, 1, REPORT_FD, 0, 0, 0, 0) != REPORT_FD) {
		fprintf(stderr, "fuzz: cannot keep the console at descriptor %d\n", REPORT_FD);
		return 1;
	}
	me.child = -1;
	return supervisor();
}
