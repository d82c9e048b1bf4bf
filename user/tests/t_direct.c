/*
 * t_direct - O_DIRECT reads and writes: the transfer goes between the
 * file and the caller's pages (pinned for it) instead of through a copy
 * in the page cache. Checked: aligned transfers, EINVAL for a misaligned
 * offset, length or buffer, coherence with the page cache (plain read and
 * write, MAP_SHARED mappings), EFAULT for buffers that cannot be pinned,
 * end of file, fork's copy-on-write, and the flag in F_GETFL/F_SETFL.
 *
 * Linux wants the alignment of the device's logical block (512 bytes on
 * most disks); Roundabout may want more. Buffers and offsets here are
 * 4096-aligned, and the misaligned ones are misaligned for both (1, 100,
 * 4000), so the results are the same everywhere. The scratch directory is
 * made under the current directory: run it on ext4 or ext2, not tmpfs.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#include "tap.h"

#define BLK 4096
#define NBLK 8
#define MIB (1024 * 1024)

/* A 4096-aligned buffer; exits if there is no memory (nothing to check). */
static unsigned char *aligned(size_t len)
{
	void *p = NULL;
	if (posix_memalign(&p, BLK, len) != 0) {
		fprintf(stderr, "t_direct: posix_memalign: out of memory\n");
		exit(2);
	}
	return p;
}

/* The byte at offset off of data made with seed: differs by block and by seed. */
static unsigned char pattern(unsigned seed, size_t off)
{
	return (unsigned char)(seed * 37 + off * 7 + (off >> 12) * 13 + 1);
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(seed, i);
}

/* p holds len bytes of seed's data as found at offset off. */
static int filled_at(const unsigned char *p, size_t len, unsigned seed, size_t off)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(seed, off + i))
			return 0;
	return 1;
}

static int filled(const unsigned char *p, size_t len, unsigned seed)
{
	return filled_at(p, len, seed, 0);
}

static int all_zero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static void *map_anon(size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* A new file of NBLK blocks of seed's bytes, written with plain write(). */
static int make_file(const char *name, unsigned seed)
{
	unsigned char *buf = aligned(NBLK * BLK);
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(buf, NBLK * BLK, seed);
	if (fd >= 0 && write(fd, buf, NBLK * BLK) != NBLK * BLK) {
		close(fd);
		fd = -1;
	}
	free(buf);
	return fd;
}

static void test_basic(void)
{
	unsigned char *out = aligned(MIB), *in = aligned(MIB);
	int fd = open("basic", O_DIRECT | O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "open with O_DIRECT|O_RDWR|O_CREAT succeeds");
	fill(out, NBLK * BLK, 1);
	CHECK_EQ(pwrite(fd, out, NBLK * BLK, 0), NBLK * BLK,
		 "O_DIRECT pwrite of 8 aligned blocks returns 32768");
	memset(in, 0, NBLK * BLK);
	CHECK_EQ(pread(fd, in, NBLK * BLK, 0), NBLK * BLK,
		 "O_DIRECT pread of the 8 blocks returns 32768");
	CHECK(filled(in, NBLK * BLK, 1), "the O_DIRECT pread gives the bytes written");

	fill(out, MIB, 2);
	CHECK_EQ(pwrite(fd, out, MIB, BLK), MIB, "O_DIRECT pwrite of 1 MiB (256 pages) in one call");
	memset(in, 0, MIB);
	CHECK(pread(fd, in, MIB, BLK) == MIB && filled(in, MIB, 2),
	      "O_DIRECT pread of the 1 MiB gives it back");

	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "lseek to 0 on an O_DIRECT descriptor");
	CHECK_EQ(read(fd, in, 2 * BLK), 2 * BLK, "O_DIRECT read() of 2 blocks returns 8192");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 2 * BLK, "O_DIRECT read() advances the offset by 8192");
	CHECK_EQ(pread(fd, in + 1, 0, 1), 0,
		 "an O_DIRECT pread of length 0 returns 0, even misaligned");
	close(fd);
	free(out);
	free(in);
}

