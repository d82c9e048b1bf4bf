/*
 * tty.c - the serial console as a terminal for user programs: the file
 * behind descriptors 0, 1 and 2 of init (and so of everything it starts),
 * with Linux's line discipline and job control. /dev/tty and /dev/console
 * (fs/devfs.c) open the same terminal (console_open).
 *
 * Input. A kernel thread, "tty", takes each byte the console's interrupt
 * put in its ring (drivers/console.h) and runs it through the termios
 * settings at once, whether or not anyone reads, as Linux's n_tty does:
 * ICRNL/INLCR/IGNCR; with ISIG, VINTR/VQUIT/VSUSP become SIGINT/SIGQUIT/
 * SIGTSTP for the foreground group (input is flushed first unless NOFLSH);
 * with ICANON, VERASE/VKILL/VWERASE edit the line being typed and a line
 * becomes readable at '\n', VEOL or VEOF; without it each byte is readable
 * at once. Echo (ECHO, ECHOE, ECHOK, ECHOKE, ECHOCTL, ECHONL) is written as
 * the byte is taken. Signals are sent from the thread, never from the
 * interrupt handler: sending takes proc_lock and wakes tasks.
 *
 * Reading. One reader at a time takes bytes (tty_read_lock; the others
 * wait): with
 * ICANON, at most one line (VEOF alone gives 0, end of file); without it,
 * by VMIN and VTIME as POSIX says. A reader sleeps interruptibly
 * (kernel/wait.h): a signal ends read() with -ERESTARTSYS and what was
 * typed stays for the next read.
 *
 * Job control (drivers/tty.h): the console is the controlling terminal of
 * one session (init's at boot) and has a foreground group in it. A read by
 * a process of that session outside the foreground group sends TTY_SIGTTIN to
 * its group and fails (-ERESTARTSYS), or gives EIO if TTY_SIGTTIN is ignored
 * or the group is orphaned; tcsetattr, tcsetpgrp and (with TOSTOP) write
 * do the same with TTY_SIGTTOU, but go ahead if TTY_SIGTTOU is ignored.
 *
 * Output: OPOST with ONLCR turns '\n' into "\r\n"; other output flags are
 * kept but not acted on.
 *
 * Lock legend: [L:tty_lock] a spinlock, taken by the input thread, readers,
 * writers' checks and ioctl, never from an interrupt handler and never
 * across console output; [I] set once at boot. tty_read_lock (a mutex,
 * taken by trylock) is held by the one reader taking bytes: tty_read_lock
 * -> tty_lock.
 */
#include "fs/vfs.h"
#include "drivers/console.h"
#include "drivers/tty.h"
#include "kernel/cmdline.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"
#include "kernel/user.h"
#include "kernel/wait.h"

#define TCGETS 0x5401
#define TCSETS 0x5402
#define TCSETSW 0x5403
#define TCSETSF 0x5404
#define TCFLSH 0x540b
#define TIOCSCTTY 0x540e
#define TIOCGPGRP 0x540f
#define TIOCSPGRP 0x5410
#define TIOCGWINSZ 0x5413
#define FIONREAD 0x541b
#define TIOCNOTTY 0x5422
#define TIOCGSID 0x5429

/* termios flags and c_cc indices (Linux's values). */
#define INLCR 0x40
#define IGNCR 0x80
#define ICRNL 0x100
#define OPOST 0x1
#define ONLCR 0x4
#define ISIG 0x1
#define ICANON 0x2
#define ECHO 0x8
#define ECHOE 0x10
#define ECHOK 0x20
#define ECHONL 0x40
#define NOFLSH 0x80
#define TOSTOP 0x100
#define ECHOCTL 0x200
#define ECHOKE 0x800
#define IEXTEN 0x8000
/* Job-control signals (Linux's numbers). */
#define TTY_SIGTSTP 20
#define TTY_SIGTTIN 21
#define TTY_SIGTTOU 22

enum { VINTR, VQUIT, VERASE, VKILL, VEOF, VTIME, VMIN, VSWTC, VSTART, VSTOP,
       VSUSP, VEOL, VREPRINT, VDISCARD, VWERASE, VLNEXT, VEOL2, NCCS };

