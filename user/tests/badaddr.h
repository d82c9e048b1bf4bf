/*
 * badaddr.h - the addresses no user buffer may have, and buffers that
 * begin in user memory and run out of it, shared by the tests that hand
 * them to system calls (t_badptr, t_isolation).
 *
 * The kernel's own ranges (DESIGN.md, section 2) are as invalid for a
 * user pointer on Linux as on Roundabout, so the same checks run on both.
 * Call badaddr_setup() first; after it nothing may map memory (no malloc:
 * stdio's buffers are set up by tap_start() before), or a new mapping
 * could fill one of the holes.
 */
#ifndef USER_TESTS_BADADDR_H
#define USER_TESTS_BADADDR_H

#include <stdint.h>
#include <sys/mman.h>

#include "tap.h"

#define PAGE 4096
#define USER_TOP_ADDR 0x00007ffffffff000ul	/* one past the last user page */

static struct bad {
	const char *name;
	uintptr_t addr;
} bads[] = {
	{ "NULL", 0 },
	{ "a kernel direct-map address", 0xffff800000000000ul },
	{ "a kernel vmap-area address", 0xffffc90000000000ul },
	{ "a kernel text address", 0xffffffff80000000ul },
	{ "the last page of the address space", 0xfffffffffffff000ul },
	{ "a non-canonical address", 0x0000800000000000ul },
	{ "a non-canonical address with only the top bit", 0x8000000000000000ul },
	{ "the guard page at the top of user space", USER_TOP_ADDR },
	{ "an unmapped page", 0 },
};
#define NBADS (sizeof bads / sizeof bads[0])
#define BAD_KERNEL (bads[1].addr)

static char *edge;	/* a mapped page followed by an unmapped one */
static char *top_page;	/* the last page of user space, mapped */

/*
 * Map two pages and unmap the second, so edge + PAGE is unmapped; make
 * one more hole for "an unmapped page"; map the highest user page, so a
 * buffer can run from user space out of it. Exits (status 2) if it cannot.
 */
static void badaddr_setup(void)
{
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *u = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *t = mmap((void *)(USER_TOP_ADDR - PAGE), PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED || u == MAP_FAILED || t != (char *)(USER_TOP_ADDR - PAGE)) {
		perror("badaddr_setup: mmap");
		exit(2);
	}
	munmap(m + PAGE, PAGE);
	munmap(u, PAGE);
	edge = m;
	top_page = t;
	bads[NBADS - 1].addr = (uintptr_t)u;
}

/* A buffer whose first n bytes are mapped and the rest are not. */
static char *partial(size_t n)
{
	memset(edge + PAGE - n, 'p', n);   /* no NUL inside: see open() */
	return edge + PAGE - n;
}

/* A buffer whose first n bytes are the last of user space. */
static char *at_top(size_t n)
{
	memset(top_page + PAGE - n, 't', n);
	return top_page + PAGE - n;
}

/*
 * Run one raw call per bad address from bads[first] on, each expected to
 * give EFAULT. first is 1 where NULL is a valid "no pointer" argument.
 */
#define FOR_EACH_BAD_FROM(first, callname, expr) do {                      \
	for (size_t i_ = (first); i_ < NBADS; i_++) {                      \
		void *bad = (void *)bads[i_].addr;                         \
		char what_[160];                                           \
		snprintf(what_, sizeof what_, "%s %s gives EFAULT",        \
			 callname, bads[i_].name);                         \
		CHECK_ERR(expr, EFAULT, what_);                            \
	}                                                                  \
} while (0)
#define FOR_EACH_BAD(callname, expr) FOR_EACH_BAD_FROM(0, callname, expr)

/* The same for a buffer running into a hole and one running past the top. */
#define BOTH_EDGES(n, callname, expr) do {                                 \
	char what_[160];                                                   \
	char *edgebuf = partial(n);                                        \
	snprintf(what_, sizeof what_, "%s a buffer running into a hole gives EFAULT", \
		 callname);                                                \
	CHECK_ERR(expr, EFAULT, what_);                                    \
	edgebuf = at_top(n);                                               \
	snprintf(what_, sizeof what_, "%s a buffer running past the top of user space" \
		 " gives EFAULT", callname);                               \
	CHECK_ERR(expr, EFAULT, what_);                                    \
} while (0)

#endif
