/*
 * t_shell.c - a scripted shell session: pipelines, redirections (into
 * /dev/null too), $?, background jobs and wait, cd, run through
 * `/bin/sh -c` with the output compared to what a POSIX shell prints.
 * On Linux /bin/sh is the host's shell (dash or bash), so the same checks
 * also hold Roundabout's sh to the reference.
 */
#include "tap.h"
#include <fcntl.h>

/* Run `sh -c script` in the current directory; its stdout, NUL-terminated. */
static char *run(const char *script, int *status)
{
	static char out[4096];
	int p[2];
	if (pipe(p))
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl("/bin/sh", "sh", "-c", script, (char *)0);
		_exit(126);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(out) - 1 && (r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(p[0]);
	waitpid(pid, status, 0);
	return out;
}

static void expect(const char *script, const char *want, int want_status, const char *what)
{
	int st = -1;
	char *got = run(script, &st);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	tap_check(got && !strcmp(got, want) && code == want_status, what,
		  "script %s: got \"%s\" status %d, want \"%s\" status %d", script,
		  got ? got : "(none)", code, want, want_status);
}

int main(void)
{
	tap_start();
	char dir[64];
	snprintf(dir, sizeof(dir), "t_shell.%d", getpid());
	mkdir(dir, 0755);
	if (chdir(dir)) {
		printf("not ok 1 - chdir into a scratch folder\n");
		return 1;
	}
	expect("echo hello world", "hello world\n", 0, "a command with arguments");
	expect("echo one | cat", "one\n", 0, "a two-stage pipeline");
	expect("echo a b c | cat | cat | cat", "a b c\n", 0, "a four-stage pipeline");
	expect("echo first > f; cat f", "first\n", 0, "> creates a file");
	expect("echo again >> f; cat < f", "first\nagain\n", 0, ">> appends and < reads");
	expect("echo new > f; cat f", "new\n", 0, "> truncates an existing file");
	expect("cat missing-file 2> err; echo $?", "1\n", 0, "2> takes the error and $? is 1");
	expect("false; echo $?", "1\n", 0, "$? after false");
	expect("true; echo $?", "0\n", 0, "$? after true");
	expect("exit 7", "", 7, "exit N sets the status");
	expect("no-such-program-here; echo $?", "127\n", 0, "a missing command gives 127");
	expect("mkdir d; cd d; echo in > x; cd ..; cat d/x", "in\n", 0, "cd into and out of a folder");
	expect("echo 'single quoted  spaces' \"and double\"", "single quoted  spaces and double\n", 0,
	       "quotes keep their spaces");
	expect("echo bg > b & wait; cat b", "bg\n", 0, "& runs in the background and wait waits");
	expect("echo x | cat > p; cat p p", "x\nx\n", 0, "a pipeline into a redirection");
	expect("echo hi > /dev/null; cat /dev/null; echo $?", "0\n", 0,
	       "> /dev/null takes the output and /dev/null reads empty");
	unlink("f");
	unlink("err");
	unlink("b");
	unlink("p");
	unlink("d/x");
	rmdir("d");
	if (chdir("..") == 0)
		rmdir(dir);
	return tap_done();
}