/* Linux's struct termios as TCGETS passes it (36 bytes). */
struct ktermios {
	u32 iflag, oflag, cflag, lflag;
	u8 line, cc[NCCS + 2];
};

/* What `stty -a` shows on a fresh Linux terminal (Linux's tty_std_termios). */
static const struct ktermios tty_std_termios = {
	.iflag = ICRNL | 0x400 /* IXON */,
	.oflag = OPOST | ONLCR,
	.cflag = 0xbf /* B38400 | CS8 | CREAD */ | 0x400 /* HUPCL */,
	.lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.cc = { [VINTR] = 3, [VQUIT] = 0x1c, [VERASE] = 0x7f, [VKILL] = 0x15,
		[VEOF] = 4, [VMIN] = 1, [VSTART] = 0x11, [VSTOP] = 0x13, [VSUSP] = 0x1a,
		[VREPRINT] = 0x12, [VDISCARD] = 0x0f, [VWERASE] = 0x17, [VLNEXT] = 0x16 },
};

/* Input entries: a byte, or'ed with these marks. */
#define TTY_BUF 4096			/* a power of two */
#define MARK_EOL 0x100			/* the byte ends a line ('\n', VEOL) */
#define MARK_EOF 0x200			/* VEOF: ends a line, no byte */

static spinlock_t tty_lock = SPINLOCK_INIT("tty");
static struct {
	struct ktermios termios;	/* [L:tty_lock] */
	u16 buf[TTY_BUF];		/* [L:tty_lock] typed input */
	u32 tail;			/* [L:tty_lock] next entry a reader takes */
	u32 canon_head;			/* [L:tty_lock] end of what readers may take */
	u32 head;			/* [L:tty_lock] end of the line being edited */
	int sid;			/* [L:tty_lock] the session it controls; 0: none */
	int pgrp;			/* [L:tty_lock] its foreground group; 0: none */
} tty = { .termios = tty_std_termios, .sid = 1, .pgrp = 1 };	/* init's (pid 1) */

static struct wait_queue_head read_wq = WAIT_QUEUE_HEAD_INIT(read_wq);	/* readers */
static DEFINE_MUTEX(tty_read_lock);	/* held by the one reader taking bytes */
static const struct tty_job_ops *job;	/* [I] once set at boot */

CMDLINE_KEY(tty_no_isig, "tty.debug_no_isig",
	    "broken on purpose: typed VINTR/VQUIT/VSUSP send no signal (a test of the test)");

void tty_set_job_ops(const struct tty_job_ops *ops)
{
	job = ops;
}

/* ------------------------------------------------------------ output */

/* Bytes to the console, with OPOST|ONLCR's "\r\n" when it is set. */
static void tty_output(const char *s, size_t n)
{
	unsigned long f = spin_lock_irqsave(&tty_lock);
	u32 oflag = tty.termios.oflag;
	spin_unlock_irqrestore(&tty_lock, f);
	if ((oflag & (OPOST | ONLCR)) == (OPOST | ONLCR))
		console_write(s, n);
	else
		console_write_raw(s, n);
}

/* Echo gathered under tty_lock, written after it is dropped. */
struct echo {
	char b[256];
	size_t n;
};

static void echo_put(struct echo *e, char c)
{
	if (e->n < sizeof(e->b))
		e->b[e->n++] = c;
}

/* A byte as ECHO shows it: a control byte as ^X with ECHOCTL. */
static void __echo_char(struct echo *e, u8 c)
{
	u32 l = tty.termios.lflag;
	if (!(l & ECHO))
		return;
	if ((l & ECHOCTL) && (c < ' ' || c == 0x7f) && c != '\t' && c != '\n') {
		echo_put(e, '^');
		echo_put(e, (char)(c ^ 0x40));
	} else {
		echo_put(e, (char)c);
	}
}

/* ------------------------------------------------------------ input: the line discipline */

static u32 __readable(void)
{
	return tty.canon_head - tty.tail;
}

static void __flush_input(void)
{
	tty.tail = tty.canon_head = tty.head;
}

