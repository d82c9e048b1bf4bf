/*
 * t_fault_torture.c - page faults on one file, racing everything that
 * changes the file or its mappings: ftruncate down and up, pwrite,
 * MADV_DONTNEED, mremap, fork, and (on Roundabout) pinning; under reclaim
 * when booted with a small pagecache.max_pages.
 *
 * Usage: t_fault_torture [SECONDS] [--threads N] [--pages N] [--seed S]
 *                        [--watchdog S] [--hold-us N] [--roles LIST]
 * SECONDS defaults to 3 (a quick run); --threads is the number of readers.
 *
 * The threads, each judged by the rule of fault_torture.h:
 *   mutator      pwrites pages, holds the file short (truncate, pause,
 *                write the pages back), truncates up, fsyncs;
 *   reader (N)   reads through MAP_SHARED, within EOF mostly;
 *   eof-toucher  reads and stores beyond EOF: SIGBUS while EOF holds;
 *   writer       stores into the slots through MAP_SHARED and reads each
 *                store back with pread, at once and when it next picks that
 *                slot: it must be there unless a truncate of its page began
 *                meanwhile (reclaim and writeback must keep it);
 *   private      MAP_PRIVATE: before a private store a page follows the
 *                rule; after it the page keeps the store and every word it
 *                had, whatever pwrites follow, until a truncate of it (then
 *                anything goes: Linux drops the copy, Roundabout keeps it)
 *                or its own MADV_DONTNEED;
 *   madviser     MADV_DONTNEED on the shared mapping, without pause;
 *   mremapper    maps the file before a page it cannot grow into, faults
 *                it in, mremaps it to twice the size (so it moves), reads;
 *   forker       forks children that read the shared mapping and store to
 *                their copy of the private one;
 *   pinner       SYS_rb_pin on the shared mapping (Roundabout only);
 *   churner      reads another file to push pages out of a small cache,
 *                and preads the torture file.
 * A watchdog fails the run if any thread makes no progress for --watchdog
 * seconds, naming what it was doing.
 */
#include "fault_torture.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "roundabout.h"

#define MAX_READERS 16
#define MAX_THREADS (MAX_READERS + 16)

static const char *check_name[N_CHECKS] = {
	"reads through MAP_SHARED show a generation inside their window",
	"SIGBUS exactly where EOF says: always beyond an EOF that held, never within it",
	"MAP_PRIVATE shows the file until a private store, then keeps the store and its copy",
	"stores through MAP_SHARED reach the file (pread sees them)",
	"fork children see the file and their own private copies right",
	"pins read a page of the right generation (SYS_rb_pin)",
	"pread shows a generation inside its window",
	"no unexpected SIGSEGV or system-call failure",
};

static int readers = 4, seconds = 3, watchdog_s = 30, hold_us = 3000;
static uint64_t seed;
static int fd, churn_fd;
static uint64_t *M;		/* MAP_SHARED, pages + 2 pages: the last two never in the file */
static uint64_t *P;		/* MAP_PRIVATE: the private thread's */
static int have_pin;
static const char *only;	/* --roles: the roles to run besides the mutator and readers */
static struct tctx ctx[MAX_THREADS];
static int nthreads;

/* ------------------------------------------------------------ the mutator */

static uint64_t mseq, msize;	/* [P] the mutator's */

static int mut_pwrite(struct tctx *t, unsigned p)
{
	static uint64_t buf[WORDS];
	uint64_t g = ++mseq;
	int grow = p >= msize;
	size_t len = grow ? PAGE : FILE_WORDS * 8;
	for (int i = 0; i < WORDS; i++)
		buf[i] = i < FILE_WORDS ? word(K_FILE, (uint32_t)g, p) : 0;
	doing(t, "pwrite", p);
	publish(&S->lp[p], g);
	if (grow)
		publish(&S->grow_started, g);
	ssize_t r = pwrite(fd, buf, len, (off_t)p * PAGE);
	if (r != (ssize_t)len) {
		report(C_ERROR, "pwrite of page %u (%zu bytes) returned %zd: %s", p, len, r,
		       strerror(errno));
		return -1;
	}
	if (grow) {
		msize = p + 1;
		publish(&S->size, msize);
		publish(&S->grow_done, g);
	}
	publish(&S->cv[p], g << 1);
	inc(t, N_PWRITE);
	return 0;
}

