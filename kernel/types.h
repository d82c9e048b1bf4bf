/* types.h - fixed-width integer types and small helpers used everywhere. */
#ifndef KERNEL_TYPES_H
#define KERNEL_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint64_t phys_addr_t;
typedef long ssize_t;

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))

#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __section(s) __attribute__((section(s)))
#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __noinline __attribute__((noinline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Kernel virtual layout (DESIGN.md section 2). */
#define DIRECT_MAP_BASE 0xffff800000000000UL
#define VMAP_BASE 0xffffc90000000000UL
#define KERNEL_VMA 0xffffffff80000000UL

/* Direct-map conversions: every physical frame has one kernel address. */
static inline void *__va(phys_addr_t pa) { return (void *)(pa + DIRECT_MAP_BASE); }
phys_addr_t __pa(const void *va);

/* Linux-style error numbers (negative returns). */
#define EPERM 1
#define ENOENT 2
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define ECHILD 10
#define EBADF 9
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define EFBIG 27
#define ENOSPC 28
#define ESPIPE 29
#define EROFS 30
#define EMLINK 31
#define ERANGE 34
#define ENAMETOOLONG 36
#define ENOSYS 38
#define ENOTTY 25
#define EPIPE 32
#define ESRCH 3
#define EINTR 4
#define ENOTEMPTY 39
#define ELOOP 40
#define EOVERFLOW 75
#define ENODEV 19
#define ETIMEDOUT 110
#define EUCLEAN 117	/* "structure needs cleaning": the file system is damaged */
/* A signal interrupted the call; never seen by a program (kernel/signal.c). */
#define ERESTARTSYS 512		/* again, unless a handler without SA_RESTART runs */
#define ERESTARTNOHAND 514	/* again only if no handler runs */
#define ERESTART_RESTARTBLOCK 516	/* on through restart_syscall (the time left),
					 * or EINTR if a handler runs */

#endif
