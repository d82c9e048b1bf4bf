/*
 * ksyms.c - symbolize kernel addresses and walk frame-pointer chains.
 *
 * The table is generated from the kernel's own ELF by tools/gen-ksyms and
 * linked in on a second link (see the Makefile). The kernel is built with
 * frame pointers, so each frame starts with [saved rbp][return address].
 */
#include "kernel/ksyms.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/extable.h"

struct ksym {
	u64 addr;
	u32 size;
	u32 name;
};

extern const u64 ksyms_count;
extern const struct ksym ksyms_table[];
extern const char ksyms_names[];

const char *ksym_lookup(unsigned long addr, unsigned long *off, unsigned long *size)
{
	long lo = 0, hi = (long)ksyms_count - 1, best = -1;

	while (lo <= hi) {	/* last entry with address <= addr */
		long mid = (lo + hi) / 2;
		if (ksyms_table[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0)
		return NULL;
	const struct ksym *k = &ksyms_table[best];
	unsigned long sz = k->size;
	if (!sz && best + 1 < (long)ksyms_count)
		sz = ksyms_table[best + 1].addr - k->addr;
	if (addr - k->addr >= sz)
		return NULL;
	*off = addr - k->addr;
	*size = sz;
	return &ksyms_names[k->name];
}

void ksym_format(char *buf, size_t n, unsigned long addr)
{
	unsigned long off, size;
	const char *name = ksym_lookup(addr, &off, &size);

	if (name)
		snprintf(buf, n, "%s+%#lx/%#lx", name, off, size);
	else
		snprintf(buf, n, "%#lx", addr);
}

unsigned long ksym_address(const char *name)
{
	for (u64 i = 0; i < ksyms_count; i++)
		if (strcmp(&ksyms_names[ksyms_table[i].name], name) == 0)
			return ksyms_table[i].addr;
	return 0;
}

int backtrace_walk(unsigned long rbp, unsigned long *out, int max)
{
	int n = 0;

	while (n < max && rbp && !(rbp & 7) && rbp >= DIRECT_MAP_BASE) {
		u64 next, ret;
		if (probe_read_u64((void *)rbp, &next) || probe_read_u64((void *)(rbp + 8), &ret))
			break;
		if (!ret)
			break;
		out[n++] = ret;
		if (next <= rbp)	/* frames grow upward as we unwind */
			break;
		rbp = next;
	}
	return n;
}

/* A return address is symbolized as addr - 1: the call, not what follows it. */
static void print_one(unsigned long addr, unsigned long lookup)
{
	char sym[96];
	unsigned long off, size;
	const char *name = ksym_lookup(lookup, &off, &size);

	if (name)
		snprintf(sym, sizeof(sym), "%s+%#lx/%#lx", name, off + (addr - lookup), size);
	else
		snprintf(sym, sizeof(sym), "?");
	printk("  [<%016lx>] %s", addr, sym);
}

void backtrace_print(unsigned long rip, unsigned long rbp)
{
	unsigned long ret[32];
	int n = backtrace_walk(rbp, ret, 32);

	printk("backtrace:");
	if (rip)
		print_one(rip, rip);
	for (int i = 0; i < n; i++)
		print_one(ret[i], ret[i] - 1);
}

/*
 * A trap can land where the frame chain does not yet include the trapped
 * function's caller: on the first instruction (before `push %rbp`), the
 * second (before `mov %rsp, %rbp`), or in a leaf the compiler built without
 * a frame. There the caller's return address is still at the top of the
 * stack, so print it first.
 */
void backtrace_print_trap(unsigned long rip, unsigned long rsp, unsigned long rbp)
{
	unsigned long off, size;
	u8 first = 0;
	u64 ret = 0;
	const char *name = ksym_lookup(rip, &off, &size);

	if (!name || probe_read_u8((void *)(rip - off), &first)) {
		backtrace_print(rip, rbp);
		return;
	}
	bool pushed = first == 0x55 && off == 1;	/* after push %rbp */
	bool no_frame = first != 0x55 || off == 0;
	if (!(pushed || no_frame) || probe_read_u64((void *)(rsp + (pushed ? 8 : 0)), &ret) ||
	    !ksym_lookup(ret - 1, &off, &size)) {
		backtrace_print(rip, rbp);
		return;
	}
	unsigned long rest[32];
	int n = backtrace_walk(rbp, rest, 32);
	printk("backtrace:");
	print_one(rip, rip);
	print_one(ret, ret - 1);
	for (int i = 0; i < n; i++)
		print_one(rest[i], rest[i] - 1);
}

__noinline void dump_stack(void)
{
	backtrace_print(0, (unsigned long)__builtin_frame_address(0));
}
