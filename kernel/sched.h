/*
 * sched.h - the scheduler: per-CPU run queues, preemptive round robin,
 * kernel threads, sleeping.
 *
 * Each CPU has a run queue (a FIFO of runnable tasks under a spinlock) and
 * an idle task that runs when the queue is empty. The local APIC timer
 * calls sched_tick() HZ times a second on every CPU (HZ is 100, from
 * kernel/time.h); when the running task has used SCHED_SLICE_TICKS ticks the
 * tick sets need_resched, and the end of the interrupt (sched_preempt_irq)
 * switches to the next task if the interrupted code was preemptible.
 * A CPU whose queue is empty pulls a task from the busiest other queue
 * (idle pulling; affinity is honoured). docs/sched.md tells the story.
 *
 * Task state rules (task->state):
 *   - a task sets its own state RUNNING -> SLEEPING (set_current_state),
 *     without a lock, then re-checks what it waits for and calls schedule();
 *   - a waker changes SLEEPING -> RUNNING/RUNNABLE only with cmpxchg, under
 *     the lock of the task's run queue (wake_up_process);
 *   - schedule() decides, under the run-queue lock, whether the task leaves
 *     the CPU for good (SLEEPING or DEAD) or goes back on the queue.
 *   - Preemption never puts a task to sleep: if the tick interrupts a task
 *     between set_current_state(TASK_SLEEPING) and its schedule(), the task
 *     stays runnable (a spurious wake-up, which every wait loop tolerates).
 *     Otherwise a wake-up that came before the task was preempted would be
 *     lost.
 *
 * The wake-up race (a task is never run on two CPUs at once):
 *   Task T on CPU A decides to sleep and calls schedule(). Until A has saved
 *   T's registers and left T's stack, T must not run anywhere else - yet a
 *   waker on CPU B may call wake_up_process(T) at any moment, and an idle
 *   CPU C may try to pull T from a queue. Closed by holding the run-queue
 *   lock across the switch. A switch, on CPU A:
 *     1. take A's rq lock (interrupts off); put T back on the queue, or
 *        leave it off if SLEEPING or DEAD; pick next; next->on_cpu = 1;
 *        rq->curr = next;
 *     2. switch_to(T, next): from here on we run on next's stack;
 *     3. T->on_cpu = 0 (a release store): T's stack is free;
 *     4. release A's rq lock (it was taken in T's schedule(), and is
 *        released in next's).
 *   A waker locks the queue T belongs to (A's), and a puller the queue it
 *   takes from (A's again), so each comes before step 1 - T is still A's
 *   curr, and a waker just sets it back to RUNNING - or after step 4 - T is
 *   off every CPU and may be queued anywhere. schedule() also checks that
 *   the task it picks has on_cpu clear (BUG otherwise), and kthread_join
 *   waits for on_cpu to clear before freeing the stack of an exited task.
 *   (The other common design lets wakers skip that lock and spin on on_cpu
 *   instead; docs/sched.md compares them.)
 *
 * Contexts: schedule(), yield(), msleep(), kthread_join() and everything
 * that may sleep must be called from a task with preempt_count() == 0 and
 * interrupts enabled (might_sleep() checks). wake_up_process() and
 * sched_tick() never sleep and may be called from interrupt handlers.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "kernel/types.h"
#include "kernel/task.h"
#include "kernel/time.h"	/* HZ: ticks per second */
#include "kernel/percpu.h"

#define SCHED_SLICE_TICKS 2	/* round-robin slice: 20 ms at HZ 100 */

struct trap_frame;

/* Boot CPU, once, after slab_init, with interrupts off: the calling
 * context becomes the task "boot" (it may sleep like any other); CPU 0 gets
 * an idle task of its own. */
void sched_init(void);
/* An AP, after its per-CPU setup, interrupts off: the calling context
 * becomes this CPU's idle task and the CPU joins load balancing. */
void sched_init_ap(void);
/* Enable interrupts and run the idle loop. Never returns. */
__noreturn void sched_start_ap(void);
/* The boot task, when kmain has nothing more to do: it sleeps for good and
 * CPU 0's idle task runs when nothing else does. */
