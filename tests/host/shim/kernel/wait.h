/*
 * wait.h (host shim) - wait queues as a mutex and a condition variable.
 * The kernel's no-lost-wake-up rule holds the same way: the waker makes
 * the condition true, then wakes under the queue's mutex; the sleeper
 * re-checks the condition under that mutex before each sleep. Only what
 * the host tests use: init_waitqueue_head, wait_event, wake_up(_all).
 */
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include <pthread.h>
#include "kernel/types.h"
#include "kernel/time.h"

struct wait_queue_head {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* signalled under lock */
};

void init_waitqueue_head(struct wait_queue_head *wq);
void wake_up(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);
/* Aborts if the caller may not sleep (preemption count, RCU read side). */
void __might_sleep(const char *file, int line, const char *func);

/* wait_event: sleep until condition is true; it is evaluated under the queue's mutex. */
#define wait_event(wq, condition)                                       \
	do {                                                            \
		__might_sleep(__FILE__, __LINE__, __func__);            \
		pthread_mutex_lock(&(wq).lock);                         \
		while (!(condition))                                    \
			pthread_cond_wait(&(wq).cond, &(wq).lock);      \
		pthread_mutex_unlock(&(wq).lock);                       \
	} while (0)

#endif
