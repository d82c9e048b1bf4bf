/*
 * syscalls.h - what the file system calls share (fs/read_write.c, open.c,
 * fcntl.c, stat.c, readdir.c, names.c, sync.c, direct-io.c). Not for the
 * VFS below them: it knows nothing of descriptors or user memory.
 */
#ifndef FS_SYSCALLS_H
#define FS_SYSCALLS_H

#include "fs/vfs.h"

#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000

/* The calling process's umask (the bits a new file's mode loses). */
u32 current_umask(void);
/* The calling process's descriptor table. */
struct files_struct *current_files(void);
/* Copy a path from user memory: a kmalloc'd string (kfree it), or
 * ERR_PTR(-ENOMEM, -EFAULT, -ENAMETOOLONG); never NULL. May sleep. */
char *get_path(u64 upath);
/* The directory a *at() path starts from, with a reference (the caller's
 * cwd for AT_FDCWD or an absolute path), or ERR_PTR(-EBADF, -ENOTDIR);
 * never NULL. */
struct inode *base_dir(int dirfd, const char *path);

/* fs/direct-io.c: whether f is a regular file opened O_DIRECT, and its I/O. */
bool file_is_direct(struct file *f);
long direct_rw(struct file *f, u64 ubuf, size_t len, bool positioned, u64 pos, bool write);

#endif
