/*
 * t_pin - page pinning through SYS_rb_pin (Roundabout only: on Linux the
 * call gives ENOSYS and the test stops at its first check).
 *
 * The kernel pins [addr, addr + len), holds the pins hold_us, reads the
 * first word of every pinned page at pin time and again at release, and
 * reports what it saw (user/include/roundabout.h). Checked: every error of
 * the contract, with the fast and the slow path where the answer depends
 * on the memory; the counts and the out fields of good pins; that a pin
 * keeps its page while the range is unmapped under it; and the rule whose
 * breach was CVE-2020-29374: a page pinned through fork()'s copy-on-write
 * must never show what another process writes later.
 *
 * Where the contract allows two errors for one input, the checks assume
 * the order argument checks (EINVAL) - page count (ENOMEM) - memory
 * (EFAULT), and say so in their names.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include <roundabout.h>

#include "tap.h"

#define PAGE 4096UL
#define KERNEL_HALF 0xffff800000000000ULL
#define KERNEL_TEXT 0xffffffff80000000ULL
#define USER_TOP 0x7ffffffff000ULL		/* the first byte past user space */
#define LOW_FREE 0x100000000000ULL		/* 16 TiB: mmap never gets there unasked */
#define HOLD_LONG 300000			/* us: long enough to race against */
#define SETTLE_MS 100		/* for a pin started elsewhere to be taken (slow under TCG) */
#define MARK 0x50494e4e45440000ULL		/* "PINNED" in the top bytes */

struct mode {
	uint32_t flag;
	const char *name;
};

static const struct mode modes[] = {
	{ RB_PIN_FAST, "fast" },
	{ RB_PIN_SLOW, "slow" },
};

