/*
 * sched.c - per-CPU run queues, the context switch, kernel threads, sleep.
 *
 * Preemptive round robin: each CPU runs the task at the head of its own
 * queue for SCHED_SLICE_TICKS ticks, then puts it at the tail. A CPU with
 * an empty queue pulls a task from another (the busiest first), so idle
 * CPUs find work; a woken task goes to an idle CPU it may run on, else back
 * to the CPU it last ran on. The rules (task states, the wake-up race) are
 * in kernel/sched.h; docs/sched.md walks through a switch.
 *
 * Lock order (an edge A -> B: B is taken while A is held; each name is a
 * lockdep class, kernel/lockdep.h, so the edges are checked at run time):
 *   'mutex.wait_lock' -> 'rq'   mutex_unlock -> wake_up_process
 *   'rwsem.wait_lock' -> 'rq'   up_read, up_write -> wake_up_process
 *   'waitqueue'       -> 'rq'   wake_up, complete -> wake_up_process
 *   'sleep_timers'    -> 'rq'   sched_tick -> sleep_timers_run -> wake_up_process
 *   'rq' -> another 'rq'        only with spin_trylock (pull_task), so two
 *                               pulling CPUs cannot deadlock (a trylock adds
 *                               no edge)
 *   'kstack_free'               a leaf
 * Every holder of an rq->lock has interrupts off, so the tick can take it
 * (lockdep checks that too: 'rq' is taken in interrupt handlers).
 * wake_up_process never holds two rq locks at once. Any sleeping lock a
 * task holds comes before 'rq' (schedule takes it to switch away).
 */
#include "kernel/entry.h"
#include "kernel/sched.h"
#include "kernel/user.h"
#include "kernel/rcu.h"
#include "kernel/spinlock.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/trap.h"
#include "kernel/x86.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/cmdline.h"
#include "mm/mm.h"
#include "mm/slab.h"

CMDLINE_KEY(broken_sched, "debug.broken_sched",
	    "tests of tests: break the scheduler on purpose (affinity, balance, preempt or wakeup)");
CMDLINE_KEY(boot_idles, "sched.debug_boot_idles",
	    "test of the tests: the boot task idles on CPU 0 in place of its idle task");

_Static_assert(offsetof(struct task, kernel_rsp) == 0, "switch.asm reads kernel_rsp at 0");

/* Lock legend: [L:lock] this rq's lock; [I], [A] as in task.h. */
struct rq {
	spinlock_t lock;
	struct list_head queue;		/* [L:lock] runnable tasks, FIFO, via run_link */
	int nr_queued;			/* [L:lock] length of queue; read unlocked as a hint */
	struct task *curr;		/* [L:lock] running task; written only by this CPU,
					 * which may read it with interrupts off */
	struct task *idle;		/* [I] this CPU's idle task */
	int cpu;			/* [I] */
	bool online;			/* [A] set once by sched_init / sched_init_ap */
	u64 nr_switches;		/* [L:lock] */
} __aligned(64);

static struct rq runqueues[MAX_CPUS];
static struct kmem_cache *task_cache;	/* [I] after sched_init */
static bool sched_running;		/* [A] set once by sched_init */
static atomic_t next_tid = ATOMIC_INIT(2);	/* 0: idle tasks, 1: boot */
static const char *broken_what;		/* [I] value of debug.broken_sched */
static bool broken_affinity, broken_preempt, broken_balance;	/* [I] decoded from it */

/* Switch stacks (kernel/switch.asm); returns the task that ran before. */
/* A new thread's first instruction (kernel/switch.asm). */

/* Interrupts (or preemption) must be off: the answer is this CPU's rq. */
static struct rq *this_rq(void)
{
	return &runqueues[this_cpu()->id];
}

struct task *current_task(void)
{
	struct task *t;
	/* One gs-relative load: no interrupt can split "find this CPU" from
	 * "read its current" and migrate us in between. The answer is the
	 * same on any CPU (it is us), so no ordering is needed. */
	__asm__ __volatile__("mov %%gs:%c1, %0" : "=r"(t) : "i"(offsetof(struct cpu, current)));
	return t;
}

