/* ksyms.h - the kernel's own symbol table, and backtraces that use it. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include "kernel/types.h"

/*
 * ksym_lookup: the function containing addr, or NULL. *off is addr's offset
 * into it and *size its length (0 if unknown).
 */
const char *ksym_lookup(unsigned long addr, unsigned long *off, unsigned long *size);
/* ksym_format: "name+0xoff/0xsize", or the bare hex address if unknown. */
void ksym_format(char *buf, size_t n, unsigned long addr);
/* Address of the function called name, or 0. */
unsigned long ksym_address(const char *name);

/*
 * backtrace_walk: follow the frame-pointer chain from rbp, storing up to max
 * return addresses. Every read is probed, so a corrupt chain ends the walk
 * instead of faulting. Returns the number stored.
 */
int backtrace_walk(unsigned long rbp, unsigned long *out, int max);
/* Print "  [<addr>] name+off/size" for rip and then the chain from rbp. */
void backtrace_print(unsigned long rip, unsigned long rbp);
/* As backtrace_print, for a trapped frame (handles a trap before the frame exists). */
void backtrace_print_trap(unsigned long rip, unsigned long rsp, unsigned long rbp);
/* Print the caller's backtrace. */
void dump_stack(void);

#endif
