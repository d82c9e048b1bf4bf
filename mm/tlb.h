/*
 * tlb.h - keeping every CPU's TLB in step with the page tables.
 *
 * A CPU may keep using a translation it cached after the page-table entry
 * changed, until it flushes it. After changing or removing a mapping that
 * other CPUs may have used, the changer must "shoot down" their copies: an
 * IPI asks each to invalidate the range, and the changer waits for every
 * acknowledgement before reusing the old page. Interrupts-off code on
 * another CPU holds the shootdown up until it enables interrupts again;
 * get_user_pages_fast will rely on exactly that.
 */
#ifndef MM_TLB_H
#define MM_TLB_H

#include "kernel/types.h"

/* Invalidate [start, end) on this CPU (invlpg each page, or all if large). */
void flush_tlb_local(unsigned long start, unsigned long end);
/*
 * flush_tlb_cpus: invalidate [start, end) on every CPU in cpumask and wait
 * until all have done it. Caller: interrupts enabled, may be preempted.
 */
void flush_tlb_cpus(u64 cpumask, unsigned long start, unsigned long end);
/* A kernel mapping: every CPU may cache it. */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);

#endif
