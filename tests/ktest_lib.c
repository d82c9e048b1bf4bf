/* ktest_lib.c - the kernel's small library: formatting, parsing, globbing, command line. */
#include "kernel/ktest.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"

CMDLINE_KEY(test_unknown, "test.expect_unknown", "tests: how many unknown keys this boot has");

KTEST(vsnprintf_formats_like_c)
{
	char b[64];

	snprintf(b, sizeof(b), "%d|%5d|%-4d|%05d", -42, 7, 3, 12);
	KT_ASSERT(!strcmp(b, "-42|    7|3   |00012"));
	snprintf(b, sizeof(b), "%x|%#lx|%llu|%zu", 255u, 0x1000UL, 18446744073709551615ULL, (size_t)9);
	KT_ASSERT(!strcmp(b, "ff|0x1000|18446744073709551615|9"));
	snprintf(b, sizeof(b), "%s|%.3s|%c|%%|%p", "hi", "abcdef", 'z', (void *)0x10);
	KT_ASSERT(!strcmp(b, "hi|abc|z|%|0x10"));
	KT_EQ(snprintf(b, 4, "%s", "truncated"), 9);
	KT_ASSERT(!strcmp(b, "tru"));
}

KTEST(parse_u64_accepts_suffixes_and_rejects_junk)
{
	u64 v;

	KT_ASSERT(parse_u64("64M", &v));
	KT_EQ(v, 64UL << 20);
	KT_ASSERT(parse_u64("0x1f", &v));
	KT_EQ(v, 31);
	KT_ASSERT(parse_u64("2G", &v));
	KT_EQ(v, 2UL << 30);
	KT_ASSERT(!parse_u64("", &v));
	KT_ASSERT(!parse_u64("12q", &v));
	KT_ASSERT(!parse_u64("99999999999999999999", &v));
	KT_ASSERT(!parse_u64("0x", &v));
}

KTEST(glob_match_handles_stars_and_questions)
{
	KT_ASSERT(glob_match("*", "anything"));
	KT_ASSERT(glob_match("page_*", "page_alloc_all"));
	KT_ASSERT(!glob_match("page_*", "slab_page"));
	KT_ASSERT(glob_match("*_free_*", "page_alloc_free_all"));
	KT_ASSERT(glob_match("a?c", "abc"));
	KT_ASSERT(!glob_match("a?c", "ac"));
	KT_ASSERT(glob_match("exact", "exact"));
	KT_ASSERT(!glob_match("exact", "exactly"));
}

KTEST(cmdline_reports_unknown_keys)
{
	/* Boots that add unknown words say how many with test.expect_unknown. */
	KT_EQ(cmdline_unknown_count(), (int)cmdline_get_u64("test.expect_unknown", 0));
	KT_NOT_NULL(cmdline_get("ktest"));
	KT_NULL(cmdline_get("no.such.key"));
}
