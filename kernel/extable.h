/*
 * extable.h - the exception table: instructions allowed to fault.
 *
 * An entry names an instruction address and a fixup address. When a kernel
 * instruction faults, the trap handler looks its rip up here and, if found,
 * resumes at the fixup instead of panicking. The fixup code sets the
 * caller's error result. User copies (copy_from_user) are built on this; so
 * are the probe_* helpers below, which tests use to check page protections.
 *
 * EX_CALL entries are for probing execution: the faulting rip is the called
 * address itself, so the entry is matched against the return address the
 * call pushed, which is popped before jumping to the fixup.
 *
 * An EX_DEFAULT user copy that faults on a user address is first handed to
 * the page-fault handler (trap.c, user_copy_fault), which maps the page if
 * the program could have touched it; only a fault it cannot serve reaches
 * the fixup. An EX_NOFAULT copy goes to its fixup at once: it is for a
 * caller that holds a lock the fault handler might need (uaccess.h,
 * copy_from_user_nofault).
 */
#ifndef KERNEL_EXTABLE_H
#define KERNEL_EXTABLE_H

#include "kernel/types.h"

struct trap_frame;

enum { EX_DEFAULT, EX_CALL, EX_NOFAULT };	/* 0, 1, 2: the asm below spells them as numbers */

struct extable_entry {
	u64 insn;	/* faulting instruction (EX_CALL: return address) */
	u64 fixup;	/* where to resume */
	u64 type;
};

#define _ASM_EXTABLE_TYPE(from, to, type)                                      \
	".pushsection __ex_table, \"a\"\n\t.balign 8\n\t.quad " #from ", " #to \
	", " #type "\n\t.popsection\n\t"
#define _ASM_EXTABLE(from, to) _ASM_EXTABLE_TYPE(from, to, 0)

/* fixup_exception: if tf->rip (or the EX_CALL return address) is in the
 * table, redirect tf to the fixup and return true. cr2: the fault's address
 * as read at trap entry (0 for other traps), recorded for tests. */
bool fixup_exception(struct trap_frame *tf, u64 cr2);
/* The entry for a faulting instruction of that type, or NULL. */
const struct extable_entry *search_extable(u64 rip, u64 type);

/* Probes: 0 on success, -EFAULT if the access faulted. Never panic. */
int probe_read_u8(const void *addr, u8 *out);
int probe_read_u64(const void *addr, u64 *out);
int probe_write_u8(void *addr, u8 v);
/* probe_exec: call addr (which must hold code that returns, e.g. 0xc3). */
int probe_exec(const void *addr);

#endif
