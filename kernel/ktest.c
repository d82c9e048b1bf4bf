/*
 * ktest.c - run the in-kernel tests named on the command line.
 *
 * ktest=list prints every registered test with its kind (tools/run-tests
 * reads it); ktest=GLOB[,GLOB...] runs the matching ones. Output lines are
 * unprefixed so a harness can parse them: "ok N name", "not ok N name:
 * reason", then "ktest: P passed, F failed".
 */
#include "kernel/ktest.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/shutdown.h"
#include "kernel/string.h"

CMDLINE_KEY(ktest, "ktest", "run in-kernel tests: 'list' or comma-separated globs");

extern const struct ktest __ktests_start[], __ktests_end[];

#define MAX_TESTS 1024
static const struct ktest *order[MAX_TESTS];	/* [P] boot CPU */
static int ntests;

/*
 * The linker keeps each object's tests together but the compiler may emit
 * them in any order within one file: sort each file's run by line number so
 * tests run (and are numbered) in the order they are written.
 */
static void sort_tests(void)
{
	ntests = 0;
	for (const struct ktest *t = __ktests_start; t < __ktests_end && ntests < MAX_TESTS; t++) {
		int i = ntests++;
		while (i > 0 && order[i - 1]->file == t->file && order[i - 1]->line > t->line) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = t;
	}
}

static bool failed;		/* [P] boot CPU, while a test runs */
static char reason[200];	/* [P] first failure of the running test */

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!file) {
		pr_err("ktest: %s", msg);
		if (!failed)
			snprintf(reason, sizeof(reason), "%s", msg);
	} else {
		pr_err("ktest: %s:%d: %s", file, line, msg);
		if (!failed)
			snprintf(reason, sizeof(reason), "%s:%d: %s", file, line, msg);
	}
	failed = true;
}

bool ktest_failed(void)
{
	return failed;
}

static void list_tests(void)
{
	for (int i = 0; i < ntests; i++) {
		const struct ktest *t = order[i];
		if (t->kind == KTEST_PANIC)
			printk_raw("ktest-list %s panic %s", t->name, t->expect);
		else if (t->kind == KTEST_HARNESS)
			printk_raw("ktest-list %s harness %d", t->name, t->expect_status);
		else if (t->kind == KTEST_BOOT)
			printk_raw("ktest-list %s boot", t->name);
		else
			printk_raw("ktest-list %s normal", t->name);
	}
}

/* Does t match one of the comma-separated globs? Special kinds: exact names only. */
static bool selected(const struct ktest *t, const char *globs)
{
	char pat[128];

	for (const char *p = globs; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = 0;
			if (t->kind == KTEST_NORMAL ? glob_match(pat, t->name) : !strcmp(pat, t->name))
				return true;
		}
		p += n + (comma ? 1 : 0);
	}
	return false;
}

void ktest_run_from_cmdline(const char *globs)
{
	int n = 0, npass = 0, nfail = 0;

	sort_tests();
	if (!strcmp(globs, "list")) {
		list_tests();
		kernel_exit(0);
	}
	for (int i = 0; i < ntests; i++) {
		const struct ktest *t = order[i];
		if (!selected(t, globs))
			continue;
		n++;
		failed = false;
		reason[0] = 0;
		pr_info("ktest: running %s", t->name);
		t->fn();
		if (!failed && (t->kind == KTEST_PANIC || t->kind == KTEST_HARNESS))
			ktest_fail(__FILE__, __LINE__, "returned, but should have ended the boot");
		if (failed) {
			nfail++;
			printk_raw("not ok %d %s: %s", n, t->name, reason);
		} else {
			npass++;
			printk_raw("ok %d %s", n, t->name);
		}
	}
	printk_raw("ktest: %d passed, %d failed", npass, nfail);
	if (n == 0)
		pr_err("ktest: no test matches '%s'", globs);
	kernel_exit(n == 0 ? 2 : nfail ? 1 : 0);
}
