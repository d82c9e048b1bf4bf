/*
 * t_enospc - a full disk loses nothing that was fsync'd (Roundabout's
 * tests/disks.txt boots it on a small image of its own; tools/check-disk
 * then runs e2fsck on the disk the kernel left and checks the files this
 * program lists in its manifest lines).
 *
 * It writes and fsyncs a file, then fills the disk with another until
 * write fails with ENOSPC, checks that a new file cannot grow either,
 * fsyncs everything, and reads the first file back. The results are
 * printed as ktest-style lines ("ok N name"), which the disk test counts.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "tap.h"

#define KEEP_SIZE (256 * 1024)

static char keep[KEEP_SIZE], chunk[65536], back[KEEP_SIZE];
static int n_ok, n_bad;

static void report(int ok, const char *name)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", n_ok + n_bad + 1, name);
	ok ? n_ok++ : n_bad++;
}

static uint64_t fnv1a(const char *path, long *size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = open(path, O_RDONLY);
	long n, total = 0;
	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		for (long i = 0; i < n; i++)
			h = (h ^ (unsigned char)chunk[i]) * 0x100000001b3ULL;
		total += n;
	}
	close(fd);
	*size = total;
	return h;
}

static void manifest_file(const char *path)
{
	long size;
	uint64_t h = fnv1a(path, &size);
	printf("manifest file %s %ld %016llx\n", path, size, (unsigned long long)h);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < KEEP_SIZE; i++)
		keep[i] = (char)(i * 7 + i / 4096);
	int fd = open("/keep", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	report(fd >= 0 && write(fd, keep, KEEP_SIZE) == KEEP_SIZE && fsync(fd) == 0,
	       "enospc_fsynced_file_written");
	close(fd);

	memset(chunk, 'f', sizeof chunk);
	fd = open("/filler", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long total = 0, r;
	int e = 0;
	while ((r = write(fd, chunk, sizeof chunk)) > 0)
		total += r;
	e = errno;
	report(r < 0 && e == ENOSPC && total > 0, "enospc_write_until_full_gives_enospc");
	report(fsync(fd) == 0 || errno == ENOSPC, "enospc_fsync_of_full_file_is_clean_or_enospc");
	close(fd);
	struct stat st;
	report(stat("/filler", &st) == 0 && st.st_size == total, "enospc_full_file_has_the_bytes_written");

	fd = open("/more", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	errno = 0;
	r = fd >= 0 ? write(fd, chunk, sizeof chunk) : -1;
	report(r < (long)sizeof chunk && (r >= 0 || errno == ENOSPC), "enospc_new_file_cannot_grow");
	close(fd);
	unlink("/more");

	fd = open("/keep", O_RDONLY);
	report(fd >= 0 && read(fd, back, KEEP_SIZE) == KEEP_SIZE && !memcmp(back, keep, KEEP_SIZE),
	       "enospc_fsynced_file_intact_after_disk_full");
	close(fd);
	sync();
	manifest_file("/keep");
	manifest_file("/filler");
	printf("manifest end 2 0\n");
	printf("# %d passed, %d failed\n", n_ok, n_bad);
	return n_bad ? 1 : 0;
}
