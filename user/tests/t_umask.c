/*
 * t_umask - umask(2): it returns the old mask, new files and directories
 * lose its bits, and a child inherits it. Run on Linux too.
 */
#include "tap.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	unlink(file);
	rmdir(sub);
	rmdir(dir);
	return tap_done();
}