/*
 * This CPU's preempt_count, in one gs-relative load. preempt_count() from
 * preempt.h finds the CPU first and reads the count second; a task that is
 * preempted and migrated in between (possible exactly when the count is 0)
 * would read another CPU's count, and might_sleep would blame it falsely.
 */
static int preempt_count_here(void)
{
	int n;
	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(n) : "i"(offsetof(struct cpu, preempt_count)));
	return n;
}

void set_current_state(int state)
{
	/* Sequentially consistent store (x86-64: xchg): the condition loaded
	 * next (wait.h, step 2) cannot be read before this store is visible. */
	__atomic_store_n(&current_task()->state, state, __ATOMIC_SEQ_CST);
}

void __set_current_state(int state)
{
	/* Relaxed: going back to RUNNING orders nothing. x86-64: mov. */
	__atomic_store_n(&current_task()->state, state, __ATOMIC_RELAXED);
}

static int task_state(struct task *t)
{
	return __atomic_load_n(&t->state, __ATOMIC_RELAXED);
}

static bool may_run_on(const struct task *t, int cpu)
{
	/* Relaxed: sched_setaffinity may change it at any time; a wake-up
	 * that read the old mask is one the next wake-up corrects. */
	return broken_affinity || (__atomic_load_n(&t->cpus_allowed, __ATOMIC_RELAXED) >> cpu) & 1;
}

bool sched_debug_broken(const char *what)
{
	return broken_what && !strcmp(broken_what, what);
}

void __might_sleep(const char *file, int line, const char *func)
{
	if (!READ_ONCE(sched_running))
		return;		/* early boot: nothing else could run anyway */
	int pc = preempt_count_here();
	bool irqs_off = irqs_disabled();
	if (pc > 0 || irqs_off) {
		/* What holds the CPU: lockdep's held locks name the spinlock. */
		if (lockdep_enabled()) {
			pr_err("might_sleep: %s:%d (%s) on cpu%d, rcu_read_lock depth %d%s:", file,
			       line, func, smp_processor_id(), rcu_read_depth(),
			       in_hardirq() ? ", in an interrupt handler" : "");
			lockdep_print_held();
		}
		panic("BUG at %s:%d (%s): sleeping function called from atomic context "
		      "(preempt_count=%d, interrupts %s)", file, line, func, pc,
		      irqs_off ? "off" : "on");
	}
}

/* ---------------------------------------------------------------- run queues */

static void enqueue(struct rq *rq, struct task *t)
{
	lockdep_assert(spin_is_held(&rq->lock));
	BUG_ON(t->queued, "task already on a run queue");
	list_add_tail(&t->run_link, &rq->queue);
	t->queued = true;
	t->cpu = rq->cpu;
	WRITE_ONCE(rq->nr_queued, rq->nr_queued + 1);
}

static void dequeue(struct rq *rq, struct task *t)
{
	lockdep_assert(spin_is_held(&rq->lock));
	list_del(&t->run_link);
	t->queued = false;
	WRITE_ONCE(rq->nr_queued, rq->nr_queued - 1);
}

/* Lock the run queue t is on (or last ran on); t->cpu is stable while held. */
static struct rq *task_rq_lock(struct task *t, unsigned long *flags)
{
	for (;;) {
		int cpu = READ_ONCE(t->cpu);
		struct rq *rq = &runqueues[cpu];
		*flags = spin_lock_irqsave(&rq->lock);
		if (READ_ONCE(t->cpu) == cpu)
			return rq;
		spin_unlock_irqrestore(&rq->lock, *flags);	/* it moved: again */
	}
}

/* A hint, read without locks: is cpu idle with nothing queued? */
static bool rq_idle(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	return smp_load_acquire(&rq->online) && READ_ONCE(rq->curr) == rq->idle &&
	       READ_ONCE(rq->nr_queued) == 0;
}

