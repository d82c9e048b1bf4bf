/*
 * fault_torture.h - the generation protocol of t_fault_torture.c: words
 * that name their page and generation, the counters the mutator publishes
 * around each change of the file, a touch's window and the rule that
 * judges what the touch saw, and touches that come back from SIGBUS.
 *
 * One mutator thread alone changes the file, one operation at a time,
 * each numbered (seq = 1, 2, ...): a pwrite of page p writes words tagged
 * (gen = seq, page = p); a truncate down to T pages removes the pages from
 * T on; a truncate up brings pages back as zeros. In memory shared with
 * fork children it publishes, before each operation,
 *   lp[p] = seq  for every page the operation affects (last started),
 *   zs[p] = seq  for every page a truncate removes,
 *   grow_started = seq  if the file grows;
 * and after it: size (in pages), grow_done = seq if it grew, and
 *   cv[p] = seq, and whether it left zeros (the committed value).
 * A touch of page p is judged by a window: grow_started, grow_done, cv[p]
 * and size read just before it; lp[p], zs[p] and grow_started just after.
 *   - A word tagged (gen, q) needs q == p, and gen == cv's seq (if cv is
 *     not zeros) or cv's seq < gen <= lp[p]. Anything older is a page that
 *     truncation or a later pwrite should have replaced.
 *   - A zero word needs cv to be zeros, or a truncate of p begun since
 *     (zs[p] > cv's seq): zeros come only from truncation.
 *   - A word whose check fails is torn: legal only while an operation on
 *     p was in flight (lp[p] > cv's seq), and counted, not failed.
 *   - SIGBUS needs p >= size or a truncate of p begun since cv.
 *   - SIGBUS is required if p >= size and no growth was in flight or began
 *     (grow_started == grow_done before, unchanged after): EOF held for the
 *     whole touch. Pages past the largest size are always beyond EOF.
 * The counters are read a few instructions outside the touch, so a window
 * is wider than the touch by that much, never narrower.
 *
 * Each word carries a 24-bit check of (kind, gen, page), so a store of
 * another kind (a private store, a fork child's, a slot store) or a page
 * of garbage is named instead of being taken for a tear. The mutator's
 * pwrites cover the first FILE_WORDS words of a page; the rest are slots
 * that threads store to through MAP_SHARED (a pwrite that extends the file
 * writes the whole page, slots zero).
 *
 * A touch runs "armed": a SIGBUS or SIGSEGV it raises jumps back out of
 * it (siglongjmp from the handler). Roundabout keeps pending signals per
 * process, so a signal raised by one thread's fault may run its handler
 * in another thread: an armed one takes it for its own, an unarmed one
 * counts it and returns, and the faulting thread faults again. A SIGBUS
 * that cannot be legal is therefore failed only if an immediate retry of
 * the same touch raises it again; otherwise it is counted as unconfirmed.
 */
#ifndef USER_TESTS_FAULT_TORTURE_H
#define USER_TESTS_FAULT_TORTURE_H

#include "tap.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#define PAGE 4096
#define WORDS 512
#define FILE_WORDS 448		/* the mutator's part of each page; then the slots */
#define EOF_SLOT (WORDS - 1)	/* the EOF toucher's slot; the writer has the others */
#define MAX_PAGES 64
#define SHOWN 3			/* failures printed as they happen, per check */

/* Who wrote a word: the mutator (file), a slot store, a private store, a fork child's. */
enum kind { K_FILE = 1, K_SLOT, K_PRIV, K_CHILD };

enum counts { N_TOUCH, N_PWRITE, N_TRUNC, N_FSYNC, N_TORN, N_SIGBUS, N_SIGBUS_REQ,
	      N_UNCONFIRMED, N_STRAY, N_STORE, N_PRIV_WRITE, N_PRIV_DROP, N_MADVISE,
	      N_MREMAP, N_MOVED, N_FORK, N_PIN, N_PREAD, N_COUNTS };

enum checks { C_SHARED, C_SIGBUS, C_PRIVATE, C_STORE, C_CHILD, C_PIN, C_PREAD, C_ERROR,
	      N_CHECKS };

/*
 * State shared with fork children (MAP_SHARED | MAP_ANONYMOUS).
 * [M] written only by the mutator, read by everyone (seq_cst atomics);
 * [A] atomic; [1] written once, by the thread that claimed it.
 */
