/*
 * ktest_paging.c - page-table helpers and the kernel's own protections,
 * checked by probing through the exception table.
 */
#include "kernel/ktest.h"
#include "kernel/extable.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/x86.h"
#include "mm/paging.h"
#include "mm/page.h"
#include "mm/mm.h"

/* A test window in the vmap area, above the stacks and below ioremap's part. */
#define TEST_VA (VMAP_BASE + (128UL << 30))

static struct fault_record *last(void)
{
	return &last_fixed_fault;
}

KTEST(paging_map_translate_unmap)
{
	struct page *p = alloc_page_zeroed();
	phys_addr_t pa;
	u64 flags;
	u8 v;

	KT_NOT_NULL(p);
	KT_EQ(pt_map_range(kernel_pml4, TEST_VA, page_to_phys(p), PAGE_SIZE, PROT_KERNEL_RW), 0);
	KT_ASSERT(pt_translate(kernel_pml4, TEST_VA + 0x123, &pa, &flags));
	KT_EQ(pa, page_to_phys(p) + 0x123);
	KT_ASSERT(flags & PTE_W);
	KT_ASSERT(flags & PTE_NX);
	*(volatile u8 *)(TEST_VA + 5) = 0x5a;	/* same frame, seen through the direct map */
	KT_EQ(((u8 *)page_address(p))[5], 0x5a);
	KT_EQ(pt_map_range(kernel_pml4, TEST_VA, page_to_phys(p), PAGE_SIZE, PROT_KERNEL_RW), -EEXIST);
	KT_EQ(pt_unmap_range(kernel_pml4, TEST_VA, PAGE_SIZE), 1);
	KT_ASSERT(!pt_translate(kernel_pml4, TEST_VA, &pa, &flags));
	KT_EQ(probe_read_u8((void *)TEST_VA, &v), -EFAULT);
	KT_EQ(last()->addr, TEST_VA);
	put_page(p);
}

KTEST(paging_read_only_mapping_refuses_writes)
{
	struct page *p = alloc_page_zeroed();
	u8 v;

	KT_NOT_NULL(p);
	KT_EQ(pt_map_range(kernel_pml4, TEST_VA, page_to_phys(p), PAGE_SIZE, PROT_KERNEL_RW), 0);
	KT_EQ(probe_write_u8((void *)TEST_VA, 1), 0);
	KT_EQ(pt_protect_range(kernel_pml4, TEST_VA, PAGE_SIZE, PROT_KERNEL_RO), 0);
	KT_EQ(probe_write_u8((void *)TEST_VA, 2), -EFAULT);
	KT_EQ(last()->error & (PF_PRESENT | PF_WRITE), PF_PRESENT | PF_WRITE);
	KT_EQ(probe_read_u8((void *)TEST_VA, &v), 0);
	KT_EQ(v, 1);	/* the refused write changed nothing */
	pt_unmap_range(kernel_pml4, TEST_VA, PAGE_SIZE);
	put_page(p);
}

KTEST(paging_nx_mapping_refuses_execution)
{
	struct page *p = alloc_page_zeroed();

	KT_NOT_NULL(p);
	*(u8 *)page_address(p) = 0xc3;	/* ret */
	KT_EQ(pt_map_range(kernel_pml4, TEST_VA, page_to_phys(p), PAGE_SIZE, PROT_KERNEL_RX), 0);
	KT_EQ(probe_exec((void *)TEST_VA), 0);	/* executable: it returns */
	KT_EQ(pt_protect_range(kernel_pml4, TEST_VA, PAGE_SIZE, PROT_KERNEL_RW), 0);
	KT_EQ(probe_exec((void *)TEST_VA), -EFAULT);
	KT_EQ(last()->error & (PF_PRESENT | PF_INSTR), PF_PRESENT | PF_INSTR);
	pt_unmap_range(kernel_pml4, TEST_VA, PAGE_SIZE);
	put_page(p);
}

extern char __text_start[], __rodata_start[], __data_start[];

KTEST(paging_kernel_text_is_read_only)
{
	KT_EQ(probe_write_u8(__text_start, 0x90), -EFAULT);
	KT_EQ(probe_write_u8(__rodata_start, 0), -EFAULT);
}

KTEST(paging_kernel_data_and_direct_map_are_not_executable)
{
	static u8 ret_insn = 0xc3;
	struct page *p = alloc_page_zeroed();

	KT_EQ(probe_exec(&ret_insn), -EFAULT);
	KT_EQ(probe_exec(__rodata_start), -EFAULT);
	KT_NOT_NULL(p);
	*(u8 *)page_address(p) = 0xc3;
	KT_EQ(probe_exec(page_address(p)), -EFAULT);
	put_page(p);
}

KTEST(paging_kernel_stack_has_guard_page)
{
	unsigned long top = (unsigned long)this_cpu()->kstack_top;
	unsigned long bottom = top - KSTACK_PAGES * PAGE_SIZE;
	u8 v;

	KT_EQ(probe_read_u8((void *)bottom, &v), 0);
	KT_EQ(probe_read_u8((void *)(bottom - 1), &v), -EFAULT);
	KT_ASSERT(vmap_is_guard(bottom - 1));
	KT_ASSERT(!vmap_is_guard(bottom));
}

KTEST(paging_cpu_protections_enabled)
{
	KT_ASSERT(read_cr0() & CR0_WP);
	KT_ASSERT(read_cr4() & CR4_PGE);
	KT_ASSERT(rdmsr(MSR_EFER) & EFER_NXE);
	if (paging_features.smep)
		KT_ASSERT(read_cr4() & CR4_SMEP);
	if (paging_features.smap)
		KT_ASSERT(read_cr4() & CR4_SMAP);
}

KTEST(paging_direct_map_covers_all_ram)
{
	phys_addr_t pa;
	u64 flags;
	unsigned long last_pfn = max_pfn - 1;

	KT_ASSERT(pt_translate(kernel_pml4, (unsigned long)__va(last_pfn << PAGE_SHIFT), &pa, &flags));
	KT_EQ(pa, last_pfn << PAGE_SHIFT);
	KT_ASSERT(flags & PTE_PS);	/* large pages */
	KT_ASSERT(flags & PTE_G);
}
