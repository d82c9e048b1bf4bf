/* panic.h - fatal errors and assertions (STYLE.md rule 8). */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "kernel/types.h"

struct trap_frame;

/*
 * panic: print MESSAGE, a backtrace of the caller, then the unprefixed line
 * "roundabout: panic: MESSAGE", and leave QEMU (status 125 for qemu-run).
 * Never returns.
 */
void panic(const char *fmt, ...) __noreturn __attribute__((format(printf, 1, 2)));
/* panic_frame: as panic, for a trap: the report uses the trapped registers. */
void panic_frame(struct trap_frame *tf, const char *fmt, ...) __noreturn
	__attribute__((format(printf, 2, 3)));

#define BUG_ON(cond, ...)                                                      \
	do {                                                                   \
		if (unlikely(cond))                                            \
			panic("BUG at %s:%d: %s: " __VA_ARGS__ "", __FILE__,   \
			      __LINE__, #cond);                                \
	} while (0)
#define BUG(msg) panic("BUG at %s:%d: %s", __FILE__, __LINE__, msg)

#endif
