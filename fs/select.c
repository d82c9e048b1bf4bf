/*
 * select.c - poll(): wait until one of several descriptors is ready.
 *
 * Each file says what holds now through its poll operation (a pipe: data
 * to read, room to write, the other end closed); files without one (ext2
 * files, directories) are always ready, as on Linux. A poller that finds
 * nothing ready sleeps on one queue shared by every file, interruptibly
 * (kernel/wait.h): poll_notify(), called by a file whose state changed,
 * bumps a generation count and wakes every poller, which then looks
 * again. The generation is read before the look, so a change during the
 * look is not lost (the sleep's condition is "the generation moved").
 * One queue for all is simple and wakes pollers that did not need it;
 * Linux instead puts the poller on each file's own queue.
 */
#include "fs/vfs.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/wait.h"
#include "kernel/uaccess.h"
#include "kernel/time.h"
#include "mm/slab.h"


#define POLL_MAX FD_MAX
#define POLL_TTY_RECHECK_MS 10	/* the console has no poll_notify: look again this often */

static struct wait_queue_head poll_wq = WAIT_QUEUE_HEAD_INIT(poll_wq);
static unsigned poll_gen;	/* [A] bumped by every poll_notify */

void poll_notify(void)
{
	__atomic_add_fetch(&poll_gen, 1, __ATOMIC_SEQ_CST);
	wake_up_all(&poll_wq);
}

struct pollfd {
	s32 fd;
	s16 events, revents;
};

/* Fill each revents; returns how many are ready, and *tty if a console is polled. */
static int poll_scan(struct pollfd *fds, unsigned n, bool *tty)
{
	struct files_struct *files = current_proc()->files;
	int ready = 0;
	for (unsigned i = 0; i < n; i++) {
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		struct file *f = fd_get(files, fds[i].fd);
		unsigned mask = POLLNVAL;
		if (f) {
			mask = f->fop && f->fop->poll ? f->fop->poll(f) : POLLIN | POLLOUT;
			*tty |= file_is_tty(f);
			file_put(f);
		}
		/* POLLERR, POLLHUP and POLLNVAL are reported whether asked or not. */
		fds[i].revents = (s16)(mask & ((u16)fds[i].events | POLLERR | POLLHUP | POLLNVAL));
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

/* poll(fds, n, timeout_ms): interruptible (kernel/wait.h); -ERESTARTNOHAND. */
SYSCALL_DEFINE3(poll, uaddr_t, ufds, unsigned int, nfds, int, timeout_ms)
{
	unsigned n = nfds;
	int timeout = timeout_ms;
	if (n > POLL_MAX)
		return -EINVAL;
	struct pollfd *fds = kmalloc(n * sizeof(*fds) + 1);
	if (!fds)
		return -ENOMEM;
	long ret = 0;
	if (copy_from_user(fds, (void *)ufds, n * sizeof(*fds))) {
		ret = -EFAULT;
		goto out;
	}
	u64 deadline = timeout > 0 ? ktime_ns() + (u64)timeout * 1000000ULL : 0;
	for (;;) {
		unsigned gen = __atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST);
		bool tty = false;
		if ((ret = poll_scan(fds, n, &tty)) || timeout == 0)
			break;
		if (deadline && ktime_ns() >= deadline)
			break;
		u64 until = deadline;
		if (tty) {
			u64 soon = ktime_ns() + POLL_TTY_RECHECK_MS * 1000000ULL;
			until = until && until < soon ? until : soon;
		}
		int err = wait_event_interruptible_deadline(poll_wq,
				__atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST) != gen, until);
		if (err == -ERESTARTSYS) {
			ret = -ERESTARTNOHAND;	/* as Linux: EINTR when a handler runs */
			goto out;
		}
	}
	if (ret >= 0 && copy_to_user((void *)ufds, fds, n * sizeof(*fds)))
		ret = -EFAULT;
out:
	kfree(fds);
	return ret;
}
