/*
 * t_rmap.c - mapped file pages under page-cache pressure (Roundabout only:
 * it reads /proc/vm and /proc/pagecache, and is booted with a small
 * pagecache.max_pages so reclaim must evict pages that are mapped).
 *
 * Reclaim may evict a page that a process maps only after taking it out of
 * the process's page tables (reverse mapping). The checks: the contents
 * read through a mapping stay right while the cache churns; a store made
 * through a MAP_SHARED mapping after the page was written back once
 * survives eviction; and the counters show that mapped pages really were
 * unmapped and evicted.
 *
 * Writeback write-protects the mappings of the page it cleans
 * (page_mkclean), so the second store faults and dirties the page again:
 * the PTE's dirty bit is then a second record of it, not the only one.
 * Booted with vm.debug_no_mkclean the PTE stays writable and the dirty bit
 * is all that remembers the store; reclaim must carry it over to the page
 * (try_to_unmap), which is what broken_rmap_dirty_is_caught checks.
 */
#include "tap.h"
#include <fcntl.h>
#include <sys/mman.h>

#define MIB (1024 * 1024)

static long counter(const char *file, const char *name)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(file, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(name);
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atol(line + n + 1);
	}
	fclose(f);
	return v;
}

static unsigned char pat(long i)
{
	return (unsigned char)(i * 131 + (i >> 12));
}

static int make_file(const char *name, long size)
{
	int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	static unsigned char buf[65536];
	for (long off = 0; off < size; off += sizeof(buf)) {
		for (long i = 0; i < (long)sizeof(buf); i++)
			buf[i] = pat(off + i);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	}
	return fd;
}

/* Read a whole file with read(), to push other pages out of the cache. */
static void churn(const char *name)
{
	static char buf[65536];
	int fd = open(name, O_RDONLY);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

int main(void)
{
	tap_start();
	long unmaps0 = counter("/proc/vm", "rmap_unmaps");
	long evict0 = counter("/proc/pagecache", "evictions");
	CHECK(unmaps0 >= 0 && evict0 >= 0, "/proc/vm and /proc/pagecache have the counters");

	int fd = make_file("rmap.dat", 4 * MIB);
	int other = make_file("churn.dat", 4 * MIB);
	CHECK(fd >= 0 && other >= 0, "two 4 MiB files written");
	close(other);
	fsync(fd);
	unsigned char *map = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "the first file maps MAP_SHARED");
	long bad = 0;
	for (long i = 0; i < 4 * MIB; i++)
		bad += map[i] != pat(i);
	CHECK_EQ(bad, 0, "every byte reads right through the mapping");

	map[100] = 0xAB;			/* dirty page 0 through the mapping */
	fsync(fd);				/* written back: PG_dirty clean again */
	map[200] = 0xCD;			/* faults again (or, without page_mkclean, only the PTE's D bit knows) */
	churn("churn.dat");
	churn("churn.dat");

	long unmaps = counter("/proc/vm", "rmap_unmaps") - unmaps0;
	long evicted = counter("/proc/pagecache", "evictions") - evict0;
	CHECK(unmaps > 0, "reclaim unmapped mapped pages");
	CHECK(evicted > 0, "and evicted pages");
	printf("# %ld unmapped, %ld evicted\n", unmaps, evicted);

	bad = 0;
	for (long i = 0; i < 4 * MIB; i++) {
		unsigned char want = i == 100 ? 0xAB : i == 200 ? 0xCD : pat(i);
		bad += map[i] != want;
	}
	CHECK_EQ(bad, 0, "after eviction every byte faults back right");

	munmap(map, 4 * MIB);
	churn("churn.dat");
	unsigned char b[2];
	CHECK_EQ(pread(fd, b, 1, 200), 1, "read the stored byte back with pread");
	CHECK_EQ(b[0], 0xCD, "a store seen only by the PTE's dirty bit was written back");
	close(fd);
	unlink("rmap.dat");
	unlink("churn.dat");
	return tap_done();
}
