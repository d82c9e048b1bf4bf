/* x86.h - thin wrappers over x86-64 instructions: ports, MSRs, control registers. */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H

#include "kernel/types.h"

static inline void outb(u16 port, u8 v) { __asm__ __volatile__("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(u16 port, u16 v) { __asm__ __volatile__("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(u16 port, u32 v) { __asm__ __volatile__("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline u8 inb(u16 port) { u8 v; __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" :: "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

#define MSR_EFER 0xc0000080
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define EFER_NXE (1UL << 11)

#define CR0_WP (1UL << 16)
#define CR4_PGE (1UL << 7)
#define CR4_SMEP (1UL << 20)
#define CR4_SMAP (1UL << 21)

#define DEFINE_CR(n) \
	static inline u64 read_cr##n(void) { u64 v; __asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v)); return v; } \
	static inline void write_cr##n(u64 v) { __asm__ __volatile__("mov %0, %%cr" #n :: "r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)

static inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void invlpg(unsigned long va) { __asm__ __volatile__("invlpg (%0)" :: "r"(va) : "memory"); }
static inline void cli(void) { __asm__ __volatile__("cli" ::: "memory"); }
static inline void sti(void) { __asm__ __volatile__("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ __volatile__("hlt" ::: "memory"); }

static inline unsigned long read_rflags(void)
{
	unsigned long f;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) :: "memory");
	return f;
}

#define RFLAGS_IF (1UL << 9)

/* Save the interrupt flag and disable interrupts; restore with irq_restore. */
static inline unsigned long irq_save(void)
{
	unsigned long f = read_rflags();
	cli();
	return f;
}

static inline void irq_restore(unsigned long f)
{
	if (f & RFLAGS_IF)
		sti();
}

static inline bool irqs_disabled(void) { return !(read_rflags() & RFLAGS_IF); }

#endif