/* Where a woken t should run: an idle CPU it may use, its last CPU first. */
static int select_cpu(struct task *t, int last)
{
	if (may_run_on(t, last) && (rq_idle(last) || broken_balance))
		return last;
	for (int cpu = 0; cpu < MAX_CPUS && !broken_balance; cpu++)
		if (may_run_on(t, cpu) && rq_idle(cpu))
			return cpu;
	if (may_run_on(t, last) && smp_load_acquire(&runqueues[last].online))
		return last;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		if (may_run_on(t, cpu) && smp_load_acquire(&runqueues[cpu].online))
			return cpu;
	panic("sched: task '%s' (tid %d) may run on no online CPU (mask %#llx)", t->name,
	      t->tid, (unsigned long long)t->cpus_allowed);
}

/* rq has new work: if its CPU idles, make it look (an IPI if it is not us). */
static void kick(struct rq *rq)
{
	if (rq->curr != rq->idle)
		return;		/* busy: the work waits for the tick or a sleep */
	__atomic_store_n(&per_cpu(rq->cpu)->need_resched, 1, __ATOMIC_RELAXED);
	if (rq->cpu != this_cpu()->id)
		smp_send_reschedule(rq->cpu);
}

bool wake_up_process(struct task *t)
{
	unsigned long f;
	struct rq *rq = task_rq_lock(t, &f);
	int sleeping = TASK_SLEEPING;

	/* Seq-cst cmpxchg (lock cmpxchg): pairs with the sleeper's
	 * set_current_state; exactly one waker wins. */
	if (!__atomic_compare_exchange_n(&t->state, &sleeping, TASK_RUNNABLE, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		spin_unlock_irqrestore(&rq->lock, f);
		return false;
	}
	if (rq->curr == t) {
		/* Still on its CPU, before its schedule(): it just keeps running. */
		__atomic_store_n(&t->state, TASK_RUNNING, __ATOMIC_RELAXED);
		spin_unlock_irqrestore(&rq->lock, f);
		return true;
	}
	/* Not curr and we hold its rq lock: we come after switch step 4
	 * (sched.h), so its switch-out is complete. */
	BUG_ON(READ_ONCE(t->on_cpu) || t->queued, "woken task still on a CPU or queue");
	int cpu = select_cpu(t, rq->cpu);
	if (cpu != rq->cpu) {
		/* Nobody else can reach t now (not SLEEPING, not queued), so it
		 * may move between the two locks. */
		t->cpu = cpu;
		spin_unlock(&rq->lock);
		rq = &runqueues[cpu];
		spin_lock(&rq->lock);
	}
	enqueue(rq, t);
	kick(rq);
	spin_unlock_irqrestore(&rq->lock, f);
	return true;
}

/*
 * A holder that runs will likely let go within microseconds, and a sleep
 * and a wake-up cost far more, so a locker may wait here instead (the idea
 * of Linux's mutex spinning). The owner may unlock, exit and be freed while
 * we look: its task struct stays mapped (slab memory, in the direct map),
 * and a stale on_cpu only ends the spin early or late, within max_ns.
 */
bool sched_spin_on_owner(struct task *const *owner, u64 max_ns)
{
	struct task *o = READ_ONCE(*owner);
	u64 end = ktime_ns() + max_ns;

	while (READ_ONCE(*owner) == o && o) {
		if (!READ_ONCE(o->on_cpu) || READ_ONCE(this_cpu()->need_resched) ||
		    ktime_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/* Move one task that may run on `to` from src's queue to to's. Both locked. */
static bool steal_from(struct rq *src, struct rq *to)
{
	struct list_head *p;

	list_for_each(p, &src->queue) {
		struct task *t = list_entry(p, struct task, run_link);
		if (may_run_on(t, to->cpu)) {
			dequeue(src, t);
			enqueue(to, t);
			return true;
		}
	}
	return false;
}

static bool try_pull_from(struct rq *src, struct rq *rq)
{
	if (src == rq || !READ_ONCE(src->nr_queued) || !spin_trylock(&src->lock))
		return false;
	bool got = steal_from(src, rq);
	spin_unlock(&src->lock);
	return got;
}

/* rq's queue is empty and rq->lock held: pull work, busiest queue first. */
static void pull_task(struct rq *rq)
{
	struct rq *busiest = NULL;

	if (broken_balance)
		return;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct rq *src = &runqueues[cpu];
		if (src != rq && smp_load_acquire(&src->online) &&
		    (!busiest || READ_ONCE(src->nr_queued) > READ_ONCE(busiest->nr_queued)))
			busiest = src;
	}
	if (!busiest || try_pull_from(busiest, rq))
		return;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		if (smp_load_acquire(&runqueues[cpu].online) && try_pull_from(&runqueues[cpu], rq))
			return;
}

/* ---------------------------------------------------------------- schedule */

/* prev stops running: back on the queue, or off the CPU for good. */
static void put_prev(struct rq *rq, struct task *prev, bool preempt)
{
	if (prev == rq->idle)
		return;
	int state = task_state(prev);
	if (state == TASK_SLEEPING && preempt)
		state = TASK_RUNNING;	/* preemption never sleeps (sched.h) */
	if (state == TASK_RUNNING) {
		__atomic_store_n(&prev->state, TASK_RUNNABLE, __ATOMIC_RELAXED);
		enqueue(rq, prev);
	}
	/* SLEEPING or DEAD: no queue holds it; a waker or the joiner will. */
}

static struct task *pick_next(struct rq *rq)
{
	if (list_empty(&rq->queue))
		pull_task(rq);
	if (list_empty(&rq->queue))
		return rq->idle;
	struct task *t = list_first_entry(&rq->queue, struct task, run_link);
	dequeue(rq, t);
	return t;
}

/* After switch_to, on next's stack: prev has left this CPU. */
static void finish_switch(struct task *prev)
{
	/* Release (x86-64: mov): every use of prev's stack on this CPU comes
	 * before; pairs with the acquire in kthread_join. */
	smp_store_release(&prev->on_cpu, 0);
}

static void __schedule(bool preempt)
{
	unsigned long flags = irq_save();
	/* A context switch is a quiescent state (kernel/rcu.c, step 4): both
	 * callers have checked that preempt_count is 0, so no reader is open. */
	rcu_note_context_switch();
	struct rq *rq = this_rq();
	struct task *prev = rq->curr;

	spin_lock(&rq->lock);				/* sched.h, switch step 1 */
	__atomic_store_n(&this_cpu()->need_resched, 0, __ATOMIC_RELAXED);
	put_prev(rq, prev, preempt);
	struct task *next = pick_next(rq);
	__atomic_store_n(&next->state, TASK_RUNNING, __ATOMIC_RELAXED);
	next->slice = SCHED_SLICE_TICKS;
	if (next != prev) {
		BUG_ON(READ_ONCE(next->on_cpu), "picked a task that is still on a CPU");
		WRITE_ONCE(next->on_cpu, 1);
		WRITE_ONCE(rq->curr, next);
		this_cpu()->current = next;
		WRITE_ONCE(rq->nr_switches, rq->nr_switches + 1);
		next->nr_switches++;
		/* The rq lock stays held across the switch; the task we
		 * switch to releases it below, in its own __schedule. */
		user_switch(prev, next);	/* address space, TSS, FPU, FS base */
		prev = switch_to(prev, next);		/* step 2 */
		finish_switch(prev);			/* step 3 */
	}
	spin_unlock(&this_rq()->lock);	/* step 4; maybe not the CPU we began on */
	irq_restore(flags);
}

void schedule(void)
{
	int pc = preempt_count_here();
	if (pc != 0)
		panic("BUG: schedule() called with preempt_count=%d (a spinlock held?)", pc);
	__schedule(false);
}

void yield(void)
{
	might_sleep();
	schedule();
}

void sched_preempt_irq(struct trap_frame *tf)
{
	if (!READ_ONCE(sched_running) || !READ_ONCE(this_cpu()->need_resched))
		return;
	if (preempt_count() != 0 || !(tf->rflags & RFLAGS_IF))
		return;		/* not preemptible: the next chance will do */
	struct rq *rq = this_rq();
	if (!smp_load_acquire(&rq->online) || rq->curr == rq->idle)
		return;		/* idle_loop sees need_resched itself, after hlt */
	__schedule(true);
}

/* Is there work anywhere that this idle CPU could pull? (a hint) */
static bool work_elsewhere(struct rq *rq)
{
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		if (&runqueues[cpu] != rq && READ_ONCE(runqueues[cpu].nr_queued))
			return true;
	return false;
}

void sched_account_tick(bool user)
{
	struct task *t = this_rq()->curr;
	if (t == this_rq()->idle)
		return;
	/* Only this CPU writes the running task's counts; others read them. */
	u64 *c = user ? &t->utime : &t->stime;
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void sched_tick(void)
{
	struct rq *rq = this_rq();

	if (!smp_load_acquire(&rq->online))
		return;
	sleep_timers_run();
	struct task *t = rq->curr;
	bool resched;
	if (t == rq->idle)
		resched = READ_ONCE(rq->nr_queued) || work_elsewhere(rq);
	else
		resched = --t->slice <= 0 && !broken_preempt;
	if (resched)
		__atomic_store_n(&this_cpu()->need_resched, 1, __ATOMIC_RELAXED);
}

u64 sched_nr_switches(int cpu)
{
	return READ_ONCE(runqueues[cpu].nr_switches);
}

/* ---------------------------------------------------------------- threads */

/* Kernel stacks are recycled here: the vmap area has no way to free one. */
struct free_stack {
	struct free_stack *next;	/* [L:stack_lock] */
};
static spinlock_t stack_lock = SPINLOCK_INIT("kstack_free");
static struct free_stack *free_stacks;	/* [L:stack_lock] kept at each stack's bottom */

#define KSTACK_SIZE (KSTACK_PAGES * PAGE_SIZE)

static void *stack_alloc(void)
{
	unsigned long f = spin_lock_irqsave(&stack_lock);
	struct free_stack *s = free_stacks;
	if (s)
		free_stacks = s->next;
	spin_unlock_irqrestore(&stack_lock, f);
	return s ? (char *)s + KSTACK_SIZE : vmap_alloc_stack(KSTACK_PAGES);
}

static void stack_free(void *top)
{
	struct free_stack *s = (struct free_stack *)((char *)top - KSTACK_SIZE);
	unsigned long f = spin_lock_irqsave(&stack_lock);
	s->next = free_stacks;
	free_stacks = s;
	spin_unlock_irqrestore(&stack_lock, f);
}

static struct task *task_alloc(const char *name, int tid, int cpu)
{
	struct task *t = kmem_cache_zalloc(task_cache);
	if (!t)
		return NULL;
	strlcpy(t->name, name, TASK_NAME_LEN);
	t->tid = tid;
	t->cpu = cpu;
	t->cpus_allowed = CPUS_ALL;
	t->state = TASK_SLEEPING;
	init_completion(&t->exited);
	atomic_set(&t->refcount, 1);
	return t;
}

/*
 * The first "return" of a new thread. switch_to pops six callee-saved
 * registers (all zero: rbp = 0 ends backtraces) and returns into
 * kthread_entry_stub with rsp 16-byte aligned, as a call expects.
 */
static unsigned long first_frame(void *top)
{
	unsigned long *sp = top;

	*--sp = 0;				/* padding for alignment */
	*--sp = 0;				/* no caller above the stub */
	*--sp = (unsigned long)kthread_entry_stub;	/* switch_to's ret */
	for (int i = 0; i < 6; i++)
		*--sp = 0;			/* rbp, rbx, r12-r15 */
	return (unsigned long)sp;
}

/* Called from kthread_entry_stub (interrupts off, this rq locked): the
 * first C code a new thread runs. Never returns. */
__noreturn void kthread_first_run(struct task *prev)
{
	/* The second half of __schedule, for a task that never began it. */
	finish_switch(prev);				/* sched.h, switch step 3 */
	spin_unlock(&this_rq()->lock);			/* step 4 */
	sti();
	struct task *me = current_task();
	kthread_exit(me->fn(me->arg));
}

/* A new thread with its own stack, not yet runnable (the idle tasks too). */
static struct task *thread_alloc(int (*fn)(void *), void *arg, const char *name, int tid)
{
	struct task *t = task_alloc(name, tid, smp_processor_id());
	void *top = t ? stack_alloc() : NULL;
	if (!top) {
		if (t)
			kmem_cache_free(task_cache, t);
		return NULL;
	}
	t->kstack_top = top;
	t->kstack_bottom = (char *)top - KSTACK_SIZE;
	t->fn = fn;
	t->arg = arg;
	/* The top of every stack is kept for the user registers (struct
	 * trap_frame) that a trap or syscall from user mode saves there. */
	t->kernel_rsp = first_frame((char *)top - USER_FRAME_RESERVE);
	return t;
}

struct task *kthread_create(int (*fn)(void *), void *arg, const char *name)
{
	BUG_ON(!task_cache, "kthread_create before sched_init");
	return thread_alloc(fn, arg, name, atomic_inc_return(&next_tid) - 1);
}

void kthread_bind(struct task *t, int cpu)
{
	BUG_ON(cpu < 0 || cpu >= MAX_CPUS || !smp_load_acquire(&runqueues[cpu].online),
	       "kthread_bind: no such CPU");
	BUG_ON(task_state(t) != TASK_SLEEPING || t->nr_switches || t->queued,
	       "kthread_bind: thread already started");
	t->cpus_allowed = 1ULL << cpu;
	t->cpu = cpu;
}

struct task *kthread_run(int (*fn)(void *), void *arg, const char *name)
{
	struct task *t = kthread_create(fn, arg, name);
	if (t)
		wake_up_process(t);
	return t;
}

void kthread_exit(int code)
{
	struct task *me = current_task();

	BUG_ON(!me->fn, "kthread_exit: not a kernel thread");
	me->exit_code = code;
	/* Interrupts off before the joiner can wake: a preemption between the
	 * completion and DEAD would let it see us off the CPU but not dead,
	 * and free a live task. And preemption must not see DEAD before
	 * schedule() does. */
	cli();
	complete_all(&me->exited);
	__atomic_store_n(&me->state, TASK_DEAD, __ATOMIC_RELAXED);
	schedule();
	panic("sched: dead task '%s' (tid %d) ran again", me->name, me->tid);
}

int kthread_join(struct task *t)
{
	might_sleep();
	BUG_ON(t == current_task(), "kthread_join: a thread cannot join itself");
	wait_for_completion(&t->exited);
	/* Its CPU may still be switching away from its stack (sched.h).
	 * Acquire pairs with finish_switch's release. */
	while (smp_load_acquire(&t->on_cpu) || task_state(t) != TASK_DEAD)
		cpu_relax();
	int code = t->exit_code;
	task_put(t);
	return code;
}

void task_get(struct task *t)
{
	atomic_inc(&t->refcount);
}

void task_put(struct task *t)
{
	if (!atomic_dec_and_test(&t->refcount))
		return;
	BUG_ON(task_state(t) != TASK_DEAD || READ_ONCE(t->on_cpu), "freeing a live task");
	if (t->kstack_top)
		stack_free(t->kstack_top);
	kmem_cache_free(task_cache, t);
}

/* ---------------------------------------------------------------- idle and boot */

/*
 * The idle loop: with interrupts off, look for work; if there is none,
 * `sti; hlt` as one pair - sti takes effect only after the next
 * instruction, so an interrupt that arrives after the check still wakes
 * the hlt instead of being taken before it (and the CPU sleeping anyway).
 * The interrupt that ends the hlt never switches away from the idle task
 * (sched_preempt_irq leaves it alone): the loop goes round and calls
 * schedule() itself, so "this CPU is idle" always ends here, in one place.
 */
static __noreturn void idle_loop(void)
{
	for (;;) {
		cli();
		struct rq *rq = this_rq();
		if (READ_ONCE(this_cpu()->need_resched) || READ_ONCE(rq->nr_queued)) {
			sti();
			schedule();
			continue;
		}
		rcu_idle_enter();	/* idle is an extended quiescent state */
		__asm__ __volatile__("sti; hlt" ::: "memory");
		cli();
		rcu_idle_exit();
	}
}

static int idle_thread(void *unused)
{
	idle_loop();
}

static void rq_init(struct rq *rq, int cpu)
{
	spin_lock_init(&rq->lock, "rq");
	list_init(&rq->queue);
	rq->cpu = cpu;
}

/* Make the calling context a running task on this CPU. */
static struct task *adopt_context(const char *name, int tid, int cpu)
{
	struct task *t = task_alloc(name, tid, cpu);
	BUG_ON(!t, "sched: no memory for a task");
	t->state = TASK_RUNNING;
	t->on_cpu = 1;
	runqueues[cpu].curr = t;
	this_cpu()->current = t;
	return t;
}

static void parse_debug_words(void)
{
	broken_what = cmdline_get("debug.broken_sched");
	broken_affinity = sched_debug_broken("affinity");
	broken_preempt = sched_debug_broken("preempt");
	broken_balance = sched_debug_broken("balance");
	if (broken_what)
		pr_warn("sched: debug.broken_sched=%s: deliberately broken", broken_what);
}

void sched_init(void)
{
	task_cache = kmem_cache_create("task", sizeof(struct task), 64);
	BUG_ON(!task_cache, "sched: no memory for the task cache");
	parse_debug_words();
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		rq_init(&runqueues[cpu], cpu);
	sleep_timers_init();

	/* The boot context becomes "boot", a task like any other (it runs the
	 * tests and may sleep). Its stack belongs to kmain: never freed. */
	adopt_context("boot", 1, 0);
	struct task *idle = thread_alloc(idle_thread, NULL, "idle0", 0);
	BUG_ON(!idle, "sched: no memory for the idle task");
	idle->cpus_allowed = 1;
	idle->state = TASK_RUNNING;	/* never queued: picked only as rq->idle */
	runqueues[0].idle = idle;
	smp_store_release(&runqueues[0].online, true);
	smp_store_release(&sched_running, true);
}

void sched_init_ap(void)
{
	int cpu = this_cpu()->id;
	char name[TASK_NAME_LEN];

	BUG_ON(!task_cache, "sched_init_ap before sched_init");
	snprintf(name, sizeof(name), "idle%d", cpu);
	/* This CPU's boot context (its stack came from smp.c) is its idle task. */
	struct task *idle = adopt_context(name, 0, cpu);
	idle->cpus_allowed = 1ULL << cpu;
	idle->kstack_top = this_cpu()->kstack_top;	/* never freed: idle never exits */
	idle->kstack_bottom = (char *)idle->kstack_top - KSTACK_SIZE;
	runqueues[cpu].idle = idle;
	/* Release: the rq is complete before other CPUs may wake tasks onto it. */
	smp_store_release(&runqueues[cpu].online, true);
}

void sched_start_ap(void)
{
	idle_loop();
}

/*
 * The boot task's work is done: it sleeps for good, and CPU 0's own idle
 * task takes the CPU whenever nothing else runs. It used to run the idle
 * loop itself, but the scheduler knows an idle CPU by rq->idle being its
 * current task (rq_idle, sched_tick): with "boot" there instead, CPU 0
 * never looked idle, so wake-ups never chose it and it never pulled work,
 * and user programs had one CPU fewer than the machine (two threads at
 * -smp 2 shared CPU 1). sched.debug_boot_idles brings that back.
 */
void sched_idle_forever(void)
{
	if (cmdline_get("sched.debug_boot_idles")) {
		pr_warn("sched: sched.debug_boot_idles: the boot task idles on CPU 0, "
			"which never looks idle (a test of the tests)");
		idle_loop();
	}
	for (;;) {
		set_current_state(TASK_SLEEPING);	/* nobody wakes it */
		schedule();
	}
}

void kthread_discard(struct task *t)
{
	BUG_ON(t->nr_switches, "kthread_discard: the thread has run");
	__atomic_store_n(&t->state, TASK_DEAD, __ATOMIC_RELAXED);
	task_put(t);
}
