/*
 * t_rw_mapped - read() into, and write() from, a MAP_SHARED mapping of
 * the very file being read or written.
 *
 * The kernel copies between a page-cache page and the user's buffer. When
 * the buffer is a shared mapping of the same file, touching it faults in
 * a page of that file, which takes that page's lock - perhaps the page
 * being copied. A kernel that copied while holding the page lock would
 * wait for itself here; these checks must complete (a hang is a failure)
 * and leave the right bytes. Each case maps afresh, so the mapping's pages
 * are first touched by the kernel's copy, not by the program.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#include "tap.h"

#define BLK 4096
#define NBLK 16

/* The byte the file holds at offset off, as written by make_file. */
static unsigned char pattern(size_t off)
{
	return (unsigned char)(off * 7 + (off >> 12) * 13 + 1);
}

/* A file of NBLK blocks of pattern(); its descriptor, open for both. */
static int make_file(const char *name)
{
	static unsigned char buf[NBLK * BLK];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = pattern(i);
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
		fprintf(stderr, "t_rw_mapped: cannot make %s: %s\n", name, strerror(errno));
		exit(2);
	}
	return fd;
}

/* The file's len bytes at off hold pattern() of the offsets from src on. */
static int file_holds(int fd, size_t off, size_t len, size_t src)
{
	static unsigned char got[NBLK * BLK];
	if (len > sizeof got || pread(fd, got, len, (off_t)off) != (ssize_t)len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (got[i] != pattern(src + i))
			return 0;
	return 1;
}

static unsigned char *map_blocks(int fd, size_t first, size_t n)
{
	void *p = mmap(NULL, n * BLK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)(first * BLK));
	if (p == MAP_FAILED) {
		fprintf(stderr, "t_rw_mapped: mmap: %s\n", strerror(errno));
		exit(2);
	}
	return p;
}

/* read() into a mapping of other blocks of the same file: a copy between files' pages. */
static void test_read_into_other_blocks(void)
{
	int fd = make_file("read_other");
	unsigned char *map = map_blocks(fd, 8, 4);
	CHECK_EQ(pread(fd, map, 4 * BLK, 0), 4 * BLK,
		 "pread into a shared mapping of blocks 8-11 of the same file gives every byte");
	CHECK(file_holds(fd, 8 * BLK, 4 * BLK, 0), "blocks 8-11 now hold blocks 0-3");
	CHECK(file_holds(fd, 0, 4 * BLK, 0), "blocks 0-3 are unchanged");
	munmap(map, 4 * BLK);
	close(fd);
}

/* read() of a range into the mapping of that same range: each page onto itself. */
static void test_read_onto_itself(void)
{
	int fd = make_file("read_self");
	unsigned char *map = map_blocks(fd, 0, 4);
	CHECK_EQ(lseek(fd, BLK, SEEK_SET), BLK, "lseek to block 1");
	CHECK_EQ(read(fd, map + BLK, 2 * BLK), 2 * BLK,
		 "read of blocks 1-2 into their own shared mapping gives every byte");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3 * BLK, "the offset moved by the bytes read");
	CHECK(file_holds(fd, 0, NBLK * BLK, 0), "the file is unchanged");
	munmap(map, 4 * BLK);
	close(fd);
}

/* Offsets in the file and in the mapping that do not line up with each other. */
static void test_read_misaligned(void)
{
	int fd = make_file("read_misaligned");
	unsigned char *map = map_blocks(fd, 10, 4);
	CHECK_EQ(pread(fd, map + 100, 2 * BLK + 300, 5000), 2 * BLK + 300,
		 "pread at 5000 into a shared mapping of the same file at +100, across pages");
	CHECK(file_holds(fd, 10 * BLK + 100, 2 * BLK + 300, 5000),
	      "the bytes from 5000 are now at block 10 + 100");
	munmap(map, 4 * BLK);
	close(fd);
}

/* write() from a mapping of other blocks of the same file. */
static void test_write_from_other_blocks(void)
{
	int fd = make_file("write_other");
	unsigned char *map = map_blocks(fd, 0, 4);
	CHECK_EQ(pwrite(fd, map, 4 * BLK, 8 * BLK), 4 * BLK,
		 "pwrite from a shared mapping of blocks 0-3 to blocks 8-11 of the same file");
	CHECK(file_holds(fd, 8 * BLK, 4 * BLK, 0), "blocks 8-11 now hold blocks 0-3");
	munmap(map, 4 * BLK);
	close(fd);
}

/* write() of a range from the mapping of that same range: each page from itself. */
static void test_write_onto_itself(void)
{
	int fd = make_file("write_self");
	unsigned char *map = map_blocks(fd, 0, 4);
	CHECK_EQ(lseek(fd, BLK, SEEK_SET), BLK, "lseek to block 1");
	CHECK_EQ(write(fd, map + BLK, 2 * BLK), 2 * BLK,
		 "write of blocks 1-2 from their own shared mapping takes every byte");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 3 * BLK, "the offset moved by the bytes written");
	CHECK(file_holds(fd, 0, NBLK * BLK, 0), "the file is unchanged");
	munmap(map, 4 * BLK);
	close(fd);
}

/* write() that extends the file with bytes from a mapping of its own start. */
static void test_write_append_from_self(void)
{
	int fd = make_file("write_append");
	unsigned char *map = map_blocks(fd, 0, 4);
	CHECK_EQ(pwrite(fd, map + 10, 3 * BLK, NBLK * BLK + 50), 3 * BLK,
		 "pwrite past the end from a shared mapping of the same file's start");
	CHECK_EQ(lseek(fd, 0, SEEK_END), NBLK * BLK + 50 + 3 * BLK, "the file grew by as much");
	CHECK(file_holds(fd, NBLK * BLK + 50, 3 * BLK, 10), "the new bytes are the start's");
	munmap(map, 4 * BLK);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("usage: t_rw_mapped\nChecks read() into and write() from a MAP_SHARED\n"
		       "mapping of the same file: each completes with the right bytes.\n");
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	tap_start();
	tap_enter_scratch_here("t_rw_mapped");
	test_read_into_other_blocks();
	test_read_onto_itself();
	test_read_misaligned();
	test_write_from_other_blocks();
	test_write_onto_itself();
	test_write_append_from_self();
	tap_leave_scratch();
	return tap_done();
}
