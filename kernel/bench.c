/* bench.c - run the benchmarks the command line names (see bench.h). */
#include "kernel/bench.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/shutdown.h"
#include "kernel/string.h"

CMDLINE_KEY(bench, "bench", "run in-kernel benchmarks: comma-separated globs");

extern const struct bench __benches_start[], __benches_end[];

void bench_report(const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk_raw("bench %s %s", name, buf);
}

static bool matches(const char *globs, const char *name)
{
	char pat[64];

	for (const char *p = globs; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = 0;
			if (glob_match(pat, name))
				return true;
		}
		p += n + (comma ? 1 : 0);
	}
	return false;
}

void bench_run_from_cmdline(const char *globs)
{
	int n = 0;

	for (const struct bench *b = __benches_start; b < __benches_end; b++) {
		if (!matches(globs, b->name))
			continue;
		n++;
		pr_info("bench: running %s", b->name);
		b->fn();
	}
	if (!n)
		pr_err("bench: nothing matches '%s'", globs);
	kernel_exit(n ? 0 : 2);
}
