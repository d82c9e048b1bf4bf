/*
 * rcu.c - classic RCU: grace periods from quiescent states (McKenney and
 * Slingwine's read-copy update, in the non-preemptible "classic" form of
 * Linux 2.6, with the preemption count telling the tick whether the CPU is
 * inside a reader).
 *
 * The guarantee and the grace-period algorithm, as numbered steps, are in
 * kernel/rcu.h; the code below cites them ("step 3").
 *
 * Lock order: 'rcu_gp' (gp_lock) is taken with interrupts off and holds
 * nothing but printk's 'log' and 'console' (the stall warning). schedule()
 * calls rcu_note_context_switch before it takes 'rq', so the two do not
 * nest. Any spinlock held with interrupts on comes before 'rcu_gp': the
 * tick takes it in an interrupt.
 */
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/wait.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "kernel/printk.h"
#include "kernel/panic.h"
#include "kernel/x86.h"
#include "kernel/string.h"

#define FORCE_MS 20
#define STALL_MS 2000

CMDLINE_KEY(rcu_broken, "rcu.torture_broken",
	    "test of the tests: grace periods end at once (broken RCU)");

/* A singly linked callback list with a tail pointer. [P] its CPU, irqs off. */
struct cb_list {
	struct rcu_head *head;
	struct rcu_head **tail;
};

/* Per-CPU state. [P] this CPU with interrupts off, unless tagged. */
struct rcu_cpu {
	struct cb_list next;		/* step 1: queued, no target yet */
	struct cb_list wait;		/* step 2: waiting for grace period wait_gp */
	u64 wait_gp;
	struct cb_list done;		/* step 5: ready to invoke [P, irqs off; cb thread] */
	u64 reported_gp;		/* last grace period this CPU reported a QS for */
	unsigned long eqs;		/* [A] extended QS counter: odd while idle */
	struct wait_queue_head cb_wq;	/* the callback thread sleeps here */
	u64 cbs_queued, cbs_invoked;	/* [A] statistics */
};

static struct rcu_cpu rcu_cpus[MAX_CPUS];
static spinlock_t gp_lock = SPINLOCK_INIT("rcu_gp");
static u64 gp_started;			/* [L:gp_lock, A read] */
static u64 gp_completed;		/* [L:gp_lock, A read] */
static u64 qs_needed;			/* [L:gp_lock] CPUs that owe a QS for gp_started */
static u64 gp_start_ns;			/* [L:gp_lock] */
static unsigned long eqs_snap[MAX_CPUS];	/* [L:gp_lock] counters at the start */
static bool stall_reported;		/* [L:gp_lock] */
static u64 gp_total_ns;			/* [L:gp_lock] for the average latency */
static bool broken;			/* [I] rcu.torture_broken */
static bool ready;			/* [I] set by rcu_init */

static void cb_init(struct cb_list *l)
{
	l->head = NULL;
	l->tail = &l->head;
}

static void cb_append(struct cb_list *dst, struct cb_list *src)
{
	if (!src->head)
		return;
	*dst->tail = src->head;
	dst->tail = src->tail;
	cb_init(src);
}

static bool gp_in_progress(void)
{
	return READ_ONCE(gp_started) != READ_ONCE(gp_completed);
}

/* Step 4's last part: gp_lock held. (Not inlined, so gdb can break here.) */
static __noinline void __end_gp(void)
{
	gp_total_ns += ktime_ns() - gp_start_ns;
	smp_store_release(&gp_completed, gp_started);
}

/* Step 3. gp_lock held, no grace period in progress. */
static __noinline void __start_gp(void)
{
	/* LAB 3 BEGIN __start_gp: which CPUs must pass a quiescent state (docs/labs/lab3.md) */
	int n = num_online_cpus();

	gp_started++;
	gp_start_ns = ktime_ns();
	stall_reported = false;
	qs_needed = 0;
	for (int cpu = 0; cpu < n; cpu++) {
		/* Acquire: pairs with the idle CPU's counter update (full barrier). */
		eqs_snap[cpu] = __atomic_load_n(&rcu_cpus[cpu].eqs, __ATOMIC_ACQUIRE);
		if (!(eqs_snap[cpu] & 1))
			qs_needed |= 1ULL << cpu;
	}
	if (!qs_needed)
		__end_gp();
	/* LAB 3 END __start_gp */
	/* Outside LAB 3's region, so that a student's __start_gp meets it too. */
	if (broken && gp_started != gp_completed)	/* broken: end at once, readers or not */
		__end_gp();
}