/* A check's name with the mode (or other words) in it. */
static const char *name(const char *fmt, ...)
{
	static char buf[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

static struct rb_pin request(const void *addr, uint64_t len, uint32_t flags)
{
	struct rb_pin a = { .addr = (uint64_t)(uintptr_t)addr, .len = len, .flags = flags };
	return a;
}

static long pin(struct rb_pin *a)
{
	return syscall(SYS_rb_pin, a);
}

static long pin_range(const void *addr, uint64_t len, uint32_t flags)
{
	struct rb_pin a = request(addr, len, flags);
	return pin(&a);
}

static void *map_anon(size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* n pages, each with MARK | its index in its first word. */
static uint64_t *map_marked(size_t n)
{
	uint64_t *p = map_anon(n * PAGE, PROT_READ | PROT_WRITE);
	for (size_t i = 0; p != MAP_FAILED && i < n; i++)
		p[i * PAGE / 8] = MARK | i;
	return p;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* MemFree of /proc/meminfo in KiB; -1 if unreadable. */
static long mem_free_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "MemFree:", 8))
			v = atol(line + 8);
	if (f)
		fclose(f);
	return v;
}

/* The first call decides whether there is anything to test here. */
static int have_rb_pin(void)
{
	errno = 0;
	long r = syscall(SYS_rb_pin, NULL);
	if (r == -1 && errno == ENOSYS) {
		tap_check(0, "SYS_rb_pin exists", "ENOSYS (run on Roundabout)");
		return 0;
	}
	tap_check(1, "SYS_rb_pin exists", "-");
	return 1;
}

/* The args pointer itself. */
static void test_bad_args_pointer(void)
{
	char *ro = map_anon(PAGE, PROT_READ | PROT_WRITE);
	char *edge = map_anon(2 * PAGE, PROT_READ | PROT_WRITE);
	struct rb_pin a = request(ro, PAGE, 0);
	ro[0] = 1;
	memcpy(ro, &a, sizeof a);
	mprotect(ro, PAGE, PROT_READ);
	munmap(edge + PAGE, PAGE);
	memcpy(edge + PAGE - 16, &a, 16);	/* addr and len, then the hole */
	CHECK_ERR(syscall(SYS_rb_pin, NULL), EFAULT, "args NULL gives EFAULT");
	CHECK_ERR(syscall(SYS_rb_pin, (void *)KERNEL_HALF), EFAULT,
		  "args in the kernel half gives EFAULT");
	CHECK_ERR(syscall(SYS_rb_pin, edge + PAGE - 16), EFAULT,
		  "args running into an unmapped page gives EFAULT");
	CHECK_ERR(syscall(SYS_rb_pin, ro), EFAULT,
		  "args in a read-only page gives EFAULT (the out fields cannot be written)");
	munmap(ro, PAGE);
	munmap(edge, PAGE);
}

/* Arguments wrong in themselves, whatever memory they name. */
static void test_bad_values(void)
{
	char *p = map_anon(PAGE, PROT_READ | PROT_WRITE);
	p[0] = 1;
	CHECK_ERR(pin_range(p, 0, 0), EINVAL, "len 0 gives EINVAL");
	CHECK_ERR(pin_range(p, PAGE, 0x100), EINVAL, "an unknown flag (0x100) gives EINVAL");
	CHECK_ERR(pin_range(p, PAGE, RB_PIN_FAST | RB_PIN_SLOW), EINVAL,
		  "RB_PIN_FAST|RB_PIN_SLOW gives EINVAL");
	CHECK_ERR(pin_range((void *)(USER_TOP - PAGE), 1ULL << 62, 0), EINVAL,
		  "len 1<<62 from the last user pages gives EINVAL (before the ENOMEM of its size)");
	CHECK_ERR(pin_range((void *)(USER_TOP - PAGE), 3 * PAGE, 0), EINVAL,
		  "3 pages running past the end of the user half give EINVAL");
	CHECK_ERR(pin_range((void *)(USER_TOP - PAGE), ~0ULL - PAGE + 1, 0), EINVAL,
		  "addr + len wrapping past 2^64 gives EINVAL");
	CHECK_ERR(pin_range((void *)KERNEL_TEXT, PAGE, 0), EFAULT,
		  "a page in the kernel half (0xffffffff80000000) gives EFAULT");
	munmap(p, PAGE);
}

/* ENOMEM must come from the count alone: nothing may be faulted in first. */
static void test_too_many_pages(void)
{
	size_t len = (RB_PIN_MAX_PAGES + 1) * PAGE;
	char *big = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(big != MAP_FAILED, "an untouched mapping of RB_PIN_MAX_PAGES + 1 pages");
	if (big == MAP_FAILED)
		return;
	long before = mem_free_kib();
	CHECK_ERR(pin_range(big, len, 0), ENOMEM,
		  "pinning RB_PIN_MAX_PAGES + 1 mapped pages gives ENOMEM");
	long after = mem_free_kib();
	CHECK(before > 0 && before - after < 64 * 1024,
	      "that ENOMEM came before any page was faulted in (MemFree fell < 64 MiB)");
	munmap(big, len);

	char *low = mmap((void *)LOW_FREE, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(low == (char *)LOW_FREE, "a one-page mapping at 16 TiB");
	CHECK_ERR(pin_range(low, 1ULL << 46, 0), ENOMEM,
		  "len 1<<46 on that page gives ENOMEM (page count checked before mappings)");
	munmap(low, PAGE);
}

/* Memory that cannot be pinned, through one path. */
static void test_bad_memory(const struct mode *m)
{
	char *gone = map_anon(PAGE, PROT_READ | PROT_WRITE);
	char *run = map_anon(3 * PAGE, PROT_READ | PROT_WRITE);
	char *ro = map_anon(PAGE, PROT_READ);
	char *none = map_anon(PAGE, PROT_READ | PROT_WRITE);
	char *mixed = map_anon(2 * PAGE, PROT_READ | PROT_WRITE);
	munmap(gone, PAGE);
	memset(run, 1, 2 * PAGE);
	munmap(run + 2 * PAGE, PAGE);
	(void)*(volatile char *)ro;
	none[0] = 1;				/* present before it loses its access */
	mprotect(none, PAGE, PROT_NONE);
	memset(mixed, 1, 2 * PAGE);
	mprotect(mixed + PAGE, PAGE, PROT_READ);
	CHECK_ERR(pin_range(gone, PAGE, m->flag), EFAULT,
		  name("%s: an unmapped page gives EFAULT", m->name));
	CHECK_ERR(pin_range(run, 3 * PAGE, m->flag), EFAULT,
		  name("%s: 2 mapped pages running into an unmapped one give EFAULT", m->name));
	CHECK_ERR(pin_range(ro, PAGE, m->flag | RB_PIN_WRITE), EFAULT,
		  name("%s: RB_PIN_WRITE on a PROT_READ mapping gives EFAULT", m->name));
	CHECK_ERR(pin_range(none, PAGE, m->flag), EFAULT,
		  name("%s: a PROT_NONE page gives EFAULT", m->name));
	CHECK_ERR(pin_range(mixed, 2 * PAGE, m->flag | RB_PIN_WRITE), EFAULT,
		  name("%s: RB_PIN_WRITE on a writable page then a read-only one gives EFAULT",
		       m->name));
	CHECK_EQ(pin_range(ro, PAGE, m->flag), 1,
		 name("%s: a read pin of the PROT_READ page pins 1", m->name));
	munmap(run, 2 * PAGE);
	munmap(ro, PAGE);
	munmap(none, PAGE);
	munmap(mixed, 2 * PAGE);
}

/* 16 touched pages: the counts and the out fields. */
static void test_sixteen(const struct mode *m, uint32_t write)
{
	const char *how = write ? "write" : "read";
	uint64_t *p = map_marked(16);
	struct rb_pin a = request(p, 16 * PAGE, m->flag | write);
	CHECK_EQ(pin(&a), 16, name("%s %s pin of 16 touched pages returns 16", m->name, how));
	CHECK_EQ(a.pinned, 16, name("%s %s pin: pinned is 16", m->name, how));
	CHECK_EQ(a.fast, m->flag == RB_PIN_FAST ? 16 : 0,
		 name("%s %s pin: fast is %d", m->name, how, m->flag == RB_PIN_FAST ? 16 : 0));
	CHECK_EQ(a.first_word, MARK | 0,
		 name("%s %s pin: first_word is the word stored in the first page", m->name, how));
	CHECK_EQ(a.changed, 0, name("%s %s pin: changed is 0 with no stores", m->name, how));
	int intact = 1;
	for (size_t i = 0; i < 16; i++) {
		intact &= p[i * PAGE / 8] == (MARK | i);
		p[i * PAGE / 8 + 1] = i;	/* and still writable */
	}
	CHECK(intact, name("%s %s pin: the pages keep their data after the release", m->name, how));
	munmap(p, 16 * PAGE);
}

/* Ranges that are not whole pages, or not one mapping. */
static void test_shapes(const struct mode *m)
{
	uint64_t *p = map_marked(4);
	CHECK_EQ(pin_range((char *)p + 4000, PAGE + 200, m->flag), 3,
		 name("%s: addr at byte 4000, len 4296 (3 pages touched) pins 3", m->name));
	CHECK_EQ(pin_range((char *)p + PAGE - 1, 2, m->flag), 2,
		 name("%s: 2 bytes across a page boundary pin 2", m->name));
	mprotect((char *)p + 2 * PAGE, 2 * PAGE, PROT_READ);
	CHECK_EQ(pin_range(p, 4 * PAGE, m->flag), 4,
		 name("%s: 4 pages across a read-write and a read-only mapping pin 4", m->name));
	munmap(p, 4 * PAGE);
}

/* Pages never touched: the fast path finds no PTE, the slow path faults them in. */
static void test_untouched(uint32_t write)
{
	const char *how = write ? "write" : "read";
	uint64_t *p = map_anon(16 * PAGE, PROT_READ | PROT_WRITE);
	struct rb_pin a = request(p, 16 * PAGE, RB_PIN_FAST | write);
	CHECK_EQ(pin(&a), 16, name("fast %s pin of 16 untouched pages returns 16", how));
	CHECK(a.fast < a.pinned,
	      name("fast %s pin of untouched pages: the slow path finished it (fast < pinned)", how));
	CHECK_EQ(a.first_word, 0, name("fast %s pin of untouched pages: first_word is 0", how));
	p[15 * PAGE / 8] = MARK;
	CHECK_EQ(p[15 * PAGE / 8], MARK, name("the pages are usable after the %s pin", how));
	munmap(p, 16 * PAGE);
}

static void test_default_mode(void)
{
	uint64_t *p = map_marked(16);
	CHECK_EQ(pin_range(p, 16 * PAGE, 0), 16, "a read pin with neither FAST nor SLOW pins 16");
	CHECK_EQ(pin_range(p, 16 * PAGE, RB_PIN_WRITE), 16,
		 "a write pin with neither FAST nor SLOW pins 16");
	munmap(p, 16 * PAGE);
}

/* Page-cache pages, through a MAP_SHARED mapping of a file. */
static void test_file_pages(const struct mode *m)
{
	uint64_t words[2 * PAGE / 8] = { MARK | 0xf0 };
	int fd = open("pinned", O_RDWR | O_CREAT | O_TRUNC, 0644);
	write(fd, words, sizeof words);
	void *map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct rb_pin a = request(map, 2 * PAGE, m->flag);
	CHECK_EQ(pin(&a), 2, name("%s: a read pin of 2 pages of a MAP_SHARED file pins 2", m->name));
	CHECK_EQ(a.first_word, MARK | 0xf0,
		 name("%s: first_word is the file's first word", m->name));
	a = request(map, 2 * PAGE, m->flag | RB_PIN_WRITE);
	CHECK_EQ(pin(&a), 2, name("%s: a write pin of the MAP_SHARED file pins 2", m->name));
	munmap(map, 2 * PAGE);
	close(fd);
	unlink("pinned");
}

static void test_hold(void)
{
	uint64_t *p = map_marked(1);
	struct rb_pin a = request(p, PAGE, 0);
	a.hold_us = 100000;
	double t0 = now();
	long r = pin(&a);
	double secs = now() - t0;
	CHECK(r == 1 && secs >= 0.1, "hold_us 100000 keeps the call at least 100 ms");
	munmap(p, PAGE);
}

/* A pin run by a thread, so that the test can act during its hold. */
struct pin_job {
	struct rb_pin a;
	long ret;
	int err;
	double done;		/* CLOCK_MONOTONIC when the call returned */
};

static void *pin_thread(void *arg)
{
	struct pin_job *j = arg;
	errno = 0;
	j->ret = pin(&j->a);
	j->err = errno;
	j->done = now();
	return NULL;
}

static void start_pin(pthread_t *t, struct pin_job *j, void *addr, size_t pages,
		      uint32_t flags, uint32_t hold_us)
{
	memset(j, 0, sizeof *j);
	j->a = request(addr, pages * PAGE, flags);
	j->a.hold_us = hold_us;
	pthread_create(t, NULL, pin_thread, j);
}

/* The pins read the page itself: stores made during the hold show. */
static void test_changed(const struct mode *m)
{
	uint64_t *p = map_marked(4);
	pthread_t t;
	struct pin_job j;
	start_pin(&t, &j, p, 4, m->flag, HOLD_LONG);
	sleep_ms(SETTLE_MS);
	p[0] = MARK | 100;
	p[2 * PAGE / 8] = MARK | 102;
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 4, name("%s: a 4-page pin held 300 ms pins 4", m->name));
	CHECK_EQ(j.a.changed, 2,
		 name("%s: stores to 2 of the pages during the hold: changed is 2", m->name));
	CHECK_EQ(j.a.first_word, MARK | 100,
		 name("%s: first_word is the word stored during the hold", m->name));
	munmap(p, 4 * PAGE);
}

/* Map and fill memory, so that freed pages would be handed out again. */
static void churn(void)
{
	size_t len = 256 * PAGE;
	uint64_t *q = map_anon(len, PROT_READ | PROT_WRITE);
	if (q == MAP_FAILED)
		return;
	for (size_t i = 0; i < len / 8; i++)
		q[i] = 0xdeadbeefdeadbeefULL;
	munmap(q, len);
}

/* A pinned page is not freed by munmap: the pin holds it until release. */
static void test_unmap_while_pinned(const struct mode *m)
{
	uint64_t *p = map_marked(64);
	pthread_t t;
	struct pin_job j;
	start_pin(&t, &j, p, 64, m->flag, HOLD_LONG);
	sleep_ms(SETTLE_MS);
	munmap(p, 64 * PAGE);
	double unmapped = now();
	churn();
	churn();
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 64, name("%s: 64 pages pinned for 300 ms", m->name));
	CHECK(unmapped < j.done - 0.05,
	      name("%s: munmap of the pinned range returns while the pins are held", m->name));
	CHECK_EQ(j.a.changed, 0,
		 name("%s: unmapped and memory reused during the hold: changed is 0", m->name));
	CHECK_EQ(j.a.first_word, MARK | 0,
		 name("%s: first_word is still the word stored before the munmap", m->name));
}

