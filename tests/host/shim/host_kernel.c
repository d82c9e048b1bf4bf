/*
 * host_kernel.c - user-space stand-ins for the kernel services that
 * mm/radix-tree.c uses: thread numbers for per-CPU arrays, the preemption
 * count, panic and printk, the command line (from argv) and slab caches
 * (over malloc, poisoned like the kernel's). The headers in this folder
 * say what each one keeps of the kernel's behaviour.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "mm/slab.h"

/* ------------------------------------------------------------ threads as CPUs */

static int next_cpu;			/* [A] numbers handed out so far */
__thread int host_cpu = -1;		/* [P] */
static __thread int my_preempt;		/* [P] */

int host_take_cpu(void)
{
	if (host_cpu < 0) {
		host_cpu = __atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED);	/* a counter */
		if (host_cpu >= MAX_CPUS)
			panic("host: more than %d threads asked for a CPU number", MAX_CPUS);
	}
	return host_cpu;
}

void preempt_disable(void)
{
	my_preempt++;
}

void preempt_enable(void)
{
	if (my_preempt <= 0)
		panic("preempt_enable: count underflow");
	my_preempt--;
}

int preempt_count(void)
{
	return my_preempt;
}

/* ------------------------------------------------------------ panic, printk */

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "panic: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void printk_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

/* ------------------------------------------------------------ command line */

static int nwords;		/* [I] after host_cmdline_init */
static char **words;		/* [I] */

void host_cmdline_init(int argc, char **argv)
{
	nwords = argc - 1;
	words = argv + 1;
}

const char *cmdline_get(const char *key)
{
	size_t len = strlen(key);
	const char *found = NULL;

	for (int i = 0; i < nwords; i++) {
		if (strncmp(words[i], key, len) != 0)
			continue;
		if (words[i][len] == '=')
			found = words[i] + len + 1;
		else if (words[i][len] == '\0')
			found = "";
	}
	return found;
}

u64 cmdline_get_u64(const char *key, u64 dflt)
{
	const char *v = cmdline_get(key);
	char *end;
	u64 n;

	if (!v || !*v)
		return dflt;
	n = strtoull(v, &end, 0);
	return *end ? dflt : n;
}

/* ------------------------------------------------------------ slab */

struct kmem_cache {
	size_t size;	/* [I] */
};

static long allocs_left = -1;	/* [A] host_slab_fail_after; < 0: unlimited */

void host_slab_fail_after(long n)
{
	__atomic_store_n(&allocs_left, n, __ATOMIC_RELAXED);	/* a test knob */
}

/* Whether this allocation may succeed (counts it down). */
static bool may_allocate(void)
{
	long left = __atomic_load_n(&allocs_left, __ATOMIC_RELAXED);

	while (left >= 0) {
		if (left == 0)
			return false;
		if (__atomic_compare_exchange_n(&allocs_left, &left, left - 1, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
	}
	return true;
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align)
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->size = size;
	return c;
}

void *kmem_cache_alloc(struct kmem_cache *c)
{
	void *obj = may_allocate() ? malloc(c->size) : NULL;

	if (obj)
		memset(obj, SLAB_POISON, c->size);
	return obj;
}

void *kmem_cache_zalloc(struct kmem_cache *c)
{
	void *obj = kmem_cache_alloc(c);

	if (obj)
		memset(obj, 0, c->size);
	return obj;
}

void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	memset(obj, SLAB_POISON, c->size);
	free(obj);
}
