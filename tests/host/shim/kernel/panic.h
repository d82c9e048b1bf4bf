/* panic.h (host shim) - panic prints its message to stderr and aborts. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "kernel/types.h"

void panic(const char *fmt, ...) __noreturn __attribute__((format(printf, 1, 2)));

#define BUG_ON(cond, ...)                                                      \
	do {                                                                   \
		if (unlikely(cond))                                            \
			panic("BUG at %s:%d: %s: " __VA_ARGS__ "", __FILE__,   \
			      __LINE__, #cond);                                \
	} while (0)
#define BUG(msg) panic("BUG at %s:%d: %s", __FILE__, __LINE__, msg)

#endif
