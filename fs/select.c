/*
 * select.c - poll, ppoll, select and pselect6: wait until one of several
 * descriptors is ready.
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
 *
 * select and pselect6 are poll underneath: their fd_sets become a pollfd
 * array (read: POLLIN, write: POLLOUT, except: POLLPRI, which no file
 * here ever raises), and the answers go back into the sets as Linux maps
 * them (readable also on POLLHUP or POLLERR, writable also on POLLERR).
 * select, pselect6 and ppoll write the time left back into their timeout,
 * as Linux's system calls do (C libraries hide it for pselect and ppoll);
 * a call restarted after a signal with no handler so waits only what was
 * left. The signal mask of pselect6 and ppoll is the thread's for the
 * call, as Linux's (set_sigmask below).
 */
#include "fs/vfs.h"
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/wait.h"
#include "kernel/uaccess.h"
#include "kernel/time.h"
#include "kernel/string.h"
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

/*
 * Wait until one of fds is ready, or the deadline (ktime_ns; 0: none)
 * passes, or at once if `nowait`. Fills each revents; the count ready,
 * or -ERESTARTNOHAND when a signal came first. Interruptible
 * (kernel/wait.h).
 */
static long do_poll(struct pollfd *fds, unsigned n, u64 deadline, bool nowait)
{
	for (;;) {
		unsigned gen = __atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST);
		bool tty = false;
		int ready = poll_scan(fds, n, &tty);
		if (ready || nowait || (deadline && ktime_ns() >= deadline))
			return ready;
		u64 until = deadline;
		if (tty) {
			u64 soon = ktime_ns() + POLL_TTY_RECHECK_MS * 1000000ULL;
			until = until && until < soon ? until : soon;
		}
		int err = wait_event_interruptible_deadline(poll_wq,
				__atomic_load_n(&poll_gen, __ATOMIC_SEQ_CST) != gen, until);
		if (err == -ERESTARTSYS)
			return -ERESTARTNOHAND;	/* as Linux: EINTR when a handler runs */
	}
}

/* poll and ppoll: copy the array in, wait, copy the answers out. */
static long poll_user(u64 ufds, unsigned n, u64 deadline, bool nowait)
{
	if (n > POLL_MAX)
		return -EINVAL;		/* Linux: more than RLIMIT_NOFILE */
	struct pollfd *fds = kmalloc(n * sizeof(*fds) + 1);
	if (!fds)
		return -ENOMEM;
	long ret = -EFAULT;
	if (!copy_from_user(fds, (void *)ufds, n * sizeof(*fds))) {
		ret = do_poll(fds, n, deadline, nowait);
		if (ret >= 0 && copy_to_user((void *)ufds, fds, n * sizeof(*fds)))
			ret = -EFAULT;
	}
	kfree(fds);
	return ret;
}

/* poll(fds, n, timeout_ms): interruptible (kernel/wait.h); -ERESTARTNOHAND. */
SYSCALL_DEFINE3(poll, uaddr_t, ufds, unsigned int, nfds, int, timeout_ms)
{
	u64 deadline = timeout_ms > 0 ? ktime_ns() + (u64)timeout_ms * 1000000ULL : 0;
	return poll_user(ufds, nfds, deadline, timeout_ms == 0);
}

/* ------------------------------------------------------------ timeouts and masks */

#define NSEC 1000000000ULL

/* A timeout (sec, nsec) from now as a deadline; *nowait for a zero one. EINVAL if negative. */
static int to_deadline(s64 sec, s64 nsec, u64 *deadline, bool *nowait)
{
	if (sec < 0 || nsec < 0 || nsec >= (s64)NSEC)
		return -EINVAL;
	*nowait = !sec && !nsec;
	u64 limit = (~0ULL - ktime_ns()) / NSEC;	/* past it: wait for ever */
	*deadline = (u64)sec >= limit ? 0 : ktime_ns() + (u64)sec * NSEC + (u64)nsec;
	return 0;
}

/* The time left until deadline, in ns (0 once it has passed). */
static u64 time_left(u64 deadline)
{
	u64 now = ktime_ns();
	return deadline > now ? deadline - now : 0;
}

/*
 * A timespec timeout argument (NULL: none) as a deadline. 0, -EFAULT, -EINVAL.
 */