#define COW_BEFORE (MARK | 0xc0)	/* stored before fork */
#define COW_AFTER (MARK | 0xc1)		/* stored by the parent during the child's pin */

/*
 * The child of a copy-on-write check: pin the page shared with the parent
 * for 300 ms, telling the parent (one byte on tell) when it may store.
 * With unmap, a second thread pins while this one unmaps the page, so the
 * parent's mapping is the page's last: a kernel that let the parent write
 * into a page because it alone maps it would write into the pinned page.
 * Exit 0: the pin read COW_BEFORE; 1: it read something else; 2: no pin.
 */
static int cow_child(uint64_t *page, uint32_t flags, int unmap, int tell)
{
	pthread_t t;
	struct pin_job j;
	if (unmap) {
		start_pin(&t, &j, page, 1, flags, HOLD_LONG);
		sleep_ms(SETTLE_MS);
		munmap(page, PAGE);
		write(tell, "u", 1);
		pthread_join(t, NULL);
	} else {
		memset(&j, 0, sizeof j);
		j.a = request(page, PAGE, flags);
		j.a.hold_us = HOLD_LONG;
		write(tell, "p", 1);
		pin_thread(&j);
	}
	if (j.ret != 1)
		return 2;
	return j.a.first_word == COW_BEFORE ? 0 : 1;
}

