/* bench.c - run the benchmarks the command line names (see bench.h). */
#include "kernel/bench.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/shutdown.h"
#include "kernel/string.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"

CMDLINE_KEY(bench, "bench", "run in-kernel benchmarks: comma-separated globs");

extern const struct bench __benches_start[], __benches_end[];

static int go, stop;		/* [A] start and stop flags of the running run */
static u64 ops[MAX_CPUS];	/* [P] each thread writes only its own slot */

void bench_wait_start(void)
{
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		yield();
}

bool bench_should_stop(void)
{
	return __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

void bench_record(long cpu, u64 n)
{
	ops[cpu] = n;
}

u64 bench_run_on_cpus(int k, int (*fn)(void *), const char *name, unsigned ms)
{
	struct task *t[MAX_CPUS];

	go = stop = 0;
	for (int cpu = 0; cpu < k; cpu++) {	/* create all before waking any */
		ops[cpu] = 0;
		t[cpu] = kthread_create(fn, (void *)(long)cpu, name);
		kthread_bind(t[cpu], cpu);
	}
	for (int cpu = 0; cpu < k; cpu++)
		wake_up_process(t[cpu]);
	u64 t0 = ktime_ns();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	msleep(ms);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	u64 elapsed = ktime_ns() - t0, total = 0;
	for (int cpu = 0; cpu < k; cpu++) {
		kthread_join(t[cpu]);
		total += ops[cpu];	/* joined: its store is visible */
	}
	return total * 1000000000ULL / elapsed / k;
}

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
