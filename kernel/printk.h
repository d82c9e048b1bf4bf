/*
 * printk.h - the kernel's console output.
 *
 * Every line goes to the serial console prefixed with a timestamp and the
 * CPU number: "[    1.234567] cpu3: text". A line is assembled in a per-call
 * buffer and emitted under one lock, so lines from several CPUs never
 * interleave mid-line. Lines below the console level (loglevel=N on the
 * command line, default KERN_INFO) are dropped.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "kernel/types.h"

#define KERN_ERR 3
#define KERN_WARN 4
#define KERN_INFO 6
#define KERN_DEBUG 7

/* printk: formatted, prefixed output at level KERN_INFO. Safe in any context. */
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void printk_level(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_err(...) printk_level(KERN_ERR, __VA_ARGS__)
#define pr_warn(...) printk_level(KERN_WARN, __VA_ARGS__)
#define pr_info(...) printk_level(KERN_INFO, __VA_ARGS__)
#define pr_debug(...) printk_level(KERN_DEBUG, __VA_ARGS__)

/* Unprefixed protocol line (ktest results, exit and panic lines). Adds '\n'. */
void printk_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * printk_ratelimit: may a message that a user program can cause, as often
 * as it likes, be printed now? At most PRINTK_BURST such messages in any
 * PRINTK_INTERVAL_MS, kernel-wide; the ones refused are counted, and the
 * next one allowed is preceded by "N messages suppressed". Never sleeps.
 */
bool printk_ratelimit(void);
/* The same, for a message of this level: the "N messages suppressed" line
 * comes at the most severe level among those suppressed, so that info
 * messages dropped at a quiet console leave their count in the kernel log
 * (/proc/kmsg) and not on the console. printk_ratelimit() is for warnings. */
bool printk_ratelimit_level(int level);
#define PRINTK_BURST 10
#define PRINTK_INTERVAL_MS 5000
#define pr_warn_ratelimited(...)                                               \
	do {                                                                   \
		if (printk_ratelimit_level(KERN_WARN))                         \
			pr_warn(__VA_ARGS__);                                  \
	} while (0)
#define pr_info_ratelimited(...)                                               \
	do {                                                                   \
		if (printk_ratelimit_level(KERN_INFO))                         \
			pr_info(__VA_ARGS__);                                  \
	} while (0)

/* Set the console level (lines with level > this are dropped). */
void printk_set_level(int level);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* After a panic the console lock is broken open so the report always gets out. */
void printk_panic_mode(void);
/* Raw bytes to the console (user output): "\n" becomes "\r\n". */
void console_write(const char *s, size_t n);
/* The same, with no "\r" added (a terminal without OPOST|ONLCR). */
void console_write_raw(const char *s, size_t n);
/* The newest size bytes (or fewer) of the kernel log; the count copied. */
int printk_log_read(char *buf, int size);

/* printk_register_console: at boot, a device every printed byte goes to
 * (drivers/uart.c registers the UART in uart_init). */
void printk_register_console(void (*putc)(char c));

#endif
