/*
 * t_futex_fork - a futex in private memory still works after fork.
 *
 * After fork, the parent's private pages are shared copy-on-write with
 * the child; the parent's first store to one moves it to a new page. A
 * kernel that keys a sleeping waiter by the word's physical address would
 * then miss the wake that follows the store: the waiter keyed by the old
 * page, the wake by the new one. Linux keys private futexes by address
 * space and virtual address, and so must Roundabout.
 *
 * Each attempt: a thread sleeps in FUTEX_WAIT on a word of a private page
 * (2 s timeout, so a lost wake is a failure, not a hang); the parent forks
 * (the child keeps the page shared by staying alive, without touching it),
 * stores to the word and wakes. An attempt counts only if the thread was
 * asleep before the store (its wait returned 0 or timed out, not EAGAIN);
 * the test needs ATTEMPTS such attempts. The same pattern is pthread_join
 * in a program whose threads fork: the tid word is cleared by the exiting
 * thread's store.
 */
#include "tap.h"
#include <errno.h>
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ATTEMPTS 5
#define MAX_TRIES 60

static volatile uint32_t *word;
static volatile int waiting;

static void *waiter(void *arg)
{
	long *result = arg;
	struct timespec ts = { 2, 0 };
	waiting = 1;
	long r = syscall(SYS_futex, word, FUTEX_WAIT, 0, &ts, NULL, 0);
	*result = r < 0 ? -errno : r;
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

int main(void)
{
	tap_start();
	word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(word != MAP_FAILED, "a private page for the futex word");
	int conclusive = 0, woken = 0, timed_out = 0, tries = 0;
	while (conclusive < ATTEMPTS && tries++ < MAX_TRIES) {
		*word = 0;
		waiting = 0;
		long result = 1;
		pthread_t t;
		pthread_create(&t, NULL, waiter, &result);
		while (!waiting)
			sched_yield();
		sleep_ms(50);			/* into its FUTEX_WAIT, most likely */
		int hold[2];
		if (pipe(hold))
			break;
		pid_t child = fork();
		if (child == 0) {		/* keep the page shared: sleep, touch nothing */
			char c;
			close(hold[1]);
			while (read(hold[0], &c, 1) < 0)
				;
			_exit(0);
		}
		close(hold[0]);
		*word = 1;			/* copy-on-write: the word moves to a new page */
		syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
		/* Timed: the thread's exit clears its tid word, on a page the
		 * child shares too, and wakes pthread_join the same way. */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		int joined = pthread_timedjoin_np(t, NULL, &until);
		close(hold[1]);			/* the child may go */
		waitpid(child, NULL, 0);
		if (joined) {
			CHECK_EQ(joined, 0, "pthread_join saw the thread end (the wake of its tid word)");
			break;
		}
		if (result == -EAGAIN)
			continue;		/* the store came first: inconclusive */
		conclusive++;
		woken += result == 0;
		timed_out += result == -ETIMEDOUT;
	}
	CHECK_EQ(conclusive, ATTEMPTS, "the waiter was asleep before the store in enough attempts");
	CHECK_EQ(timed_out, 0, "no wake was lost to copy-on-write after fork");
	CHECK_EQ(woken, ATTEMPTS, "every sleeping waiter was woken");
	return tap_done();
}