static void __put(u16 entry)
{
	if (tty.head - tty.tail < TTY_BUF)
		tty.buf[tty.head++ % TTY_BUF] = entry;
}

/* Erase the last byte of the line being edited, visibly with ECHOE. */
static bool __erase_one(struct echo *e, bool visibly)
{
	if (tty.head == tty.canon_head)
		return false;
	u8 c = (u8)tty.buf[--tty.head % TTY_BUF];
	if (visibly) {
		int cols = (tty.termios.lflag & ECHOCTL) && (c < ' ' || c == 0x7f) && c != '\t' ? 2 : 1;
		while (cols--) {
			echo_put(e, '\b');
			echo_put(e, ' ');
			echo_put(e, '\b');
		}
	}
	return true;
}

/* VERASE, VWERASE, VKILL in canonical mode. */
static void __edit(struct echo *e, u8 c)
{
	struct ktermios *t = &tty.termios;
	bool echo = t->lflag & ECHO;
	if (c == t->cc[VERASE]) {
		if (__erase_one(e, echo && (t->lflag & ECHOE)) && echo && !(t->lflag & ECHOE))
			__echo_char(e, c);
	} else if (c == t->cc[VWERASE]) {
		while (tty.head != tty.canon_head && tty.buf[(tty.head - 1) % TTY_BUF] == ' ')
			__erase_one(e, echo);
		while (tty.head != tty.canon_head && tty.buf[(tty.head - 1) % TTY_BUF] != ' ')
			__erase_one(e, echo);
	} else {		/* VKILL */
		bool visibly = echo && (t->lflag & ECHOKE) && (t->lflag & ECHOE);
		while (__erase_one(e, visibly))
			;
		if (echo && !visibly && (t->lflag & ECHOK)) {
			__echo_char(e, c);
			echo_put(e, '\n');
		}
	}
}

/* A byte in canonical mode: editing, line ends, or part of the line. */
static void __receive_canon(struct echo *e, u8 c)
{
	struct ktermios *t = &tty.termios;
	bool iext = t->lflag & IEXTEN;
	if (c && (c == t->cc[VERASE] || c == t->cc[VKILL] || (iext && c == t->cc[VWERASE]))) {
		__edit(e, c);
	} else if (c && c == t->cc[VEOF]) {
		__put(MARK_EOF);
		tty.canon_head = tty.head;
	} else if (c == '\n' || (c && (c == t->cc[VEOL] || (iext && c == t->cc[VEOL2])))) {
		if ((t->lflag & ECHO) || (c == '\n' && (t->lflag & ECHONL)))
			echo_put(e, (char)c);
		__put(MARK_EOL | c);
		tty.canon_head = tty.head;
	} else if (tty.head - tty.tail < TTY_BUF - 1) {	/* room kept for '\n' */
		__echo_char(e, c);
		__put(c);
	}
}

/* The signal a typed byte stands for under ISIG, or 0. */
static int __isig(u8 c)
{
	const struct ktermios *t = &tty.termios;
	if (!(t->lflag & ISIG) || !c)
		return 0;
	return c == t->cc[VINTR] ? SIGINT : c == t->cc[VQUIT] ? SIGQUIT
	       : c == t->cc[VSUSP] ? TTY_SIGTSTP : 0;
}

/* One typed byte; returns the signal it raises (0: none). */
static int __receive(struct echo *e, u8 c)
{
	u32 i = tty.termios.iflag;
	if (c == '\r' && (i & IGNCR))
		return 0;
	if (c == '\r' && (i & ICRNL))
		c = '\n';
	else if (c == '\n' && (i & INLCR))
		c = '\r';
	int sig = __isig(c);
	if (sig) {
		if (!(tty.termios.lflag & NOFLSH))
			__flush_input();
		__echo_char(e, c);
		return sig;
	}
	if (tty.termios.lflag & ICANON) {
		__receive_canon(e, c);
	} else {
		__echo_char(e, c);
		__put(c);
		tty.canon_head = tty.head;
	}
	return 0;
}

static bool no_isig(void)
{
	static int v = -1;	/* [A] the command line, looked up once */
	if (READ_ONCE(v) < 0)
		WRITE_ONCE(v, cmdline_get("tty.debug_no_isig") != NULL);
	return READ_ONCE(v);
}

