/*
 * ktest_traps.c - exceptions, the exception table, and symbolized backtraces.
 */
#include "kernel/ktest.h"
#include "kernel/ksyms.h"
#include "kernel/extable.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/atomic.h"

/* A call chain whose frames a backtrace must name, innermost first. */
static __noinline __attribute__((noipa)) int bt_leaf(unsigned long *out, int max)
{
	int n = backtrace_walk((unsigned long)__builtin_frame_address(0), out, max);
	barrier();
	return n;
}

static __noinline __attribute__((noipa)) int bt_middle(unsigned long *out, int max)
{
	int n = bt_leaf(out, max);
	barrier();
	return n;
}

static __noinline __attribute__((noipa)) int bt_outer(unsigned long *out, int max)
{
	int n = bt_middle(out, max);
	barrier();
	return n;
}

static const char *name_of(unsigned long ret)
{
	unsigned long off, size;
	const char *n = ksym_lookup(ret - 1, &off, &size);
	return n ? n : "?";
}

KTEST(backtrace_names_each_caller)
{
	unsigned long ret[16];
	int n = bt_outer(ret, 16);

	KT_GE(n, 3);
	KT_ASSERT(!strcmp(name_of(ret[0]), "bt_middle"));
	KT_ASSERT(!strcmp(name_of(ret[1]), "bt_outer"));
	KT_ASSERT(!strcmp(name_of(ret[2]), "ktest_fn_backtrace_names_each_caller"));
}

KTEST(ksyms_lookup_finds_function_and_offset)
{
	unsigned long addr = ksym_address("kmain"), off = 99, size = 0;

	KT_NE(addr, 0);
	KT_ASSERT(!strcmp(ksym_lookup(addr, &off, &size), "kmain"));
	KT_EQ(off, 0);
	KT_GT(size, 0);
	KT_ASSERT(!strcmp(ksym_lookup(addr + size - 1, &off, &size), "kmain"));
	KT_EQ(off, size - 1);
	KT_NULL(ksym_lookup(0x1000, &off, &size));
}

KTEST(extable_fixes_up_read_of_unmapped_address)
{
	u8 v = 1;
	/* The first page of the vmap area is a guard page: never mapped. */
	KT_EQ(probe_read_u8((void *)VMAP_BASE, &v), -EFAULT);
	struct fault_record *r = &last_fixed_fault;
	KT_EQ(r->vector, T_PF);
	KT_EQ(r->addr, VMAP_BASE);
	KT_EQ(r->error & (PF_PRESENT | PF_WRITE), 0);
}

KTEST(extable_fixes_up_general_protection)
{
	u64 v;
	/* A non-canonical address raises #GP, not #PF. */
	KT_EQ(probe_read_u64((void *)0x8000000000000000UL, &v), -EFAULT);
	KT_EQ(last_fixed_fault.vector, T_GP);
}

KTEST(probe_succeeds_on_mapped_memory)
{
	static u8 cell = 42;
	u8 v = 0;

	KT_EQ(probe_read_u8(&cell, &v), 0);
	KT_EQ(v, 42);
	KT_EQ(probe_write_u8(&cell, 7), 0);
	KT_EQ(cell, 7);
}

/* The victim: its name must appear in the panic line (symbolization). */
static __noinline __attribute__((noipa)) void ktest_fault_victim(void)
{
	*(volatile u64 *)0xdead000 = 1;
}

KTEST_EXPECT_PANIC(fault_report_names_faulting_function, "in ktest_fault_victim+")
{
	ktest_fault_victim();
}

KTEST_EXPECT_PANIC(invalid_opcode_is_reported, "invalid opcode (#UD) in ktest_fn_invalid_opcode_is_reported+")
{
	__asm__ __volatile__("ud2");
}

/* Recursion that cannot be turned into a loop: each level keeps a frame. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static __noinline __attribute__((noipa)) int overflow(volatile char *prev)
{
	volatile char frame[512];
	frame[0] = prev ? prev[0] + 1 : 0;
	return overflow(frame) + frame[1];
}
#pragma GCC diagnostic pop

/* Only the double-fault path, running on its own IST stack, says this. */
KTEST_EXPECT_PANIC(stack_overflow_reported_by_double_fault, "kernel stack overflow")
{
	overflow(NULL);
}
