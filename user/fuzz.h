/*
 * fuzz.h - what the fuzzer's two files share: fuzz.c (the supervisor,
 * children and canaries) and fuzz_calls.c (drawing, taming and making the
 * calls). The memory layout is fixed, so that a replay names the same
 * addresses the run used.
 */
#ifndef USER_FUZZ_H
#define USER_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

typedef uint64_t u64;

#define PAGE 4096UL
#define REPORT_FD 200		/* the console; no drawn call may name it */
#define MAX_CHILDREN 16
#define MAX_NR 1024		/* Linux's numbers and Roundabout's own (1000) */
#define USER_TOP 0x7ffffffff000UL

/* Fixed addresses, lowest first; the random memory calls stay in the arena.
 * None is a number the pools hold (1 << 32 is a length there, and a call
 * that takes it for a pointer must not find our counters). */
#define STATS_AT 0x5a5a10000000UL	/* MAP_SHARED: counters of every process */
#define CANARY_COW 0x5a5a20000000UL	/* written once before any fork */
#define CANARY_SHARED 0x5a5a30000000UL	/* MAP_SHARED, written once before any fork */
#define CANARY_PRIVATE 0x5a5a40000000UL	/* each process writes its own, every batch */
#define CANARY_PAGES 8
#define SAFE_AT 0x5a5a50000000UL	/* read-only: paths, small timespecs, pin args */
#define ARENA 0x5a5b00000000UL		/* rebuilt before every batch */
#define ARENA_PAGES 64
#define ARENA_END (ARENA + ARENA_PAGES * PAGE)

struct fuzz_cfg { u64 seed; int children, seconds, calls, batches, verbose, nexclude; int exclude[64]; };
extern struct fuzz_cfg cfg;

struct stats {
	u64 calls;			/* [A] */
	u64 canary_failures;		/* [A] */
	u64 escapes;			/* [A] a mapping placed outside user space */
	unsigned char reached[MAX_NR];	/* [A] 1: returned something but ENOSYS */
};
extern struct stats *stats;

struct rng { u64 s; };

static inline u64 mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline struct rng rng_seeded(u64 seed, u64 stream)
{
	struct rng r = { mix64(seed * 0x9e3779b97f4a7c15ULL ^ mix64(stream + 0x1234567ULL)) };
	return r;
}

static inline u64 rng_next(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

static inline long raw6(long nr, u64 a, u64 b, u64 c, u64 d, u64 e, u64 f)
{
	register u64 r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;
	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

/* pid arguments are named, not drawn as numbers, and found at call time. */
enum pid_name { PID_NUMBER, PID_SELF, PID_CHILD };

struct call {
	long nr;
	u64 arg[6];
	unsigned char pid[6];	/* enum pid_name of each argument */
	bool forks;		/* the fork family: the child side needs care */
	bool child_exits;	/* its child leaves at once (shared memory, a new stack, TLS) */
};

/* fuzz_calls.c */
void safe_page_init(void);
void arena_build(long batch);
void draw_call(struct rng *r, struct call *c, bool may_fork);
long make_call(const struct call *c);
void note_child(long pid);
void reap_children(bool all);
int drawable_count(void);
void replay(long child, int batches);

/* fuzz.c */
void report(const char *fmt, ...);

#endif
