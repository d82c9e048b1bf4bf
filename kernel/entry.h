/*
 * entry.h - where assembly and C meet: the C functions that assembly calls
 * (boot/boot.asm, kernel/entry.asm, kernel/switch.asm, the AP trampoline)
 * and the assembly routines that C calls. Nothing else should call these.
 */
#ifndef KERNEL_ENTRY_H
#define KERNEL_ENTRY_H

#include "kernel/types.h"

struct task;
struct trap_frame;

/* C, called from assembly. */
void kmain(u32 magic, u32 info);			/* boot.asm, long mode on the boot CPU */
void ap_entry(int cpu);				/* the AP trampoline, via smp.c's handoff */
void trap_dispatch(struct trap_frame *tf);	/* entry.asm: every vector */
__noreturn void kthread_first_run(struct task *prev);	/* switch.asm: a thread's first run */

/* Assembly, called from C. */
struct task *switch_to(struct task *prev, struct task *next);	/* switch.asm */
void kthread_entry_stub(void);			/* switch.asm: a new thread's first return */
void syscall_entry(void);			/* entry.asm: the SYSCALL instruction's target */
void call_on_stack(void *top, void (*fn)(void)) __noreturn;	/* stack.asm */

#endif
