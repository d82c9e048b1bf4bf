/*
 * t_dio_race - O_DIRECT reads of a file while it is truncated and
 * rewritten, and while another file takes the blocks the truncation frees.
 *
 * A direct read looks a block up, then reads the disk, with no inode lock
 * held (fs/direct-io.c). If a truncation could free the block in between,
 * and another file get it and write it, the read would return that file's
 * data. So truncation waits for the direct reads in flight (fs/vfs.h,
 * "Direct I/O against truncation").
 *
 * Three threads read 4 KiB blocks of file A at random with O_DIRECT. The
 * main thread, for a few seconds, truncates A and C to nothing and writes
 * both again, 12 blocks each (all in i_block, no indirect block), in turns
 * A first, then C first. Both start allocating at the start of their block
 * group once truncated, so whichever is written first takes the lowest
 * free blocks: each round, A's blocks of the round before become C's.
 * Every 8-byte word carries a tag, its file, the round (generation) and
 * its own offset, so a read that returns anything but A's own block
 * at that offset, written whole in one round, says what it got.
 *
 * On Roundabout the boot gives dio.debug_delay_ms, which holds each read
 * between its block lookup and the disk read, so rounds of truncation and
 * rewriting land in that window on every read that looked a block up;
 * with dio.debug_no_wait (truncation does not wait) the test must say
 * "an O_DIRECT read returned another file's data" (or "...returned bytes
 * no file here wrote", when the block's new owner has not written it
 * yet). On Linux, or with no
 * delay, it passes as well; it needs a file system with O_DIRECT (not
 * tmpfs): the scratch directory is made under the current one.
 *
 * usage: t_dio_race [SECONDS]   (default 3)
 */
#include "tap.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define BLK 4096
#define NBLK 12				/* blocks per file: direct pointers only */
#define WORDS (BLK / 8)
#define READERS 3
#define TAG 0xd1ULL			/* the top byte of every word */
#define FILE_A 0xa
#define FILE_C 0xc

static int read_fd;			/* A, O_RDONLY | O_DIRECT, for the readers */
static atomic_int stop;
static atomic_long data_reads, eof_reads;

static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;
static char first[256];			/* [first_lock] the first wrong read, or "" */

static uint64_t word(unsigned file, unsigned gen, uint64_t off)
{
	return TAG << 56 | (uint64_t)file << 48 | (uint64_t)(gen & 0xffff) << 32 | off / 8;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *aligned(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, BLK, len) != 0) {
		fprintf(stderr, "t_dio_race: posix_memalign: out of memory\n");
		exit(2);
	}
	return p;
}

static void report(const char *what, int block, int w, uint64_t v)
{
	pthread_mutex_lock(&first_lock);
	if (!first[0])
		snprintf(first, sizeof first, "%s: block %d, word %d is %#llx", what, block, w,
			 (unsigned long long)v);
	pthread_mutex_unlock(&first_lock);
	atomic_store(&stop, 1);
}

/* Is buf A's own block `block`, written whole in one round? Else report. */
static void judge(const uint64_t *buf, int block)
{
	unsigned gen0 = (unsigned)(buf[0] >> 32) & 0xffff;
	for (int w = 0; w < WORDS; w++) {
		uint64_t v = buf[w], off = (uint64_t)block * BLK + (uint64_t)w * 8;
		if (v >> 56 != TAG) {
			report("an O_DIRECT read returned bytes no file here wrote", block, w, v);
			return;
		}
		if ((v >> 48 & 0xff) != FILE_A) {
			report("an O_DIRECT read returned another file's data", block, w, v);
			return;
		}
		if ((v & 0xffffffff) != off / 8) {
			report("an O_DIRECT read returned data from another offset", block, w, v);
			return;
		}
		if ((unsigned)(v >> 32 & 0xffff) != gen0) {
			report("an O_DIRECT read returned a block of two rounds", block, w, v);
			return;
		}
	}
}

static void *reader(void *arg)
{
	uint64_t *buf = aligned(BLK);
	uint64_t rnd = 0x9e3779b97f4a7c15ULL * (uintptr_t)arg + 1;
	while (!atomic_load(&stop)) {
		rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
		int block = (int)(rnd % NBLK);
		ssize_t n = pread(read_fd, buf, BLK, (off_t)block * BLK);
		if (n == 0) {			/* A is truncated: past its end */
			atomic_fetch_add(&eof_reads, 1);
			sched_yield();		/* let the rewrite run */
			continue;
		}
		if (n != BLK) {
			report(n < 0 ? "an O_DIRECT pread failed" : "an O_DIRECT pread was short",
			       block, 0, (uint64_t)n);
			break;
		}
		judge(buf, block);
		atomic_fetch_add(&data_reads, 1);
	}
	free(buf);
	return NULL;
}

/* Write file's NBLK blocks for round gen with one O_DIRECT pwrite. */
static int rewrite(int fd, unsigned file, unsigned gen, uint64_t *buf)
{
	for (int i = 0; i < NBLK * WORDS; i++)
		buf[i] = word(file, gen, (uint64_t)i * 8);
	return pwrite(fd, buf, NBLK * BLK, 0) == NBLK * BLK ? 0 : -1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	tap_start();
	tap_enter_scratch_here("t_dio_race");
	uint64_t *buf = aligned(NBLK * BLK);
	int a = open("a", O_RDWR | O_CREAT | O_DIRECT, 0644);
	int c = open("c", O_RDWR | O_CREAT | O_DIRECT, 0644);
	read_fd = open("a", O_RDONLY | O_DIRECT);
	if (a < 0 || c < 0 || read_fd < 0 || rewrite(a, FILE_A, 0, buf) || rewrite(c, FILE_C, 0, buf)) {
		perror("t_dio_race: O_DIRECT files in the current directory");
		tap_leave_scratch();
		return 2;
	}

	pthread_t th[READERS];
	for (uintptr_t i = 0; i < READERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)i);
	unsigned rounds = 0;
	int failed = 0;
	const char *what = "";
	for (double end = now() + seconds; now() < end && !atomic_load(&stop) && !failed;) {
		rounds++;
		int fa = ftruncate(a, 0), fc = ftruncate(c, 0);
		if (fa || fc) {
			failed = 1, what = "ftruncate";
		} else if (rounds & 1) {
			failed = rewrite(c, FILE_C, rounds, buf) || rewrite(a, FILE_A, rounds, buf);
			what = "an O_DIRECT pwrite";
		} else {
			failed = rewrite(a, FILE_A, rounds, buf) || rewrite(c, FILE_C, rounds, buf);
			what = "an O_DIRECT pwrite";
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);

	tap_check(!failed, "every truncation and O_DIRECT rewrite beside the readers succeeded",
		  "%s failed in round %u: %s", what, rounds, strerror(errno));
	tap_check(!first[0], "O_DIRECT reads racing truncation return only the file's own blocks",
		  "%s", first);
	/* A wrong read ends the run early, and shows enough raced anyway. */
	long reads = atomic_load(&data_reads), eofs = atomic_load(&eof_reads);
	tap_check((reads >= 20 && rounds >= 10) || first[0],
		  "the readers read blocks while rounds went by",
		  "%ld reads of data (and %ld at the end of the file) in %u rounds", reads, eofs,
		  rounds);
	printf("# %ld reads of data, %ld at the end of the file, %u rounds\n", reads, eofs, rounds);
	close(a);
	close(c);
	close(read_fd);
	free(buf);
	tap_leave_scratch();
	return tap_done();
}
