/*
 * ktest_pagecache_torture.c - the lockless lookup protocol (pagecache.h,
 * steps 1-5 against E1-E5) under load, in the manner of rcutorture.
 *
 * Several memfiles hold pages in which every 8-byte word names its place:
 * (file id, page index, generation). A page's place never changes while it
 * is cached at that place, so whatever a reader gets from find_get_page
 * must carry its own id and index in every word, even while a writer is
 * rewriting it (only the generation changes, word by word). A word with
 * another id or index - another file's page, another index's, a freed and
 * zeroed one - means a lookup returned a page that was not at that place.
 *
 * The words go in pairs: the first holds the generation, the second its
 * complement. A reader that races a writer (or a copy of the page that
 * races one) can see a pair half old, half new, or even a word half
 * written: such a torn pair is counted and skipped. A whole pair always
 * holds a generation already handed out to a writer; a newer one means
 * the reader saw bytes that no write had put there yet, and fails too.
 *
 * The threads:
 *   readers   one bound to each CPU: find_get_page at random places and
 *             check every word of each uptodate page; on a miss, now and
 *             then filemap_read the page (and check the copy) so the cache
 *             churns;
 *   writers   rewrite whole pages with a new generation (filemap_write),
 *             and now and then write a file back;
 *   truncator shrinks a file at a page boundary (size, then
 *             truncate_inode_pages), then re-extends it by writing;
 *   evictor   calls direct reclaim all the time, so eviction races every
 *             lookup even without pagecache.max_pages (with a tight cap
 *             the reclaim thread and adds at the cap evict too).
 *
 * The first wrong word stops the test (`not ok`, with the word). Each of
 * the broken kernels - pagecache.debug_skip_recheck, debug_plain_get,
 * debug_split_freeze, with pagecache.debug_delay_us to widen the windows -
 * must fail here: with a wrong word, or with the allocator's panic when a
 * page is freed twice or its count underflows.
 */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/smp.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/pagecache.h"
#include "mm/vmscan.h"
#include "mm/memfile.h"
#include "mm/slab.h"

CMDLINE_KEY(pc_torture_secs, "test.pagecache_seconds",
	    "tests: how long pagecache_torture runs (default 5)");

#define NFILES 4
#define NPAGES 32			/* pages per file */
#define WORDS (PAGE_SIZE / 8)
#define NWRITERS 2
#define STOP_WAIT_MS 10000		/* bound on waiting for the threads to stop */

/* A word: id in bits 63-56 (1..NFILES, so a zeroed page never passes),
 * index in bits 55-32, generation in bits 31-0. */
static u64 word_of(unsigned id, unsigned long index, u64 gen)
{
	return (u64)id << 56 | (u64)index << 32 | (gen & 0xffffffffULL);
}

/* Fill a page for generation gen: each pair is the generation, then its
 * complement. */
static void page_fill(u64 *words, unsigned id, unsigned long index, u64 gen)
{
	for (unsigned w = 0; w < WORDS; w += 2) {
		words[w] = word_of(id, index, gen);
		words[w + 1] = word_of(id, index, ~gen);
	}
}

/* Lock legend: [I] set before the threads start, [A] atomic. */
static struct memfile *files[NFILES];	/* [I] files[f] has id f + 1 */
static u64 gen_latest[NFILES];		/* [A] the last generation handed to a writer */
static int stop;			/* [A] */
static int errors;			/* [A] */
static int exited;			/* [A] threads that have returned */
static char first_error[200];		/* written by the first error only */
static u64 pages_checked, fills, rewrites, truncations;	/* [A] */
static u64 torn_pairs;			/* [A] see words_ok */

static u64 next_rand(u64 *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

static bool stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

/* what: "wrong page" (a word of another place) or "gen too new". */
static void torture_error(const char *what, unsigned f, unsigned long index, unsigned w,
			  u64 word, u64 latest)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_ACQ_REL) == 0)
		snprintf(first_error, sizeof(first_error),
			 "%s: file %u index %lu word %u is %#llx (file %llu index %llu gen %llu; "
			 "latest %llu) on cpu%d",
			 what, f + 1, index, w, (unsigned long long)word,
			 (unsigned long long)(word >> 56),
			 (unsigned long long)((word >> 32) & 0xffffff),
			 (unsigned long long)(word & 0xffffffffULL),
			 (unsigned long long)latest, smp_processor_id());
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);	/* stop at the first one */
}

/*
 * Check nwords words (whole pairs) that claim to be file f's page index.
 * True if each names that place and each untorn pair a generation already
 * handed out. The generation is read after the pair: a writer takes its
 * generation before it writes.
 */
