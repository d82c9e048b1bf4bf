/*
 * user.c - per-CPU setup for user mode, and the state that follows a task
 * across a context switch: its address space, its kernel stack (TSS rsp0
 * and the syscall stack), its FPU/SSE registers and its FS base (TLS).
 *
 * FPU: the kernel is built without SSE (-mno-sse), so it never touches
 * the XMM registers; user_switch saves the outgoing user thread's FPU/SSE
 * state with fxsave64 and loads the incoming one's with fxrstor64 -
 * eagerly, at every switch between user threads.
 */
#include "kernel/entry.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/gdt.h"
#include "kernel/x86.h"
#include "kernel/string.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "mm/vm.h"
#include "mm/paging.h"
#include "mm/slab.h"

_Static_assert(offsetof(struct cpu, user_rsp) == 88, "entry.asm CPU_USER_RSP");
_Static_assert(offsetof(struct cpu, syscall_rsp) == 96, "entry.asm CPU_SYSCALL_RSP");
_Static_assert(sizeof(struct trap_frame) <= USER_FRAME_RESERVE, "USER_FRAME_RESERVE");

#define MSR_EFER 0xc0000080
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define EFER_SCE 1
#define CR4_OSFXSR (1UL << 9)
#define CR4_OSXMMEXCPT (1UL << 10)
#define CR0_MP (1UL << 1)
#define CR0_EM (1UL << 2)
#define CR0_TS (1UL << 3)
#define RFLAGS_MASKED 0x47700	/* TF, IF, DF, IOPL, NT, AC: clear on entry */
#define FPU_AREA 512


static struct kmem_cache *fpu_cache;
static bool broken_fpu;	/* [I] debug.broken_fpu: the test of t_threads */

CMDLINE_KEY(broken_fpu_key, "debug.broken_fpu",
	    "test of the tests: switches neither save nor restore the FPU/SSE registers");

void user_cpu_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSCALL loads CS = STAR[47:32], SS = +8; SYSRET loads CS = STAR[63:48] + 16
	 * and SS = +8 (kernel/gdt.h lays the selectors out for this). */
	wrmsr(MSR_STAR, ((u64)(USER_CS32 | 3) << 48) | ((u64)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (u64)syscall_entry);
	wrmsr(MSR_FMASK, RFLAGS_MASKED);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	write_cr0((read_cr0() | CR0_MP) & ~(CR0_EM | CR0_TS));
	if (!fpu_cache) {
		fpu_cache = kmem_cache_create("fpu", FPU_AREA, 64);
		broken_fpu = cmdline_get("debug.broken_fpu") != NULL;
	}
}

struct trap_frame *user_regs(struct task *t)
{
	return (struct trap_frame *)((char *)t->kstack_top - USER_FRAME_RESERVE);
}

struct process *current_proc(void)
{
	return current_task()->proc;
}

/* The clean state a new program starts with: x87 control word 0x37f
 * (all exceptions masked, extended precision), MXCSR 0x1f80. */
static void fpu_init_area(void *area)
{
	memset(area, 0, FPU_AREA);
	*(u16 *)area = 0x37f;
	*(u32 *)((u8 *)area + 24) = 0x1f80;
}

/* Give t an FPU area: a copy of `from`'s, or a clean one. 0 or -ENOMEM. */
int fpu_alloc(struct task *t, struct task *from)
{
	t->fpu = kmem_cache_alloc(fpu_cache);
	if (!t->fpu)
		return -ENOMEM;
	if (from && from->fpu) {
		if (from == current_task())
			__asm__ __volatile__("fxsave64 (%0)" :: "r"(from->fpu) : "memory");
		memcpy(t->fpu, from->fpu, FPU_AREA);
	} else {
		fpu_init_area(t->fpu);
	}
	return 0;
}

void fpu_free(struct task *t)
{
	if (t->fpu)
		kmem_cache_free(fpu_cache, t->fpu);
	t->fpu = NULL;
}

/* execve: the new program starts with clean registers (we are running it). */
void fpu_reset(struct task *t)
{
	if (!t->fpu)
		return;
	fpu_init_area(t->fpu);
	__asm__ __volatile__("fxrstor64 (%0)" :: "r"(t->fpu) : "memory");
}

void user_switch(struct task *prev, struct task *next)
{
	if (prev->fpu && !broken_fpu)
		__asm__ __volatile__("fxsave64 (%0)" :: "r"(prev->fpu) : "memory");
	if (prev->proc)
		prev->fs_base = rdmsr(MSR_FS_BASE);
	/* Kernel threads run on the kernel's tables, so an exiting process's
	 * tables are never in use when they are freed. */
	mm_activate(next->mm);
	if (next->proc) {
		tss_set_rsp0(smp_processor_id(), (u64)next->kstack_top);
		this_cpu()->syscall_rsp = (u64)next->kstack_top;
		wrmsr(MSR_FS_BASE, next->fs_base);
	}
	if (next->fpu && !broken_fpu)
		__asm__ __volatile__("fxrstor64 (%0)" :: "r"(next->fpu) : "memory");
}
