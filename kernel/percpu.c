/* percpu.c - per-CPU areas; the boot CPU's is set up first thing in kmain. */
#include "kernel/percpu.h"
#include "kernel/x86.h"

struct cpu cpus[MAX_CPUS];
static bool gs_ready;	/* [I] once the boot CPU's GS base is set */

void percpu_init_boot(void)
{
	cpus[0].self = &cpus[0];
	cpus[0].id = 0;
	wrmsr(MSR_GS_BASE, (u64)&cpus[0]);
	gs_ready = true;
}

int smp_processor_id(void)
{
	return gs_ready ? this_cpu()->id : 0;
}
