/*
 * khash.h - a fingerprint of kernel memory for /proc/kernel-hash
 * (kernel/khash.c says which regions and how).
 */
#ifndef KERNEL_KHASH_H
#define KERNEL_KHASH_H

#include "kernel/types.h"

/* Write the regions' lines into buf (at most size bytes); returns the
 * length. Reads only memory that never changes: takes no lock, may run
 * anywhere, does not sleep. */
int khash_show(char *buf, int size);

#endif
