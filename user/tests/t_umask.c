/*
 * t_umask - umask(2): it returns the old mask, new files and directories
 * lose its bits, and a child inherits it; then chmod and chown, which
 * store what they are given (type bits kept, set-uid dropped by a change
 * of owner). Run on Linux too, as any user: chown gives the file to the
 * owner it already has.
 */
#include "tap.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0xdead : st.st_mode;
}

static void modes_and_owners(const char *file, const char *sub)
{
	char link[96], dangling[96];
	snprintf(link, sizeof link, "%s.link", sub);
	snprintf(dangling, sizeof dangling, "%s.nowhere", sub);
	CHECK_OK(chmod(file, 0604), "chmod a file to 0604");
	CHECK_EQ(mode_of(file), S_IFREG | 0604, "stat shows 0604, a regular file still");
	CHECK_OK(chmod(file, S_IFDIR | 04751), "chmod with type bits in the mode");
	CHECK_EQ(mode_of(file), S_IFREG | 04751, "only the permission bits are taken");
	int fd = open(file, O_RDONLY);
	CHECK_OK(fchmod(fd, 0640), "fchmod through a read-only descriptor");
	CHECK_EQ(mode_of(file), S_IFREG | 0640, "and it is stored");
	CHECK_OK(fchmodat(AT_FDCWD, file, 0600, 0), "fchmodat");
	CHECK_EQ(mode_of(file), S_IFREG | 0600, "and it is stored");
	CHECK_OK(symlink(file, link), "a symbolic link to the file");
	CHECK_OK(chmod(link, 0644), "chmod through the link");
	CHECK_EQ(mode_of(file), S_IFREG | 0644, "changes the file it points to");

	uid_t u = getuid();
	gid_t g = getgid();
	struct stat st;
	CHECK_OK(chmod(file, 06755), "set-uid and set-gid with group execute");
	CHECK_OK(chown(file, u, g), "chown to the owners it has");
	CHECK(!stat(file, &st) && st.st_uid == u && st.st_gid == g, "the owners are as given");
	CHECK_EQ(st.st_mode & 07777, 0755, "a change of owner drops set-uid and set-gid");
	CHECK_OK(chmod(file, 02644), "set-gid without group execute (a lock mark)");
	CHECK_OK(fchown(fd, (uid_t)-1, (gid_t)-1), "fchown with -1, -1");
	CHECK_EQ(mode_of(file) & 07777, 02644, "keeps the lock mark");
	CHECK_OK(chmod(sub, 02755), "a directory with set-gid");
	CHECK_OK(chown(sub, (uid_t)-1, g), "chown of the directory");
	CHECK_EQ(mode_of(sub) & 07777, 02755, "keeps set-gid: it marks inheritance there");
	CHECK_OK(fchownat(fd, "", u, (gid_t)-1, AT_EMPTY_PATH), "fchownat with AT_EMPTY_PATH");
	CHECK_ERR(fchownat(AT_FDCWD, file, u, g, 0x1), EINVAL, "fchownat with an unknown flag: EINVAL");
	close(fd);

	CHECK_OK(symlink("no-such-file", dangling), "a dangling link");
	CHECK_ERR(chown(dangling, u, g), ENOENT, "chown follows it: ENOENT");
	CHECK_OK(lchown(dangling, u, g), "lchown changes the link itself");
	CHECK_OK(fchownat(AT_FDCWD, dangling, u, g, AT_SYMLINK_NOFOLLOW), "so does AT_SYMLINK_NOFOLLOW");
	CHECK_ERR(chmod(dangling, 0644), ENOENT, "chmod follows it: ENOENT");
	CHECK_ERR(fchmod(-1, 0644), EBADF, "fchmod of a closed descriptor: EBADF");
	CHECK_ERR(fchown(-1, u, g), EBADF, "fchown of a closed descriptor: EBADF");
	int p[2];
	CHECK_OK(pipe(p), "a pipe");
	CHECK_OK(fchmod(p[0], 0600), "fchmod of a pipe succeeds");
	close(p[0]);
	close(p[1]);
	unlink(link);
	unlink(dangling);
}

int main(void)
{
	char dir[64], file[80], sub[80];
	tap_start();
	snprintf(dir, sizeof dir, "%s/umask.%d", access("/tmp", W_OK) ? "." : "/tmp", (int)getpid());
	snprintf(file, sizeof file, "%s/f", dir);
	snprintf(sub, sizeof sub, "%s/d", dir);
	mode_t old = umask(027);
	CHECK_EQ(umask(027), 027, "umask returns the mask it replaced");
	CHECK_OK(mkdir(dir, 0777), "mkdir under umask 027");
	struct stat st;
	CHECK(!stat(dir, &st) && (st.st_mode & 0777) == 0750, "the directory is 0750");
	int fd = open(file, O_CREAT | O_WRONLY, 0666);
	CHECK(fd >= 0, "create a file asking for 0666");
	CHECK(!fstat(fd, &st) && (st.st_mode & 0777) == 0640, "the file is 0640");
	close(fd);
	umask(0);
	CHECK_OK(mkdir(sub, 0751), "mkdir under umask 0");
	CHECK(!stat(sub, &st) && (st.st_mode & 0777) == 0751, "the directory keeps every bit asked for");
	umask(077);
	pid_t pid = fork();
	if (pid == 0)
		_exit(umask(0) == 077 ? 0 : 1);
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a child inherits the mask");
	CHECK_EQ(umask(01777) & 0777, 077, "the mask keeps only permission bits");
	CHECK_EQ(umask(old), 0777, "umask(01777) stored 0777");
	modes_and_owners(file, sub);
	unlink(file);
	rmdir(sub);
	rmdir(dir);
	return tap_done();
}
