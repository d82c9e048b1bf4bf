/*
 * peerinit - the first process of the Linux peer boot (tools/bench-linux):
 * Debian's kernel with an initramfs of this program, the benchmarks, the
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
 * 5. Mount each disk /etc/disks names ("DEVICE DIR" a line: a disk QEMU
 *    gives the machine, holding ext2) on DIR, once its device node is
 *    there (a driver loaded in step 2 makes it).
 * 6. Run the program /etc/run.argv names (NUL-separated argv, as
 *    Roundabout's init reads it) in /tmp, and wait for it; then unmount
 *    step 5's disks, so that their images are left clean.
 * 7. Print "peerinit: exit N" and end the machine through QEMU's
 *    isa-debug-exit port (0xf4): QEMU exits with status 2N+1.
 * Any failure before step 6 ends the machine with status 127.
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
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4
#define MAX_ARGS 64
#define MAX_DISKS 4
#define DEVICE_WAIT_MS 10000	/* how long step 5 waits for a device node */

static char disk_dirs[MAX_DISKS][128];	/* step 5's mount points, for step 6 */
static int ndisks;

static void finish(int status)
{
	printf("peerinit: exit %d\n", status);
	fflush(stdout);
	tcdrain(STDOUT_FILENO);	/* the line out of the UART before QEMU ends */
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

/* Step 5: mount each "DEVICE DIR" of /etc/disks, waiting for DEVICE. */
static void mount_disks(void)
{
	char dev[128], dir[128];
	FILE *f = fopen("/etc/disks", "r");
	if (!f)
		return;
	while (ndisks < MAX_DISKS && fscanf(f, "%127s %127s", dev, dir) == 2) {
		struct timespec tick = { 0, 10 * 1000000L };
		for (int ms = 0; access(dev, F_OK) < 0 && ms < DEVICE_WAIT_MS; ms += 10)
			nanosleep(&tick, NULL);
		mkdir(dir, 0755);
		if (mount(dev, dir, "ext2", 0, NULL) < 0)
			fail(dev);
		snprintf(disk_dirs[ndisks++], sizeof disk_dirs[0], "%s", dir);
	}
	fclose(f);
}

static void unmount_disks(void)
{
	sync();
	while (ndisks > 0)
		if (umount(disk_dirs[--ndisks]) < 0)
			fprintf(stderr, "peerinit: umount %s: %s\n", disk_dirs[ndisks],
				strerror(errno));
}

/* Step 6: run /etc/run.argv's program; its status as a shell reports it. */
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
	mount_disks();
	int status = run_program();
	unmount_disks();
	finish(status);
}
