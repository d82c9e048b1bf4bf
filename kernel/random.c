/*
 * random.c - random_fill (kernel/random.h): a 64-bit state that every
 * caller advances by the TSC (odd, so it always moves), then a
 * finaliser that spreads each step over all the bits of the byte taken.
 */
#include "kernel/random.h"
#include "kernel/x86.h"

static u64 state;	/* [A] advanced by every byte handed out */

void random_fill(void *buf, size_t n)
{
	u8 *out = buf;
	for (size_t i = 0; i < n; i++) {
		/* relaxed: callers need distinct steps, not an order between
		 * them (lock xadd on x86-64) */
		u64 x = __atomic_add_fetch(&state, rdtsc() | 1, __ATOMIC_RELAXED);
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdULL;
		x ^= x >> 29;
		out[i] = (u8)x;
	}
}