/* The input thread's work for one byte: edit, echo, signal, wake readers. */
static void tty_receive(u8 c)
{
	struct echo e = { .n = 0 };
	unsigned long f = spin_lock_irqsave(&tty_lock);
	int sig = __receive(&e, c);
	int fg = tty.pgrp;
	spin_unlock_irqrestore(&tty_lock, f);
	if (e.n)
		tty_output(e.b, e.n);
	if (sig && fg && !no_isig())
		job->kill_pgrp(fg, sig);
	wake_up_all(&read_wq);
}

static int tty_input_main(void *unused)
{
	for (;;) {
		int c;
		console_wait_input();
		while ((c = console_getc()) >= 0)
			tty_receive((u8)c);
	}
	return 0;
}

/* ------------------------------------------------------------ job control */

/* Whether the caller's controlling terminal is this one; its ids to *pgid, *pid. */
static bool is_ctty(int *pid, int *pgid)
{
	int sid, p, g;
	job->current_ids(&p, &g, &sid);
	if (pid)
		*pid = p;
	if (pgid)
		*pgid = g;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	bool yes = sid && sid == tty.sid;
	spin_unlock_irqrestore(&tty_lock, f);
	return yes;
}

/*
 * May the caller use the terminal for something a background job must ask
 * for (sig: TTY_SIGTTIN to read, TTY_SIGTTOU to change settings)? 0: yes;
 * -ERESTARTSYS: sig went to its group (it stops, or its handler runs);
 * -EIO: it cannot be stopped (ignores TTY_SIGTTIN, or its group is orphaned).
 */
static int tty_job_check(int sig)
{
	int pgid;
	if (!is_ctty(NULL, &pgid))
		return 0;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	int fg = tty.pgrp;
	spin_unlock_irqrestore(&tty_lock, f);
	if (!fg || pgid == fg)
		return 0;
	if (job->sig_ignored(sig))
		return sig == TTY_SIGTTIN ? -EIO : 0;
	if (job->pgrp_orphaned(pgid))
		return -EIO;
	job->kill_pgrp(pgid, sig);
	return -ERESTARTSYS;
}

/* ------------------------------------------------------------ read */

/* Take at most max readable bytes into kbuf; *line_done when a line (or
 * end of file) was taken whole in canonical mode. */
static size_t __take(char *kbuf, size_t max, bool *line_done)
{
	bool canon = tty.termios.lflag & ICANON;
	size_t n = 0;
	while (n < max && tty.tail != tty.canon_head) {
		u16 e = tty.buf[tty.tail++ % TTY_BUF];
		if (e & MARK_EOF) {
			if (canon) {
				*line_done = true;
				break;
			}
			continue;	/* a VEOF typed before ICANON went off */
		}
		kbuf[n++] = (char)e;
		if (canon && (e & MARK_EOL)) {
			*line_done = true;
			break;
		}
	}
	return n;
}

/* Take what can be taken now into buf (the VFS's kernel buffer: the
 * copy to the user is its business); returns the bytes taken. */
static ssize_t take(char *buf, size_t len, bool *line_done)
{
	unsigned long f = spin_lock_irqsave(&tty_lock);
	size_t n = __take(buf, len, line_done);
	spin_unlock_irqrestore(&tty_lock, f);
	return (ssize_t)n;
}

static bool input_ready(void)
{
	unsigned long f = spin_lock_irqsave(&tty_lock);
	bool r = __readable() > 0;
	spin_unlock_irqrestore(&tty_lock, f);
	return r;
}

/* Canonical: wait for a line, give at most one. Not inlined: the gdb
 * tests (tests/gdb/commands.gdb) stop the shell here, waiting for a line. */
static __noinline ssize_t read_canon(char *buf, size_t len)
{
	bool line_done = false;
	int err = wait_event_interruptible(read_wq, input_ready());
	return err ? err : take(buf, len, &line_done);
}