struct shared {
	uint64_t cv[2 * MAX_PAGES];	/* [M] seq << 1, | 1 if it left zeros */
	uint64_t lp[2 * MAX_PAGES];	/* [M] last operation started on the page */
	uint64_t zs[2 * MAX_PAGES];	/* [M] last truncate started that removed it */
	uint64_t size;			/* [M] pages in the file, once committed */
	uint64_t grow_started, grow_done;	/* [M] */
	int stop;			/* [A] */
	uint64_t n[N_COUNTS];		/* [A] counts from fork children */
	uint64_t bad[N_CHECKS];		/* [A] */
	int claimed[N_CHECKS];		/* [A] the first failure's message is taken */
	char first[N_CHECKS][400];	/* [1] */
};

/* One per thread. [P] private to it; [A] read by the watchdog too. */
struct tctx {
	sigjmp_buf jb;			/* [P] where a touch's fault returns to */
	int armed;			/* [P] a touch is under way (the handler reads it) */
	int sig;			/* [P] the signal that stopped it */
	uint64_t rnd;			/* [P] */
	const char *role;		/* [P] */
	uint64_t n[N_COUNTS];		/* [A] */
	uint64_t beat;			/* [A] one per loop */
	const char *doing;		/* [A] what it does now, for the watchdog */
	uint64_t doing_page;		/* [A] */
	int done;			/* [A] */
	uint32_t count;			/* [P] for store values */
};

/* The counters around one touch of page p (the rule at the top of the file). */
struct window {
	unsigned p;
	uint64_t gs0, gd0, cv0, sz0;	/* before the touch */
	uint64_t lp1, zs1, gs1;		/* after it */
};

static struct shared *S;
static int pages = 8;		/* in the file at most; set once, before the threads */
static pid_t main_pid;
static __thread struct tctx *self;

/* ------------------------------------------------------------ words */

static uint32_t check24(unsigned kind, uint32_t gen, unsigned page)
{
	uint64_t x = ((uint64_t)gen << 16 | page << 4 | kind) * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return (uint32_t)x & 0xffffff;
}

/*
 * A word: gen (32 bits), then the kind (2 bits) and the page (6 bits:
 * MAX_PAGES is 64), then the check. The kind is written out, not guessed
 * from which check matches: with 24-bit checks, some gen of one kind
 * would sooner or later pass for the same gen of another.
 */
static uint64_t word(unsigned kind, uint32_t gen, unsigned page)
{
	page &= MAX_PAGES - 1;
	return (uint64_t)gen << 32 | (uint64_t)((kind - K_FILE) << 6 | page) << 24 |
	       check24(kind, gen, page);
}

/* The kind of x if its check matches, or 0 (torn, or not ours at all). */
static unsigned decode(uint64_t x, uint32_t *gen, unsigned *page)
{
	unsigned k = K_FILE + (unsigned)((x >> 30) & 3);
	*gen = (uint32_t)(x >> 32);
	*page = (unsigned)(x >> 24) & (MAX_PAGES - 1);
	return (x & 0xffffff) == check24(k, *gen, *page) ? k : 0;
}

static const char *describe(uint64_t x, char *buf, size_t len)
{
	static const char *what[] = { "", "gen", "slot store", "private store", "fork child's store" };
	uint32_t gen;
	unsigned page, k = decode(x, &gen, &page);
	if (!x)
		snprintf(buf, len, "zeros");
	else if (!k)
		snprintf(buf, len, "no valid check: torn or garbage");
	else
		snprintf(buf, len, "%s %u of page %u", what[k], gen, page);
	return buf;
}

/* -------------------------------------------- atomics, randomness, time, failures */

static uint64_t ld(const uint64_t *a)
{
	return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}

static void publish(uint64_t *a, uint64_t v)
{
	__atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}

static int stopped(void)
{
	return __atomic_load_n(&S->stop, __ATOMIC_RELAXED);
}

static unsigned rnd(struct tctx *t)
{
	t->rnd ^= t->rnd << 13;
	t->rnd ^= t->rnd >> 7;
	t->rnd ^= t->rnd << 17;
	return (unsigned)(t->rnd >> 16);
}

