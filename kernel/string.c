/* string.c - freestanding memory and string routines, plus a glob matcher. */
#include "kernel/string.h"

/*
 * memset stores bytes (rep stosb). Words would be faster, but the
 * deliberately broken radix-tree publish (debug.radix_broken_publish) is
 * caught only while a new leaf's zeroing is still under way: with rep stosq
 * that window shrank eightfold and the broken variant went uncaught in 2
 * of 14 boots (pagecache.debug_skip_recheck under the VFS readers: 2 of 7),
 * against none of 16 (and 16) with bytes.
 */
void *memset(void *d, int c, size_t n)
{
	void *ret = d;
	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return ret;
}

/*
 * memcpy moves 8-byte words (rep movsq) when the source and destination
 * are both 8-byte aligned, then any tail of under 8 bytes one byte at a
 * time (rep movsb); bytes throughout otherwise. Words are the common case
 * (pages, kmalloc'd buffers, structures) and, under QEMU's TCG, where each
 * iteration of a rep string instruction costs about the same whatever its
 * width, an eighth of the work.
 *
 * A reader racing the copy may see any mixture of old and new words: no
 * ordering between them is promised, nor that a word is never seen half
 * written - a caller that needs either publishes with its own ordering.
 * The copy goes forward from the lowest address (DF is clear in the
 * kernel), which memmove relies on.
 */
void *memcpy(void *d, const void *s, size_t n)
{
	void *ret = d;

	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0 && n >= 8) {
		size_t words = n / 8;
		__asm__ __volatile__("rep movsq" : "+D"(d), "+S"(s), "+c"(words) :: "memory");
		n &= 7;
	}
	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory");
	return ret;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c == 0 ? (char *)s : NULL;
}

size_t strlcpy(char *d, const char *s, size_t size)
{
	size_t n = strlen(s);

	if (size) {
		size_t k = n < size - 1 ? n : size - 1;
		memcpy(d, s, k);
		d[k] = 0;
	}
	return n;
}

bool parse_u64(const char *s, u64 *out)
{
	u64 v = 0, base = 10;

	if (!*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	}
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (~0ULL - d) / base)
			return false;	/* overflow */
		v = v * base + d;
	}
	if (*s) {
		int shift = *s == 'K' || *s == 'k' ? 10 : *s == 'M' || *s == 'm' ? 20
			  : *s == 'G' || *s == 'g' ? 30 : -1;
		if (shift < 0 || s[1] || (v << shift) >> shift != v)
			return false;
		v <<= shift;
	}
	*out = v;
	return true;
}

bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *retry = NULL;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			retry = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++retry;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == 0;
}
