/*
 * lockdep.c - lock classes, held-lock stacks, the order graph and the
 * reports (kernel/lockdep.h says what is checked and why; docs/locks.md
 * shows the reports).
 *
 * Every hook runs with interrupts off on its own CPU and a per-CPU "inside
 * lockdep" flag set, so an interrupt handler cannot see a half-pushed
 * stack, and a lock taken by lockdep's own printing (the console lock) or
 * by an NMI that lands inside a hook is simply not tracked.
 *
 * Fast path, lockdep on, for a lock taken while d others are held: the
 * cached class, a test of one usage bit, d tests of one bit each in the
 * order graph, a push. Only the first time something is seen (a class, an
 * edge, a usage) does a hook take graph_lock and search the graph.
 *
 * The graph is a bit matrix: after[A] has bit B when a B was taken while an
 * A was held. Bits are only ever set, so a racy read that sees a bit is
 * right, and one that misses it takes graph_lock and looks again. The
 * matrix never fills (it is as big as the class table); the sites of the
 * edges are kept in a table of LOCKDEP_MAX_EDGES that can: past it, edges
 * are still checked, and reported without their sites.
 *
 * Lock order: graph_lock is a leaf, a plain test-and-set word of this file
 * taken with interrupts off, invisible to lockdep itself.
 */
#include "kernel/lockdep.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/ksyms.h"
#include "kernel/string.h"
#include "kernel/x86.h"

CMDLINE_KEY(lockdep_key, "lockdep",
	    "off: no lock-order, held-lock, interrupt-context or RCU checks (for benchmarks)");

#define WORDS (LOCKDEP_MAX_CLASSES / 64)
#define NAME_HASH 512		/* power of two, over twice the classes */
#define USED_IN_IRQ 1		/* taken inside an interrupt handler */
#define USED_IRQS_ON 2		/* taken with interrupts enabled */

/* Lock legend: [L:graph] graph_lock; [A] atomic (racy readers allowed). */
struct lock_class {
	const char *name;		/* [L:graph] set once */
	u16 base;			/* [L:graph] its subclass-0 class (itself for those) */
	u8 subclass;			/* [L:graph] */
	u8 usage;			/* [A] USED_*, set under graph */
	u16 sub[LOCKDEP_MAX_SUBCLASSES];	/* [A] base only: class of each subclass */
	unsigned long usage_site[2];	/* [L:graph] first site of each usage */
	u64 after[WORDS];		/* [A] bit b: a b was taken holding this */
};

struct lock_edge {
	u16 from, to;
	unsigned long from_site, to_site;	/* where each was taken, the first time */
};

bool lockdep_on;					/* see lockdep.h */
static struct lock_class classes[LOCKDEP_MAX_CLASSES];	/* 0 unused */
static int nr_classes = 1;				/* [L:graph, A read] */
static u16 by_name[NAME_HASH];				/* [L:graph] subclass-0 classes */
static struct lock_edge edges[LOCKDEP_MAX_EDGES];	/* [L:graph] */
static int nr_edges;					/* [L:graph, A read] */
static bool classes_full, edges_full;			/* [L:graph] said once */
static int graph_word;					/* [A] graph_lock */
static struct lockdep_stack cpu_held[MAX_CPUS];		/* [P] its CPU, interrupts off */
static bool inside[MAX_CPUS];				/* [P] its CPU, interrupts off */
static u16 page_lock_class;				/* [A] "page_lock", cached */
static u16 bfs_parent[LOCKDEP_MAX_CLASSES];		/* [L:graph] */
static u16 bfs_queue[LOCKDEP_MAX_CLASSES];		/* [L:graph] */

