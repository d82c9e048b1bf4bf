/*
 * bench.h - in-kernel benchmarks. Not tests: they assert nothing and never
 * fail a build. BENCH(name) registers one; the command line bench=GLOB runs
 * the matching ones, each printing unprefixed result lines
 *     bench NAME key=value key=value ...
 * that tools/bench collects into a table and a JSON file.
 */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include "kernel/types.h"

struct bench {
	const char *name;
	void (*fn)(void);
};

#define BENCH(bname)                                                           \
	static void bench_fn_##bname(void);                                    \
	static const struct bench bench_desc_##bname __section(".benches")     \
		__used __aligned(8) = { #bname, bench_fn_##bname };            \
	static void bench_fn_##bname(void)

/* Print one result line: "bench NAME " followed by the formatted pairs. */
void bench_report(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * bench_run_on_cpus: start fn as a kernel thread bound to each of CPUs
 * 0..k-1 (argument: the CPU number), let them all go at once, stop them
 * after ms milliseconds, and return the operations per CPU per second they
 * reported. Each thread calls bench_wait_start() first, loops while
 * !bench_should_stop(), and ends with bench_record(cpu, operations).
 * One run at a time. May sleep.
 */
u64 bench_run_on_cpus(int k, int (*fn)(void *), const char *name, unsigned ms);
void bench_wait_start(void);
bool bench_should_stop(void);
void bench_record(long cpu, u64 ops);

/* Run the benchmarks matching the comma-separated globs, then exit 0. */
void bench_run_from_cmdline(const char *globs) __noreturn;

#endif
