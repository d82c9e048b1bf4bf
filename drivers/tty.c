/*
 * tty.c - the serial console as a terminal for user programs: the file
 * behind descriptors 0, 1 and 2 of init (and so of everything it starts).
 *
 * Input is canonical, as a Linux terminal's by default: read() returns one
 * line, typed with echo and backspace editing, including its '\n'; Ctrl-D
 * at the start of a line is end of file. Output goes to the console as it
 * is. ioctl answers TCGETS and TIOCGWINSZ, so isatty() is true and stdio
 * buffers by line, as it would on Linux. /dev/tty and /dev/console
 * (fs/devfs.c) open the same terminal (console_open).
 *
 * A reader waiting for a line (or for another reader to finish one) sleeps
 * interruptibly (kernel/wait.h): a signal ends read() with -ERESTARTSYS,
 * and what was typed so far stays for the next read.
 */
#include "fs/vfs.h"
#include "drivers/console.h"
#include "drivers/tty.h"
#include "drivers/uart.h"
#include "kernel/printk.h"
#include "kernel/wait.h"
#include "kernel/mutex.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"

#define TCGETS 0x5401
#define TCSETS 0x5402
#define TCSETSW 0x5403
#define TCSETSF 0x5404
#define TIOCGWINSZ 0x5413
#define TIOCGPGRP 0x540f
#define TIOCSPGRP 0x5410
#define TIOCGSID 0x5429
#define LINE_MAX 1024

static const struct tty_job_ops *job;	/* [I] once set at boot */

void tty_set_job_ops(const struct tty_job_ops *ops)
{
	job = ops;
}

static DEFINE_MUTEX(tty_lock);		/* one reader assembles a line at a time */
static char line[LINE_MAX];		/* [tty_lock] the line being handed out */
static size_t line_len, line_pos;	/* [tty_lock] */
static bool eof_pending;		/* [tty_lock] */
static bool line_partial;		/* [tty_lock] a read was interrupted mid-line */

#define TTY_POLL_MS 5

/* The next typed character, or -ERESTARTSYS for a signal. */
static int getc_sleeping(void)
{
	for (;;) {
		int c = console_getc();
		if (c >= 0)
			return c;
		if (sleep_interruptible_until(ktime_ns() + TTY_POLL_MS * 1000000ULL))
			return -ERESTARTSYS;
	}
}

/* Read one line into `line`, echoing as the user types; 0 or -ERESTARTSYS
 * (the line so far is kept, and the next call goes on with it). */
static int read_line(void)
{
	if (!line_partial)
		line_len = line_pos = 0;
	line_partial = true;
	for (;;) {
		int c = getc_sleeping();
		if (c < 0)
			return c;
		if (c == 4) {			/* Ctrl-D */
			if (line_len == 0)
				eof_pending = true;
			line_partial = false;	/* else it ends the line without a newline */
			return 0;
		}
		if (c == '\r' || c == '\n') {
			console_write("\n", 1);
			line[line_len++] = '\n';
			line_partial = false;
			return 0;
		}
		if (c == 0x7f || c == 0x08) {
			if (line_len) {
				line_len--;
				console_write("\b \b", 3);
			}
			continue;
		}
		if (line_len < LINE_MAX - 1 && (c >= ' ' || c == '\t')) {
			line[line_len++] = (char)c;
			char ch = (char)c;
			console_write(&ch, 1);
		}
	}
}

static ssize_t tty_read(struct file *f, void *buf, size_t len)
{
	if (!len)
		return 0;
	while (!mutex_trylock(&tty_lock))	/* another reader waits for its line */
		if (sleep_interruptible_until(ktime_ns() + TTY_POLL_MS * 1000000ULL))
			return -ERESTARTSYS;
	if ((line_pos == line_len || line_partial) && !eof_pending) {
		int err = read_line();
		if (err) {
			mutex_unlock(&tty_lock);
			return err;
		}
	}
	ssize_t n = 0;
	if (eof_pending && line_pos == line_len) {
		eof_pending = false;
	} else {
		n = (ssize_t)MIN(len, line_len - line_pos);
		memcpy(buf, line + line_pos, (size_t)n);
		line_pos += (size_t)n;
	}
	mutex_unlock(&tty_lock);
	return n;
}

static ssize_t tty_write(struct file *f, const void *buf, size_t len)
{
	console_write(buf, len);
	return (ssize_t)len;
}

/* Linux's struct termios (kernel layout, 36 bytes) and struct winsize. */
struct ktermios {
	u32 iflag, oflag, cflag, lflag;
	u8 line, cc[19];
};

/* The console is the controlling terminal of init's session only. */
static bool is_ctty(void)
{
	int pgid, sid;
	job->current_ids(&pgid, &sid);
	return sid == 1;
}

static long tty_ioctl(struct file *f, unsigned cmd, u64 arg)
{
	switch (cmd) {
	case TCGETS: {
		struct ktermios t = { .iflag = 0x500 /* ICRNL|IXON */, .oflag = 0x5 /* OPOST|ONLCR */,
				      .cflag = 0xbf /* B38400|CS8|CREAD */,
				      .lflag = 0x8a3b /* ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE */ };
		t.cc[4] = 4;	/* VEOF = Ctrl-D */
		t.cc[2] = 0x7f;	/* VERASE */
		return copy_to_user((void *)arg, &t, sizeof(t));
	}
	case TCSETS: case TCSETSW: case TCSETSF:
		return 0;	/* accepted, not acted on: the line discipline is fixed */
	case TIOCGWINSZ: {
		u16 ws[4] = { 24, 80, 0, 0 };
		return copy_to_user((void *)arg, ws, sizeof(ws));
	}
	case TIOCGPGRP:
		return is_ctty() ? put_user_u32((void *)arg, 1) : -ENOTTY;
	case TIOCSPGRP:
		return is_ctty() ? 0 : -ENOTTY;
	case TIOCGSID:
		return is_ctty() ? put_user_u32((void *)arg, 1) : -ENOTTY;
	}
	return -ENOTTY;
}

/* Readable when a line (or end of file) waits; typed characters not yet
 * read into a line are not seen (select.c looks again every few ms). */
static unsigned tty_poll(struct file *f)
{
	bool line_ready = READ_ONCE(line_pos) < READ_ONCE(line_len) && !READ_ONCE(line_partial);
	return POLLOUT | (line_ready || READ_ONCE(eof_pending) ? POLLIN : 0);
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
