/* string.h - the freestanding C library subset the kernel uses. */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include "kernel/types.h"

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
size_t strlcpy(char *d, const char *s, size_t size);
/* Parse an unsigned number (decimal, 0x hex, optional K/M/G suffix); false on junk. */
bool parse_u64(const char *s, u64 *out);
/* Shell-style glob match: '*', '?' and literal characters. */
bool glob_match(const char *pattern, const char *s);

#endif
