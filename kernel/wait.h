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
 * Which sleeps a signal breaks (the rule):
 *   Interruptible - every sleep a program can make last as long as it
 *   likes: pipe and tty read and write, wait4, futex wait, nanosleep and
 *   clock_nanosleep, poll, pause, rt_sigsuspend, rt_sigtimedwait, and -
 *   killable only: ended by SIGKILL alone - execve waiting for its other
 *   threads to go and a stopped thread waiting for SIGCONT. They sleep
 *   with wait_event_interruptible*(), wait_event_killable() or
 *   sleep_interruptible_until(), which end the sleep as soon as a signal
 *   is pending (signal_pending(): one the thread does not block, or a
 *   stop of its process in force), and return -ERESTARTSYS so that the
 *   system call returns -EINTR or is restarted (kernel/signal.c). While
 *   such a sleeper sleeps, task->interruptible is 1, and a sender wakes
 *   every such thread that does not block the signal: a pending SIGKILL
 *   (never blocked) therefore always ends a task in one of these sleeps.
 *   Uninterruptible - sleeps that end by themselves within a bounded time
 *   and whose interruption would leave a half-done operation: the page
 *   lock, waiting for I/O or writeback, mmap_lock and every other
 *   rw-semaphore, mutexes (a pipe's own lock included, held only across a
 *   copy), completions, msleep and the reaper's and flusher's kernel
 *   threads. They sleep with wait_event*() and are never woken by a signal.
 *   A new sleep that a program can make unbounded must be interruptible.
 * Why no wake-up from a signal is lost: the sleeper stores interruptible =
 * 1, then step 1's set_current_state (a full barrier), then step 2 checks
 * signal_pending(); the sender makes the signal pending with a locked
 * read-modify-write (a full barrier), then reads interruptible (and the
 * sleeper's blocked mask, stored before interruptible) and wakes. Either
 * the sleeper sees the signal, or the sender sees the flag and the mask
 * it sleeps with, and its wake_up_process finds the task SLEEPING (or
 * already awake).
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

/* signal_pending: a signal waits for the running thread (its own or its
 * process's); false for kernel threads. Never sleeps (kernel/signal.c). */
bool signal_pending(void);
/* fatal_signal_pending: SIGKILL waits for the running thread. Never sleeps. */
bool fatal_signal_pending(void);
/* Mark the running task as sleeping interruptibly (1) or not (0); for the
 * macros below and sleep_interruptible_until. Never sleeps. */
void set_current_interruptible(int on);

/*
 * wait_event_interruptible_deadline: as __wait_event, but a pending signal
 * ends the sleep too. deadline_ns 0: none. Returns 0 once cond is true,
 * -ERESTARTSYS if a signal came first, -ETIMEDOUT at the deadline. May sleep.
 */
#define wait_event_interruptible_deadline(wq, cond, deadline)                  \
	__wait_event_signal(wq, cond, deadline, signal_pending())

/* wait_event_killable: as wait_event, ended early by SIGKILL only (a sleep
 * the program did not ask for, such as execve's). 0 or -ERESTARTSYS. */
#define wait_event_killable(wq, cond) __wait_event_signal(wq, cond, 0, fatal_signal_pending())

#define __wait_event_signal(wq, cond, deadline, pending)                      \
	({                                                                     \
		struct wait_entry __we;                                        \
		int __ret;                                                     \
		__might_sleep(__FILE__, __LINE__, __func__);                   \
		wait_entry_init(&__we);                                        \
		set_current_interruptible(1);                                  \
		for (;;) {                                                     \
			prepare_to_wait(&(wq), &__we);        /* step 1 */     \
			if ((cond)) {                         /* step 2 */     \
				__ret = 0;                                     \
				break;                                         \
			}                                                      \
			if (pending) {                                         \
				__ret = -ERESTARTSYS;                          \
				break;                                         \
			}                                                      \
			if (!wait_sleep(&__we, deadline)) {   /* step 3 */     \
				__ret = (cond) ? 0 : -ETIMEDOUT;               \
				break;                                         \
			}                                                      \
		}                                                              \
		set_current_interruptible(0);                                  \
		finish_wait(&(wq), &__we);                    /* step 4 */     \
		if (__ret)                                                     \
			wait_abandon(&(wq), &__we);                            \
		__ret;                                                         \
	})

/* wait_event_interruptible: no deadline; 0 or -ERESTARTSYS. May sleep. */
#define wait_event_interruptible(wq, cond) wait_event_interruptible_deadline(wq, cond, 0)

/* sleep_interruptible_until: sleep until ktime_ns() reaches deadline_ns or
 * a signal is pending. Returns 0 at the deadline, -ERESTARTSYS for a
 * signal. May sleep. */
int sleep_interruptible_until(u64 deadline_ns);

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
