/*
 * pipe.c - pipes: a ring buffer between a read end and a write end.
 *
 * read() waits for data and returns what there is (up to its length);
 * with every write end closed it returns 0, end of file. write() waits for
 * room, and with every read end closed fails with EPIPE (and SIGPIPE, sent
 * by the syscall layer). Writes of up to PIPE_BUF bytes are atomic.
 * Both sleeps are interruptible (kernel/wait.h): a signal ends them with
 * -ERESTARTSYS, or a write returns what it wrote so far.
 */
#include "fs/vfs.h"
#include "kernel/wait.h"
#include "kernel/mutex.h"
#include "kernel/string.h"
#include "mm/slab.h"

#define PIPE_SIZE 65536
#define PIPE_BUF 4096

struct pipe {
	struct mutex lock;
	struct wait_queue_head wq;	/* readers and writers both wait here */
	u8 *buf;
	size_t head, len;		/* [lock] */
	int readers, writers;		/* [lock] open ends */
};

/* Readers, writers and poll() look again. */
static void pipe_changed(struct pipe *p)
{
	wake_up_all(&p->wq);
	poll_notify();
}

static unsigned pipe_poll_read(struct file *f)
{
	struct pipe *p = f->private;
	size_t len = READ_ONCE(p->len);
	bool hup = !READ_ONCE(p->writers);
	return (len ? POLLIN : 0) | (hup ? POLLHUP : 0);
}

static unsigned pipe_poll_write(struct file *f)
{
	struct pipe *p = f->private;
	if (!READ_ONCE(p->readers))
		return POLLERR;
	return PIPE_SIZE - READ_ONCE(p->len) >= PIPE_BUF ? POLLOUT : 0;
}

static ssize_t pipe_read(struct file *f, void *dst, size_t n)
{
	struct pipe *p = f->private;
	if (!n)
		return 0;
	mutex_lock(&p->lock);
	while (!p->len && p->writers) {
		if (READ_ONCE(f->flags) & O_NONBLOCK) {
			mutex_unlock(&p->lock);
			return -EAGAIN;
		}
		mutex_unlock(&p->lock);
		int err = wait_event_interruptible(p->wq, READ_ONCE(p->len) || !READ_ONCE(p->writers));
		if (err)
			return err;
		mutex_lock(&p->lock);
	}
	size_t got = 0;
	while (got < n && p->len) {
		size_t chunk = MIN(n - got, MIN(p->len, PIPE_SIZE - p->head));
		memcpy((u8 *)dst + got, p->buf + p->head, chunk);
		p->head = (p->head + chunk) % PIPE_SIZE;
		p->len -= chunk;
		got += chunk;
	}
	mutex_unlock(&p->lock);
	pipe_changed(p);
	return (ssize_t)got;
}

static ssize_t pipe_write(struct file *f, const void *src, size_t n)
{
	struct pipe *p = f->private;
	size_t done = 0;
	mutex_lock(&p->lock);
	while (done < n) {
		size_t want = n - done <= PIPE_BUF ? n - done : 1;	/* small writes whole */
		while (p->readers && PIPE_SIZE - p->len < want) {
			if (READ_ONCE(f->flags) & O_NONBLOCK) {
				mutex_unlock(&p->lock);
				return done ? (ssize_t)done : -EAGAIN;
			}
			mutex_unlock(&p->lock);
			pipe_changed(p);
			int err = wait_event_interruptible(p->wq, !READ_ONCE(p->readers) ||
						PIPE_SIZE - READ_ONCE(p->len) >= want);
			if (err)
				return done ? (ssize_t)done : err;
			mutex_lock(&p->lock);
		}
		if (!p->readers) {
			mutex_unlock(&p->lock);
			return done ? (ssize_t)done : -EPIPE;
		}
		size_t room = PIPE_SIZE - p->len;
		size_t chunk = MIN(n - done, room);
		for (size_t i = 0; i < chunk; i++)
			p->buf[(p->head + p->len + i) % PIPE_SIZE] = ((const u8 *)src)[done + i];
		p->len += chunk;
		done += chunk;
		pipe_changed(p);
	}
	mutex_unlock(&p->lock);
	pipe_changed(p);
	return (ssize_t)done;
}

static void pipe_put(struct pipe *p, bool reader)
{
	mutex_lock(&p->lock);
	if (reader)
		p->readers--;
	else
		p->writers--;
	bool last = !p->readers && !p->writers;
	mutex_unlock(&p->lock);
	pipe_changed(p);
	if (last) {
		kfree(p->buf);
		kfree(p);
	}
}

static void release_read(struct file *f) { pipe_put(f->private, true); }
static void release_write(struct file *f) { pipe_put(f->private, false); }

static const struct file_operations pipe_read_fops = {
	.read = pipe_read, .release = release_read, .poll = pipe_poll_read,
};
static const struct file_operations pipe_write_fops = {
	.write = pipe_write, .release = release_write, .poll = pipe_poll_write,
};

struct file *pipe_create(struct file **write_end, unsigned flags)
{
	struct pipe *p = kzalloc(sizeof(*p));
	u8 *buf = kmalloc(PIPE_SIZE);
	if (!p || !buf) {
		kfree(p);
		kfree(buf);
		return NULL;
	}
	p->buf = buf;
	mutex_init(&p->lock, "pipe");
	init_waitqueue_head(&p->wq);
	p->readers = p->writers = 1;
	struct file *r = file_alloc_ops(&pipe_read_fops, p, O_RDONLY | (flags & O_NONBLOCK));
	struct file *w = file_alloc_ops(&pipe_write_fops, p, O_WRONLY | (flags & O_NONBLOCK));
	if (!r || !w) {
		kfree(r);
		kfree(w);
		kfree(buf);
		kfree(p);
		return NULL;
	}
	*write_end = w;
	return r;
}
