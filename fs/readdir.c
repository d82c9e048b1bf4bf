/*
 * readdir.c - getdents64: a directory's entries as Linux's struct
 * linux_dirent64 records, as many as fit in the user's buffer.
 */
#include "fs/syscalls.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/uaccess.h"
#include "kernel/string.h"
#include "mm/slab.h"

struct dirent_ctx {
	u64 ubuf;
	size_t size, used;
	int err;
};

static int fill_dirent64(void *ctx, const char *name, int len, u64 ino, unsigned type)
{
	struct dirent_ctx *c = ctx;
	size_t reclen = (19 + len + 1 + 7) & ~7UL;
	if (c->used + reclen > c->size)
		return 1;
	u8 rec[19 + 256 + 8] = { 0 };
	*(u64 *)rec = ino;
	*(s64 *)(rec + 8) = (s64)(c->used + reclen);	/* d_off: opaque to programs */
	*(u16 *)(rec + 16) = (u16)reclen;
	rec[18] = (u8)type;
	memcpy(rec + 19, name, len);
	if (copy_to_user((void *)(c->ubuf + c->used), rec, reclen)) {
		c->err = -EFAULT;
		return 1;
	}
	c->used += reclen;
	return 0;
}

SYSCALL_DEFINE3(getdents64, int, fd, uaddr_t, udirent, u64, count)
{
	struct file *f = fd_get(current_files(), fd);
	if (!f)
		return -EBADF;
	struct dirent_ctx c = { udirent, count, 0, 0 };
	if (!access_ok((void *)udirent, count)) {
		file_put(f);
		return -EFAULT;
	}
	int err = vfs_readdir(f, fill_dirent64, &c);
	file_put(f);
	if (c.err && !c.used)
		return c.err;
	if (err)
		return err;
	if (!c.used && count && count < 24)
		return -EINVAL;		/* too small for even one entry */
	return (long)c.used;
}