static void test_cow(uint32_t flags, int unmap, const char *what)
{
	uint64_t *page = map_anon(PAGE, PROT_READ | PROT_WRITE);
	int tell[2];
	char c;
	page[0] = COW_BEFORE;
	pipe(tell);
	pid_t pid = fork();
	if (pid == 0) {
		close(tell[0]);
		_exit(cow_child(page, flags, unmap, tell[1]));
	}
	close(tell[1]);
	read(tell[0], &c, 1);
	if (!unmap)
		sleep_ms(SETTLE_MS);	/* the child's pin is taken by now */
	page[0] = COW_AFTER;
	tap_check_exit(pid, 0, what);
	close(tell[0]);
	munmap(page, PAGE);
}

static void test_cows(void)
{
	test_cow(0, 0, "a child's read pin of a page shared copy-on-write "
		 "does not see the parent's later store");
	test_cow(RB_PIN_WRITE, 0, "a child's write pin of a page shared copy-on-write "
		 "does not see the parent's later store");
	test_cow(0, 1, "a child's read pin does not see the parent's store "
		 "after the child unmapped the page (CVE-2020-29374)");
	test_cow(RB_PIN_WRITE, 1, "a child's write pin does not see the parent's store "
		 "after the child unmapped the page");
}

/*
 * Fork after pin: a pinned private page stays the parent's. The parent
 * pins its page for writing (held 300 ms), forks, and stores into the page;
 * the pin must read that store, and the child must still see the word from
 * before the fork. A fork that shares the pinned page copy-on-write makes
 * the parent's store copy the page away from the pin.
 */