/* Raw: POSIX's four cases of VMIN and VTIME (tenths of a second). */
static ssize_t read_raw(char *buf, size_t len, u8 vmin, u8 vtime)
{
	bool line_done = false;
	size_t want = vmin ? MIN((size_t)vmin, len) : 1;
	ssize_t done = 0;
	for (;;) {
		done += take(buf + done, len - (size_t)done, &line_done);
		if ((size_t)done >= want || (!vmin && !vtime) || (size_t)done == len)
			return done;
		/* VTIME: with VMIN, between bytes once one came; without, for the first. */
		u64 deadline = vtime && (!vmin || done) ? ktime_ns() + vtime * 100000000ULL : 0;
		int err = wait_event_interruptible_deadline(read_wq, input_ready(), deadline);
		if (err == -ETIMEDOUT)
			return done;
		if (err)
			return done ? done : err;
	}
}

static ssize_t tty_read(struct file *file, void *buf, size_t len)
{
	if (!len)
		return 0;
	int err = tty_job_check(TTY_SIGTTIN);
	if (err)
		return err;
	/* One reader at a time; trylock, never a sleep on the mutex itself,
	 * so that a signal still ends the wait (wait.h: interruptible). */
	err = wait_event_interruptible(read_wq, mutex_trylock(&tty_read_lock));
	if (err)
		return err;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	struct ktermios t = tty.termios;
	spin_unlock_irqrestore(&tty_lock, f);
	ssize_t n = (t.lflag & ICANON) ? read_canon(buf, len)
				       : read_raw(buf, len, t.cc[VMIN], t.cc[VTIME]);
	mutex_unlock(&tty_read_lock);
	wake_up_all(&read_wq);
	return n;
}

static ssize_t tty_write(struct file *file, const void *buf, size_t len)
{
	unsigned long f = spin_lock_irqsave(&tty_lock);
	bool tostop = tty.termios.lflag & TOSTOP;
	spin_unlock_irqrestore(&tty_lock, f);
	int err = tostop ? tty_job_check(TTY_SIGTTOU) : 0;
	if (err)
		return err;
	tty_output(buf, len);
	return (ssize_t)len;
}

/* ------------------------------------------------------------ ioctl */

/* TCSETS, TCSETSW (output is never queued: nothing to drain), TCSETSF. */
static long set_termios(unsigned cmd, u64 arg)
{
	struct ktermios t;
	int err = tty_job_check(TTY_SIGTTOU);
	if (err)
		return err;
	if (copy_from_user(&t, (void *)arg, sizeof(t)))
		return -EFAULT;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	if (cmd == TCSETSF)
		__flush_input();
	bool was_canon = tty.termios.lflag & ICANON, canon = t.lflag & ICANON;
	if (was_canon && !canon)
		tty.canon_head = tty.head;	/* the line being typed is readable now */
	else if (!was_canon && canon)
		tty.canon_head = tty.tail;	/* unread bytes start a line, as Linux */
	tty.termios = t;
	spin_unlock_irqrestore(&tty_lock, f);
	wake_up_all(&read_wq);
	return 0;
}

static long tty_flush(u64 arg)
{
	if (arg > 2)
		return -EINVAL;
	if (arg != 1) {		/* TCIFLUSH, TCIOFLUSH; output is never queued */
		unsigned long f = spin_lock_irqsave(&tty_lock);
		__flush_input();
		spin_unlock_irqrestore(&tty_lock, f);
	}
	return 0;
}

/* tcsetpgrp: Linux's checks, in its order. */
static long set_pgrp(u64 arg)
{
	u32 pgrp;
	int err = tty_job_check(TTY_SIGTTOU);
	if (err)
		return err;
	if (!is_ctty(NULL, NULL))
		return -ENOTTY;
	if (get_user_u32(&pgrp, (void *)arg))
		return -EFAULT;
	if ((int)pgrp < 0)
		return -EINVAL;
	int sid = job->pgrp_session((int)pgrp);
	if (sid < 0)
		return -ESRCH;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	err = sid == tty.sid ? 0 : -EPERM;
	if (!err)
		tty.pgrp = (int)pgrp;
	spin_unlock_irqrestore(&tty_lock, f);
	return err;
}

