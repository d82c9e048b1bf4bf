/*
 * rcu_qsbr.c - the host's quiescent-state-based RCU; the protocol and its
 * steps are in kernel/rcu.h of this folder.
 */
#include <pthread.h>
#include <time.h>
#include "kernel/rcu.h"
#include "kernel/panic.h"

#define RCU_MAX_THREADS 64

/*
 * Lock legend: [A] atomic; [L:registry] registry_lock;
 * [L:queue] queue_lock; [P] the owning thread's.
 */
struct rcu_reader {
	unsigned long seen;	/* [A] step 1: grace period last seen, 0 offline */
	bool used;		/* [L:registry] */
};

static struct rcu_reader readers[RCU_MAX_THREADS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long gp_number = 1;	/* [A] the current grace period */
static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;	/* one synchronize at a time */

static struct rcu_head *queue;		/* [L:queue] callbacks waiting, newest first */
static int queued;			/* [L:queue] */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread struct rcu_reader *me;	/* [P] NULL until registered */
__thread int host_rcu_nesting;		/* [P] read-side depth */

void host_rcu_unbalanced(void)
{
	panic("rcu_read_unlock without rcu_read_lock");
}

void rcu_register_thread(void)
{
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < RCU_MAX_THREADS && !me; i++) {
		if (readers[i].used)
			continue;
		readers[i].used = true;
		me = &readers[i];
	}
	pthread_mutex_unlock(&registry_lock);
	if (!me)
		panic("rcu: more than %d reader threads", RCU_MAX_THREADS);
	rcu_quiescent_state();	/* online from now on */
}

void rcu_unregister_thread(void)
{
	if (host_rcu_nesting)
		panic("rcu: thread leaves inside a read-side section");
	/* Step 1: offline. Release: our earlier reads happen before any free after it. */
	__atomic_store_n(&me->seen, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&registry_lock);
	me->used = false;
	pthread_mutex_unlock(&registry_lock);
	me = NULL;
}

void rcu_quiescent_state(void)
{
	if (host_rcu_nesting)
		panic("rcu: quiescent state inside a read-side section");
	/* Step 2: seq_cst load and store (see rcu.h). */
	unsigned long g = __atomic_load_n(&gp_number, __ATOMIC_SEQ_CST);
	__atomic_store_n(&me->seen, g, __ATOMIC_SEQ_CST);
}

/*
 * Sleep rather than spin or yield: with more threads than cores, the
 * reader we wait for may be queued behind another on a different core;
 * sleeping gives it ours.
 */
static void wait_a_little(void)
{
	struct timespec ts = { 0, 20000 };	/* 20 us */

	nanosleep(&ts, NULL);
}

void synchronize_rcu(void)
{
	unsigned long g;

	if (host_rcu_nesting)
		panic("synchronize_rcu inside a read-side section");
	pthread_mutex_lock(&gp_lock);
	g = __atomic_add_fetch(&gp_number, 1, __ATOMIC_SEQ_CST);	/* step 3 */
	for (int i = 0; i < RCU_MAX_THREADS; i++) {
		if (&readers[i] == me)
			continue;	/* not in a section: quiescent by definition */
		for (;;) {
			/* Acquire: that reader's reads happen before our caller's frees. */
			unsigned long seen = __atomic_load_n(&readers[i].seen, __ATOMIC_ACQUIRE);
			if (seen == 0 || seen >= g)
				break;
			wait_a_little();
		}
	}
	pthread_mutex_unlock(&gp_lock);
}

/* Wait a grace period, then run every callback queued before the wait. */
static void run_queue(void)
{
	struct rcu_head *list;

	pthread_mutex_lock(&queue_lock);
	list = queue;
	queue = NULL;
	queued = 0;
	pthread_mutex_unlock(&queue_lock);
	if (!list)
		return;
	synchronize_rcu();
	while (list) {
		struct rcu_head *next = list->next;
		list->func(list);
		list = next;
	}
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	bool full;

	head->func = func;
	pthread_mutex_lock(&queue_lock);
	head->next = queue;
	queue = head;
	full = ++queued >= RCU_HOST_BATCH;
	pthread_mutex_unlock(&queue_lock);
	if (full)
		run_queue();
}

void rcu_barrier(void)
{
	run_queue();
}
