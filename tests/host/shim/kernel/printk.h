/* printk.h (host shim) - each printk call is one line on stdout (errors on stderr). */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdio.h>
#include "kernel/types.h"

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void printk_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define pr_err(...) printk_err(__VA_ARGS__)
#define pr_warn(...) printk_err(__VA_ARGS__)
#define pr_info(...) printk(__VA_ARGS__)
#define pr_debug(...) do { } while (0)

#endif
