/*
 * ktest.h - in-kernel tests.
 *
 * KTEST(name) { ... } defines a test and registers it in the .ktests linker
 * section. The command-line word ktest=GLOB[,GLOB...] runs the matching
 * tests in registration order after boot; each prints one unprefixed line,
 * "ok N name" or "not ok N name: reason", then "ktest: P passed, F failed",
 * and the kernel exits with status 0 only when F == 0 and some test matched
 * (2 when none matched).
 *
 * KTEST_EXPECT_PANIC(name, "substring") declares a test whose point is a
 * panic; tools/run-tests boots it alone and passes it only when the panic
 * message contains the substring. KTEST_HARNESS(name, status) declares a test
 * of the harness itself (it must end the boot with that qemu-run status).
 * KTEST_BOOT(name) is a normal test that needs a boot of its own (an image
 * or switches given by a line of tests/boots.txt or tests/disks.txt), so
 * the batches leave it out. None of these kinds is matched by a glob:
 * name them exactly.
 *
 * Assertions (KT_ASSERT, KT_EQ, ...) print file, line and the values
 * compared, mark the test failed and return from the test function, so use
 * them in the test body itself.
 *
 * Guards, first thing in a test that needs what only some boots have:
 * KT_REQUIRE_ROOT() (the root file system mounted: qemu-run --image),
 * KT_REQUIRE_RAMDISK() (a root image as the block device ram0, mounted or
 * not) and
 * the general KT_NEEDS(cond, what). Without it the test fails at once with
 * "not ok N name: needs WHAT" (no file and line: the boot lacked something,
 * the code under test did not go wrong), so ktest=* on a bare boot reports
 * instead of crashing on a missing root.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "kernel/types.h"
#include "kernel/err.h"

enum ktest_kind { KTEST_NORMAL, KTEST_PANIC, KTEST_HARNESS, KTEST_BOOT };

struct ktest {
	const char *name;
	void (*fn)(void);
	enum ktest_kind kind;
	const char *expect;	/* KTEST_PANIC: substring of the panic message */
	int expect_status;	/* KTEST_HARNESS: qemu-run status */
	const char *file;	/* where it is defined: tests run in file order, */
	int line;		/* then in the order they are written */
};

#define __KTEST(tname, kind, expect, status)                                   \
	static void ktest_fn_##tname(void);                                    \
	static const struct ktest ktest_desc_##tname __section(".ktests")      \
		__used __aligned(8) = { #tname, ktest_fn_##tname, kind,        \
					expect, status, __FILE__, __LINE__ };  \
	static void ktest_fn_##tname(void)

#define KTEST(name) __KTEST(name, KTEST_NORMAL, NULL, 0)
#define KTEST_EXPECT_PANIC(name, substr) __KTEST(name, KTEST_PANIC, substr, 125)
#define KTEST_HARNESS(name, status) __KTEST(name, KTEST_HARNESS, NULL, status)
#define KTEST_BOOT(name) __KTEST(name, KTEST_BOOT, NULL, 0)

/* Record a failure for the running test (first reason wins); a NULL file
 * gives the reason without a place (KT_NEEDS). */
void ktest_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* True once the running test has failed. */
bool ktest_failed(void);

#define KT_FAIL(...)                                                           \
	do {                                                                   \
		ktest_fail(__FILE__, __LINE__, __VA_ARGS__);                   \
		return;                                                        \
	} while (0)

#define KT_ASSERT(cond)                                                        \
	do {                                                                   \
		if (!(cond))                                                   \
			KT_FAIL("assertion failed: %s", #cond);                \
	} while (0)

#define __KT_CMP(a, op, b)                                                     \
	do {                                                                   \
		long long __a = (long long)(a), __b = (long long)(b);          \
		if (!(__a op __b))                                             \
			KT_FAIL("%s %s %s: %lld (%#llx) vs %lld (%#llx)", #a,  \
				#op, #b, __a, (unsigned long long)__a, __b,    \
				(unsigned long long)__b);                      \
	} while (0)

/* Fail with the reason alone, "needs WHAT", unless cond holds. */
#define KT_NEEDS(cond, what)                                                   \
	do {                                                                   \
		if (!(cond)) {                                                 \
			ktest_fail(NULL, 0, "needs %s", what);                 \
			return;                                                \
		}                                                              \
	} while (0)

/* The test file includes fs/vfs.h (root) or fs/blockdev.h (ramdisk):
 * the tests sit above every floor, ktest.h below them, so it only names
 * the calls. */
#define KT_REQUIRE_ROOT() KT_NEEDS(vfs_root_sb() != NULL, "--image")
#define KT_REQUIRE_RAMDISK() KT_NEEDS(bdev_lookup("ram0") != NULL, "--image")

#define KT_EQ(a, b) __KT_CMP(a, ==, b)
#define KT_NE(a, b) __KT_CMP(a, !=, b)
#define KT_LT(a, b) __KT_CMP(a, <, b)
#define KT_LE(a, b) __KT_CMP(a, <=, b)
#define KT_GT(a, b) __KT_CMP(a, >, b)
#define KT_GE(a, b) __KT_CMP(a, >=, b)
#define KT_NULL(p) KT_EQ((uintptr_t)(p), 0)
#define KT_NOT_NULL(p) KT_NE((uintptr_t)(p), 0)

/* A pointer result (kernel/err.h) that is an object: neither NULL nor an
 * error. Use it, not KT_NOT_NULL, wherever the call can return ERR_PTR:
 * KT_NOT_NULL passes an error pointer, and the test then dereferences it. */
#define KT_VALID_PTR(p)                                                        \
	do {                                                                   \
		const void *__p = (p);                                         \
		if (IS_ERR_OR_NULL(__p))                                       \
			KT_FAIL("%s: %s %ld", #p, __p ? "error" : "NULL",      \
				__p ? PTR_ERR(__p) : 0L);                      \
	} while (0)
/* A pointer result that is exactly ERR_PTR(err). */
#define KT_ERR_PTR(p, err)                                                     \
	do {                                                                   \
		const void *__p = (p);                                         \
		long __w = (long)(err);                                        \
		if (!IS_ERR(__p) || PTR_ERR(__p) != __w)                       \
			KT_FAIL("%s: %p, not ERR_PTR(%ld)", #p, __p, __w);     \
	} while (0)

/* Run the tests the command line asks for, then exit QEMU. Never returns. */
void ktest_run_from_cmdline(const char *globs) __noreturn;

#endif
