/*
 * peerinit - the first process of the Linux peer boot (tools/bench-linux):
 * Debian's kernel with an initramfs of this program, peerbench, the
 * modules it loads and an empty ext2 image. Not part of Roundabout's
 * image; it is Linux's counterpart of Roundabout's init for one run.
 *
 * 1. Mount proc, sysfs, devtmpfs, debugfs and a tmpfs on /tmp.
 * 2. Load each module named in /etc/modules ("PATH PARAMS..." a line, in
 *    dependency order) with finit_module.
 * 3. Set fault_around_bytes to 4096: Linux then maps one page per file
 *    fault, as Roundabout does.
 * 4. Copy /disk.img onto the RAM disk /dev/ram0 and mount it as ext2 on
 *    /mnt (O_DIRECT needs a block device; tmpfs has none).
 * 5. Run the program /etc/run.argv names (NUL-separated argv, as
 *    Roundabout's init reads it) in /tmp, and wait for it.
 * 6. Print "peerinit: exit N" and end the machine through QEMU's
 *    isa-debug-exit port (0xf4): QEMU exits with status 2N+1.
 * Any failure before step 5 ends the machine with status 127.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4
#define MAX_ARGS 64

static void finish(int status)
{
	printf("peerinit: exit %d\n", status);
	fflush(stdout);
	sync();
	if (ioperm(DEBUG_EXIT_PORT, 1, 1) == 0)
		outb((unsigned char)status, DEBUG_EXIT_PORT);
	reboot(RB_POWER_OFF);	/* no isa-debug-exit device: power off */
	for (;;)
		pause();
}

static void fail(const char *what)
{
	fprintf(stderr, "peerinit: %s: %s\n", what, strerror(errno));
	finish(127);
}

static void mount_or_fail(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0)
		fail(dir);
}

/* Step 2: each line of /etc/modules is a module's path and its parameters. */
static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/etc/modules", "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char *params = line + strcspn(line, " ");
		if (*params)
			*params++ = '\0';
		int fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail(line);
		if (syscall(SYS_finit_module, fd, params, 0) < 0 && errno != EEXIST)
			fail(line);
		close(fd);
	}
	fclose(f);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail(path);
	close(fd);
}

/* Step 4: the image onto the RAM disk, then mount it. */
static void ram_disk(void)
{
	static char buf[1 << 16];
	int in = open("/disk.img", O_RDONLY), out;
	ssize_t n;
	if (in < 0)
		return;
	if ((out = open("/dev/ram0", O_WRONLY)) < 0)
		fail("/dev/ram0");
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			fail("/dev/ram0: write");
	if (n < 0 || fsync(out) < 0)
		fail("/disk.img");
	close(in);
	close(out);
	unlink("/disk.img");	/* give its memory back */
	mkdir("/mnt", 0755);
	if (mount("/dev/ram0", "/mnt", "ext2", 0, NULL) < 0)
		fail("mount /dev/ram0 on /mnt");
}

/* Step 5: run /etc/run.argv's program; its status as a shell reports it. */
static int run_program(void)
{
	static char buf[4096];
	char *argv[MAX_ARGS + 1];
	int argc = 0, st, fd = open("/etc/run.argv", O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (len <= 0)
		fail("/etc/run.argv");
	for (ssize_t i = 0; i < len && argc < MAX_ARGS; i += (ssize_t)strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		char *envp[] = { "PATH=/bin", "HOME=/", NULL };
		if (chdir("/tmp") == 0)
			execve(argv[0], argv, envp);
		fprintf(stderr, "peerinit: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fail("fork");
	for (;;) {
		pid_t r = wait(&st);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR)
			fail("wait");
	}
}

int main(void)
{
	mount_or_fail("proc", "/proc", "proc");
	mount_or_fail("sysfs", "/sys", "sysfs");
	mount_or_fail("devtmpfs", "/dev", "devtmpfs");
	mount_or_fail("debugfs", "/sys/kernel/debug", "debugfs");
	mount_or_fail("tmpfs", "/tmp", "tmpfs");
	load_modules();
	write_file("/sys/kernel/debug/fault_around_bytes", "4096");
	ram_disk();
	finish(run_program());
}
