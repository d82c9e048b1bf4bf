/*
 * wait.h - sleeping until something happens: wait queues, completions,
 * and sleeps with a deadline (msleep).
 *
 * A wait queue is a list of sleeping tasks under a spinlock. A sleeper
 * waits for a condition (any C expression); a waker makes the condition
 * true and then calls wake_up(). The protocol below is the one place it is
 * written down; callers cite it by step.
 *
 * The no-lost-wake-up protocol (the sleeper's steps, then the waker's):
 *   1. prepare_to_wait: under the queue's lock, link our entry on the queue
 *      and set our state to TASK_SLEEPING (set_current_state: a full
 *      barrier follows the store).
 *   2. Re-check the condition. If it is true, go to 4.
 *   3. schedule() (or schedule_until for a timeout). Go to 1: being woken
 *      does not prove the condition (another task may have consumed it).
 *   4. finish_wait: state TASK_RUNNING, unlink our entry if still linked.
 *   Waker: A. make the condition true; B. wake_up(): take the queue's lock,
 *      unlink entries and wake_up_process() their tasks.
 * Why nothing is lost: B takes the lock the sleeper held in step 1, so B
 * comes either before step 1 - then A came earlier still, and step 2 sees
 * the condition - or after it - then B finds the entry and sets the task
 * back to RUNNING, and the schedule() of step 3 returns instead of sleeping
 * (kernel/sched.h: a waker's cmpxchg SLEEPING -> RUNNING). Checking the
 * condition BEFORE step 1 and then sleeping is the classic lost wake-up:
 * the wake-up can fall between the check and the sleep.
 *
 * Lock legend: [L:lock] the queue's lock, [P] private to the sleeper.
 */
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include "kernel/types.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

struct task;

struct wait_queue_head {
	spinlock_t lock;		/* irqsave: wake_up may run in an interrupt */
	struct list_head waiters;	/* [L:lock] wait_entry.link, oldest first */
};

#define WAIT_QUEUE_HEAD_INIT(n) { SPINLOCK_INIT("waitqueue"), LIST_HEAD_INIT((n).waiters) }

/* One sleeper's place on one queue; lives on the sleeper's stack. */
struct wait_entry {
	struct task *task;		/* [P] the sleeper */
	struct wait_queue_head *wq;	/* [P] the queue it waits on */
	struct list_head link;		/* [L:wq->lock] next == NULL: not linked */
	bool woken;			/* [L:wq->lock] unlinked by a waker */
};

/* init_waitqueue_head: an empty queue. Never sleeps. */
void init_waitqueue_head(struct wait_queue_head *wq);
/* wait_entry_init: an unlinked entry for the calling task. Never sleeps. */
void wait_entry_init(struct wait_entry *e);

/* Step 1. Never sleeps. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_entry *e);
/* Step 3: schedule(), or schedule_until(deadline_ns) if deadline_ns != 0.
 * Returns false once the deadline has passed. May sleep. */
bool wait_sleep(struct wait_entry *e, u64 deadline_ns);
/* Step 4. Never sleeps. */
void finish_wait(struct wait_queue_head *wq, struct wait_entry *e);
/* A timed-out sleeper that was woken but leaves without the condition
 * passes its wake-up on to the next waiter (else wake_up's one wake-up
 * would be spent on nobody). Never sleeps. */
void wait_abandon(struct wait_queue_head *wq, struct wait_entry *e);

/*
 * wake_up: wake the longest-waiting sleeper - for an event one waiter
 * consumes (an item put on a queue). wake_up_all: wake every sleeper - for
 * a state all of them must see (a flag set for good). Neither sleeps; both
 * may be called from interrupt handlers; waking nobody is fine.
 */
void wake_up(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);

/* msleep: sleep at least ms milliseconds (rounded up to the 10 ms tick),
 * off the CPU. May sleep (that is the point). */
void msleep(unsigned ms);
/*
 * schedule_until: the caller has set its state to TASK_SLEEPING; sleep until
 * woken or until ktime_ns() reaches deadline_ns (checked by every tick).
 * Returns true if the deadline has not passed on return. May sleep.
 */
bool schedule_until(u64 deadline_ns);
/* For the scheduler: sched_init sets the timer lists up; sched_tick calls
 * sleep_timers_run on each CPU (interrupts off) to wake expired sleepers. */
void sleep_timers_init(void);
void sleep_timers_run(void);

/* kernel/sched.h's might_sleep(), declared here too for the macros. */
void __might_sleep(const char *file, int line, const char *func);

/*
 * wait_event_timeout: sleep until cond is true (steps 1-4) or ms
 * milliseconds have passed. Returns cond's final value (true: it became
 * true). cond is evaluated with our state SLEEPING: it may take spinlocks
 * but must not sleep. May sleep.
 */
#define wait_event_timeout(wq, cond, ms)                                       \
	({                                                                     \
		u64 __deadline = ktime_ns() + (u64)(ms) * 1000000ULL;          \
		__wait_event(wq, cond, __deadline);                            \
	})

/* wait_event: sleep until cond is true (no timeout). May sleep. */
#define wait_event(wq, cond) ((void)__wait_event(wq, cond, 0))

#define __wait_event(wq, cond, deadline)                                       \
	({                                                                     \
		struct wait_entry __we;                                        \
		bool __ok;                                                     \
		__might_sleep(__FILE__, __LINE__, __func__);                             \
		wait_entry_init(&__we);                                        \
		for (;;) {                                                     \
			prepare_to_wait(&(wq), &__we);        /* step 1 */     \
			if ((__ok = (cond)))                  /* step 2 */     \
				break;                                         \
			if (!wait_sleep(&__we, deadline)) {   /* step 3 */     \
				__ok = (cond);                                 \
				break;                                         \
			}                                                      \
		}                                                              \
		finish_wait(&(wq), &__we);                    /* step 4 */     \
		if (!__ok)                                                     \
			wait_abandon(&(wq), &__we);                            \
		__ok;                                                          \
	})

/*
 * Completions: a counted "it happened". complete() lets one waiter through
 * (now or later); complete_all() lets every present and future waiter
 * through. Built on a wait queue; `done` is [L:wait.lock].
 */
struct completion {
	struct wait_queue_head wait;
	unsigned done;			/* [L:wait.lock] COMPLETION_ALL: for good */
};

#define COMPLETION_ALL 0xffffffffu

/* init_completion: not done, nobody waiting. Never sleeps. */
void init_completion(struct completion *c);
/* complete / complete_all: never sleep; callable from interrupt handlers. */
void complete(struct completion *c);
void complete_all(struct completion *c);
/* wait_for_completion: wait until a complete() is ours to consume. May sleep. */
void wait_for_completion(struct completion *c);
/* As wait_for_completion, giving up after ms milliseconds: false then. */
bool wait_for_completion_timeout(struct completion *c, unsigned ms);
/* True if a wait would not sleep now (a racy snapshot). */
bool completion_done(struct completion *c);

#endif
