/* string.h (host shim) - the C library's string functions stand in for the kernel's. */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include <string.h>
#include "kernel/types.h"

#endif
