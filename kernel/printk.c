/*
 * printk.c - console output with timestamps and CPU numbers.
 *
 * A call formats into a buffer on its own stack, then writes whole lines to
 * the UART under console_lock (interrupts off while held, so an interrupt
 * handler that prints cannot deadlock against the CPU it interrupted).
 * During a panic the lock is bypassed: the report must get out even if the
 * panicking CPU or a stopped one holds it.
 *
 * Lock order: console_lock is a leaf; nothing is taken while holding it.
 */
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/percpu.h"
#include "kernel/time.h"

#define LINE_MAX 512

static spinlock_t console_lock = SPINLOCK_INIT("console");
static int console_level = KERN_INFO;	/* [A] */
static bool panic_mode;			/* [A] set once by panic */
static bool at_line_start = true;	/* [L:console] */

/* Lock legend: [L:ratelimit] the lock below, taken with interrupts off. */
static spinlock_t ratelimit_lock = SPINLOCK_INIT("printk_ratelimit");
static struct {
	u64 window_start;	/* [L:ratelimit] ns */
	int printed;		/* [L:ratelimit] in this window */
	int suppressed;		/* [L:ratelimit] since the last one printed */
	int suppressed_level;	/* [L:ratelimit] the most severe among them */
} rl = { .suppressed_level = KERN_DEBUG };

bool printk_ratelimit_level(int level)
{
	u64 now = ktime_ns();
	unsigned long f = spin_lock_irqsave(&ratelimit_lock);
	if (now - rl.window_start >= PRINTK_INTERVAL_MS * 1000000ULL) {
		rl.window_start = now;
		rl.printed = 0;
	}
	bool ok = rl.printed < PRINTK_BURST;
	int suppressed = 0, at = KERN_DEBUG;
	if (ok) {
		rl.printed++;
		suppressed = rl.suppressed;
		at = rl.suppressed_level;
		rl.suppressed = 0;
		rl.suppressed_level = KERN_DEBUG;
	} else {
		rl.suppressed++;
		rl.suppressed_level = MIN(rl.suppressed_level, level);
	}
	spin_unlock_irqrestore(&ratelimit_lock, f);
	if (suppressed)
		printk_level(at, "printk: %d messages suppressed (rate limit)", suppressed);
	return ok;
}

bool printk_ratelimit(void)
{
	return printk_ratelimit_level(KERN_WARN);
}

void printk_set_level(int level)
{
	WRITE_ONCE(console_level, level);
}

void printk_panic_mode(void)
{
	WRITE_ONCE(panic_mode, true);
}

static unsigned long console_enter(void)
{
	unsigned long f = irq_save();

	if (!READ_ONCE(panic_mode))
		spin_lock(&console_lock);
	return f;
}

static void console_exit(unsigned long f)
{
	if (spin_is_held(&console_lock))
		spin_unlock(&console_lock);
	irq_restore(f);
}

/*
 * The consoles: output devices that drivers register at boot
 * (printk_register_console; the UART is the first). printk writes every
 * byte to each, so it knows no device itself and calls no driver.
 */
#define MAX_CONSOLES 4
static void (*consoles[MAX_CONSOLES])(char c);	/* [W:boot] */
static int nr_consoles;				/* [W:boot] */

void printk_register_console(void (*putc)(char c))
{
	if (nr_consoles < MAX_CONSOLES)
		consoles[nr_consoles++] = putc;
}

static void console_putc(char c)
{
	for (int i = 0; i < nr_consoles; i++)
		consoles[i](c);
}

static void put_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			console_putc('\r');
		console_putc(*s);
	}
}

/* Emit text, putting the "[  secs.micros] cpuN: " prefix at each line start. */
static void emit_prefixed(const char *text)
{
	char prefix[40];

	while (*text) {
		if (at_line_start) {
			u64 ns = ktime_ns();
			snprintf(prefix, sizeof(prefix), "[%5llu.%06llu] cpu%d: ",
				 (unsigned long long)(ns / 1000000000),
				 (unsigned long long)(ns / 1000 % 1000000), smp_processor_id());
			put_str(prefix);
			at_line_start = false;
		}
		if (*text == '\n')
			at_line_start = true;
		if (*text == '\n')
			console_putc('\r');
		console_putc(*text++);
	}
}

/*
 * The kernel log: every message, whatever the console level, kept in a
 * ring of LOG_SIZE bytes (the oldest are overwritten) that /proc/kmsg
 * shows. With loglevel=4 (qemu-run with a program) the console gets only
 * warnings and errors; the rest is here.
 */
#define LOG_SIZE 65536
static char log_ring[LOG_SIZE];		/* [L:log_lock] */
static u64 log_head;			/* [L:log_lock] bytes ever written */
static spinlock_t log_lock = SPINLOCK_INIT("log");

static void log_store(int level, const char *text)
{
	char prefix[48];
	u64 ns = ktime_ns();
	int p = snprintf(prefix, sizeof(prefix), "<%d>[%5llu.%06llu] cpu%d: ", level,
			 (unsigned long long)(ns / 1000000000),
			 (unsigned long long)(ns / 1000 % 1000000), smp_processor_id());
	unsigned long f = spin_lock_irqsave(&log_lock);
	for (int i = 0; i < p; i++)
		log_ring[log_head++ % LOG_SIZE] = prefix[i];
	for (; *text; text++)
		log_ring[log_head++ % LOG_SIZE] = *text;
	if (log_ring[(log_head - 1) % LOG_SIZE] != '\n')
		log_ring[log_head++ % LOG_SIZE] = '\n';
	spin_unlock_irqrestore(&log_lock, f);
}

int printk_log_read(char *buf, int size)
{
	unsigned long f = spin_lock_irqsave(&log_lock);
	u64 avail = MIN(log_head, (u64)LOG_SIZE);
	u64 n = MIN(avail, (u64)size);
	u64 start = log_head - n;
	for (u64 i = 0; i < n; i++)
		buf[i] = log_ring[(start + i) % LOG_SIZE];
	spin_unlock_irqrestore(&log_lock, f);
	return (int)n;
}

static void vprintk_level(int level, const char *fmt, va_list ap)
{
	char buf[LINE_MAX];

	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf) - 1)
		buf[sizeof(buf) - 2] = '\n';	/* truncated: still end the line */
	if (!READ_ONCE(panic_mode))
		log_store(level, buf);
	if (level > READ_ONCE(console_level))
		return;
	unsigned long f = console_enter();
	emit_prefixed(buf);
	if (!at_line_start) {	/* every printk ends its line */
		put_str("\n");
		at_line_start = true;
	}
	console_exit(f);
}

void printk_level(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk_level(level, fmt, ap);
	va_end(ap);
}

void printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk_level(KERN_INFO, fmt, ap);
	va_end(ap);
}

void printk_raw(const char *fmt, ...)
{
	char buf[LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	unsigned long f = console_enter();
	put_str(buf);
	put_str("\n");
	at_line_start = true;
	console_exit(f);
}

/* A user program's output (the console tty): bytes as they are, '\n' as
 * "\r\n" if crlf, under the console lock so a kernel line never lands
 * mid-line. */
static void __console_write(const char *s, size_t n, bool crlf)
{
	unsigned long f = console_enter();
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n' && crlf)
			console_putc('\r');
		console_putc(s[i]);
	}
	if (n)
		at_line_start = s[n - 1] == '\n';
	console_exit(f);
}

void console_write(const char *s, size_t n)
{
	__console_write(s, n, true);
}

void console_write_raw(const char *s, size_t n)
{
	__console_write(s, n, false);
}
