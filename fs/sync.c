/*
 * sync.c - fsync, fdatasync and sync: write dirty pages back now, rather
 * than when the flusher (fs/super.c) comes by.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

SYSCALL_DEFINE1(fsync, int, fd)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	long r = vfs_fsync(f);
	file_put(f);
	return r;
}

SYSCALL_DEFINE0(sync)
{
	vfs_sync_all();
	return 0;
}