/* Step 4: this CPU is at a quiescent state now. */
static __noinline void report_qs(void)
{
	/* LAB 3 BEGIN report_qs: note this CPU's quiescent state (docs/labs/lab3.md) */
	int cpu = smp_processor_id();
	struct rcu_cpu *rc = &rcu_cpus[cpu];

	if (READ_ONCE(gp_started) == rc->reported_gp)
		return;		/* already reported for the current grace period */
	unsigned long f = spin_lock_irqsave(&gp_lock);
	if (gp_started != gp_completed && (qs_needed & (1ULL << cpu))) {
		qs_needed &= ~(1ULL << cpu);
		if (!qs_needed)
			__end_gp();
	}
	rc->reported_gp = gp_started;
	spin_unlock_irqrestore(&gp_lock, f);
	/* LAB 3 END report_qs */
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	struct rcu_cpu *rc;

	head->func = func;
	head->next = NULL;
	unsigned long f = irq_save();
	rc = &rcu_cpus[smp_processor_id()];
	*rc->next.tail = head;
	rc->next.tail = &head->next;
	rc->cbs_queued++;
	irq_restore(f);
}

/* Step 6: gp_lock held. Credit CPUs that idled since the start; nudge the rest. */
static void __force_gp(u64 age_ms)
{
	u64 mask = qs_needed;

	for (int cpu = 0; mask && cpu < num_online_cpus(); cpu++) {
		if (!(mask & (1ULL << cpu)))
			continue;
		if (__atomic_load_n(&rcu_cpus[cpu].eqs, __ATOMIC_ACQUIRE) != eqs_snap[cpu]) {
			qs_needed &= ~(1ULL << cpu);	/* it passed through idle */
			continue;
		}
		if (cpu != smp_processor_id()) {
			__atomic_store_n(&per_cpu(cpu)->need_resched, 1, __ATOMIC_RELEASE);
			smp_send_reschedule(cpu);
		}
	}
	if (!qs_needed) {
		__end_gp();
		return;
	}
	if (age_ms >= STALL_MS && !stall_reported) {
		stall_reported = true;
		pr_warn("rcu: stall: grace period %llu is %llu ms old; CPUs holding it up: mask %#llx",
			(unsigned long long)gp_started, (unsigned long long)age_ms,
			(unsigned long long)qs_needed);
		for (int cpu = 0; cpu < num_online_cpus(); cpu++)
			if ((qs_needed & (1ULL << cpu)) && cpu != smp_processor_id())
				smp_send_nmi_backtrace(cpu);
	}
}

/* Steps 2, 5 and 6, on every CPU at every tick. Interrupts are off. */
void rcu_tick(void)
{
	if (!READ_ONCE(ready))
		return;
	struct rcu_cpu *rc = &rcu_cpus[smp_processor_id()];

	if (preempt_count() == 0)
		report_qs();	/* the tick interrupted no reader */
	if (rc->wait.head && READ_ONCE(gp_completed) >= rc->wait_gp)
		cb_append(&rc->done, &rc->wait);	/* step 5 */
	bool want_gp = false;
	if (!rc->wait.head && rc->next.head) {		/* step 2 */
		rc->wait_gp = READ_ONCE(gp_started) + 1;
		cb_append(&rc->wait, &rc->next);
	}
	if (rc->wait.head && rc->wait_gp > READ_ONCE(gp_started))
		want_gp = true;
	if (want_gp || gp_in_progress()) {
		spin_lock(&gp_lock);
		if (gp_started == gp_completed) {
			if (want_gp)
				__start_gp();
		} else {
			u64 age_ms = (ktime_ns() - gp_start_ns) / 1000000;
			if (age_ms >= FORCE_MS)
				__force_gp(age_ms);
		}
		spin_unlock(&gp_lock);
	}
	if (rc->done.head)
		wake_up(&rc->cb_wq);
}

void rcu_note_context_switch(void)
{
	if (READ_ONCE(ready))
		report_qs();
}

void rcu_idle_enter(void)
{
	struct rcu_cpu *rc = &rcu_cpus[smp_processor_id()];
	/* Full barrier: everything before idling is ordered before the counter. */
	__atomic_add_fetch(&rc->eqs, 1, __ATOMIC_SEQ_CST);
	if (READ_ONCE(ready))
		report_qs();
}

void rcu_idle_exit(void)
{
	struct rcu_cpu *rc = &rcu_cpus[smp_processor_id()];
	__atomic_add_fetch(&rc->eqs, 1, __ATOMIC_SEQ_CST);
}

/*
 * An interrupt that wakes an idle CPU may read RCU-protected data, so for
 * the length of the handler the CPU leaves its extended quiescent state
 * (Linux's rcu_irq_enter). Handlers do not nest (they run with interrupts
 * off), so one flag per CPU is enough.
 */
static bool irq_from_idle[MAX_CPUS];	/* [P] interrupts off */

void rcu_irq_enter(void)
{
	int cpu = smp_processor_id();
	struct rcu_cpu *rc = &rcu_cpus[cpu];

	if (__atomic_load_n(&rc->eqs, __ATOMIC_RELAXED) & 1) {
		__atomic_add_fetch(&rc->eqs, 1, __ATOMIC_SEQ_CST);
		irq_from_idle[cpu] = true;
	}
}

void rcu_irq_exit(void)
{
	int cpu = smp_processor_id();

	if (irq_from_idle[cpu]) {
		irq_from_idle[cpu] = false;
		__atomic_add_fetch(&rcu_cpus[cpu].eqs, 1, __ATOMIC_SEQ_CST);
	}
}