static void inc(struct tctx *t, int k)
{
	__atomic_store_n(&t->n[k], __atomic_load_n(&t->n[k], __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static void doing(struct tctx *t, const char *what, uint64_t page)
{
	__atomic_store_n(&t->doing_page, page, __ATOMIC_RELAXED);
	__atomic_store_n(&t->doing, what, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->beat, 1, __ATOMIC_RELAXED);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Count a failure of check c; print the first few; keep the very first. */
static void report(int c, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	uint64_t k = __atomic_add_fetch(&S->bad[c], 1, __ATOMIC_SEQ_CST);
	int free_ = 0;
	if (__atomic_compare_exchange_n(&S->claimed[c], &free_, 1, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		memcpy(S->first[c], msg, sizeof msg);
	if (k <= SHOWN && getpid() == main_pid)	/* a fork child never uses stdio */
		printf("# FAIL (%s): %s\n", self ? self->role : "main", msg);
}

/* ------------------------------------------------------------ windows */

static void win_open(struct window *w, unsigned p)
{
	w->p = p;
	w->gs0 = ld(&S->grow_started);
	w->gd0 = ld(&S->grow_done);
	w->cv0 = ld(&S->cv[p]);
	w->sz0 = ld(&S->size);
}

static void win_close(struct window *w)
{
	w->lp1 = ld(&S->lp[w->p]);
	w->zs1 = ld(&S->zs[w->p]);
	w->gs1 = ld(&S->grow_started);
}

static uint64_t cv_seq(const struct window *w) { return w->cv0 >> 1; }
static int cv_zero(const struct window *w) { return (int)(w->cv0 & 1); }

static int sigbus_legal(const struct window *w)
{
	return w->p >= w->sz0 || w->zs1 > cv_seq(w);
}

static int sigbus_required(const struct window *w)
{
	return w->p >= (unsigned)pages ||
	       (w->p >= w->sz0 && w->gs0 == w->gd0 && w->gs1 == w->gs0);
}

enum { LEGAL, TORN, WRONG };

/* May word i of page p hold x, in window w? If WRONG, why says what was seen and allowed. */
static int judge(const struct window *w, unsigned i, uint64_t x, char *why, size_t len)
{
	uint64_t c = cv_seq(w);
	int zero_ok = cv_zero(w) || w->zs1 > c, in_flight = w->lp1 > c, ok;
	uint32_t gen = 0;
	unsigned q = 0, k = x ? decode(x, &gen, &q) : 0;
	char seen[64], allowed[160];
	if (x && !k && in_flight)
		return TORN;
	if (!x)
		ok = i >= FILE_WORDS || zero_ok;
	else if (!k)
		ok = 0;
	else if (i >= FILE_WORDS)
		ok = k == K_SLOT && q == w->p;
	else
		ok = k == K_FILE && q == w->p &&
		     ((!cv_zero(w) && gen == c) || (gen > c && gen <= w->lp1));
	if (ok)
		return LEGAL;
	describe(x, seen, sizeof seen);
	if (i >= FILE_WORDS) {
		snprintf(allowed, sizeof allowed, "zeros or a slot store of page %u", w->p);
	} else {
		int n = snprintf(allowed, sizeof allowed, cv_zero(w) ? "zeros (truncate %llu)"
								     : "gen %llu",
				 (unsigned long long)c);
		if (w->lp1 > c)
			n += snprintf(allowed + n, sizeof allowed - n, ", or gens %llu..%llu",
				      (unsigned long long)c + 1, (unsigned long long)w->lp1);
		if (zero_ok && !cv_zero(w))
			snprintf(allowed + n, sizeof allowed - n, ", or zeros (truncate %llu)",
				 (unsigned long long)w->zs1);
	}
	snprintf(why, len, "saw 0x%016llx (%s), window allows %s; size %llu pages, %s",
		 (unsigned long long)x, seen, allowed, (unsigned long long)w->sz0,
		 in_flight ? "an operation on it in flight" : "nothing on it in flight");
	return WRONG;
}

/* ------------------------------------------------------------ touching */

static void arm(struct tctx *t)
{
	__atomic_store_n(&t->armed, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* no touch moves above this */
}

static void disarm(struct tctx *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* no touch moves below this */
	__atomic_store_n(&t->armed, 0, __ATOMIC_RELAXED);
}

/* SIGBUS, SIGSEGV: out of the touch that raised it, if this thread is touching. */
static void on_fault(int sig)
{
	struct tctx *t = self;
	if (t && __atomic_load_n(&t->armed, __ATOMIC_RELAXED)) {
		t->armed = 0;
		t->sig = sig;
		siglongjmp(t->jb, 1);
	}
	/* Raised by another thread's fault (Roundabout: per-process pending
	 * signals); that thread faults again and takes its own. */
	__atomic_add_fetch(&S->n[N_STRAY], 1, __ATOMIC_RELAXED);
}

/* Load page[idx[i]] into out[i]; 0, or the signal that stopped it. */
static int touch_load(struct tctx *t, const uint64_t *page, const unsigned *idx, int n,
		      uint64_t *out)
{
	if (sigsetjmp(t->jb, 0))
		return t->sig;
	arm(t);
	for (int i = 0; i < n; i++)
		out[i] = __atomic_load_n(&page[idx[i]], __ATOMIC_RELAXED);
	disarm(t);
	return 0;
}

/* Store v at page[i], then (if out) copy the whole page to out; 0 or the signal. */
static int touch_store(struct tctx *t, uint64_t *page, unsigned i, uint64_t v, uint64_t *out)
{
	if (sigsetjmp(t->jb, 0))
		return t->sig;
	arm(t);
	__atomic_store_n(&page[i], v, __ATOMIC_RELAXED);
	for (int j = 0; out && j < WORDS; j++)
		out[j] = __atomic_load_n(&page[j], __ATOMIC_RELAXED);
	disarm(t);
	return 0;
}

enum { T_OK, T_SIGBUS, T_BAD_SIGBUS };

/*
 * Touch n words of page p of map (a mapping of the file from offset 0)
 * inside a window, and judge what it saw; what names the mapping. An
 * illegal SIGBUS is failed only when the retry raises it again.
 */
static int check_touch(struct tctx *t, int c, const char *what, const uint64_t *map,
		       unsigned p, const unsigned *idx, int n, int retry)
{
	struct window w;
	uint64_t x[8];
	const uint64_t *page = map + (size_t)p * WORDS;
	char why[400];
	doing(t, what, p);
	win_open(&w, p);
	int sig = touch_load(t, page, idx, n, x);
	win_close(&w);
	inc(t, N_TOUCH);
	if (sig == SIGSEGV) {
		report(C_ERROR, "%s: SIGSEGV reading %p (page %u); size %llu pages before, a truncate "
		       "of it %s", what, (void *)page, p, (unsigned long long)w.sz0,
		       sigbus_legal(&w) ? "began" : "did not begin");
		return T_OK;
	}
	if (sig) {
		inc(t, N_SIGBUS);
		if (sigbus_required(&w))
			inc(t, N_SIGBUS_REQ);
		if (sigbus_legal(&w))
			return T_SIGBUS;
		if (retry) {
			if (check_touch(t, c, what, map, p, idx, n, 0) != T_BAD_SIGBUS)
				inc(t, N_UNCONFIRMED);
			return T_SIGBUS;
		}
		report(C_SIGBUS, "%s: SIGBUS twice reading %p (page %u) within EOF: size %llu "
		       "pages, no truncate of it began (last: %llu, committed %llu)", what,
		       (void *)page, p, (unsigned long long)w.sz0, (unsigned long long)w.zs1,
		       (unsigned long long)cv_seq(&w));
		return T_BAD_SIGBUS;
	}
	if (sigbus_required(&w)) {
		report(C_SIGBUS, "%s: no SIGBUS reading %p (page %u) beyond an EOF that held at "
		       "%llu pages for the whole touch; word %u read 0x%016llx", what, (void *)page,
		       p, (unsigned long long)w.sz0, idx[0], (unsigned long long)x[0]);
		return T_OK;
	}
	for (int i = 0; i < n; i++) {
		int r = judge(&w, idx[i], x[i], why, sizeof why);
		if (r == TORN)
			inc(t, N_TORN);
		else if (r == WRONG)
			report(c, "%s at %p (page %u word %u): %s", what, (void *)(page + idx[i]), p,
			       idx[i], why);
	}
	return T_OK;
}

/* Four words of page p: two of the mutator's, the first, and a slot. */
static void pick_words(struct tctx *t, unsigned *idx)
{
	idx[0] = 0;
	idx[1] = rnd(t) % FILE_WORDS;
	idx[2] = FILE_WORDS - 1 - rnd(t) % 8;
	idx[3] = FILE_WORDS + rnd(t) % (WORDS - FILE_WORDS);
}

/* A page to touch: within EOF mostly, since each SIGBUS costs a kernel message. */
static unsigned pick_page(struct tctx *t, unsigned limit)
{
	unsigned sz = (unsigned)ld(&S->size), p = rnd(t) % limit;
	if (p >= sz && rnd(t) % 64)
		p = sz ? rnd(t) % sz : p;
	return p;
}

#endif