static int mut_truncate(struct tctx *t, unsigned to)
{
	uint64_t s = ++mseq, old = msize;
	doing(t, "ftruncate", to);
	for (unsigned p = to; p < old; p++) {
		publish(&S->zs[p], s);
		publish(&S->lp[p], s);
	}
	if (to > old)
		publish(&S->grow_started, s);
	if (ftruncate(fd, (off_t)to * PAGE)) {
		report(C_ERROR, "ftruncate to %u pages: %s", to, strerror(errno));
		return -1;
	}
	msize = to;
	publish(&S->size, to);	/* before cv: whoever sees the zeros sees the size */
	for (unsigned p = to; p < old; p++)
		publish(&S->cv[p], s << 1 | 1);
	if (to > old)
		publish(&S->grow_done, s);
	inc(t, N_TRUNC);
	return 0;
}

/* Hold the file short a while, then bring it back (whole, mostly). */
static int mut_hold_short(struct tctx *t)
{
	unsigned to = rnd(t) % 2 ? 1 : rnd(t) % (unsigned)msize;
	if (mut_truncate(t, to))
		return -1;
	doing(t, "holding the file short", to);
	if (rnd(t) % 2)		/* else straight back: faults race the next truncate */
		sleep_us(rnd(t) % (unsigned)(hold_us + 1));
	unsigned back = rnd(t) % 8 ? (unsigned)pages : to + rnd(t) % ((unsigned)pages - to + 1);
	if (rnd(t) % 2 && back > to && mut_truncate(t, back))
		return -1;
	for (unsigned p = to; p < back; p++)
		if (mut_pwrite(t, p))
			return -1;
	return 0;
}