__noreturn void sched_idle_forever(void);
/* Free a thread made by kthread_create that never ran. */
void kthread_discard(struct task *t);

/* The local APIC timer handler calls this on every CPU, interrupts off.
 * Never sleeps. */
void sched_tick(void);
/* The tick's charge: one tick to the task this CPU runs (none for idle), as
 * user time if the tick interrupted user mode. Interrupts off; never sleeps. */
void sched_account_tick(bool user);
/* trap_dispatch calls this after EOI for every vector >= 32, interrupts
 * off; switches tasks if need_resched is set, preempt_count() is 0 and tf
 * was interrupted with interrupts enabled (the idle task is left to notice
 * need_resched in its own loop). */
void sched_preempt_irq(struct trap_frame *tf);

/* Give the CPU to the next runnable task (the caller may be picked again
 * at once). BUG unless preempt_count() == 0. Returns when the caller runs
 * again; if its state was SLEEPING, when somebody woke it. */
void schedule(void);
/* Let the other runnable tasks of this CPU run first. May sleep. */
void yield(void);
/* The running task (never NULL after sched_init). */
struct task *current_task(void);

/* set_current_state: store the state, then a full barrier (x86-64: xchg),
 * so the condition re-checked next cannot be read before the store is
 * visible (wait.h, step 1). __set_current_state: a plain store, for going
 * back to TASK_RUNNING. */
void set_current_state(int state);
void __set_current_state(int state);

/*
 * kthread_create: a new kernel thread that will run fn(arg), named name
 * (truncated to 15 characters). It does not run until wake_up_process().
 * Returns NULL when out of memory. The caller owns it and must
 * kthread_join it (else its task and stack are never freed). Never sleeps.
 */
struct task *kthread_create(int (*fn)(void *), void *arg, const char *name);
/* kthread_bind: t, not yet woken, will only ever run on cpu. */
void kthread_bind(struct task *t, int cpu);
/* kthread_run: kthread_create then wake_up_process. */
struct task *kthread_run(int (*fn)(void *), void *arg, const char *name);
/* kthread_exit: end the calling thread with code (what returning from fn
 * does). Never returns. */
__noreturn void kthread_exit(int code);
/* kthread_join: wait until t has exited, free it and its stack, return its
 * exit code. Exactly one join per thread. May sleep. */
int kthread_join(struct task *t);

/*
 * wake_up_process: if t is SLEEPING, make it runnable (on an idle CPU it
 * may run on, else on the CPU it last ran on) and return true; false if it
 * was not sleeping. Takes run-queue locks (irqsave); never sleeps; callable
 * from interrupt handlers and under any lock that ranks above rq->lock.
 */
bool wake_up_process(struct task *t);

/*
 * sched_spin_on_owner: optimistic spinning for the sleeping locks
 * (kernel/mutex.c, kernel/rwsem.c). *owner is a lock's holder field, read
 * here without the lock that guards it. Waits with this CPU while *owner
 * still names the task it named on entry and that task runs on a CPU, for
 * at most max_ns. True if *owner is, or becomes, anything else (NULL, or
 * another task: the caller looks again under its lock); false as soon as
 * the owner is off its CPU (it may sleep for long), this CPU has other
 * work, or time is up. Never sleeps.
 */
bool sched_spin_on_owner(struct task *const *owner, u64 max_ns);

/* msleep and schedule_until, sleeps with a deadline: kernel/wait.h. */

/*
 * might_sleep: BUG with "sleeping function called from atomic context" if
 * the caller holds a spinlock or otherwise has preemption or interrupts off.
 * Every function that may sleep starts with it.
 */
void __might_sleep(const char *file, int line, const char *func);
#define might_sleep() __might_sleep(__FILE__, __LINE__, __func__)

/* References: a task is freed when its count drops to zero (it must be
 * DEAD by then). kthread_create returns one reference, which kthread_join
 * drops. Neither sleeps. */
void task_get(struct task *t);
void task_put(struct task *t);

/* Tasks switched in on cpu since boot (for tests and statistics). */
u64 sched_nr_switches(int cpu);
/* True if debug.broken_sched=WHAT is on the command line (tests of tests). */
bool sched_debug_broken(const char *what);

#endif
