/* gdt.h - per-CPU GDT and TSS (segments exist only for privilege and IST stacks). */
#ifndef KERNEL_GDT_H
#define KERNEL_GDT_H

#include "kernel/types.h"

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_CS32 0x18
#define USER_DS 0x23	/* 0x20 | RPL 3 */
#define USER_CS 0x2b	/* 0x28 | RPL 3 (SYSRET's layout: CS32, DS, CS64) */
#define TSS_SEL 0x30

/*
 * gdt_init_cpu: build and load this CPU's GDT and TSS; ist[i] are the tops
 * of the stacks for IST slots 1..3 (double fault, NMI, machine check).
 */
void gdt_init_cpu(int cpu, void *ist_top[3]);
/* Set the stack the CPU switches to on entry from user mode. */
void tss_set_rsp0(int cpu, u64 rsp0);

#endif
