/*
 * multiboot.c - parse the multiboot2 boot information block.
 *
 * Layout: u32 total_size, u32 reserved, then tags, each {u32 type, u32 size,
 * payload}, each starting on an 8-byte boundary, ending with a type-0 tag.
 * Every length is checked against what is left before it is used.
 */
#include "kernel/multiboot.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/panic.h"

enum {
	TAG_END = 0, TAG_CMDLINE = 1, TAG_LOADER = 2, TAG_MODULE = 3,
	TAG_MEMINFO = 4, TAG_MMAP = 6, TAG_ACPI_OLD = 14, TAG_ACPI_NEW = 15,
};

struct boot_info boot_info;

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

/* Copy a NUL-terminated string that must end inside [s, s + max). */
static bool copy_str(char *dst, size_t dstlen, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == max)
		return false;
	strlcpy(dst, s, dstlen);
	return true;
}

static int parse_mmap(const u8 *p, u32 size, struct boot_info *out, char *err, size_t errlen)
{
	if (size < 16)
		FAIL("memory map tag too short (%u bytes)", size);
	u32 esize = *(const u32 *)(p + 8);
	if (esize < 24 || esize % 8)
		FAIL("memory map entry size %u is invalid", esize);
	for (u32 off = 16; off + esize <= size; off += esize) {
		if (out->nmmap == MB_MAX_MMAP)
			FAIL("memory map has more than %d entries", MB_MAX_MMAP);
		struct mb_mmap_entry *e = &out->mmap[out->nmmap++];
		e->addr = *(const u64 *)(p + off);
		e->len = *(const u64 *)(p + off + 8);
		e->type = *(const u32 *)(p + off + 16);
		if (e->addr + e->len < e->addr)
			FAIL("memory map entry %d wraps around", out->nmmap - 1);
	}
	return 0;
}

static int parse_tag(u32 type, const u8 *p, u32 size, struct boot_info *out,
		     char *err, size_t errlen)
{
	switch (type) {
	case TAG_CMDLINE:
		if (!copy_str(out->cmdline, sizeof(out->cmdline), (const char *)p + 8, size - 8))
			FAIL("command line tag is not NUL-terminated");
		return 0;
	case TAG_LOADER:
		if (!copy_str(out->loader, sizeof(out->loader), (const char *)p + 8, size - 8))
			FAIL("boot loader name tag is not NUL-terminated");
		return 0;
	case TAG_MODULE: {
		if (size < 17)
			FAIL("module tag too short (%u bytes)", size);
		if (out->nmods == MB_MAX_MODULES)
			FAIL("more than %d modules", MB_MAX_MODULES);
		struct boot_module *m = &out->mods[out->nmods];
		m->start = *(const u32 *)(p + 8);
		m->end = *(const u32 *)(p + 12);
		if (m->end < m->start)
			FAIL("module %d ends before it starts", out->nmods);
		if (!copy_str(m->name, sizeof(m->name), (const char *)p + 16, size - 16))
			FAIL("module %d name is not NUL-terminated", out->nmods);
		out->nmods++;
		return 0;
	}
	case TAG_MEMINFO:
		if (size < 16)
			FAIL("basic memory tag too short");
		out->mem_lower_kib = *(const u32 *)(p + 8);
		out->mem_upper_kib = *(const u32 *)(p + 12);
		return 0;
	case TAG_MMAP:
		return parse_mmap(p, size, out, err, errlen);
	case TAG_ACPI_OLD:
	case TAG_ACPI_NEW: {
		u32 need = type == TAG_ACPI_OLD ? 20 : 36;
		if (size < 8 + need)
			FAIL("ACPI RSDP tag too short (%u bytes)", size);
		if (type == TAG_ACPI_NEW || out->rsdp_version == 0) {
			memcpy(out->rsdp, p + 8, need);
			out->rsdp_version = type == TAG_ACPI_OLD ? 1 : 2;
		}
		return 0;
	}
	default:	/* framebuffer, ELF sections, EFI...: not needed */
		return 0;
	}
}

int multiboot_parse_block(const void *buf, size_t avail, struct boot_info *out,
			  char *err, size_t errlen)
{
	const u8 *base = buf;

	memset(out, 0, sizeof(*out));
	if (avail < 16)
		FAIL("boot information shorter than its header");
	u32 total = *(const u32 *)base;
	if (total < 16 || total > avail)
		FAIL("boot information size %u is outside 16..%zu", total, avail);
	for (u32 off = 8;;) {
		if (off + 8 > total)
			FAIL("tag at offset %u runs past the end (no end tag)", off);
		u32 type = *(const u32 *)(base + off);
		u32 size = *(const u32 *)(base + off + 4);
		if (size < 8 || size > total - off)
			FAIL("tag type %u at offset %u has bad size %u", type, off, size);
		if (type == TAG_END)
			return 0;
		int r = parse_tag(type, base + off, size, out, err, errlen);
		if (r)
			return r;
		off += ALIGN_UP(size, 8);
	}
}

void multiboot_init(u32 magic, phys_addr_t info)
{
	char err[128];

	if (magic != MB2_BOOT_MAGIC)
		panic("multiboot: bad magic %#x (not booted by a multiboot2 loader)", magic);
	if (!info || info & 7)
		panic("multiboot: boot information address %#llx is invalid",
		      (unsigned long long)info);
	/* The early page tables map the first 4 GiB; the block is below that. */
	u32 total = *(const u32 *)__va(info);
	if (multiboot_parse_block(__va(info), total, &boot_info, err, sizeof(err)))
		panic("multiboot: %s", err);
	boot_info.info_start = info;
	boot_info.info_end = info + total;
	if (boot_info.nmmap == 0)
		panic("multiboot: the boot loader gave no memory map");
}
