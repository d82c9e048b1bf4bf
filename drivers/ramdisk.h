/*
 * ramdisk.h - a block driver over the root image GRUB loaded as a module.
 *
 * The driver fills in a struct blockdev (fs/blockdev.h: its types only)
 * with its operations; boot registers it with the block layer as "ram0"
 * (kernel/main.c), and everything above reads and writes it through
 * bdev_*. The driver calls nothing above it.
 */
#ifndef DRIVERS_RAMDISK_H
#define DRIVERS_RAMDISK_H

#include "kernel/types.h"

struct blockdev;

/*
 * ramdisk_probe: the module named root.img as a block device, named
 * "ram0" with the driver's operations, for bdev_register; NULL if the
 * boot has no such module. Boot calls it once. Never sleeps.
 */
struct blockdev *ramdisk_probe(void);
/*
 * ramdisk_extent: where the whole image lies in physical memory, for the
 * --dump-disk protocol (kernel/shutdown.c). False when there is no image.
 */
bool ramdisk_extent(u64 *phys, u64 *bytes);

#endif