static void test_fork_after_pin(uint32_t flags)
{
	uint64_t *page = map_anon(PAGE, PROT_READ | PROT_WRITE);
	pthread_t t;
	struct pin_job j;
	page[0] = COW_BEFORE;
	start_pin(&t, &j, page, 1, flags, HOLD_LONG);
	sleep_ms(SETTLE_MS);
	pid_t pid = fork();
	if (pid == 0) {
		sleep_ms(2 * SETTLE_MS);	/* after the parent's store */
		_exit(page[0] == COW_BEFORE ? 0 : 1);
	}
	page[0] = COW_AFTER;
	pthread_join(t, NULL);
	CHECK_EQ(j.ret, 1, name("fork after pin (%s): the page was pinned",
				flags & RB_PIN_FAST ? "fast" : "slow"));
	CHECK_EQ(j.a.first_word, COW_AFTER,
		 name("fork after pin (%s): the pin sees the parent's store made after the fork",
		      flags & RB_PIN_FAST ? "fast" : "slow"));
	tap_check_exit(pid, 0, "fork after pin: the child still sees the word from before the fork");
	munmap(page, PAGE);
}

/*
 * Pin during fork: a fast write pin taken while fork copies the address
 * space is still of the parent's own page. Fork decides per page whether
 * it may be pinned (then the child gets a copy) before it write-protects
 * it for sharing; a fast pin between the two would pin a page that fork
 * then shares with the child, and the parent's next store would copy it
 * away from the pin (mm/gup.c, "fork and the fast path"). Under
 * vm.debug_fork_pause=FORK_PAUSE_AT fork waits 1 s at this page between
 * the two, and the second thread pins 300 ms into that wait; the parent
 * stores after fork returns, while the pin is held, and the pin must read
 * that store. Without the pause the pin comes after the fork and the
 * checks hold as in test_cows.
 */
