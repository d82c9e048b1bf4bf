/*
 * t_held_at_poweroff.c - deleted files still open when the machine powers
 * off. Two children each create a file, write 64 KiB to it, unlink it and
 * go to sleep holding it open: one in pause(), one in a read of a pipe
 * that nobody will ever write. This program then exits; run as init's
 * program, that makes init exit and the kernel power off, which must end
 * both sleepers and release their files - freeing each inode and its
 * blocks - before the final sync. tests/disks.txt has e2fsck judge the
 * disk left behind. Roundabout only (it writes to /); prints one result
 * line in the ktest form that a disks.txt boot wants.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SIZE (64 * 1024)

static int hold_file(const char *path, int ready, int never)
{
	static char data[SIZE];
	memset(data, 'h', sizeof(data));
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, sizeof(data)) != SIZE || unlink(path))
		return 1;
	write(ready, "r", 1);
	if (never < 0) {
		pause();
	} else {
		char c;
		read(never, &c, 1);
	}
	return 2;	/* woken by something other than the power-off */
}

int main(void)
{
	int ready[2], never[2];
	if (pipe(ready) || pipe(never))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fork() == 0)
		_exit(hold_file("/held-in-pause", ready[1], -1));
	if (fork() == 0)
		_exit(hold_file("/held-in-pipe-read", ready[1], never[0]));
	char c;
	int n = 0;
	while (n < 2 && read(ready[0], &c, 1) == 1)
		n++;
	if (n == 2)
		printf("ok 1 deleted_files_held_open_by_sleepers_at_power_off\n");
	else
		printf("not ok 1 deleted_files_held_open_by_sleepers_at_power_off: a child failed\n");
	return n == 2 ? 0 : 1;	/* init exits with this, and the kernel powers off */
}
