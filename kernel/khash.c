/*
 * khash.c - /proc/kernel-hash: a fingerprint of the kernel memory that no
 * system call may read into user space or change, so a test can take it
 * before and after handing the kernel every bad pointer (t_kernel_hash).
 *
 * One line per region, "NAME START LENGTH HASH" (hexadecimal; the hash is
 * FNV-1a, 64 bits, over the region's 8-byte words):
 *
 *   text           the kernel's code, __text_start .. __text_end
 *   rodata         read-only data (.ksyms, the exception table, ktests ...)
 *   syscall_table  the system-call table (kernel/syscall.c), also in rodata
 *   canary         one page of .data, every byte 0xa5, that nothing ever
 *                  writes: unlike text and rodata, the page tables do not
 *                  protect it, so only the user-copy checks do
 *
 * The canary's address is what a test of the test aims at: with
 * uaccess.debug_no_range_check (kernel/uaccess.h) a read() into it lands.
 */
#include "kernel/khash.h"
#include "kernel/syscall.h"
#include "kernel/string.h"
#include "kernel/printk.h"

#define PAGE 4096

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];

static u8 canary[PAGE] __aligned(PAGE) = { [0 ... PAGE - 1] = 0xa5 };	/* [I] */

static u64 fnv1a64(const void *start, size_t len)
{
	const u64 *w = start;
	u64 h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len / 8; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int show_region(char *buf, int size, const char *name, const void *start, size_t len)
{
	return snprintf(buf, size, "%s %llx %llx %llx\n", name, (unsigned long long)start,
			(unsigned long long)len, (unsigned long long)fnv1a64(start, len));
}

int khash_show(char *buf, int size)
{
	const void *table;
	size_t table_len = syscall_table_range(&table);
	int n = show_region(buf, size, "text", __text_start, (size_t)(__text_end - __text_start));
	n += show_region(buf + n, size - n, "rodata", __rodata_start,
			 (size_t)(__rodata_end - __rodata_start));
	n += show_region(buf + n, size - n, "syscall_table", table, table_len);
	n += show_region(buf + n, size - n, "canary", canary, sizeof(canary));
	return n;
}