#define FORK_PAUSE_AT 0x100040000000ULL	/* tests/boots.txt: vm.debug_fork_pause */
#define PIN_INTO_FORK_MS 300
#define HOLD_ACROSS_FORK 1500000		/* us: past fork's 1 s pause and the store */

struct late_pin {
	struct pin_job j;
	long delay_ms;
};

static void *late_pin_thread(void *arg)
{
	struct late_pin *l = arg;
	sleep_ms(l->delay_ms);
	return pin_thread(&l->j);
}

static void test_pin_during_fork(void)
{
	uint64_t *page = mmap((void *)FORK_PAUSE_AT, PAGE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(page == (uint64_t *)FORK_PAUSE_AT, "pin during fork: the page is mapped");
	if (page != (uint64_t *)FORK_PAUSE_AT)
		return;
	page[0] = COW_BEFORE;
	struct late_pin l = { .delay_ms = PIN_INTO_FORK_MS };
	l.j.a = request(page, PAGE, RB_PIN_WRITE | RB_PIN_FAST);
	l.j.a.hold_us = HOLD_ACROSS_FORK;
	pthread_t t;
	pthread_create(&t, NULL, late_pin_thread, &l);
	pid_t pid = fork();
	if (pid == 0) {
		sleep_ms(2 * SETTLE_MS);	/* after the parent's store */
		_exit(page[0] == COW_BEFORE ? 0 : 1);
	}
	sleep_ms(SETTLE_MS);
	page[0] = COW_AFTER;
	pthread_join(t, NULL);
	CHECK_EQ(l.j.ret, 1, "pin during fork (fast): the page was pinned");
	CHECK_EQ(l.j.a.first_word, COW_AFTER,
		 "pin during fork (fast): the pin sees the parent's store made after the fork");
	tap_check_exit(pid, 0, "pin during fork: the child still sees the word from before the fork");
	munmap(page, PAGE);
}

/*
 * The sum of the numbers in /proc/gup, -1 if it cannot be read. The names
 * of its lines are not part of the contract, but all of them count pins
 * or fallbacks, so the sum must grow when pages are pinned.
 */
static long long gup_counter_sum(void)
{
	char line[128];
	long long sum = 0;
	FILE *f = fopen("/proc/gup", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *value = strrchr(line, ' '), *end;
		unsigned long long v = value ? strtoull(value + 1, &end, 10) : 0;
		if (value && end != value + 1 && (*end == '\n' || *end == '\0'))
			sum += (long long)v;
	}
	fclose(f);
	return sum;
}

static void test_proc_gup(void)
{
	long long before = gup_counter_sum();
	uint64_t *p = map_marked(16);
	CHECK(before >= 0, "/proc/gup can be read");
	pin_range(p, 16 * PAGE, RB_PIN_FAST);
	pin_range(p, 16 * PAGE, RB_PIN_SLOW);
	CHECK(gup_counter_sum() > before, "/proc/gup's counts grow when pages are pinned");
	munmap(p, 16 * PAGE);
}

int main(int argc, char **argv)
{
	bool fork_only = argc == 2 && !strcmp(argv[1], "during-fork");
	if (argc > 1 && !fork_only) {
		printf("usage: t_pin [during-fork]\nChecks SYS_rb_pin (Roundabout only): its errors, "
		       "fast and\nslow pins, pins held across munmap, and copy-on-write after fork.\n"
		       "during-fork: only the pin taken while fork copies (vm.debug_fork_pause).\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	if (!have_rb_pin())
		return tap_done();
	if (fork_only) {
		test_pin_during_fork();
		return tap_done();
	}
	tap_enter_scratch("t_pin");
	test_bad_args_pointer();
	test_bad_values();
	test_too_many_pages();
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		const struct mode *m = &modes[i];
		test_bad_memory(m);
		test_sixteen(m, 0);
		test_sixteen(m, RB_PIN_WRITE);
		test_shapes(m);
		test_file_pages(m);
		test_changed(m);
		test_unmap_while_pinned(m);
	}
	test_untouched(0);
	test_untouched(RB_PIN_WRITE);
	test_default_mode();
	test_hold();
	test_cows();
	test_fork_after_pin(RB_PIN_WRITE | RB_PIN_FAST);
	test_fork_after_pin(RB_PIN_WRITE | RB_PIN_SLOW);
	test_pin_during_fork();
	test_proc_gup();
	tap_leave_scratch();
	return tap_done();
}
