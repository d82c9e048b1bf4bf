/*
 * gdt.c - the Global Descriptor Table and Task State Segment, one per CPU.
 * In long mode segmentation is flat; the GDT matters for the privilege level
 * of CS/SS and for the TSS, whose IST slots give the double-fault, NMI and
 * machine-check handlers stacks of their own (a kernel stack overflow then
 * reports instead of triple-faulting).
 */
#include "kernel/gdt.h"
#include "kernel/percpu.h"
#include "kernel/string.h"

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct gdt_ptr {
	u16 limit;
	u64 base;
} __packed;

static u64 gdt[MAX_CPUS][8] __aligned(16);	/* [P] per CPU */
static struct tss tss[MAX_CPUS] __aligned(16);	/* [P] per CPU */

static void set_tss_descriptor(u64 *slot, struct tss *t)
{
	u64 base = (u64)t, limit = sizeof(*t) - 1;

	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
		  (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

void gdt_init_cpu(int cpu, void *ist_top[3])
{
	u64 *g = gdt[cpu];
	struct tss *t = &tss[cpu];

	g[0] = 0;
	g[1] = 0x00af9a000000ffffUL;	/* kernel code, 64-bit */
	g[2] = 0x00cf92000000ffffUL;	/* kernel data */
	g[3] = 0x00cffa000000ffffUL;	/* user code, 32-bit (unused) */
	g[4] = 0x00cff2000000ffffUL;	/* user data */
	g[5] = 0x00affa000000ffffUL;	/* user code, 64-bit */
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 3; i++)
		t->ist[i] = (u64)ist_top[i];
	t->iomap_base = sizeof(*t);	/* no I/O permission bitmap */
	set_tss_descriptor(&g[6], t);

	struct gdt_ptr p = { sizeof(gdt[cpu]) - 1, (u64)g };
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w3\n\t"
		:: "m"(p), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL) : "rax", "memory");
}

void tss_set_rsp0(int cpu, u64 rsp0)
{
	tss[cpu].rsp[0] = rsp0;
}
