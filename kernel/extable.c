/* extable.c - look up faulting instructions in the exception table. */
#include "kernel/extable.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/x86.h"

extern const struct extable_entry __extable_start[], __extable_end[];

struct fault_record last_fixed_fault;

const struct extable_entry *search_extable(u64 addr, u64 type)
{
	for (const struct extable_entry *e = __extable_start; e < __extable_end; e++)
		if (e->insn == addr && e->type == type)
			return e;
	return NULL;
}

static void record(struct trap_frame *tf, u64 cr2)
{
	struct fault_record *r = &last_fixed_fault;

	r->vector = tf->vector;
	r->error = tf->error;
	r->addr = tf->vector == T_PF ? cr2 : 0;
	r->rip = tf->rip;
}

bool fixup_exception(struct trap_frame *tf, u64 cr2)
{
	const struct extable_entry *e = search_extable(tf->rip, EX_DEFAULT);

	if (!e)
		e = search_extable(tf->rip, EX_NOFAULT);
	if (e) {
		record(tf, cr2);
		tf->rip = e->fixup;
		return true;
	}
	/* EX_CALL: an instruction fetch from the called address faulted. */
	if (tf->vector == T_PF && (tf->error & PF_INSTR)) {
		u64 ret;
		if (probe_read_u64((void *)tf->rsp, &ret) == 0 &&
		    (e = search_extable(ret, EX_CALL))) {
			record(tf, cr2);
			tf->rsp += 8;
			tf->rip = e->fixup;
			return true;
		}
	}
	return false;
}

int probe_read_u8(const void *addr, u8 *out)
{
	int err = 0;
	u8 v = 0;

	__asm__ __volatile__("1: movb (%2), %1\n"
			     "2:\n"
			     ".pushsection .fixup, \"ax\"\n"
			     "3: movl %3, %0\n"
			     "   jmp 2b\n"
			     ".popsection\n"
			     _ASM_EXTABLE(1b, 3b)
			     : "+r"(err), "+q"(v)
			     : "r"(addr), "i"(-EFAULT)
			     : "memory");
	*out = v;
	return err;
}

int probe_read_u64(const void *addr, u64 *out)
{
	int err = 0;
	u64 v = 0;

	__asm__ __volatile__("1: movq (%2), %1\n"
			     "2:\n"
			     ".pushsection .fixup, \"ax\"\n"
			     "3: movl %3, %0\n"
			     "   jmp 2b\n"
			     ".popsection\n"
			     _ASM_EXTABLE(1b, 3b)
			     : "+r"(err), "+r"(v)
			     : "r"(addr), "i"(-EFAULT)
			     : "memory");
	*out = v;
	return err;
}

int probe_write_u8(void *addr, u8 v)
{
	int err = 0;

	__asm__ __volatile__("1: movb %2, (%1)\n"
			     "2:\n"
			     ".pushsection .fixup, \"ax\"\n"
			     "3: movl %3, %0\n"
			     "   jmp 2b\n"
			     ".popsection\n"
			     _ASM_EXTABLE(1b, 3b)
			     : "+r"(err)
			     : "r"(addr), "q"(v), "i"(-EFAULT)
			     : "memory");
	return err;
}

int probe_exec(const void *addr)
{
	int err = 0;

	/* The callee must preserve everything but the clobbers (a lone ret does). */
	__asm__ __volatile__("call *%1\n"
			     "1:\n"
			     ".pushsection .fixup, \"ax\"\n"
			     "2: movl %2, %0\n"
			     "   jmp 1b\n"
			     ".popsection\n"
			     _ASM_EXTABLE_TYPE(1b, 2b, 1)
			     : "+r"(err)
			     : "r"(addr), "i"(-EFAULT)
			     : "memory", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
	return err;
}
