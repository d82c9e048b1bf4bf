/*
 * printf.c - vsnprintf for the kernel: %d %i %u %o %x %X %p %s %c %% with the
 * flags '-', '0', '#', width, precision for %s, and the l/ll/z length
 * modifiers. No floating point (the kernel has no SSE).
 */
#include "kernel/printk.h"
#include "kernel/string.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			put(o, pad);
	while (n--)
		put(o, *s++);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

static void put_number(struct out *o, unsigned long long v, bool neg, int base, bool upper,
		       const char *prefix, int width, bool left, bool zero)
{
	char tmp[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, plen = prefix ? (int)strlen(prefix) : 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		plen++;
	int fill = width > n + plen ? width - n - plen : 0;
	if (!left && !zero)
		while (fill-- > 0)
			put(o, ' ');
	if (neg)
		put(o, '-');
	for (const char *p = prefix; p && *p; p++)
		put(o, *p);
	if (!left && zero)
		while (fill-- > 0)
			put(o, '0');
	while (n)
		put(o, tmp[--n]);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool left = false, zero = false, alt = false;
		int width = 0, prec = -1, lng = 0;
		for (;; fmt++) {
			if (fmt[1] == '-') left = true;
			else if (fmt[1] == '0') zero = true;
			else if (fmt[1] == '#') alt = true;
			else break;
		}
		fmt++;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			prec = 0;
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				prec = prec * 10 + (*fmt++ - '0');
		}
		while (*fmt == 'l' || *fmt == 'z') {
			lng++;
			fmt++;
		}
		unsigned long long u;
		long long s;
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng ? va_arg(ap, long long) : va_arg(ap, int);
			u = s < 0 ? -(unsigned long long)s : (unsigned long long)s;
			put_number(&o, u, s < 0, 10, false, NULL, width, left, zero);
			break;
		case 'u':
		case 'o':
		case 'x':
		case 'X':
			u = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
			put_number(&o, u, false, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, *fmt == 'X',
				   alt && (*fmt == 'x' || *fmt == 'X') ? "0x" : NULL, width, left, zero);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_number(&o, u, false, 16, false, "0x", width, left, zero);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			size_t n = prec >= 0 ? strnlen(str, prec) : strlen(str);
			put_padded(&o, str, n, width, left, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			put_padded(&o, &c, 1, width, left, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:	/* unknown conversion: print it literally */
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