static int get_timespec_deadline(u64 uts, u64 *deadline, bool *nowait)
{
	struct timespec ts;
	*deadline = 0;
	*nowait = false;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, (void *)uts, sizeof(ts)))
		return -EFAULT;
	return to_deadline(ts.sec, ts.nsec, deadline, nowait);
}

/* Write the time left back to a timespec timeout; as Linux, a fault here is ignored. */
static void put_timespec_left(u64 uts, u64 deadline, bool nowait)
{
	if (!uts || (!deadline && !nowait))
		return;
	u64 left = nowait ? 0 : time_left(deadline);
	struct timespec ts = { (s64)(left / NSEC), (s64)(left % NSEC) };
	(void)copy_to_user((void *)uts, &ts, sizeof(ts));
}

/*
 * The signal mask of ppoll and pselect6: read (EFAULT) and its size
 * checked (EINVAL unless 8), then made the thread's mask for the call
 * (signal_mask_temporary). end_sigmask, when the call ends: a call a
 * signal interrupted keeps it until the handler's frame is built (so the
 * handler that broke the wait runs, as on Linux); any other result puts
 * the old mask back at once, and what only the temporary mask let
 * through stays pending.
 */
static int set_sigmask(u64 umask, u64 size)
{
	u64 mask;
	if (!umask)
		return 0;
	if (size != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, (void *)umask, sizeof(mask)))
		return -EFAULT;
	signal_mask_temporary(mask);
	return 0;
}

static void end_sigmask(u64 umask, long ret)
{
	bool interrupted = ret == -EINTR || ret == -ERESTARTNOHAND || ret == -ERESTARTSYS;
	if (umask && !interrupted)
		signal_mask_restore();
}

/* ppoll(fds, n, timeout, sigmask, sigsetsize): poll with a timespec and a mask. */
SYSCALL_DEFINE5(ppoll, uaddr_t, ufds, unsigned int, nfds, uaddr_t, utsp, uaddr_t, usigmask,
		u64, sigsetsize)
{
	u64 deadline;
	bool nowait;
	int err = get_timespec_deadline(utsp, &deadline, &nowait);
	if (!err)
		err = set_sigmask(usigmask, sigsetsize);
	if (err)
		return err;
	long ret = poll_user(ufds, nfds, deadline, nowait);
	end_sigmask(usigmask, ret);
	if (ret != -EFAULT && ret != -EINVAL && ret != -ENOMEM)
		put_timespec_left(utsp, deadline, nowait);
	return ret;
}

/* ------------------------------------------------------------ select */

#define SELECT_IN (POLLIN | POLLHUP | POLLERR)	/* what makes a descriptor readable */
#define SELECT_OUT (POLLOUT | POLLERR)
#define SELECT_EX 0x002				/* POLLPRI */

/* The three sets of one select call, FD_MAX bits each (more are never read). */
struct fd_sets {
	u64 in[FD_MAX / 64], out[FD_MAX / 64], ex[FD_MAX / 64];
};

static bool bit(const u64 *set, int fd)
{
	return (set[fd / 64] >> (fd % 64)) & 1;
}

/* Copy n bits of a user fd_set (NULL: empty) into set. */
static int get_set(u64 uset, u64 *set, int n)
{
	memset(set, 0, FD_MAX / 8);
	return uset && copy_from_user(set, (void *)uset, (size_t)(n + 7) / 8) ? -EFAULT : 0;
}

static int put_set(u64 uset, const u64 *set, int n)
{
	return uset && copy_to_user((void *)uset, set, (size_t)(n + 7) / 8) ? -EFAULT : 0;
}

/*
 * Wait on the descriptors below n named by the sets; replace the sets
 * with the ready ones. The count of bits set, -EBADF (a set names a
 * descriptor that is not open), -ERESTARTNOHAND.
 */
