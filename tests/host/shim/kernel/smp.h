/* smp.h (host shim) - CPU numbers are thread numbers (percpu.h). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/types.h"
#include "kernel/percpu.h"

#endif
