/*
 * cmdline.h - the kernel command line as a registry of key=value words.
 *
 * Subsystems declare the keys they understand with CMDLINE_KEY (collected in
 * a linker section), so a misspelt or unknown key is reported at boot
 * instead of silently doing nothing. A word without '=' is a flag whose
 * value is "".
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "kernel/types.h"

struct cmdline_key {
	const char *name;
	const char *help;
};

#define CMDLINE_KEY(ident, keyname, helptext)                                  \
	static const struct cmdline_key cmdline_key_##ident                   \
		__section(".cmdline_keys") __used __aligned(8) = { keyname, helptext }

#define CMDLINE_MAX 4096

/* Parse raw (copied) once at boot; reports unknown keys and malformed words. */
void cmdline_init(const char *raw);
/* The value of key ("" for a bare flag), or NULL if absent. Last one wins. */
const char *cmdline_get(const char *key);
/* The value as a number (decimal, 0x.., K/M/G suffix), or dflt if absent or bad. */
u64 cmdline_get_u64(const char *key, u64 dflt);
/* The whole command line as the boot loader gave it. */
const char *cmdline_raw(void);
/* Print every known key with its help text. */
void cmdline_print_keys(void);
/* Number of words reported as unknown at boot (for tests). */
int cmdline_unknown_count(void);

#endif
