/*
 * t_unmap_last_ref - munmap that drops a deleted file's last reference,
 * then a write whose source must be faulted in.
 *
 * The first puts the inode under mmap_lock, and its eviction takes the
 * inode's i_mutex (mmap_lock -> i_mutex); the second holds the written
 * file's i_mutex while it faults its source in (i_mutex -> mmap_lock).
 * Both orders in one kernel can deadlock two threads; Roundabout's lock
 * checker reports the pair even from one thread, so this sequence finds
 * it at once. The fix puts the unmapped file after mmap_lock is dropped.
 * Run on Linux too.
 */
#include "tap.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	char gone[64], kept[64];
	const char *dir = access("/tmp", W_OK) ? "." : "/tmp";
	tap_start();
	snprintf(gone, sizeof gone, "%s/lastref.%d", dir, (int)getpid());
	snprintf(kept, sizeof kept, "%s/lastref-w.%d", dir, (int)getpid());
	for (int round = 0; round < 3; round++) {
		int fd = open(gone, O_CREAT | O_RDWR | O_TRUNC, 0644);
		char page[4096];
		memset(page, 'g', sizeof page);
		CHECK(fd >= 0 && write(fd, page, sizeof page) == (ssize_t)sizeof page,
		      "a file with one block");
		char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		CHECK(m != MAP_FAILED && m[0] == 'g', "mapped and read");
		close(fd);
		unlink(gone);
		CHECK_OK(munmap(m, 4096), "munmap drops the deleted file's last reference");
		char *src = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int w = open(kept, O_CREAT | O_RDWR | O_TRUNC, 0644);
		CHECK(w >= 0 && src != MAP_FAILED, "a file to write and an untouched source");
		CHECK_EQ(pwrite(w, src, 8192, 0), 8192, "pwrite faults its source in");
		close(w);
		munmap(src, 8192);
		unlink(kept);
	}
	return tap_done();
}