/* The per-CPU callback thread: runs `done` callbacks, sleeps when none. */
static int rcu_cb_thread(void *arg)
{
	struct rcu_cpu *rc = &rcu_cpus[(long)arg];

	for (;;) {
		wait_event(rc->cb_wq, READ_ONCE(rc->done.head) != NULL);
		unsigned long f = irq_save();
		struct rcu_head *list = rc->done.head;
		cb_init(&rc->done);
		irq_restore(f);
		while (list) {
			struct rcu_head *next = list->next;
			list->func(list);
			__atomic_add_fetch(&rc->cbs_invoked, 1, __ATOMIC_RELAXED);
			list = next;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- checks */

void rcu_read_unlock_underflow(void)
{
	panic("rcu: rcu_read_unlock on cpu%d without rcu_read_lock", smp_processor_id());
}

void rcu_dereference_failed(const char *file, int line, const char *func, const char *ptr,
			    const char *cond)
{
	bool alt = strcmp(cond, "false") != 0;

	pr_err("lockdep: unprotected rcu_dereference on cpu%d, preempt_count %d, interrupts %s",
	       smp_processor_id(), preempt_count(), irqs_disabled() ? "off" : "on");
	lockdep_print_held();
	panic("lockdep: unprotected rcu_dereference of %s at %s:%d (%s): not inside "
	      "rcu_read_lock()%s%s%s", ptr, file, line, func, alt ? ", and not " : "",
	      alt ? cond : "", alt ? "" : " (nothing else protects it)");
}

struct sync_wait {
	struct rcu_head head;
	struct completion done;
};

static void sync_wakeup(struct rcu_head *h)
{
	complete(&container_of(h, struct sync_wait, head)->done);
}

void synchronize_rcu(void)
{
	struct sync_wait w;

	if (preempt_count() > 0)
		panic("rcu: synchronize_rcu inside a read-side critical section (preempt_count=%d)",
		      preempt_count());
	might_sleep();
	init_completion(&w.done);
	call_rcu(&w.head, sync_wakeup);
	wait_for_completion(&w.done);
}

struct barrier_state {
	int pending;			/* [A] CPUs whose barrier callback has not run */
	struct completion done;
};

struct barrier_head {
	struct rcu_head head;
	struct barrier_state *b;
};

static void barrier_cb(struct rcu_head *h)
{
	struct barrier_state *b = container_of(h, struct barrier_head, head)->b;

	if (__atomic_sub_fetch(&b->pending, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&b->done);
}

/* Runs on each CPU: queue its barrier callback behind everything queued there. */
static void barrier_enqueue(void *arg)
{
	struct barrier_head *heads = arg;
	call_rcu(&heads[smp_processor_id()].head, barrier_cb);
}

void rcu_barrier(void)
{
	struct barrier_state b;
	struct barrier_head heads[MAX_CPUS];
	int n = num_online_cpus();

	might_sleep();
	init_completion(&b.done);
	b.pending = n;
	for (int cpu = 0; cpu < n; cpu++)
		heads[cpu].b = &b;
	/* Callbacks on one CPU run in the order they were queued (steps 1-5
	 * keep each list FIFO), so each CPU's barrier callback runs last. */
	smp_call_function(CALL_ALL, barrier_enqueue, heads, true);
	wait_for_completion(&b.done);
}

void rcu_get_stats(struct rcu_stats *st)
{
	unsigned long f = spin_lock_irqsave(&gp_lock);
	st->gp_completed = gp_completed;
	st->gp_avg_ns = gp_completed ? gp_total_ns / gp_completed : 0;
	spin_unlock_irqrestore(&gp_lock, f);
	st->cbs_invoked = st->cbs_queued = 0;
	for (int cpu = 0; cpu < num_online_cpus(); cpu++) {
		st->cbs_invoked += READ_ONCE(rcu_cpus[cpu].cbs_invoked);
		st->cbs_queued += READ_ONCE(rcu_cpus[cpu].cbs_queued);
	}
}

u64 rcu_gp_completed(void)
{
	return smp_load_acquire(&gp_completed);
}

void rcu_init(void)
{
	broken = cmdline_get("rcu.torture_broken") != NULL;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct rcu_cpu *rc = &rcu_cpus[cpu];
		cb_init(&rc->next);
		cb_init(&rc->wait);
		cb_init(&rc->done);
		init_waitqueue_head(&rc->cb_wq);
	}
	if (broken)
		pr_warn("rcu: rcu.torture_broken: grace periods end early (test of the tests)");
}

void rcu_start_threads(void)
{
	for (int cpu = 0; cpu < num_online_cpus(); cpu++) {
		struct task *t = kthread_create(rcu_cb_thread, (void *)(long)cpu, "rcu_cb");
		if (!t)
			panic("rcu: cannot create the callback thread for cpu%d", cpu);
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	smp_store_release(&ready, true);
}