static long select_sets(struct fd_sets *s, int n, u64 deadline, bool nowait)
{
	struct pollfd *fds = kmalloc(FD_MAX * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	unsigned count = 0;
	for (int fd = 0; fd < n; fd++) {
		s16 ev = (bit(s->in, fd) ? POLLIN : 0) | (bit(s->out, fd) ? POLLOUT : 0) |
			 (bit(s->ex, fd) ? SELECT_EX : 0);
		if (ev)
			fds[count++] = (struct pollfd){ fd, ev, 0 };
	}
	long ret = do_poll(fds, count, deadline, nowait);
	for (unsigned i = 0; ret >= 0 && i < count; i++)
		if (fds[i].revents & POLLNVAL)
			ret = -EBADF;
	if (ret >= 0) {
		*s = (struct fd_sets){ 0 };
		ret = 0;
		for (unsigned i = 0; i < count; i++) {
			int fd = fds[i].fd;
			u64 b = 1ULL << (fd % 64);
			unsigned r = (u16)fds[i].revents, e = (u16)fds[i].events;
			if ((e & POLLIN) && (r & SELECT_IN)) {
				s->in[fd / 64] |= b;
				ret++;
			}
			if ((e & POLLOUT) && (r & SELECT_OUT)) {
				s->out[fd / 64] |= b;
				ret++;
			}
			if ((e & SELECT_EX) && (r & SELECT_EX)) {
				s->ex[fd / 64] |= b;
				ret++;
			}
		}
	}
	kfree(fds);
	return ret;
}

/* select and pselect6 after their timeouts are read: the sets in, wait, the sets out. */
static long do_select(int n, u64 uin, u64 uout, u64 uex, u64 deadline, bool nowait)
{
	if (n < 0)
		return -EINVAL;
	if (n > FD_MAX)
		n = FD_MAX;		/* as Linux: no descriptor lies past the table */
	struct fd_sets *s = kmalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	long ret = get_set(uin, s->in, n);
	if (!ret)
		ret = get_set(uout, s->out, n);
	if (!ret)
		ret = get_set(uex, s->ex, n);
	if (!ret)
		ret = select_sets(s, n, deadline, nowait);
	if (ret >= 0 && (put_set(uin, s->in, n) || put_set(uout, s->out, n) ||
			 put_set(uex, s->ex, n)))
		ret = -EFAULT;
	kfree(s);
	return ret;
}

struct timeval { s64 sec, usec; };

/* select(n, in, out, ex, timeval): the time left is written back, as Linux. */
SYSCALL_DEFINE5(select, int, n, uaddr_t, uin, uaddr_t, uout, uaddr_t, uex, uaddr_t, utv)
{
	struct timeval tv;
	u64 deadline = 0;
	bool nowait = false;
	if (utv) {
		if (copy_from_user(&tv, (void *)utv, sizeof(tv)))
			return -EFAULT;
		if (tv.sec < 0 || tv.usec < 0)
			return -EINVAL;
		/* Linux carries whole seconds out of tv_usec rather than refuse them. */
		int err = to_deadline(tv.sec + tv.usec / 1000000, tv.usec % 1000000 * 1000,
				      &deadline, &nowait);
		if (err)
			return err;
	}
	long ret = do_select(n, uin, uout, uex, deadline, nowait);
	if (utv && (deadline || nowait) && ret != -EFAULT && ret != -EINVAL) {
		u64 left = nowait ? 0 : time_left(deadline);
		tv = (struct timeval){ (s64)(left / NSEC), (s64)(left % NSEC / 1000) };
		(void)copy_to_user((void *)utv, &tv, sizeof(tv));
	}
	return ret;
}

/* pselect6(n, in, out, ex, timespec, {sigmask, size}): select with a timespec and a mask. */
SYSCALL_DEFINE6(pselect6, int, n, uaddr_t, uin, uaddr_t, uout, uaddr_t, uex, uaddr_t, uts,
		uaddr_t, usig)
{
	u64 deadline;
	bool nowait;
	int err = get_timespec_deadline(uts, &deadline, &nowait);
	if (err)
		return err;
	u64 sig[2] = { 0, 0 };		/* the mask's address, its size */
	if (usig) {
		if (copy_from_user(sig, (void *)usig, sizeof(sig)))
			return -EFAULT;
		if ((err = set_sigmask(sig[0], sig[1])))
			return err;
	}
	long ret = do_select(n, uin, uout, uex, deadline, nowait);
	end_sigmask(sig[0], ret);
	if (ret != -EFAULT && ret != -EINVAL)
		put_timespec_left(uts, deadline, nowait);
	return ret;
}
