/*
 * t_busybox - run Debian's busybox on tests/busybox/everyday.sh, under its
 * own shell, with TZ=UTC and the C locale: the script prints one result
 * line per line of each applet's output, so tests/user.txt's '| linux'
 * compares them line for line with the same binary's on the host.
 *
 * The binary and the script are staged by 'make build/busybox-root' (a copy
 * of the host's /bin/busybox from Debian's busybox-static, which
 * tools/install-deps.sh installs); the image gets them at / (qemu-run
 * --add), the host run finds them beside its own build tree. Without them
 * the test fails, saying so: it never passes silently.
 */
#include "tap.h"
#include <limits.h>

/* The staged tree: "" in the guest, BUILD/busybox-root on the host. */
static void staged_root(const char *argv0, char *out, size_t size)
{
	const char *host_tail = "user/root/tests/t_busybox";
	size_t n = strlen(argv0), k = strlen(host_tail);
	char rel[4096];
	if (n < k || strcmp(argv0 + n - k, host_tail)) {
		out[0] = 0;
		return;
	}
	/* Absolute, as the script changes directory. */
	if (snprintf(rel, sizeof rel, "%.*sbusybox-root", (int)(n - k), argv0) >= (int)sizeof rel ||
	    !realpath(rel, out))
		snprintf(out, size, "%s", rel);
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], bb[PATH_MAX + 32], script[PATH_MAX + 32];
	(void)argc;
	tap_start();
	staged_root(argv[0], root, sizeof root);
	snprintf(bb, sizeof bb, "%s/bin/busybox", root);
	snprintf(script, sizeof script, "%s/busybox/everyday.sh", root);
	if (access(bb, X_OK) || access(script, R_OK)) {
		tap_check(0, "busybox is staged", "%s or %s is missing: install Debian's "
			  "busybox-static (tools/install-deps.sh), then make busybox-stage",
			  bb, script);
		return tap_done();
	}
	char *env[] = { "TZ=UTC", "LC_ALL=C", "PATH=/bin:/usr/bin", "HOME=/", NULL };
	char *args[] = { bb, "sh", script, bb, NULL };
	execve(bb, args, env);
	tap_check(0, "busybox runs", "execve %s: %s", bb, strerror(errno));
	return tap_done();
}
