/*
 * multiboot.h - what the boot loader told us (multiboot2 boot information).
 *
 * multiboot_parse copies everything the kernel needs out of the boot
 * loader's block into boot_info, checking every tag's bounds first: a
 * malformed block is reported, never followed off its end.
 */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include "kernel/types.h"

#define MB2_BOOT_MAGIC 0x36d76289

enum { MB_MEM_USABLE = 1, MB_MEM_RESERVED = 2, MB_MEM_ACPI = 3, MB_MEM_NVS = 4, MB_MEM_BAD = 5 };

struct mb_mmap_entry {
	u64 addr, len;
	u32 type;
};

struct boot_module {
	phys_addr_t start, end;	/* [start, end) */
	char name[64];
};

#define MB_MAX_MMAP 64
#define MB_MAX_MODULES 8

struct boot_info {
	phys_addr_t info_start, info_end;	/* the block itself, to reserve */
	struct mb_mmap_entry mmap[MB_MAX_MMAP];
	int nmmap;
	char cmdline[4096];
	char loader[64];
	struct boot_module mods[MB_MAX_MODULES];
	int nmods;
	u8 rsdp[36];		/* copy of the ACPI RSDP */
	int rsdp_version;	/* 0 none, 1 ACPI 1.0 (20 bytes), 2 ACPI 2.0+ (36 bytes) */
	u32 mem_lower_kib, mem_upper_kib;	/* basic meminfo tag, if any */
};

extern struct boot_info boot_info;	/* [I] after multiboot_init */

/*
 * multiboot_parse_block: parse the block at buf (avail readable bytes) into
 * *out. Returns 0, or -EINVAL with a reason in err.
 */
int multiboot_parse_block(const void *buf, size_t avail, struct boot_info *out,
			  char *err, size_t errlen);
/* multiboot_init: check magic, parse the block at physical info; panics if bad. */
void multiboot_init(u32 magic, phys_addr_t info);

#endif
