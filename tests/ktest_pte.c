/*
 * ktest_pte.c - updates of a live PTE keep the bits the MMU sets meanwhile.
 *
 * The MMU sets a present PTE's Accessed and Dirty bits itself, with a
 * locked operation and none of our locks (mm/paging.h). A kernel update
 * that loads the PTE and later stores a value computed from it undoes a
 * bit set in between: a lost Dirty bit is a lost write through a shared
 * mapping. Here a thread on another CPU plays the MMU and sets PTE_D while
 * this CPU write-protects, exchanges or compare-and-swaps the same PTE.
 * With vm.debug_pte_plain_rmw the updates are a load and a store, and the
 * test forces the MMU's store between the two (pte_rmw_window), so the
 * broken kernel is caught on every round, however busy the machine.
 */
#include "kernel/ktest.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/atomic.h"
#include "mm/paging.h"

#define PTE_ROUNDS 200

static struct {
	pte_t pte;
	int go, ack, stop;	/* [A] round to play; round played; end */
} mmu;

/* The "MMU": when told, set the Dirty bit with a locked or, as hardware does. */
static int mmu_thread(void *arg)
{
	int seen = 0;
	while (!READ_ONCE(mmu.stop)) {
		int go = smp_load_acquire(&mmu.go);
		if (go == seen) {
			yield();
			continue;
		}
		__atomic_or_fetch(&mmu.pte, PTE_D, __ATOMIC_SEQ_CST);
		seen = go;
		smp_store_release(&mmu.ack, go);
	}
	return 0;
}

static void wait_ack(int round)
{
	while (smp_load_acquire(&mmu.ack) != round)
		yield();
}

static int round_now;	/* [P] the test's */

/* Called only by the broken updates, between their load and their store. */
static void window(pte_t *pte)
{
	wait_ack(round_now);
}

KTEST(pte_updates_keep_the_dirty_bit_the_mmu_sets_meanwhile)
{
	const pte_t clean = 0x5000 | PTE_P | PTE_W | PTE_U | PTE_A;
	int lost_clear = 0, lost_cmpxchg = 0, lost_xchg = 0;

	mmu.go = mmu.ack = mmu.stop = 0;
	struct task *t = kthread_run(mmu_thread, NULL, "pte_mmu");
	pte_rmw_window = window;
	for (int r = 1; r <= PTE_ROUNDS; r++) {
		int kind = r % 3;
		round_now = r;
		WRITE_ONCE(mmu.pte, clean);
		smp_store_release(&mmu.go, r);	/* the MMU may set D from now on */
		pte_t old;
		if (kind == 0) {
			pte_clear_bits(&mmu.pte, PTE_W);	/* fork's write-protect */
		} else if (kind == 1) {
			old = READ_ONCE(mmu.pte);	/* mprotect's loop */
			while (!pte_cmpxchg(&mmu.pte, old, old & ~PTE_W))
				old = READ_ONCE(mmu.pte);
		}
		if (kind == 2) {
			old = pte_get_and_clear(&mmu.pte);	/* munmap, mremap, rmap */
			wait_ack(r);
			/* D set before the exchange is in old; set after, in the PTE. */
			lost_xchg += !((old | READ_ONCE(mmu.pte)) & PTE_D);
			continue;
		}
		wait_ack(r);
		pte_t now = READ_ONCE(mmu.pte);
		if (kind == 0)
			lost_clear += !(now & PTE_D);
		else
			lost_cmpxchg += !(now & PTE_D);
	}
	pte_rmw_window = NULL;
	WRITE_ONCE(mmu.stop, 1);
	kthread_join(t);
	if (lost_clear + lost_cmpxchg + lost_xchg)
		KT_FAIL("the MMU's dirty bit was lost: by %d write-protects, %d compare-and-swaps, "
			"%d exchanges of %d rounds", lost_clear, lost_cmpxchg, lost_xchg, PTE_ROUNDS);
}
