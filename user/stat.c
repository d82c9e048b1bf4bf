/*
 * stat - print the fields of struct stat for each FILE, laid out like
 * GNU stat's default format, with numeric ids and times given as
 * seconds.nanoseconds since the epoch. Symbolic links are not followed.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *type_name(const struct stat *st)
{
	mode_t m = st->st_mode;
	if (S_ISREG(m))
		return st->st_size ? "regular file" : "regular empty file";
	return S_ISDIR(m) ? "directory" : S_ISLNK(m) ? "symbolic link" :
	       S_ISCHR(m) ? "character special file" : S_ISBLK(m) ? "block special file" :
	       S_ISFIFO(m) ? "fifo" : S_ISSOCK(m) ? "socket" : "unknown";
}

/* "-rw-r--r--" and friends. */
static void mode_string(mode_t m, char *s)
{
	static const char rwx[] = "rwxrwxrwx";
	s[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISCHR(m) ? 'c' :
	       S_ISBLK(m) ? 'b' : S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : '-';
	for (int i = 0; i < 9; i++)
		s[i + 1] = (m & (0400 >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		s[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = (m & S_IXOTH) ? 't' : 'T';
	s[10] = '\0';
}

static void print_stat(const char *name, const struct stat *st)
{
	char mode[11];
	mode_string(st->st_mode, mode);
	printf("  File: %s\n", name);
	printf("  Size: %-10lld\tBlocks: %-10lld IO Block: %-6ld %s\n",
	       (long long)st->st_size, (long long)st->st_blocks,
	       (long)st->st_blksize, type_name(st));
	printf("Device: %llxh/%llud\tInode: %-11llu Links: %lu",
	       (unsigned long long)st->st_dev, (unsigned long long)st->st_dev,
	       (unsigned long long)st->st_ino, (unsigned long)st->st_nlink);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		printf("     Device type: %u,%u", major(st->st_rdev), minor(st->st_rdev));
	printf("\nAccess: (%04o/%s)  Uid: (%5u)   Gid: (%5u)\n",
	       (unsigned)(st->st_mode & 07777), mode, (unsigned)st->st_uid,
	       (unsigned)st->st_gid);
	printf("Access: %lld.%09ld\n", (long long)st->st_atim.tv_sec, st->st_atim.tv_nsec);
	printf("Modify: %lld.%09ld\n", (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	printf("Change: %lld.%09ld\n", (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

int main(int argc, char **argv)
{
	int status = 0;
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		printf("usage: stat FILE...\n"
		       "Prints each FILE's inode fields (times as seconds since the epoch).\n");
		return argc < 2 ? 2 : 0;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (lstat(argv[i], &st) < 0) {
			warn("%s", argv[i]);
			status = 1;
			continue;
		}
		print_stat(argv[i], &st);
	}
	return status;
}
