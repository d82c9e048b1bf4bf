/*
 * futex.c - futex(FUTEX_WAIT, FUTEX_WAKE): threads sleep on a user word.
 */
#include "kernel/syscall.h"
#include "kernel/user.h"
#include "kernel/task.h"
#include "kernel/sched.h"
#include "kernel/uaccess.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/cmdline.h"
#include "kernel/rwsem.h"
#include "mm/vm.h"
#include "mm/paging.h"

/*
 * futex(WAIT/WAKE): threads sleep on a user word. A waiter is keyed by
 * what names the word for as long as it may sleep:
 *   - in a MAP_SHARED mapping (a file, or shared anonymous memory): the
 *     file and the word's offset in it, so every process that maps the
 *     file meets on the same key, wherever each maps it;
 *   - anywhere else (private memory: stacks, heaps, a thread's tid word):
 *     the address space and the word's virtual address.
 * Never the physical address: a private page is shared copy-on-write
 * after fork, and the first store to it (the exiting thread's clearing of
 * its tid word, say) moves the word to a new page. A waiter keyed by the
 * old page would then never meet the wake, and pthread_join would sleep
 * forever (futex.debug_physical_key brings that back, for the test).
 * WAIT checks the word and queues itself with the bucket mutex held, and
 * WAKE takes the same mutex, so a wake between the check and the sleep is
 * never lost.
 */
#define FUTEX_BUCKETS 64

struct futex_key {
	const void *space;	/* the inode of a shared mapping, or the mm */
	u64 off;		/* the word's offset in the file, or its address */
};

struct futex_waiter {
	struct futex_key key;
	bool woken;
	struct list_head link;
};

static struct futex_bucket {
	struct mutex lock;
	struct list_head waiters;
	struct wait_queue_head wq;
} buckets[FUTEX_BUCKETS];
static bool futex_ready;

void futex_init(void)
{
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		mutex_init(&buckets[i].lock, "futex");
		list_init(&buckets[i].waiters);
		init_waitqueue_head(&buckets[i].wq);
	}
	futex_ready = true;
}

CMDLINE_KEY(futex_physical, "futex.debug_physical_key",
	    "broken on purpose: key futexes by physical address (lost after copy-on-write)");

/* The key of the word at uaddr (faulting its page in if need be). */
static int get_futex_key(u64 uaddr, struct futex_key *key)
{
	struct mm_struct *mm = current_task()->mm;
	u32 v;
	if (uaddr & 3)
		return -EINVAL;
	if (get_user_u32(&v, (void *)uaddr))
		return -EFAULT;
	if (cmdline_get("futex.debug_physical_key")) {
		phys_addr_t pa;
		u64 flags;
		if (!pt_translate(mm->pml4, uaddr, &pa, &flags))
			return -EFAULT;
		*key = (struct futex_key){ NULL, pa };
		return 0;
	}
	*key = (struct futex_key){ mm, uaddr };
	down_read(&mm->mmap_lock);
	struct vm_area *vma = find_vma(mm, uaddr);
	if (vma && vma->start <= uaddr && vma->file && (vma->flags & VM_SHARED))
		*key = (struct futex_key){ vma->file,
			((vma->pgoff + ((uaddr - vma->start) >> PAGE_SHIFT)) << PAGE_SHIFT) |
			(uaddr & (PAGE_SIZE - 1)) };
	up_read(&mm->mmap_lock);
	return 0;
}

static bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->space == b->space && a->off == b->off;
}

static struct futex_bucket *bucket_of(const struct futex_key *key)
{
	u64 h = ((u64)(uintptr_t)key->space ^ (key->off >> 2)) * 0x9e3779b97f4a7c15ULL;
	return &buckets[h >> 58];
}

int futex_wake(u64 uaddr, int n)
{
	struct futex_key key;
	if (!futex_ready || get_futex_key(uaddr, &key))
		return 0;
	struct futex_bucket *b = bucket_of(&key);
	int woken = 0;
	mutex_lock(&b->lock);
	for (struct list_head *l = b->waiters.next; l != &b->waiters && woken < n;) {
		struct futex_waiter *w = list_entry(l, struct futex_waiter, link);
		l = l->next;
		if (!key_eq(&w->key, &key))
			continue;
		list_del(&w->link);
		WRITE_ONCE(w->woken, true);
		woken++;
	}
	mutex_unlock(&b->lock);
	if (woken)
		wake_up_all(&b->wq);
	return woken;
}

static long futex_wait(u64 uaddr, u32 val, u64 utimeout)
{
	struct futex_key key;
	int err = get_futex_key(uaddr, &key);
	if (err)
		return err;
	u64 timeout_ms = 0;
	if (utimeout) {
		struct timespec ts;
		if (copy_from_user(&ts, (void *)utimeout, sizeof(ts)))
			return -EFAULT;
		if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
			return -EINVAL;
		timeout_ms = (u64)ts.sec * 1000 + (u64)(ts.nsec + 999999) / 1000000;
		if (!timeout_ms)
			timeout_ms = 1;
	}
	struct futex_bucket *b = bucket_of(&key);
	struct futex_waiter w = { key, false, LIST_HEAD_INIT(w.link) };
	mutex_lock(&b->lock);
	u32 cur;
	if (get_user_u32(&cur, (void *)uaddr)) {
		mutex_unlock(&b->lock);
		return -EFAULT;
	}
	if (cur != val) {
		mutex_unlock(&b->lock);
		return -EAGAIN;
	}
	list_add_tail(&w.link, &b->waiters);
	mutex_unlock(&b->lock);
	/* Interruptible (wait.h): a signal ends the wait. */
	u64 deadline = timeout_ms ? ktime_ns() + timeout_ms * 1000000ULL : 0;
	err = wait_event_interruptible_deadline(b->wq, READ_ONCE(w.woken), deadline);
	if (err) {
		mutex_lock(&b->lock);
		bool woken = w.woken;	/* a FUTEX_WAKE may have come meanwhile */
		if (!woken)
			list_del(&w.link);
		mutex_unlock(&b->lock);
		if (woken)
			return 0;
		if (err == -ERESTARTSYS && timeout_ms)
			return -ERESTARTNOHAND;	/* as Linux: EINTR when a handler runs */
		return err;
	}
	return 0;
}

SYSCALL_DEFINE6(futex, uaddr_t, uaddr, int, futex_op, u64, val, uaddr_t, utimeout, uaddr_t, uaddr2, u64, val3)
{
	int op = futex_op & 127;		/* FUTEX_PRIVATE_FLAG (128) changes nothing here */
	switch (op) {
	case 0:		/* FUTEX_WAIT */
	case 9:		/* FUTEX_WAIT_BITSET */
		return futex_wait(uaddr, (u32)val, utimeout);
	case 1:		/* FUTEX_WAKE */
	case 10:	/* FUTEX_WAKE_BITSET */
		if (!access_ok((void *)uaddr, 4))
			return -EFAULT;		/* futex_wake is silent: exit uses it too */
		if (uaddr & 3)
			return -EINVAL;
		return futex_wake(uaddr, (int)val);
	}
	return -ENOSYS;
}
