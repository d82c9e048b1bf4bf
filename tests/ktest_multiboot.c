/*
 * ktest_multiboot.c - the boot information parser and what memory set-up
 * made of it. Boots in tests/boots.txt run these under -m 64M with a small
 * module and under -m 2G, passing the expected size as test.mem=.
 */
#include "kernel/ktest.h"
#include "kernel/multiboot.h"
#include "kernel/cmdline.h"
#include "kernel/string.h"
#include "mm/mm.h"
#include "mm/page.h"

CMDLINE_KEY(test_mem, "test.mem", "tests: the -m size QEMU was given");
CMDLINE_KEY(test_module, "test.module", "tests: size of the test module given with --image");

KTEST(multiboot_usable_memory_matches_qemu_size)
{
	u64 mem = cmdline_get_u64("test.mem", 512UL << 20);

	/* QEMU's PC keeps 640 KiB..1 MiB and a little at the top for firmware;
	 * everything else up to -m is usable RAM. */
	KT_LE(mm_boot.usable_bytes, mem);
	KT_GE(mm_boot.usable_bytes, mem - (1UL << 20));
}

static bool frame_usable(unsigned long pfn)
{
	return mm_usable_pages_in(pfn << PAGE_SHIFT, (pfn + 1) << PAGE_SHIFT) == 1;
}

KTEST(multiboot_every_usable_frame_is_free_or_reserved)
{
	u64 reserved = 0;

	/* Counted from the page flags, independently of the hand-over loop. */
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		if (test_bit(PG_reserved, &pfn_to_page(pfn)->flags) && frame_usable(pfn))
			reserved++;
	KT_EQ(reserved + mm_boot.freed_pages, mm_boot.usable_pages);
	KT_LE(nr_free_pages(), mm_boot.freed_pages);
	/* Boot has used only a little since: stacks, tables, slabs. */
	KT_GE(nr_free_pages() + 512, mm_boot.freed_pages);
}

static bool range_reserved(phys_addr_t start, phys_addr_t end)
{
	for (phys_addr_t p = ALIGN_DOWN(start, PAGE_SIZE); p < end; p += PAGE_SIZE)
		if (!test_bit(PG_reserved, &phys_to_page(p)->flags))
			return false;
	return true;
}

extern char __boot_start[], __kernel_end[];

KTEST(multiboot_kernel_info_and_modules_are_reserved)
{
	KT_ASSERT(range_reserved((phys_addr_t)__boot_start, (unsigned long)__kernel_end - KERNEL_VMA));
	KT_ASSERT(range_reserved(boot_info.info_start, boot_info.info_end));
	KT_ASSERT(range_reserved(__pa(mem_map), __pa(mem_map) + mm_boot.memmap_bytes));
	for (int i = 0; i < boot_info.nmods; i++)
		KT_ASSERT(range_reserved(boot_info.mods[i].start, boot_info.mods[i].end));
}

KTEST(multiboot_module_contents_intact)
{
	u64 size = cmdline_get_u64("test.module", 0);

	if (!size) {	/* no test module: at most the root image */
		for (int i = 0; i < boot_info.nmods; i++)
			KT_ASSERT(!strcmp(boot_info.mods[i].name, "root.img"));
		return;
	}
	KT_EQ(boot_info.nmods, 1);
	const struct boot_module *m = &boot_info.mods[0];
	KT_EQ(m->end - m->start, size);
	const u8 *b = __va(m->start);
	for (u64 i = 0; i < size; i++)	/* tools/mkpattern writes (i * 7 + 3) mod 256 */
		if (b[i] != (u8)(i * 7 + 3))
			KT_FAIL("module byte %llu is %u", (unsigned long long)i, b[i]);
}

KTEST(multiboot_has_acpi_rsdp_and_loader_name)
{
	KT_GE(boot_info.rsdp_version, 1);
	KT_EQ(memcmp(boot_info.rsdp, "RSD PTR ", 8), 0);
	KT_EQ(memcmp(boot_info.loader, "GRUB", 4), 0);
}

/* A synthetic block: header, one mmap tag with one entry, a cmdline tag, end. */
static u32 block[64] __aligned(8);

static size_t build_block(void)
{
	u32 *w = block;
	memset(block, 0, sizeof(block));
	w[2] = 6; w[3] = 16 + 24; w[4] = 24; w[5] = 0;	/* mmap tag at 8 */
	*(u64 *)&w[6] = 0x100000; *(u64 *)&w[8] = 0x400000; w[10] = 1;
	w[12] = 1; w[13] = 8 + 6;			/* cmdline tag at 48 */
	memcpy(&w[14], "a=1 b", 6);
	w[16] = 0; w[17] = 8;				/* end tag at 64 */
	w[0] = 72;
	return 72;
}

KTEST(multiboot_parses_wellformed_block)
{
	struct boot_info bi;
	char err[128];
	size_t n = build_block();

	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), 0);
	KT_EQ(bi.nmmap, 1);
	KT_EQ(bi.mmap[0].addr, 0x100000);
	KT_EQ(bi.mmap[0].len, 0x400000);
	KT_ASSERT(!strcmp(bi.cmdline, "a=1 b"));
}

KTEST(multiboot_rejects_malformed_blocks)
{
	struct boot_info bi;
	char err[128];
	size_t n = build_block();

	KT_EQ(multiboot_parse_block(block, n - 8, &bi, err, sizeof(err)), -EINVAL);	/* size > avail */
	build_block();
	block[0] = 64;	/* end tag cut off */
	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), -EINVAL);
	build_block();
	block[3] = 4000;	/* mmap tag longer than the block */
	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), -EINVAL);
	build_block();
	block[4] = 12;	/* mmap entry size too small */
	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), -EINVAL);
	build_block();
	memcpy(&block[14], "abcdef", 6);	/* command line without its NUL */
	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), -EINVAL);
	build_block();
	block[13] = 4;	/* tag size below 8 */
	KT_EQ(multiboot_parse_block(block, n, &bi, err, sizeof(err)), -EINVAL);
	KT_EQ(multiboot_parse_block(block, 8, &bi, err, sizeof(err)), -EINVAL);
}