void lockdep_init(void)
{
	const char *v = cmdline_get("lockdep");

	/* Nothing is held (spinlock_init_from_cmdline checked), so every
	 * stack starts empty and no release can come before its acquire. */
	WRITE_ONCE(lockdep_on, !(v && !strcmp(v, "off")));
	if (!lockdep_enabled())
		pr_info("lockdep: off (lockdep=off): locking rules are not checked");
	else if (v && strcmp(v, "on"))
		pr_warn("lockdep: lockdep=%s is not 'off'; checks stay on", v);
}

/* ------------------------------------------------------------- graph_lock */

static void graph_lock(void)
{
	/* Acquire. x86-64: xchg. Interrupts are off: no handler can spin here. */
	while (__atomic_exchange_n(&graph_word, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void graph_unlock(void)
{
	__atomic_store_n(&graph_word, 0, __ATOMIC_RELEASE);	/* mov */
}

/* ----------------------------------------------------------------- naming */

static void class_name(char *buf, size_t n, u16 cls)
{
	const struct lock_class *c = &classes[cls];

	if (!cls)
		snprintf(buf, n, "(untracked)");
	else if (c->subclass)
		snprintf(buf, n, "%s/%u", c->name, c->subclass);
	else
		snprintf(buf, n, "%s", c->name);
}

static void site_name(char *buf, size_t n, unsigned long site)
{
	if (site)
		ksym_format(buf, n, site);
	else
		snprintf(buf, n, "(site not recorded)");
}

/* ---------------------------------------------------------------- classes */

static unsigned hash_name(const char *s)
{
	unsigned h = 5381;	/* Bernstein's string hash */

	while (*s)
		h = h * 33 + (u8)*s++;
	return h & (NAME_HASH - 1);
}

/* A new class, or 0 when the table is full. graph_lock held. */
static u16 new_class(const char *name, u16 base, unsigned subclass)
{
	if (nr_classes == LOCKDEP_MAX_CLASSES) {
		if (!classes_full)
			pr_err("lockdep: the class table is full (%d classes): locks named '%s' "
			       "and later ones are not checked (raise LOCKDEP_MAX_CLASSES)",
			       LOCKDEP_MAX_CLASSES, name);
		classes_full = true;
		return 0;
	}
	u16 cls = (u16)nr_classes;
	struct lock_class *c = &classes[cls];
	c->name = name;
	c->base = base ? base : cls;
	c->subclass = (u8)subclass;
	WRITE_ONCE(nr_classes, nr_classes + 1);
	return cls;
}

/* The subclass-0 class named name, made on first use. graph_lock held. */
static u16 __class_for_name(const char *name)
{
	unsigned h = hash_name(name);

	for (;; h = (h + 1) & (NAME_HASH - 1)) {
		u16 cls = by_name[h];
		if (!cls)
			break;
		if (!strcmp(classes[cls].name, name))
			return cls;
	}
	u16 cls = new_class(name, 0, 0);
	if (cls)
		by_name[h] = cls;
	return cls;
}

/* The class of a lock called name taken with subclass; *cache keeps subclass 0's. */
static u16 resolve(const char *name, u16 *cache, unsigned subclass)
{
	u16 base = READ_ONCE(*cache);	/* racing first users store the same value */

	if (!base) {
		graph_lock();
		base = __class_for_name(name ? name : "(unnamed)");
		graph_unlock();
		WRITE_ONCE(*cache, base);
	}
	if (!subclass || !base)
		return base;
	if (subclass >= LOCKDEP_MAX_SUBCLASSES)
		panic("lockdep: subclass %u of '%s' (at most %d)", subclass, classes[base].name,
		      LOCKDEP_MAX_SUBCLASSES - 1);
	u16 cls = READ_ONCE(classes[base].sub[subclass]);
	if (!cls) {
		graph_lock();
		cls = classes[base].sub[subclass];
		if (!cls) {
			cls = new_class(classes[base].name, base, subclass);
			WRITE_ONCE(classes[base].sub[subclass], cls);
		}
		graph_unlock();
	}
	return cls;
}

/* ---------------------------------------------------------------- reports */

static void print_stack(const char *whose, const struct lockdep_stack *s)
{
	char cn[64], sn[96];

	for (int i = 0; i < s->depth; i++) {
		const struct lockdep_held *h = &s->held[i];
		class_name(cn, sizeof(cn), h->cls);
		site_name(sn, sizeof(sn), h->site);
		pr_err("lockdep:   %s holds '%s'%s%s, taken at %s", whose, cn,
		       h->flags & LOCKDEP_READ ? " (shared)" : "",
		       h->flags & LOCKDEP_TRY ? " (trylock)" : "", sn);
	}
}

/* Interrupts off. */
static void __print_held(void)
{
	struct task *t = current_task();
	const struct lockdep_stack *cs = &cpu_held[smp_processor_id()];

	if (!cs->depth && (!t || !t->lockdep.depth)) {
		pr_err("lockdep:   no locks held");
		return;
	}
	print_stack("this CPU", cs);
	if (t)
		print_stack("this task", &t->lockdep);
}

void lockdep_print_held(void)
{
	unsigned long f = irq_save();

	__print_held();
	irq_restore(f);
}

/* Stop checking: the report about to be printed is the last. */
static void report_begin(const char *what)
{
	struct task *t = current_task();

	WRITE_ONCE(lockdep_on, false);
	pr_err("lockdep: %s on cpu%d, task '%s' (tid %d)%s", what, smp_processor_id(),
	       t ? t->name : "(none)", t ? t->tid : -1, in_hardirq() ? ", in an interrupt" : "");
}

static __noreturn void report_same_class(const struct lockdep_held *h, bool same, u16 cls,
					 unsigned long site)
{
	char cn[64], s1[96], s2[96];

	class_name(cn, sizeof(cn), cls);
	site_name(s1, sizeof(s1), h->site);
	site_name(s2, sizeof(s2), site);
	report_begin(same ? "recursive lock" : "nested lock of one class");
	pr_err("lockdep: '%s' taken at %s, while %s '%s' taken at %s is held", cn, s2,
	       same ? "the same" : "another", cn, s1);
	__print_held();
	if (same)
		panic("lockdep: recursive lock: '%s' taken at %s by its holder", cn, s2);
	panic("lockdep: nested lock of class '%s' without a subclass annotation, at %s "
	      "(use a *_nested lock with a subclass)", cn, s2);
}

static const struct lock_edge *find_edge(u16 from, u16 to)
{
	for (int i = 0; i < nr_edges; i++)
		if (edges[i].from == from && edges[i].to == to)
			return &edges[i];
	return NULL;
}

static void print_edge(const char *label, u16 from, u16 to, unsigned long fs, unsigned long ts)
{
	char a[64], b[64], s1[96], s2[96];

	class_name(a, sizeof(a), from);
	class_name(b, sizeof(b), to);
	site_name(s1, sizeof(s1), fs);
	site_name(s2, sizeof(s2), ts);
	pr_err("lockdep: %s '%s' -> '%s': '%s' taken at %s, then '%s' at %s", label, a, b, a, s1,
	       b, s2);
}

/*
 * The new edge held->cls closes a cycle: bfs_parent leads from held->cls
 * back to cls. Print every edge of the cycle with its sites. graph_lock held.
 */
static __noreturn void report_inversion(const struct lockdep_held *h, u16 cls,
					unsigned long site)
{
	u16 path[LOCKDEP_MAX_CLASSES];
	int n = 0;
	char a[64], b[64], s2[96];

	for (u16 c = h->cls; c != cls; c = bfs_parent[c])
		path[n++] = c;
	path[n++] = cls;		/* path[n-1] = cls ... path[0] = held's class */
	report_begin("lock order inversion");
	print_edge("new edge", h->cls, cls, h->site, site);
	pr_err("lockdep: but the opposite order is known (%d edge%s):", n - 1, n > 2 ? "s" : "");
	for (int i = n - 1; i > 0; i--) {
		const struct lock_edge *e = find_edge(path[i], path[i - 1]);
		print_edge("  known", path[i], path[i - 1], e ? e->from_site : 0,
			   e ? e->to_site : 0);
	}
	__print_held();
	class_name(a, sizeof(a), h->cls);
	class_name(b, sizeof(b), cls);
	site_name(s2, sizeof(s2), site);
	/* The one-line summary; every site is in the lines above. */
	if (n == 2)
		panic("lockdep: lock order inversion: '%s' taken at %s while holding '%s', but "
		      "'%s' was taken while holding '%s' before", b, s2, a, a, b);
	panic("lockdep: lock order inversion: '%s' taken at %s while holding '%s', but a "
	      "chain of %d edges leads from '%s' back to '%s'", b, s2, a, n - 1, b, a);
}

static __noreturn void report_irq_unsafe(u16 cls)
{
	const struct lock_class *c = &classes[cls];
	char cn[64], s1[96], s2[96];

	class_name(cn, sizeof(cn), cls);
	site_name(s1, sizeof(s1), c->usage_site[0]);
	site_name(s2, sizeof(s2), c->usage_site[1]);
	report_begin("irq-unsafe class");
	pr_err("lockdep: '%s' was taken in an interrupt handler at %s", cn, s1);
	pr_err("lockdep: and with interrupts enabled at %s: that interrupt can arrive on the "
	       "CPU holding it, and spin on it forever", s2);
	__print_held();
	panic("lockdep: irq-unsafe class '%s': taken in an interrupt handler and with "
	      "interrupts enabled (at %s)", cn, s2);
}

void lockdep_assert_failed(const char *file, int line, const char *func, const char *cond)
{
	unsigned long f = irq_save();

	report_begin("assertion failed");
	__print_held();
	irq_restore(f);
	panic("lockdep: assertion failed at %s:%d (%s): %s", file, line, func, cond);
}

/* ------------------------------------------------------------- the graph */

static bool has_edge(u16 from, u16 to)
{
	/* Relaxed: a bit once set stays set; a miss is rechecked under graph_lock. */
	return (__atomic_load_n(&classes[from].after[to / 64], __ATOMIC_RELAXED) >> (to % 64)) & 1;
}

/* Breadth first from `from`: true if `to` is reachable; bfs_parent leads back. */
static bool reachable(u16 from, u16 to)
{
	u64 seen[WORDS] = { 0 };
	int head = 0, tail = 0;

	bfs_queue[tail++] = from;
	seen[from / 64] |= 1ULL << (from % 64);
	while (head < tail) {
		u16 c = bfs_queue[head++];
		if (c == to)
			return true;
		for (int w = 0; w < WORDS; w++) {
			u64 bits = classes[c].after[w] & ~seen[w];
			seen[w] |= bits;
			for (; bits; bits &= bits - 1) {
				u16 next = (u16)(w * 64 + __builtin_ctzll(bits));
				bfs_parent[next] = c;
				bfs_queue[tail++] = next;
			}
		}
	}
	return false;
}

/* First time a cls is taken holding h's class: check for a cycle, then learn. */
static void add_edge(const struct lockdep_held *h, u16 cls, unsigned long site)
{
	graph_lock();
	if (!has_edge(h->cls, cls)) {
		if (reachable(cls, h->cls))
			report_inversion(h, cls, site);
		if (nr_edges < LOCKDEP_MAX_EDGES)
			edges[nr_edges++] = (struct lock_edge){ h->cls, cls, h->site, site };
		else if (!edges_full) {
			edges_full = true;
			pr_warn("lockdep: the edge table is full (%d): later lock orders are still "
				"checked but reported without their sites", LOCKDEP_MAX_EDGES);
		}
		/* Release: the edge's record is written first. x86-64: lock or. */
		__atomic_fetch_or(&classes[h->cls].after[cls / 64], 1ULL << (cls % 64),
				  __ATOMIC_RELEASE);
	}
	graph_unlock();
}

/* The interrupt rule, per class: never both in a handler and with interrupts on. */
static void check_irq_usage(u16 cls, bool irqs_were_on, unsigned long site)
{
	struct lock_class *c = &classes[cls];
	u8 use = in_hardirq() ? USED_IN_IRQ : irqs_were_on ? USED_IRQS_ON : 0;

	if (!use || (READ_ONCE(c->usage) & use))
		return;
	graph_lock();
	if (!(c->usage & use)) {
		c->usage_site[use == USED_IN_IRQ ? 0 : 1] = site;
		WRITE_ONCE(c->usage, c->usage | use);
		if (c->usage == (USED_IN_IRQ | USED_IRQS_ON))
			report_irq_unsafe(cls);
	}
	graph_unlock();
}

/*
 * Every lock this context holds comes before the one being taken. The same
 * lock is the same address on the same kind of stack (a mutex and its
 * wait_lock share an address).
 */
static void check_order(const struct lockdep_stack *s, const void *lock, u16 cls,
			unsigned flags, unsigned long site)
{
	for (int i = 0; s && i < s->depth; i++) {
		const struct lockdep_held *h = &s->held[i];
		bool same = h->lock == lock &&
			    !((h->flags ^ flags) & LOCKDEP_SLEEPING);
		if (same || (cls && h->cls == cls))
			report_same_class(h, same, cls, site);
		if (cls && h->cls && !has_edge(h->cls, cls))
			add_edge(h, cls, site);
	}
}

/* ------------------------------------------------------------ held stacks */

/* The stack a lock of this kind is held on, or NULL (a sleeping lock before tasks exist). */
static struct lockdep_stack *stack_for(unsigned flags)
{
	struct task *t;

	if (!(flags & LOCKDEP_SLEEPING))
		return &cpu_held[smp_processor_id()];
	t = current_task();
	return t ? &t->lockdep : NULL;
}

static void push(struct lockdep_stack *s, const void *lock, u16 cls, unsigned flags,
		 unsigned long site)
{
	if (s->depth == LOCKDEP_DEPTH) {
		char sn[96];
		site_name(sn, sizeof(sn), site);
		report_begin("too many locks held");
		__print_held();
		panic("lockdep: more than %d locks held at once (the next taken at %s): a lock "
		      "that is never released?", LOCKDEP_DEPTH, sn);
	}
	s->held[s->depth++] = (struct lockdep_held){ lock, site, cls, (u8)flags };
}

/* Enter a hook: interrupts off, not already inside on this CPU. */
static bool hook_enter(unsigned long *f)
{
	*f = irq_save();
	int cpu = smp_processor_id();
	if (inside[cpu] || !lockdep_enabled()) {
		irq_restore(*f);
		return false;
	}
	inside[cpu] = true;
	return true;
}

static void hook_exit(unsigned long f)
{
	inside[smp_processor_id()] = false;
	irq_restore(f);
}

void lockdep_acquire(const void *lock, const char *name, u16 *cache, unsigned subclass,
		     unsigned flags, unsigned long site)
{
	unsigned long f;

	if (!hook_enter(&f))
		return;
	struct lockdep_stack *mine = stack_for(flags);
	if (mine) {
		u16 cls = resolve(name, cache, subclass);
		if (cls)
			check_irq_usage(cls, f & RFLAGS_IF, site);
		if (!(flags & LOCKDEP_TRY)) {
			/* In an interrupt handler the task's sleeping locks are the
			 * interrupted code's; nothing spins on them, so they order
			 * nothing. The CPU's spinlocks do: the handler spins with
			 * them held. */
			struct task *t = in_hardirq() ? NULL : current_task();
			check_order(&cpu_held[smp_processor_id()], lock, cls, flags, site);
			check_order(t ? &t->lockdep : NULL, lock, cls, flags, site);
		}
		push(mine, lock, cls, flags, site);
	}
	hook_exit(f);
}

void lockdep_release(const void *lock, unsigned flags)
{
	unsigned long f;

	if (!hook_enter(&f))
		return;
	struct lockdep_stack *s = stack_for(flags);
	/* Newest first; any order is allowed. A lock taken before lockdep was
	 * on, or untracked (taken inside a hook), is not found: nothing to do. */
	for (int i = s ? s->depth - 1 : -1; i >= 0; i--) {
		if (s->held[i].lock != lock)
			continue;
		memmove(&s->held[i], &s->held[i + 1], (size_t)(s->depth - 1 - i) * sizeof(s->held[0]));
		s->depth--;
		break;
	}
	hook_exit(f);
}

static bool stack_holds(const struct lockdep_stack *s, const void *lock, bool exclusive)
{
	for (int i = 0; s && i < s->depth; i++)
		if (s->held[i].lock == lock && !(exclusive && (s->held[i].flags & LOCKDEP_READ)))
			return true;
	return false;
}

static bool is_held(const void *lock, bool exclusive)
{
	if (!lockdep_enabled() || !lock)
		return lockdep_enabled() ? false : true;
	unsigned long f = irq_save();	/* so "this CPU" stays this CPU */
	struct task *t = current_task();
	bool held = stack_holds(&cpu_held[smp_processor_id()], lock, exclusive) ||
		    (t && stack_holds(&t->lockdep, lock, exclusive));
	irq_restore(f);
	return held;
}

bool lockdep_is_held(const void *lock)
{
	return is_held(lock, false);
}

bool lockdep_is_held_exclusive(const void *lock)
{
	return is_held(lock, true);
}

/* ------------------------------------------------------------- page locks */

void __lockdep_page_acquire(const void *page, unsigned subclass, unsigned flags,
			    unsigned long site)
{
	lockdep_acquire(page, "page_lock", &page_lock_class, subclass, flags | LOCKDEP_SLEEPING,
			site);
}

void __lockdep_page_release(const void *page)
{
	lockdep_release(page, LOCKDEP_SLEEPING);
}

/* ------------------------------------------------------------ inspection */

int lockdep_nr_classes(void)
{
	return READ_ONCE(nr_classes) - 1;
}

int lockdep_nr_edges(void)
{
	return READ_ONCE(nr_edges);
}

/* Append to buf[*at..size) like snprintf, keeping *at within the buffer. */
static void show(char *buf, int size, int *at, const char *fmt, ...)
{
	va_list ap;

	if (*at >= size - 1)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, (size_t)(size - *at), fmt, ap);
	va_end(ap);
	*at = MIN(*at + n, size - 1);
}

int lockdep_show(char *buf, int size)
{
	char a[64], b[64], s1[96], s2[96];
	int at = 0;

	show(buf, size, &at, "lockdep %s\nclasses %d\nedges %d\n",
	     lockdep_enabled() ? "on" : "off", lockdep_nr_classes(), lockdep_nr_edges());
	for (int c = 1; c < READ_ONCE(nr_classes); c++) {
		u8 u = READ_ONCE(classes[c].usage);
		class_name(a, sizeof(a), (u16)c);
		show(buf, size, &at, "class %s%s%s\n", a, u & USED_IN_IRQ ? " in-irq" : "",
		     u & USED_IRQS_ON ? " irqs-on" : "");
	}
	for (int i = 0; i < READ_ONCE(nr_edges); i++) {
		const struct lock_edge *e = &edges[i];
		class_name(a, sizeof(a), e->from);
		class_name(b, sizeof(b), e->to);
		site_name(s1, sizeof(s1), e->from_site);
		site_name(s2, sizeof(s2), e->to_site);
		show(buf, size, &at, "edge %s -> %s %s %s\n", a, b, s1, s2);
	}
	return at;
}
