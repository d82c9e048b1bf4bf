/*
 * tlb.c - TLB shootdown by IPI (see tlb.h for why).
 *
 * Kernel mappings are global (CR4.PGE), so a CR3 reload does not drop
 * them: a range flush uses invlpg page by page, and past FULL_FLUSH_PAGES
 * it toggles CR4.PGE, which flushes everything, globals included.
 */
#include "mm/tlb.h"
#include "mm/gup.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/cmdline.h"
#include "kernel/x86.h"
#include "kernel/atomic.h"

#define FULL_FLUSH_PAGES 64

CMDLINE_KEY(skip_shootdown, "debug.skip_tlb_shootdown",
	    "test of the tests: flush only the local TLB (stale mappings elsewhere)");

struct flush_range {
	unsigned long start, end;
};

void flush_tlb_local(unsigned long start, unsigned long end)
{
	if ((end - start) / PAGE_SIZE > FULL_FLUSH_PAGES) {
		u64 cr4 = read_cr4();
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
		return;
	}
	for (unsigned long va = start & PAGE_MASK; va < end; va += PAGE_SIZE)
		invlpg(va);
}

static void flush_ipi(void *arg)
{
	struct flush_range *r = arg;
	/* A fast walk keeps interrupts off so that this IPI waits for it
	 * (mm/gup.c): one answered mid-walk breaks that at once, whether or
	 * not the page it walks to is freed in time to show it. */
	if (gup_fast_walking_here())
		panic("gup_fast: a TLB shootdown reached this CPU in the middle of a fast "
		      "walk, so the page it walks to may be freed under it (the "
		      "interrupts-off guarantee, mm/gup.c, is broken)");
	flush_tlb_local(r->start, r->end);
}

void flush_tlb_cpus(u64 cpumask, unsigned long start, unsigned long end)
{
	struct flush_range r = { start, end };

	static int skip = -1;	/* [A] the switch, read once (racing first readers agree) */
	if (READ_ONCE(skip) < 0)
		WRITE_ONCE(skip, cmdline_get("debug.skip_tlb_shootdown") != NULL);
	if (READ_ONCE(skip))
		cpumask &= 1ULL << smp_processor_id();	/* deliberately broken */
	smp_call_function_mask(cpumask, flush_ipi, &r, true);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	int n = num_online_cpus();
	flush_tlb_cpus(n >= 64 ? ~0ULL : (1ULL << n) - 1, start, end);
}