static void *mutator(void *arg)
{
	struct tctx *t = arg;
	while (!stopped()) {
		unsigned r = rnd(t) % 100;
		int err;
		if (r < 50 || !msize)
			err = mut_pwrite(t, msize ? rnd(t) % (unsigned)msize : 0);
		else if (r < 85)
			err = mut_hold_short(t);
		else if (r < 95)
			err = msize < (unsigned)pages ? mut_truncate(t, (unsigned)pages)
						      : mut_truncate(t, (unsigned)msize - 1);
		else {
			doing(t, "fsync", 0);
			err = fsync(fd);
			if (err)
				report(C_ERROR, "fsync: %s", strerror(errno));
			inc(t, N_FSYNC);
		}
		if (err) {	/* the protocol no longer knows the file: stop */
			__atomic_store_n(&S->stop, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ the others */

static void *reader(void *arg)
{
	struct tctx *t = arg;
	unsigned idx[4];
	while (!stopped()) {
		pick_words(t, idx);
		check_touch(t, C_SHARED, "MAP_SHARED read", M, pick_page(t, (unsigned)pages),
			    idx, 4, 1);
	}
	return NULL;
}

/* Touch beyond EOF, by reading or storing: it must SIGBUS while EOF holds. */
static void *eof_toucher(void *arg)
{
	struct tctx *t = arg;
	while (!stopped()) {
		unsigned sz = (unsigned)ld(&S->size), idx[4];
		if (sz >= (unsigned)pages && rnd(t) % 16) {
			doing(t, "waiting for a short file", sz);
			sleep_us(300);
			continue;
		}
		unsigned p = sz + rnd(t) % ((unsigned)pages + 2 - sz);
		pick_words(t, idx);
		if (rnd(t) % 4) {
			check_touch(t, C_SHARED, "read beyond EOF", M, p, idx, 4, 1);
		} else {
			struct window w;
			uint64_t *a = M + (size_t)p * WORDS + EOF_SLOT;
			doing(t, "store beyond EOF", p);
			win_open(&w, p);
			int sig = touch_store(t, M + (size_t)p * WORDS, EOF_SLOT,
					      word(K_SLOT, ++t->count, p), NULL);
			win_close(&w);
			inc(t, N_TOUCH);
			if (sig)
				inc(t, N_SIGBUS);
			if (sig == SIGBUS && sigbus_required(&w))
				inc(t, N_SIGBUS_REQ);
			if (sig == SIGSEGV)
				report(C_ERROR, "SIGSEGV storing to %p (page %u) beyond EOF; size %llu "
				       "pages before", (void *)a, p, (unsigned long long)w.sz0);
			else if (!sig && sigbus_required(&w))
				report(C_SIGBUS, "no SIGBUS storing to %p (page %u) beyond an EOF that "
				       "held at %llu pages for the whole store", (void *)a, p,
				       (unsigned long long)w.sz0);
		}
		sleep_us(1000);	/* each SIGBUS is a line on Roundabout's console */
	}
	return NULL;
}

/* The writer's last store to each slot that it can vouch for (v 0: none). [P] */
static struct {
	uint64_t v, zs;		/* the value, and zs[p] when it was stored */
} slots[MAX_PAGES][WORDS - FILE_WORDS];

/* pread slot i of page p: it must hold the store recorded there, unless p was truncated since. */
static void slot_check(unsigned p, unsigned i, const char *when)
{
	uint64_t got = 0, want = slots[p][i - FILE_WORDS].v;
	if (!want)
		return;
	ssize_t r = pread(fd, &got, 8, (off_t)p * PAGE + i * 8);
	if (ld(&S->zs[p]) != slots[p][i - FILE_WORDS].zs) {
		slots[p][i - FILE_WORDS].v = 0;	/* truncated: the store may be gone */
		return;
	}
	if (r != 8 || got != want)
		report(C_STORE, "%s: stored 0x%016llx at %p (page %u word %u) through MAP_SHARED; "
		       "pread gives %zd bytes, 0x%016llx; no truncate of the page began since",
		       when, (unsigned long long)want, (void *)(M + (size_t)p * WORDS + i), p, i, r,
		       (unsigned long long)got);
}

/* Store through MAP_SHARED into the slots; pread must see each store, now and later. */
static void *writer(void *arg)
{
	struct tctx *t = arg;
	while (!stopped()) {
		unsigned p = pick_page(t, (unsigned)pages);
		unsigned i = FILE_WORDS + rnd(t) % (WORDS - 1 - FILE_WORDS);	/* not EOF_SLOT */
		uint64_t *a = M + (size_t)p * WORDS + i, v = word(K_SLOT, ++t->count, p);
		struct window w;
		doing(t, "pread of an earlier store", p);
		slot_check(p, i, "a store made earlier (reclaim and writeback since)");
		doing(t, "MAP_SHARED store", p);
		uint64_t zs0 = ld(&S->zs[p]);
		win_open(&w, p);
		int sig = touch_store(t, M + (size_t)p * WORDS, i, v, NULL);
		win_close(&w);
		inc(t, N_STORE);
		slots[p][i - FILE_WORDS].v = 0;
		if (sig == SIGSEGV)
			report(C_ERROR, "SIGSEGV storing to %p (page %u); size %llu pages before, a "
			       "truncate of it %s", (void *)a, p, (unsigned long long)w.sz0,
			       sigbus_legal(&w) ? "began" : "did not begin");
		if (sig) {
			inc(t, N_SIGBUS);
			if (!sigbus_legal(&w))
				inc(t, N_UNCONFIRMED);	/* the readers confirm these */
			continue;
		}
		if (sigbus_required(&w))
			report(C_SIGBUS, "no SIGBUS storing to %p (page %u) beyond an EOF that held "
			       "at %llu pages", (void *)a, p, (unsigned long long)w.sz0);
		if (zs0 == w.zs1 && zs0 <= cv_seq(&w)) {	/* no truncate began or was in flight */
			slots[p][i - FILE_WORDS].v = v;
			slots[p][i - FILE_WORDS].zs = zs0;
		}
		doing(t, "pread of a store", p);
		slot_check(p, i, "just now");
	}
	return NULL;
}

/* The private thread's record of its pages. [P] */
static struct {
	int copied;		/* a private store made it a private copy */
	uint64_t zs;		/* zs[p] when it did */
	uint64_t snap[WORDS];	/* what the copy holds */
} pv[MAX_PAGES];

static void priv_drop(struct tctx *t, unsigned p)
{
	doing(t, "MADV_DONTNEED private page", p);
	if (madvise(P + (size_t)p * WORDS, PAGE, MADV_DONTNEED))
		report(C_ERROR, "madvise(MADV_DONTNEED) of private page %u: %s", p,
		       strerror(errno));
	pv[p].copied = 0;
	inc(t, N_PRIV_DROP);
}

static void priv_write(struct tctx *t, unsigned p)
{
	static uint64_t now_[WORDS];
	unsigned i = rnd(t) % WORDS;
	uint64_t v = word(K_PRIV, ++t->count, p), *page = P + (size_t)p * WORDS;
	struct window w;
	char why[400];
	doing(t, "MAP_PRIVATE store", p);
	uint64_t zs0 = ld(&S->zs[p]);
	win_open(&w, p);
	int sig = touch_store(t, page, i, v, now_);
	win_close(&w);
	inc(t, N_PRIV_WRITE);
	if (sig) {	/* the store may or may not have landed: start the page afresh */
		inc(t, N_SIGBUS);
		int legal = sigbus_legal(&w) || (pv[p].copied && w.zs1 != pv[p].zs);
		priv_drop(t, p);
		if (sig == SIGSEGV)
			report(C_ERROR, "SIGSEGV storing to private %p (page %u); size %llu pages "
			       "before, a truncate of it %s", (void *)page, p,
			       (unsigned long long)w.sz0, legal ? "began" : "did not begin");
		else if (!legal)
			inc(t, N_UNCONFIRMED);	/* the readers confirm these */
		return;
	}
	if (w.zs1 != zs0 || zs0 > cv_seq(&w) || (pv[p].copied && zs0 != pv[p].zs)) {
		priv_drop(t, p);	/* a truncate began or was in flight: anything goes */
		return;
	}
	if (!pv[p].copied && sigbus_required(&w))
		report(C_SIGBUS, "no SIGBUS storing to private %p (page %u) beyond an EOF that held "
		       "at %llu pages", (void *)page, p, (unsigned long long)w.sz0);
	for (unsigned j = 0; j < WORDS; j++) {
		if (j == i)
			continue;
		if (pv[p].copied) {
			if (now_[j] != pv[p].snap[j])
				report(C_PRIVATE, "private copy at %p (page %u word %u) changed: holds "
				       "0x%016llx, had 0x%016llx", (void *)(page + j), p, j,
				       (unsigned long long)now_[j],
				       (unsigned long long)pv[p].snap[j]);
		} else if (judge(&w, j, now_[j], why, sizeof why) == WRONG) {
			report(C_PRIVATE, "private copy made at %p (page %u word %u): %s",
			       (void *)(page + j), p, j, why);
		}
	}
	if (now_[i] != v)
		report(C_PRIVATE, "private store of 0x%016llx to %p (page %u) read back 0x%016llx",
		       (unsigned long long)v, (void *)(page + i), p, (unsigned long long)now_[i]);
	if (!pv[p].copied)
		memcpy(pv[p].snap, now_, sizeof now_);
	pv[p].snap[i] = v;
	pv[p].copied = 1;
	pv[p].zs = zs0;
}

static void priv_read_copy(struct tctx *t, unsigned p, int retry)
{
	unsigned idx[4];
	uint64_t x[4], *page = P + (size_t)p * WORDS;
	pick_words(t, idx);
	doing(t, "MAP_PRIVATE read of a copy", p);
	int sig = touch_load(t, page, idx, 4, x);
	inc(t, N_TOUCH);
	if (ld(&S->zs[p]) != pv[p].zs) {
		priv_drop(t, p);	/* a truncate ends the copy's guarantee */
		return;
	}
	if (sig == SIGBUS && retry) {
		inc(t, N_SIGBUS);
		priv_read_copy(t, p, 0);
		return;
	}
	if (sig) {
		report(sig == SIGBUS ? C_PRIVATE : C_ERROR, "%s twice reading private copy %p (page %u),"
		       " with no truncate of it", sig == SIGBUS ? "SIGBUS" : "SIGSEGV",
		       (void *)page, p);
		return;
	}
	for (int j = 0; j < 4; j++)
		if (x[j] != pv[p].snap[idx[j]])
			report(C_PRIVATE, "private copy at %p (page %u word %u) holds 0x%016llx, not "
			       "its own 0x%016llx (pwrites since must not show)",
			       (void *)(page + idx[j]), p, idx[j], (unsigned long long)x[j],
			       (unsigned long long)pv[p].snap[idx[j]]);
}

static void *private_thread(void *arg)
{
	struct tctx *t = arg;
	unsigned idx[4];
	while (!stopped()) {
		unsigned op = rnd(t) % 16, p = pick_page(t, (unsigned)pages);
		if (pv[p].copied && ld(&S->zs[p]) != pv[p].zs)
			priv_drop(t, p);
		if (op == 0)
			priv_drop(t, p);
		else if (op < 6)
			priv_write(t, p);
		else if (pv[p].copied)
			priv_read_copy(t, p, 1);
		else {
			pick_words(t, idx);
			check_touch(t, C_PRIVATE, "MAP_PRIVATE read", P, p, idx, 4, 1);
		}
	}
	return NULL;
}

static void *madviser(void *arg)
{
	struct tctx *t = arg;
	while (!stopped()) {
		unsigned p = rnd(t) % ((unsigned)pages + 2), n = 1 + rnd(t) % 3;
		n = p + n > (unsigned)pages + 2 ? (unsigned)pages + 2 - p : n;
		doing(t, "MADV_DONTNEED", p);
		if (madvise(M + (size_t)p * WORDS, (size_t)n * PAGE, MADV_DONTNEED))
			report(C_ERROR, "madvise(MADV_DONTNEED) of %u pages at page %u: %s", n, p,
			       strerror(errno));
		inc(t, N_MADVISE);	/* no pause: every zapped page is a fault to race with */
	}
	return NULL;
}

/* Map the file after a page it cannot grow into, fault it in, mremap it larger (so it moves). */
static void *mremapper(void *arg)
{
	struct tctx *t = arg;
	size_t len = (size_t)pages * PAGE;
	unsigned idx[4];
	while (!stopped()) {
		doing(t, "mmap", 0);
		char *a = mmap(NULL, len + PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED || mmap(a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
					    fd, 0) == MAP_FAILED) {
			report(C_ERROR, "mmap for mremap: %s", strerror(errno));
			sleep_us(100000);
			continue;
		}
		for (unsigned p = 0; p < (unsigned)pages; p++) {
			pick_words(t, idx);
			if (p < ld(&S->size))
				check_touch(t, C_SHARED, "read before mremap", (uint64_t *)a, p, idx, 4, 1);
		}
		doing(t, "mremap", 0);
		char *b = mremap(a, len, 2 * len, MREMAP_MAYMOVE);
		if (b == MAP_FAILED) {
			report(C_ERROR, "mremap of %zu bytes at %p to %zu: %s", len, (void *)a, 2 * len,
			       strerror(errno));
			munmap(a, len + PAGE);
			continue;
		}
		inc(t, N_MREMAP);
		if (b != a)
			inc(t, N_MOVED);
		for (unsigned p = 0; p < 2 * (unsigned)pages; p++) {
			pick_words(t, idx);
			if (p < ld(&S->size) || rnd(t) % 16 == 0)
				check_touch(t, C_SHARED, "read after mremap", (uint64_t *)b, p, idx, 4, 1);
		}
		munmap(b, 2 * len);
		munmap(a + len, PAGE);
	}
	return NULL;
}

/* A fork child: read every page of the shared mapping, store to a private page. */
static void child_main(struct tctx *t)
{
	unsigned idx[4];
	for (unsigned p = 0; p < (unsigned)pages + 2; p++) {
		pick_words(t, idx);
		if (p < ld(&S->size) || rnd(t) % 4 == 0)
			check_touch(t, C_CHILD, "fork child's MAP_SHARED read", M, p, idx, 4, 1);
	}
	unsigned p = rnd(t) % (unsigned)pages, i = rnd(t) % WORDS;
	uint64_t v = word(K_CHILD, (uint32_t)getpid(), p), back[WORDS];
	struct window w;
	win_open(&w, p);
	int sig = touch_store(t, P + (size_t)p * WORDS, i, v, back);
	win_close(&w);
	if (sig && !sigbus_legal(&w))
		report(C_CHILD, "fork child: %s storing to private %p (page %u) within EOF",
		       sig == SIGBUS ? "SIGBUS" : "SIGSEGV", (void *)(P + (size_t)p * WORDS), p);
	else if (!sig && back[i] != v)
		report(C_CHILD, "fork child: private store of 0x%016llx to %p read back 0x%016llx",
		       (unsigned long long)v, (void *)(P + (size_t)p * WORDS + i),
		       (unsigned long long)back[i]);
	for (int k = 0; k < N_COUNTS; k++)
		__atomic_add_fetch(&S->n[k], t->n[k], __ATOMIC_RELAXED);
	_exit(0);
}

static void *forker(void *arg)
{
	struct tctx *t = arg;
	while (!stopped()) {
		doing(t, "fork", 0);
		uint64_t saved[N_COUNTS];
		memcpy(saved, t->n, sizeof saved);
		memset(t->n, 0, sizeof t->n);	/* the child adds only its own */
		pid_t pid = fork();
		memcpy(t->n, saved, sizeof saved);
		if (pid == 0)
			child_main(t);
		if (pid < 0) {
			report(C_ERROR, "fork: %s", strerror(errno));
			sleep_us(100000);
			continue;
		}
		inc(t, N_FORK);
		doing(t, "waiting for a fork child", (uint64_t)pid);
		int st = 0;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			report(C_CHILD, "fork child %d: %s", (int)pid, tap_status(st));
		sleep_us(20000);
	}
	return NULL;
}

/* Pin pages of the shared mapping (Roundabout only); the first word read through the pin. */
static void *pinner(void *arg)
{
	struct tctx *t = arg;
	char why[400];
	while (!stopped()) {
		unsigned p = pick_page(t, (unsigned)pages);
		struct rb_pin a = { .addr = (uint64_t)(uintptr_t)(M + (size_t)p * WORDS),
				    .len = PAGE, .hold_us = rnd(t) % 200,
				    .flags = (rnd(t) % 2 ? RB_PIN_FAST : RB_PIN_SLOW) |
					     (rnd(t) % 4 ? 0 : RB_PIN_WRITE) };
		struct window w;
		doing(t, "rb_pin", p);
		win_open(&w, p);
		long r = syscall(SYS_rb_pin, &a);
		int e = errno;
		win_close(&w);
		inc(t, N_PIN);
		if (r == 1 && sigbus_required(&w))
			report(C_PIN, "pinned page %u beyond an EOF that held at %llu pages", p,
			       (unsigned long long)w.sz0);
		else if (r == 1 && judge(&w, 0, a.first_word, why, sizeof why) == WRONG)
			report(C_PIN, "pin of %p (page %u, flags %#x): %s", (void *)(uintptr_t)a.addr,
			       p, a.flags, why);
		else if (r == -1 && e == EFAULT && !sigbus_legal(&w))
			report(C_PIN, "pin of %p (page %u) gave EFAULT within EOF (size %llu pages)",
			       (void *)(uintptr_t)a.addr, p, (unsigned long long)w.sz0);
		else if (r != 1 && !(r == -1 && e == EFAULT))
			report(C_PIN, "pin of page %u returned %ld (%s)", p, r, strerror(e));
	}
	return NULL;
}

/* Read another file to push pages out of a small cache; pread the torture file too. */
static void *churner(void *arg)
{
	struct tctx *t = arg;
	static char buf[16384];
	char why[400];
	off_t off = 0;
	while (!stopped()) {
		doing(t, "pread of the churn file", (uint64_t)off);
		ssize_t r = pread(churn_fd, buf, sizeof buf, off);
		off = r > 0 ? off + r : 0;
		unsigned p = rnd(t) % ((unsigned)pages + 2), i = rnd(t) % WORDS;
		uint64_t x = 0;
		int j = LEGAL;
		struct window w;
		doing(t, "pread", p);
		win_open(&w, p);
		r = pread(fd, &x, 8, (off_t)p * PAGE + i * 8);
		win_close(&w);
		inc(t, N_PREAD);
		if (r == 0 && !sigbus_legal(&w))
			report(C_PREAD, "pread of page %u word %u gave 0 bytes within EOF (size %llu)",
			       p, i, (unsigned long long)w.sz0);
		else if (r == 8 && sigbus_required(&w))
			report(C_PREAD, "pread of page %u beyond an EOF that held at %llu pages gave "
			       "0x%016llx", p, (unsigned long long)w.sz0, (unsigned long long)x);
		else if (r != 0 && r != 8)
			report(C_ERROR, "pread of page %u gave %zd: %s", p, r, strerror(errno));
		else if (r == 8 && (j = judge(&w, i, x, why, sizeof why)) == WRONG)
			report(C_PREAD, "pread of page %u word %u: %s", p, i, why);
		else if (r == 8 && j == TORN)
			inc(t, N_TORN);
	}
	return NULL;
}

/* ------------------------------------------------------------ setup and the end */

static int make_file(const char *name, unsigned npages, int tagged)
{
	static uint64_t buf[WORDS];
	int f = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	for (unsigned p = 0; f >= 0 && p < npages; p++) {
		for (int i = 0; i < WORDS; i++)
			buf[i] = !tagged ? p * 131 + i : i < FILE_WORDS ? word(K_FILE, 1, p) : 0;
		if (pwrite(f, buf, PAGE, (off_t)p * PAGE) != PAGE)
			return -1;
	}
	return f;
}

static int setup(void)
{
	tap_enter_scratch("t_fault_torture");
	fd = make_file("torture.dat", (unsigned)pages, 1);
	churn_fd = make_file("churn.dat", 96, 0);	/* more than a 64-page cache */
	if (fd < 0 || churn_fd < 0 || fsync(fd))
		return -1;
	S = mmap(NULL, sizeof *S, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	M = mmap(NULL, (size_t)(pages + 2) * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	P = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (S == MAP_FAILED || M == MAP_FAILED || P == MAP_FAILED)
		return -1;
	for (int p = 0; p < 2 * MAX_PAGES; p++)
		S->cv[p] = p < pages ? 1 << 1 : 1;	/* gen 1 in the file; zeros past it */
	for (int p = 0; p < pages; p++)
		S->lp[p] = 1;
	S->size = (uint64_t)pages;
	mseq = 1;
	msize = (uint64_t)pages;
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	return sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL) ? -1 : 0;
}


static void *(*const roles[])(void *) = { mutator, writer, private_thread, eof_toucher,
					  madviser, mremapper, forker, churner, pinner };
static const char *const role_names[] = { "mutator", "writer", "private", "eof-toucher",
					  "madviser", "mremapper", "forker", "churner", "pinner" };

#define PINNER 8

/* Is role name in --roles (or is there no --roles)? The mutator always runs. */
static int wanted(const char *name)
{
	size_t n = strlen(name);
	if (!only || !strcmp(name, "mutator"))
		return 1;
	for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
		if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

struct start {
	void *(*fn)(void *);
	struct tctx *t;
};

static void *run_role(void *arg)
{
	struct start *s = arg;
	self = s->t;
	s->fn(s->t);
	__atomic_store_n(&s->t->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static uint64_t total(int k)
{
	uint64_t n = __atomic_load_n(&S->n[k], __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++)
		n += __atomic_load_n(&ctx[i].n[k], __ATOMIC_RELAXED);
	return n;
}

static long counter(const char *file, const char *name)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(file, "r");
	size_t n = strlen(name);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static long faults0, evictions0, unmaps0;

static const char *const count_name[N_COUNTS] = {
	[N_TOUCH] = "touches", [N_PWRITE] = "pwrites", [N_TRUNC] = "truncates",
	[N_FSYNC] = "fsyncs", [N_TORN] = "torn words", [N_SIGBUS] = "SIGBUS seen",
	[N_SIGBUS_REQ] = "of them where EOF held", [N_UNCONFIRMED] = "SIGBUS not confirmed by a retry",
	[N_STRAY] = "signals run by a thread that was not touching", [N_STORE] = "shared stores",
	[N_PRIV_WRITE] = "private stores", [N_PRIV_DROP] = "private pages dropped",
	[N_MADVISE] = "madvises", [N_MREMAP] = "mremaps", [N_MOVED] = "of them moved",
	[N_FORK] = "forks", [N_PIN] = "pins", [N_PREAD] = "preads",
};

static void print_counts(double secs)
{
	printf("# %.1f s, %d pages, %d readers, seed %llu:", secs, pages, readers,
	       (unsigned long long)seed);
	for (int k = 0; k < N_COUNTS; k++)
		printf("%s %llu %s", k ? "," : "", (unsigned long long)total(k), count_name[k]);
	long f = counter("/proc/vm", "file_faults"), e = counter("/proc/pagecache", "evictions");
	long u = counter("/proc/vm", "rmap_unmaps");
	struct rusage ru;
	if (f >= 0)
		printf("\n# kernel: %ld file faults, %ld evictions, %ld reverse-map unmaps\n",
		       f - faults0, e - evictions0, u - unmaps0);
	else if (getrusage(RUSAGE_SELF, &ru) == 0)	/* Linux: no /proc/vm */
		printf("\n# kernel: %ld minor and %ld major faults\n", ru.ru_minflt, ru.ru_majflt);
}

static void print_checks(void)
{
	for (int c = 0; c < N_CHECKS; c++) {
		uint64_t bad = __atomic_load_n(&S->bad[c], __ATOMIC_SEQ_CST);
		if (c == C_PIN && !have_pin) {	/* not a check here: no "ok" line for it */
			printf("# not checked: %s (SYS_rb_pin is Roundabout's own; ENOSYS here)\n",
			       check_name[c]);
			continue;
		}
		tap_check(!bad, check_name[c], "%llu times; the first: %s",
			  (unsigned long long)bad, S->first[c]);
	}
}

/* Wait for the end (or a hang); 0 when every thread has finished. */
static int watch(double start, char *why, size_t len)
{
	uint64_t last[MAX_THREADS] = { 0 };
	double since[MAX_THREADS];
	for (int i = 0; i < nthreads; i++)
		since[i] = start;
	for (;;) {
		sleep_us(100000);
		double t = now();
		if (t - start >= seconds)
			__atomic_store_n(&S->stop, 1, __ATOMIC_RELAXED);
		int running = 0;
		for (int i = 0; i < nthreads; i++) {
			if (__atomic_load_n(&ctx[i].done, __ATOMIC_SEQ_CST))
				continue;
			running++;
			uint64_t b = __atomic_load_n(&ctx[i].beat, __ATOMIC_RELAXED);
			if (b != last[i]) {
				last[i] = b;
				since[i] = t;
			} else if (t - since[i] > watchdog_s) {
				snprintf(why, len, "thread %d (%s) made no progress for %.0f s; "
					 "it was at: %s (%llu)", i, ctx[i].role, t - since[i],
					 __atomic_load_n(&ctx[i].doing, __ATOMIC_RELAXED),
					 (unsigned long long)__atomic_load_n(&ctx[i].doing_page,
									     __ATOMIC_RELAXED));
				return -1;
			}
		}
		if (!running)
			return 0;
	}
}

static int usage(void)
{
	printf("usage: t_fault_torture [SECONDS] [--threads N] [--pages N] [--seed S]\n"
	       "                       [--watchdog S] [--hold-us N] [--roles LIST]\n"
	       "  SECONDS     how long to run (default 3)\n"
	       "  --threads   MAP_SHARED reader threads (default 4, at most %d)\n"
	       "  --pages     pages in the file (default 8, 2..%d)\n"
	       "  --seed      random seed (default: from the clock)\n"
	       "  --watchdog  fail if a thread makes no progress this long (default 30 s)\n"
	       "  --hold-us   the longest the file is held short (default 3000)\n"
	       "  --roles     only these, besides the mutator and the readers (comma-separated:\n"
	       "              writer,private,eof-toucher,madviser,mremapper,forker,churner,pinner)\n",
	       MAX_READERS, MAX_PAGES);
	return 2;
}

static int parse(int argc, char **argv)
{
	seed = (uint64_t)(now() * 1e6);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return usage(), -1;
		if (a[0] != '-') {
			seconds = atoi(a);
			continue;
		}
		if (!v)
			return usage(), -2;
		i++;
		if (!strcmp(a, "--threads"))
			readers = atoi(v);
		else if (!strcmp(a, "--pages"))
			pages = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--watchdog"))
			watchdog_s = atoi(v);
		else if (!strcmp(a, "--hold-us"))
			hold_us = atoi(v);
		else if (!strcmp(a, "--roles"))
			only = v;
		else
			return usage(), -2;
	}
	if (readers < 1 || readers > MAX_READERS || pages < 2 || pages > MAX_PAGES ||
	    seconds < 1 || watchdog_s < 1 || hold_us < 0)
		return usage(), -2;
	return 0;
}

int main(int argc, char **argv)
{
	tap_start();
	int r = parse(argc, argv);
	if (r)
		return r == -1 ? 0 : 2;
	main_pid = getpid();
	errno = 0;
	have_pin = !(syscall(SYS_rb_pin, NULL) == -1 && errno == ENOSYS);
	faults0 = counter("/proc/vm", "file_faults");
	evictions0 = counter("/proc/pagecache", "evictions");
	unmaps0 = counter("/proc/vm", "rmap_unmaps");
	if (!tap_check(setup() == 0, "a file of gen-1 pages, mapped shared and private",
		       "%s", strerror(errno)))
		return tap_done();
	static struct start st[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	for (int r = 0; r < (int)(sizeof roles / sizeof roles[0]) + readers; r++) {
		int named = r < (int)(sizeof roles / sizeof roles[0]);
		const char *name = named ? role_names[r] : "reader";
		if (named && ((r == PINNER && !have_pin) || !wanted(name)))
			continue;
		struct tctx *t = &ctx[nthreads];
		t->role = name;
		t->rnd = (seed + 1) * 0x9e3779b97f4a7c15ULL + (uint64_t)nthreads * 7919 + 1;
		st[nthreads++] = (struct start){ named ? roles[r] : reader, t };
	}
	double start = now();
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, run_role, &st[i])) {
			printf("not ok - pthread_create %d failed\n", i);
			return 1;
		}
	char why[400];
	if (watch(start, why, sizeof why)) {	/* a thread is stuck: report and leave it */
		print_counts(now() - start);
		print_checks();
		tap_check(0, "no thread stops making progress (watchdog)", "%s", why);
		fflush(stdout);
		_exit(tap_done());
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	print_counts(now() - start);
	print_checks();
	tap_check(1, "no thread stops making progress (watchdog)", "-");
	int worked = total(N_PWRITE) && total(N_TRUNC) && total(N_TOUCH) &&
		     (total(N_STORE) || !wanted("writer")) &&
		     (total(N_PRIV_WRITE) || !wanted("private")) &&
		     (total(N_SIGBUS_REQ) || !wanted("eof-toucher")) &&
		     (total(N_MADVISE) || !wanted("madviser")) &&
		     (total(N_MREMAP) || !wanted("mremapper")) &&
		     (total(N_FORK) || !wanted("forker")) && (total(N_PREAD) || !wanted("churner")) &&
		     (total(N_PIN) || !have_pin || !wanted("pinner"));
	CHECK(worked, "every role did its work, and some touch met an EOF that held");
	munmap(M, (size_t)(pages + 2) * PAGE);
	munmap(P, (size_t)pages * PAGE);
	close(fd);
	close(churn_fd);
	tap_leave_scratch();
	return tap_done();
}