static bool words_ok(const u64 *words, unsigned nwords, unsigned f, unsigned long index)
{
	u64 want = word_of(f + 1, index, 0);

	for (unsigned w = 0; w + 1 < nwords; w += 2) {
		u64 gen = READ_ONCE(words[w]), comp = READ_ONCE(words[w + 1]);
		u64 latest = __atomic_load_n(&gen_latest[f], __ATOMIC_ACQUIRE);
		/* The protocol check: every word names this file and index. */
		if ((gen & ~0xffffffffULL) != want || (comp & ~0xffffffffULL) != want) {
			bool first = (gen & ~0xffffffffULL) != want;
			torture_error("wrong page", f, index, first ? w : w + 1,
				      first ? gen : comp, latest);
			return false;
		}
		/* A pair that mixes two writes says nothing of either. */
		if (((gen ^ ~comp) & 0xffffffffULL) != 0) {
			__atomic_add_fetch(&torn_pairs, 1, __ATOMIC_RELAXED);
			continue;
		}
		if ((gen & 0xffffffffULL) > latest) {
			torture_error("gen too new", f, index, w, gen, latest);
			return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- readers */

/* A miss: read the page through the cache and check the copy. */
static void reader_fill(unsigned f, unsigned long index, u64 *buf)
{
	ssize_t n = filemap_read(&files[f]->mapping, buf, PAGE_SIZE, (u64)index * PAGE_SIZE);

	if (n > 0 && words_ok(buf, (unsigned)n / 8, f, index))
		__atomic_add_fetch(&fills, 1, __ATOMIC_RELAXED);
}

/* One lookup at a random place; checks the page if one comes back uptodate. */
static void reader_one(u64 *seed, u64 *buf)
{
	unsigned f = next_rand(seed) % NFILES;
	unsigned long index = next_rand(seed) % NPAGES;
	struct page *page = find_get_page(&files[f]->mapping, index);

	if (!page) {
		if (next_rand(seed) % 4 == 0)
			reader_fill(f, index, buf);
		return;
	}
	if (!test_bit(PG_uptodate, &page->flags)) {	/* still being filled */
		put_page(page);
		return;
	}
	smp_rmb();	/* the words after the flag (x86-64: a compiler barrier) */
	if (!words_ok(page_address(page), WORDS, f, index))
		return;	/* keep the suspect reference: dropping it may free a free page */
	put_page(page);
	__atomic_add_fetch(&pages_checked, 1, __ATOMIC_RELAXED);
}

static int torture_reader(void *arg)
{
	u64 seed = (u64)(long)arg * 104729 + 17, n = 0;
	u64 *buf = kmalloc(PAGE_SIZE);

	while (buf && !stopping()) {
		reader_one(&seed, buf);
		if (++n % 16 == 0)
			yield();
	}
	kfree(buf);
	__atomic_add_fetch(&exited, 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---------------------------------------------------------------- writers */

/* Rewrite file f's page index whole, with a new generation. */
static void rewrite_page(unsigned f, unsigned long index, u64 *buf)
{
	u64 gen = __atomic_add_fetch(&gen_latest[f], 1, __ATOMIC_ACQ_REL);

	page_fill(buf, f + 1, index, gen);
	if (filemap_write(&files[f]->mapping, buf, PAGE_SIZE, (u64)index * PAGE_SIZE) == PAGE_SIZE)
		__atomic_add_fetch(&rewrites, 1, __ATOMIC_RELAXED);
}

static int torture_writer(void *arg)
{
	u64 seed = (u64)(long)arg * 7919 + 5;
	u64 *buf = kmalloc(PAGE_SIZE);

	while (buf && !stopping()) {
		unsigned f = next_rand(&seed) % NFILES;
		rewrite_page(f, next_rand(&seed) % NPAGES, buf);
		if (next_rand(&seed) % 16 == 0)
			filemap_write_and_wait(&files[f]->mapping);	/* clean: evictable */
		yield();
	}
	kfree(buf);
	__atomic_add_fetch(&exited, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Shrink a file to a page boundary, then write its tail back. */
static int torture_truncator(void *arg)
{
	u64 seed = 4242;
	u64 *buf = kmalloc(PAGE_SIZE);

	while (buf && !stopping()) {
		unsigned f = next_rand(&seed) % NFILES;
		unsigned long from = next_rand(&seed) % NPAGES;
		struct address_space *m = &files[f]->mapping;
		WRITE_ONCE(m->size, (u64)from * PAGE_SIZE);	/* size first, then the pages */
		truncate_inode_pages(m, (u64)from * PAGE_SIZE);
		__atomic_add_fetch(&truncations, 1, __ATOMIC_RELAXED);
		for (unsigned long i = from; i < NPAGES && !stopping(); i++)
			rewrite_page(f, i, buf);
		WRITE_ONCE(m->size, (u64)NPAGES * PAGE_SIZE);	/* a racing writer may have lowered it */
		msleep(1 + next_rand(&seed) % 4);
	}
	kfree(buf);
	__atomic_add_fetch(&exited, 1, __ATOMIC_RELEASE);
	return 0;
}

static int torture_evictor(void *arg)
{
	while (!stopping()) {
		vmscan_direct_reclaim(8);
		yield();
	}
	__atomic_add_fetch(&exited, 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---------------------------------------------------------------- the test */

/* Files whose every store word names its place, generation 0. */
static bool torture_files_create(void)
{
	u64 *buf = kmalloc(PAGE_SIZE);
	bool ok = buf != NULL;

	for (unsigned f = 0; f < NFILES && ok; f++) {
		files[f] = memfile_create((u64)NPAGES * PAGE_SIZE);
		ok = files[f] != NULL;
		for (unsigned long i = 0; i < NPAGES && ok; i++) {
			page_fill(buf, f + 1, i, 0);
			memfile_store_write(files[f], (u64)i * PAGE_SIZE, buf, PAGE_SIZE);
		}
		gen_latest[f] = 0;
	}
	kfree(buf);
	return ok;
}

static struct task *start_thread(int (*fn)(void *), long arg, const char *name, int cpu)
{
	struct task *t = kthread_create(fn, (void *)arg, name);
	if (t) {
		if (cpu >= 0)
			kthread_bind(t, cpu);
		wake_up_process(t);
	}
	return t;
}

/* Stop the threads; true once all have returned (joined), false if some
 * did not within STOP_WAIT_MS (left unjoined: a stuck thread cannot be). */
static bool stop_threads(struct task **t, int nt)
{
	u64 deadline = ktime_ns() + STOP_WAIT_MS * 1000000ULL;

	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&exited, __ATOMIC_ACQUIRE) < nt && ktime_ns() < deadline)
		msleep(10);
	if (__atomic_load_n(&exited, __ATOMIC_ACQUIRE) < nt)
		return false;
	for (int i = 0; i < nt; i++)
		kthread_join(t[i]);
	return true;
}

KTEST(pagecache_torture)
{
	struct task *t[MAX_CPUS + NWRITERS + 2];
	int nt = 0, ncpu = num_online_cpus();
	u64 secs = cmdline_get_u64("test.pagecache_seconds", 5);
	u64 delay_us = cmdline_get_u64("pagecache.debug_delay_us", 0);
	struct pagecache_stats s0, s1;

	stop = errors = exited = 0;
	pages_checked = fills = rewrites = truncations = torn_pairs = 0;
	KT_ASSERT(torture_files_create());
	pagecache_get_stats(&s0);
	for (int cpu = 0; cpu < ncpu; cpu++)
		t[nt++] = start_thread(torture_reader, cpu, "pct_reader", cpu);
	for (int i = 0; i < NWRITERS; i++)
		t[nt++] = start_thread(torture_writer, i, "pct_writer", -1);
	t[nt++] = start_thread(torture_truncator, 0, "pct_trunc", -1);
	t[nt++] = start_thread(torture_evictor, 0, "pct_evict", -1);
	for (int i = 0; i < nt; i++)
		KT_NOT_NULL(t[i]);

	u64 end = ktime_ns() + secs * 1000000000ULL;
	while (ktime_ns() < end && !stopping())
		msleep(10);
	bool stopped = stop_threads(t, nt);
	pagecache_get_stats(&s1);
	pr_info("pagecache_torture: %llu pages checked, %llu fills, %llu rewrites, %llu truncations, "
		"%llu torn pairs skipped",
		(unsigned long long)pages_checked, (unsigned long long)fills,
		(unsigned long long)rewrites, (unsigned long long)truncations,
		(unsigned long long)torn_pairs);
	pr_info("pagecache_torture: lookups %llu, retries: speculative %llu, recheck %llu; "
		"evictions %llu, freeze failures %llu",
		(unsigned long long)(s1.lookups - s0.lookups),
		(unsigned long long)(s1.spec_retries - s0.spec_retries),
		(unsigned long long)(s1.recheck_retries - s0.recheck_retries),
		(unsigned long long)(s1.evictions - s0.evictions),
		(unsigned long long)(s1.freeze_failures - s0.freeze_failures));
	if (errors)
		KT_FAIL("%d errors; first: %s", errors, first_error);
	if (!stopped)
		KT_FAIL("%d of %d threads still running %d ms after the stop",
			nt - __atomic_load_n(&exited, __ATOMIC_ACQUIRE), nt, STOP_WAIT_MS);
	for (unsigned f = 0; f < NFILES; f++)
		memfile_destroy(files[f]);
	KT_GT(pages_checked, 0);
	KT_GT(s1.lookups, s0.lookups);
	KT_GT(s1.evictions, s0.evictions);
	if (delay_us)	/* the widened windows must be lost now and then */
		KT_GT(s1.spec_retries + s1.recheck_retries,
		      s0.spec_retries + s0.recheck_retries);
}