/* tcgetpgrp (TIOCGPGRP) and TIOCGSID: for the controlling terminal only. */
static long get_id(u64 arg, bool sid)
{
	if (!is_ctty(NULL, NULL))
		return -ENOTTY;
	unsigned long f = spin_lock_irqsave(&tty_lock);
	int v = sid ? tty.sid : tty.pgrp;
	spin_unlock_irqrestore(&tty_lock, f);
	return put_user_u32((void *)arg, (u32)v);
}

/* TIOCSCTTY: a session leader without a terminal takes this one; arg 1
 * takes it from another session (everyone is root here). */
static long set_ctty(u64 arg)
{
	int pid, pgid, sid;
	job->current_ids(&pid, &pgid, &sid);
	unsigned long f = spin_lock_irqsave(&tty_lock);
	long err = 0;
	if (sid == tty.sid && pid == sid)
		err = 0;			/* already ours */
	else if (pid != sid || sid == tty.sid || (tty.sid && arg != 1))
		err = -EPERM;
	else {
		tty.sid = sid;
		tty.pgrp = pgid;
	}
	spin_unlock_irqrestore(&tty_lock, f);
	return err;
}

/* TIOCNOTTY: a session leader gives the terminal up; its foreground group
 * gets SIGHUP and SIGCONT. Another process keeps it (see docs/user.md). */
static long drop_ctty(void)
{
	int pid, pgid, sid;
	job->current_ids(&pid, &pgid, &sid);
	unsigned long f = spin_lock_irqsave(&tty_lock);
	int fg = 0;
	long err = sid && sid == tty.sid ? 0 : -ENOTTY;
	if (!err && pid == sid) {
		fg = tty.pgrp;
		tty.sid = tty.pgrp = 0;
	}
	spin_unlock_irqrestore(&tty_lock, f);
	if (fg) {
		job->kill_pgrp(fg, SIGHUP);
		job->kill_pgrp(fg, SIGCONT);
	}
	return err;
}

static long tty_ioctl(struct file *file, unsigned cmd, u64 arg)
{
	unsigned long f;
	switch (cmd) {
	case TCGETS: {
		f = spin_lock_irqsave(&tty_lock);
		struct ktermios t = tty.termios;
		spin_unlock_irqrestore(&tty_lock, f);
		return copy_to_user((void *)arg, &t, sizeof(t));
	}
	case TCSETS: case TCSETSW: case TCSETSF:
		return set_termios(cmd, arg);
	case TCFLSH:
		return tty_flush(arg);
	case FIONREAD: {
		f = spin_lock_irqsave(&tty_lock);
		u32 n = __readable();
		spin_unlock_irqrestore(&tty_lock, f);
		return put_user_u32((void *)arg, n);
	}
	case TIOCGWINSZ: {
		u16 ws[4] = { 24, 80, 0, 0 };
		return copy_to_user((void *)arg, ws, sizeof(ws));
	}
	case TIOCGPGRP:
		return get_id(arg, false);
	case TIOCSPGRP:
		return set_pgrp(arg);
	case TIOCGSID:
		return get_id(arg, true);
	case TIOCSCTTY:
		return set_ctty(arg);
	case TIOCNOTTY:
		return drop_ctty();
	}
	return -ENOTTY;
}

/* Readable when a reader would take something now (a line with ICANON);
 * select.c looks again every few ms, as nothing wakes a poller. */
static unsigned tty_poll(struct file *file)
{
	return POLLOUT | (input_ready() ? POLLIN : 0);
}

static const struct file_operations tty_fops = {
	.poll = tty_poll,
	.read = tty_read,
	.write = tty_write,
	.ioctl = tty_ioctl,
};

int console_open_stdio(struct files_struct *files)
{
	struct file *f = file_alloc_ops(&tty_fops, NULL, O_RDWR);
	if (!f)
		return -ENOMEM;
	fd_install(files, f, 0, false);
	fd_install(files, file_get(f), 1, false);
	fd_install(files, file_get(f), 2, false);
	kthread_run(tty_input_main, NULL, "tty");
	return 0;
}

void console_open(struct file *f)
{
	f->fop = &tty_fops;
}

bool file_is_tty(struct file *f)
{
	return f->fop == &tty_fops;
}
