/*
 * random.h - the kernel's source of unpredictable-looking bytes, behind
 * getrandom(2) (kernel/sys.c) and /dev/random, /dev/urandom (fs/devfs.c).
 */
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include "kernel/types.h"

/*
 * random_fill: n bytes into buf (kernel memory), each from a shared
 * xorshift-style state stirred with the TSC. Not for cryptography.
 * Never sleeps; any context.
 */
void random_fill(void *buf, size_t n);

#endif
