/*
 * cmdline.h (host shim) - a host test's arguments play the kernel command
 * line: `prog seed=5 debug.radix_broken_publish=1` makes cmdline_get()
 * answer as a kernel booted with those words would.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "kernel/types.h"

struct cmdline_key {
	const char *name;
	const char *help;
};

#define CMDLINE_KEY(ident, keyname, helptext)                                  \
	static const struct cmdline_key cmdline_key_##ident __unused = { keyname, helptext }

/* Take argv[1..argc-1] as the command line's words. Call first in main. */
void host_cmdline_init(int argc, char **argv);
/* The value of key ("" for a bare word), or NULL if absent. Last one wins. */
const char *cmdline_get(const char *key);
/* The value as a number (decimal or 0x..), or dflt if absent or bad. */
u64 cmdline_get_u64(const char *key, u64 dflt);

#endif