static void test_alignment(void)
{
	unsigned char *buf = aligned(2 * BLK), *in = aligned(NBLK * BLK);
	int fd = open("align", O_DIRECT | O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(buf, 2 * BLK, 3);
	pwrite(fd, buf, 2 * BLK, 0);
	CHECK_ERR(pread(fd, buf, BLK, 100), EINVAL, "O_DIRECT pread at offset 100 gives EINVAL");
	CHECK_ERR(pread(fd, buf, 4000, 0), EINVAL, "O_DIRECT pread of 4000 bytes gives EINVAL");
	CHECK_ERR(pread(fd, buf + 1, BLK, 0), EINVAL,
		  "O_DIRECT pread into a buffer at an odd address gives EINVAL");
	fill(buf, 2 * BLK, 4);
	CHECK_ERR(pwrite(fd, buf, BLK, 100), EINVAL, "O_DIRECT pwrite at offset 100 gives EINVAL");
	CHECK_ERR(pwrite(fd, buf, 4000, 0), EINVAL, "O_DIRECT pwrite of 4000 bytes gives EINVAL");
	CHECK_ERR(pwrite(fd, buf + 1, BLK, 0), EINVAL,
		  "O_DIRECT pwrite from a buffer at an odd address gives EINVAL");
	CHECK(pread(fd, in, 2 * BLK, 0) == 2 * BLK && filled(in, 2 * BLK, 3),
	      "the misaligned pwrites changed nothing in the file");
	close(fd);
	free(buf);
	free(in);
}

/* Plain write() then an O_DIRECT read: the dirty cached data is written first. */
static void test_cache_to_direct(int plain, int direct, unsigned char *buf)
{
	fill(buf, 2 * BLK, 6);
	pwrite(plain, buf, 2 * BLK, 0);
	memset(buf, 0, 2 * BLK);
	CHECK(pread(direct, buf, 2 * BLK, 0) == 2 * BLK && filled(buf, 2 * BLK, 6),
	      "an O_DIRECT pread sees data just written with plain pwrite");
}

/* O_DIRECT write over cached pages: the cache must not keep the old data. */
static void test_direct_to_cache(int plain, int direct, unsigned char *buf)
{
	pread(plain, buf, NBLK * BLK, 0);	/* the old data is in the cache now */
	fill(buf, 2 * BLK, 7);
	CHECK_EQ(pwrite(direct, buf, 2 * BLK, 2 * BLK), 2 * BLK,
		 "O_DIRECT pwrite over pages in the page cache");
	memset(buf, 0, 2 * BLK);
	CHECK(pread(plain, buf, 2 * BLK, 2 * BLK) == 2 * BLK && filled(buf, 2 * BLK, 7),
	      "a plain pread on another descriptor sees the O_DIRECT write");
}

static void test_mapping(int direct, unsigned char *buf)
{
	volatile unsigned char *m = mmap(NULL, NBLK * BLK, PROT_READ | PROT_WRITE, MAP_SHARED,
					 direct, 0);
	CHECK(m != MAP_FAILED, "MAP_SHARED of a file opened with O_DIRECT");
	if (m == MAP_FAILED)
		return;
	unsigned char before = m[4 * BLK];	/* fault the page in */
	fill(buf, BLK, 8);
	pwrite(direct, buf, BLK, 4 * BLK);
	CHECK(m[4 * BLK] != before && filled((const unsigned char *)m + 4 * BLK, BLK, 8),
	      "a MAP_SHARED mapping sees an O_DIRECT write once it returned");
	for (int i = 0; i < BLK; i++)
		m[5 * BLK + i] = 0x5a;
	memset(buf, 0, BLK);
	pread(direct, buf, BLK, 5 * BLK);
	CHECK(buf[0] == 0x5a && buf[BLK - 1] == 0x5a,
	      "an O_DIRECT pread sees stores made through a MAP_SHARED mapping");
	munmap((void *)m, NBLK * BLK);
}

/*
 * A store through a mapping after an fsync of the page it dirtied is not
 * lost: the fsync's writeback must leave the page write-protected, so that
 * the next store marks it dirty again (Linux's page_mkclean). Without that
 * only the PTE knows of the store: an O_DIRECT pread (which writes back
 * the dirty cached pages, then reads the disk) reads the disk's older
 * bytes, and so does every later read once the page leaves the cache.
 */
static void test_mapping_after_fsync(int plain, int direct, unsigned char *buf)
{
	volatile unsigned char *m = mmap(NULL, BLK, PROT_READ | PROT_WRITE, MAP_SHARED, plain,
					 6 * BLK);
	if (m == MAP_FAILED) {
		CHECK(0, "MAP_SHARED of block 6");
		return;
	}
	m[0] = 0x11;
	fsync(plain);
	m[0] = 0x22;
	memset(buf, 0, BLK);
	pread(direct, buf, BLK, 6 * BLK);
	CHECK_EQ(buf[0], 0x22, "an O_DIRECT pread sees a store made through a mapping after fsync");
	munmap((void *)m, BLK);
	memset(buf, 0, BLK);
	pread(plain, buf, BLK, 6 * BLK);
	CHECK_EQ(buf[0], 0x22, "and so does a plain pread after munmap");
	m = mmap(NULL, BLK, PROT_READ | PROT_WRITE, MAP_SHARED, plain, 6 * BLK);
	if (m == MAP_FAILED)
		return;
	m[1] = 0x33;
	fsync(plain);
	m[1] = 0x44;
	fsync(plain);			/* must write the second store too */
	posix_fadvise(plain, 6 * BLK, BLK, POSIX_FADV_DONTNEED);
	memset(buf, 0, BLK);
	pread(direct, buf, BLK, 6 * BLK);
	CHECK_EQ(buf[1], 0x44, "a second fsync writes a second store made through a mapping");
	munmap((void *)m, BLK);
}

static void test_coherence(void)
{
	unsigned char *buf = aligned(NBLK * BLK);
	int plain = make_file("coherent", 5);
	int direct = open("coherent", O_RDWR | O_DIRECT);
	test_cache_to_direct(plain, direct, buf);
	test_direct_to_cache(plain, direct, buf);
	test_mapping(direct, buf);
	test_mapping_after_fsync(plain, direct, buf);
	close(plain);
	close(direct);
	free(buf);
}

/* Buffers the kernel cannot pin for the transfer's direction give EFAULT. */
static void test_faults(void)
{
	int fd = make_file("faults", 9);
	int direct = open("faults", O_RDWR | O_DIRECT);
	unsigned char *ro = map_anon(2 * BLK, PROT_READ);
	unsigned char *none = map_anon(BLK, PROT_NONE);
	unsigned char *gone = map_anon(BLK, PROT_READ | PROT_WRITE);
	unsigned char *half = map_anon(2 * BLK, PROT_READ | PROT_WRITE);
	munmap(gone, BLK);
	munmap(half + BLK, BLK);
	CHECK_ERR(pread(direct, ro, BLK, 0), EFAULT,
		  "O_DIRECT pread into a PROT_READ buffer gives EFAULT");
	CHECK(all_zero(ro, 2 * BLK), "the PROT_READ buffer is still zero");
	CHECK_ERR(pread(direct, gone, BLK, 0), EFAULT,
		  "O_DIRECT pread into an unmapped buffer gives EFAULT");
	CHECK_ERR(pread(direct, none, BLK, 0), EFAULT,
		  "O_DIRECT pread into a PROT_NONE buffer gives EFAULT");
	CHECK_ERR(pread(direct, half, 2 * BLK, 0), EFAULT,
		  "O_DIRECT pread into a buffer running into a hole fails whole with EFAULT");
	CHECK_EQ(pwrite(direct, ro, BLK, 0), BLK,
		 "O_DIRECT pwrite from a PROT_READ buffer succeeds (it only reads it)");
	CHECK_ERR(pwrite(direct, gone, BLK, BLK), EFAULT,
		  "O_DIRECT pwrite from an unmapped buffer gives EFAULT");
	unsigned char *in = aligned(BLK);
	CHECK(pread(fd, in, BLK, 0) == BLK && all_zero(in, BLK),
	      "the block written from the PROT_READ buffer holds its zeros");
	munmap(ro, 2 * BLK);
	munmap(none, BLK);
	munmap(half, BLK);
	close(fd);
	close(direct);
	free(in);
}

/* An O_DIRECT file of NBLK blocks of seed 10. */
static int direct_file(const char *name)
{
	int fd = make_file(name, 10);
	close(fd);
	return open(name, O_RDWR | O_DIRECT);
}

static void test_eof_aligned(unsigned char *buf)
{
	int fd = direct_file("eof");
	CHECK_EQ(pread(fd, buf, BLK, NBLK * BLK), 0,
		 "O_DIRECT pread at the end of a 32768-byte file returns 0");
	CHECK_EQ(pread(fd, buf, BLK, MIB), 0, "O_DIRECT pread far past the end returns 0");
	CHECK_EQ(pread(fd, buf, 2 * BLK, (NBLK - 1) * BLK), BLK,
		 "O_DIRECT pread of 8192 bytes straddling the end returns the last 4096");
	close(fd);
}

/*
 * A size that is not a multiple of the block: the read stops at the end
 * of file, mid-block (1808 = 10000 - 8192), not at the block's end.
 */
static void test_eof_partial(unsigned char *buf)
{
	int fd = direct_file("eof");
	ftruncate(fd, 10000);
	memset(buf, 0, 4 * BLK);
	CHECK_EQ(pread(fd, buf, 4 * BLK, 2 * BLK), 1808,
		 "O_DIRECT pread across the end of a 10000-byte file returns 1808");
	CHECK(filled_at(buf, 1808, 10, 2 * BLK), "those 1808 bytes are the file's");
	CHECK_EQ(pread(fd, buf, 4 * BLK, 0), 10000,
		 "O_DIRECT pread of 16384 bytes of the 10000-byte file returns 10000");
	CHECK_EQ(pread(fd, buf, BLK, 3 * BLK), 0,
		 "O_DIRECT pread of the block after the partial last one returns 0");
	close(fd);
}

/*
 * Writing past a partial last block: the bytes between the old end
 * (10000) and the block's end must read as zero, not as whatever the
 * truncated block held on the disk.
 */
static void test_eof_extend(unsigned char *buf)
{
	int fd = direct_file("eof");
	struct stat st;
	ftruncate(fd, 10000);
	fill(buf, BLK, 11);
	CHECK_EQ(pwrite(fd, buf, BLK, 3 * BLK), BLK, "O_DIRECT pwrite past the end of file");
	CHECK(fstat(fd, &st) == 0 && st.st_size == 4 * BLK,
	      "the write extends the file to 16384 bytes");
	memset(buf, 0xff, BLK);
	CHECK(pread(fd, buf, BLK, 2 * BLK) == BLK && filled_at(buf, 1808, 10, 2 * BLK) &&
	      all_zero(buf + 1808, BLK - 1808),
	      "the old last block reads as its data up to 10000, then zeros");
	close(fd);
}

static void test_eof(void)
{
	unsigned char *buf = aligned(4 * BLK);
	test_eof_aligned(buf);
	test_eof_partial(buf);
	test_eof_extend(buf);
	free(buf);
}

/*
 * An O_DIRECT read into memory that fork() left shared copy-on-write must
 * land in the reader's own copy: the kernel breaks copy-on-write before
 * it pins a page to be written.
 */
static void test_fork_cow(void)
{
	int fd = direct_file("cow");
	unsigned char *buf = aligned(BLK);
	int go[2];
	char c = 0;
	memset(buf, 'P', BLK);
	pipe(go);
	pid_t pid = fork();
	if (pid == 0) {
		read(go[0], &c, 1);		/* the parent's read is over */
		_exit(buf[0] == 'P' && buf[BLK - 1] == 'P' ? 0 : 1);
	}
	CHECK(pread(fd, buf, BLK, 0) == BLK && filled(buf, BLK, 10),
	      "O_DIRECT pread into a page shared copy-on-write with a child");
	write(go[1], "x", 1);
	tap_check_exit(pid, 0, "the child's copy of that page keeps its old bytes");
	close(go[0]);
	close(go[1]);
	close(fd);
	free(buf);
}

static void test_fcntl(void)
{
	int fd = direct_file("flags");
	char small[100];
	int fl = fcntl(fd, F_GETFL);
	CHECK(fl != -1 && (fl & O_DIRECT), "F_GETFL shows O_DIRECT");
	CHECK_OK(fcntl(fd, F_SETFL, fl & ~O_DIRECT), "F_SETFL without O_DIRECT succeeds");
	CHECK(!(fcntl(fd, F_GETFL) & O_DIRECT), "F_GETFL no longer shows O_DIRECT");
	CHECK_EQ(pread(fd, small, sizeof small, 1), sizeof small,
		 "with O_DIRECT cleared a misaligned pread succeeds");
	CHECK_OK(fcntl(fd, F_SETFL, fl), "F_SETFL with O_DIRECT succeeds");
	CHECK(fcntl(fd, F_GETFL) & O_DIRECT, "F_GETFL shows O_DIRECT set again");
	CHECK_ERR(pread(fd, small, sizeof small, 1), EINVAL,
		  "with O_DIRECT set again a misaligned pread gives EINVAL");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_direct\nChecks O_DIRECT reads and writes: alignment, coherence\n"
		       "with the page cache and mappings, EFAULT, end of file, F_SETFL.\n"
		       "Run it on a disk file system (ext2/ext4): its scratch directory\n"
		       "is made in the current directory.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	tap_enter_scratch_here("t_direct");
	test_basic();
	test_alignment();
	test_coherence();
	test_faults();
	test_eof();
	test_fork_cow();
	test_fcntl();
	tap_leave_scratch();
	return tap_done();
}
