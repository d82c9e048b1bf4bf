/*
 * ktest_lockdep.c - the kernel's rule checkers (kernel/lockdep.h, the RCU
 * checks of kernel/rcu.h, might_sleep) and tests of them.
 *
 * Each checker has a test of the test (STYLE.md rule 11): an expected
 * panic where a deliberate violation must produce the checker's own
 * message. Every violation is sequential on one CPU, so it is reported at
 * every run, not only when two CPUs happen to race. The normal tests show
 * what the checkers must not report: a consistent order, a trylock, an
 * annotated nesting, a lock held across a sleep or released out of order.
 *
 * Classes outlive a test (the graph is for the whole boot), so each test
 * names its locks after itself.
 */
#include "kernel/ktest.h"
#include "kernel/lockdep.h"
#include "kernel/spinlock.h"
#include "kernel/rwlock.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/trap.h"
#include "kernel/time.h"
#include "kernel/x86.h"
#include "kernel/panic.h"
#include "drivers/lapic.h"
#include "mm/radix-tree.h"
#include "mm/page.h"
#include "mm/pagecache.h"

/* ------------------------------------------------------------ lock order */

static spinlock_t order_a = SPINLOCK_INIT("test_order_a");
static spinlock_t order_b = SPINLOCK_INIT("test_order_b");

/* A then B, then (sequentially, so surely) B then A. */
KTEST_EXPECT_PANIC(lockdep_ab_ba_inversion_is_reported, "lockdep: lock order inversion")
{
	spin_lock(&order_a);
	spin_lock(&order_b);
	spin_unlock(&order_b);
	spin_unlock(&order_a);

	spin_lock(&order_b);
	spin_lock(&order_a);	/* reported here, before it could wait */
	spin_unlock(&order_a);
	spin_unlock(&order_b);
}

static DEFINE_MUTEX(cycle_x);
static DEFINE_MUTEX(cycle_y);
static DEFINE_RWSEM(cycle_z);

/* x -> y and y -> z are fine alone; z -> x closes a cycle of three. */
KTEST_EXPECT_PANIC(lockdep_three_lock_cycle_is_reported, "but a chain of 2 edges")
{
	mutex_lock(&cycle_x);
	mutex_lock(&cycle_y);
	mutex_unlock(&cycle_y);
	mutex_unlock(&cycle_x);
	mutex_lock(&cycle_y);
	down_write(&cycle_z);
	up_write(&cycle_z);
	mutex_unlock(&cycle_y);

	down_read(&cycle_z);
	mutex_lock(&cycle_x);
	mutex_unlock(&cycle_x);
	up_read(&cycle_z);
}

static spinlock_t learn_a = SPINLOCK_INIT("test_learn_a");
static spinlock_t learn_b = SPINLOCK_INIT("test_learn_b");

static void learn_pair(void)
{
	spin_lock(&learn_a);
	spin_lock(&learn_b);
	spin_unlock(&learn_b);
	spin_unlock(&learn_a);
}

/*
 * The edge count is global: other CPUs learn orders of their own while the
 * test runs. So: the first pair adds at least one edge, and repeating it
 * adds none - shown by a window in which the count stood still (a few
 * tries; a checker that re-learns the order every time never shows one).
 */
KTEST(lockdep_learns_an_order_once)
{
	int before = lockdep_nr_edges();
	learn_pair();
	KT_GE(lockdep_nr_edges(), before + 1);
	bool still = false;
	for (int t = 0; t < 50 && !still; t++) {
		int n = lockdep_nr_edges();
		learn_pair();
		learn_pair();
		still = lockdep_nr_edges() == n;
	}
	KT_ASSERT(still);
}

static spinlock_t try_a = SPINLOCK_INIT("test_try_a");
static spinlock_t try_b = SPINLOCK_INIT("test_try_b");

/* A trylock cannot wait, so it orders nothing: B then A afterwards is fine. */
KTEST(lockdep_trylock_adds_no_order)
{
	int before = lockdep_nr_edges();

	spin_lock(&try_a);
	KT_ASSERT(spin_trylock(&try_b));
	KT_ASSERT(lockdep_is_held(&try_b));
	spin_unlock(&try_b);
	spin_unlock(&try_a);

	/* Had the trylock ordered A before B, this would be an inversion (a
	 * panic). The count is global (other CPUs learn too): at least our
	 * B -> A edge is new. */
	spin_lock(&try_b);
	spin_lock(&try_a);
	spin_unlock(&try_a);
	spin_unlock(&try_b);
	KT_GE(lockdep_nr_edges(), before + 1);
}

/* ---------------------------------------------------- one class, nested */

static spinlock_t nest_outer = SPINLOCK_INIT("test_nest");
static spinlock_t nest_inner = SPINLOCK_INIT("test_nest");

KTEST_EXPECT_PANIC(lockdep_same_class_nesting_is_reported,
		   "lockdep: nested lock of class 'test_nest' without a subclass")
{
	spin_lock(&nest_outer);
	spin_lock(&nest_inner);
	spin_unlock(&nest_inner);
	spin_unlock(&nest_outer);
}

static spinlock_t sub_outer = SPINLOCK_INIT("test_subclass");
static spinlock_t sub_inner = SPINLOCK_INIT("test_subclass");

KTEST(lockdep_subclass_annotation_allows_nesting)
{
	spin_lock(&sub_outer);
	spin_lock_nested(&sub_inner, 1);
	KT_ASSERT(lockdep_is_held(&sub_outer) && lockdep_is_held(&sub_inner));
	spin_unlock(&sub_inner);
	spin_unlock(&sub_outer);
}

static rwlock_t twice = RWLOCK_INIT("test_read_twice");

/* A writer arriving between the two would wait for us, and we for it. */
KTEST_EXPECT_PANIC(lockdep_recursive_read_lock_is_reported, "lockdep: recursive lock")
{
	read_lock(&twice);
	read_lock(&twice);
	read_unlock(&twice);
	read_unlock(&twice);
}

/* ------------------------------------------------------------ held locks */

static spinlock_t held_spin = SPINLOCK_INIT("test_held_spin");
static rwlock_t held_rw = RWLOCK_INIT("test_held_rw");
static DEFINE_MUTEX(held_mutex);
static DEFINE_RWSEM(held_sem);

/* Taken in one order, let go in another; each query follows. */
KTEST(lockdep_locks_may_be_released_in_any_order)
{
	mutex_lock(&held_mutex);
	down_read(&held_sem);
	spin_lock(&held_spin);
	read_lock(&held_rw);
	KT_ASSERT(lockdep_is_held(&held_mutex) && lockdep_is_held(&held_sem));
	KT_ASSERT(lockdep_is_held(&held_spin) && lockdep_is_held(&held_rw));
	KT_ASSERT(!lockdep_is_held_exclusive(&held_rw));	/* the shared side */
	spin_unlock(&held_spin);
	KT_ASSERT(!lockdep_is_held(&held_spin) && lockdep_is_held(&held_rw));
	read_unlock(&held_rw);
	mutex_unlock(&held_mutex);
	KT_ASSERT(!lockdep_is_held(&held_mutex) && lockdep_is_held(&held_sem));
	up_read(&held_sem);
	KT_ASSERT(!lockdep_is_held(&held_sem));
}

static DEFINE_MUTEX(sleeper_mutex);
static int other_saw_it_held = -1;	/* [A] */

static int look_at_sleeper_mutex(void *unused)
{
	WRITE_ONCE(other_saw_it_held, lockdep_is_held(&sleeper_mutex));
	return 0;
}

/* A mutex belongs to its task: held across a sleep, and not by others. */
KTEST(lockdep_sleeping_lock_stays_with_its_task)
{
	struct page *page = alloc_page();

	KT_NOT_NULL(page);
	mutex_lock(&sleeper_mutex);
	lock_page(page);
	msleep(30);		/* we may come back on another CPU */
	yield();
	KT_ASSERT(lockdep_is_held(&sleeper_mutex));
	KT_ASSERT(lockdep_is_held(page));
	struct task *t = kthread_run(look_at_sleeper_mutex, NULL, "lockdep_look");
	KT_NOT_NULL(t);
	kthread_join(t);
	KT_EQ(READ_ONCE(other_saw_it_held), 0);
	unlock_page(page);
	mutex_unlock(&sleeper_mutex);
	KT_ASSERT(!lockdep_is_held(&sleeper_mutex) && !lockdep_is_held(page));
	put_page(page);
}

/* ---------------------------------------------------- interrupt context */

#define TEST_VECTOR 0xe0	/* unused by the kernel (kernel/irq.h) */

static spinlock_t irq_safe = SPINLOCK_INIT("test_irq_safe_class");
static spinlock_t irq_unsafe = SPINLOCK_INIT("test_irq_unsafe_class");
static spinlock_t *irq_lock;	/* [P] what the handler takes */
static int irq_ran;		/* [A] */

static void take_lock_in_handler(struct trap_frame *tf)
{
	spin_lock(irq_lock);
	spin_unlock(irq_lock);
	WRITE_ONCE(irq_ran, 1);
}

/* A real interrupt on this CPU: a self-IPI to a spare vector; true once it ran. */
static bool run_handler_taking(spinlock_t *l)
{
	irq_lock = l;
	WRITE_ONCE(irq_ran, 0);
	trap_set_handler(TEST_VECTOR, take_lock_in_handler);
	BUG_ON(irqs_disabled(), "the test needs interrupts on");
	lapic_send_ipi(cpu_apic_id(smp_processor_id()), TEST_VECTOR);
	u64 end = ktime_ns() + 100000000ULL;
	while (!READ_ONCE(irq_ran) && ktime_ns() < end)
		cpu_relax();
	trap_set_handler(TEST_VECTOR, NULL);
	return READ_ONCE(irq_ran);
}

KTEST(lockdep_irq_class_taken_elsewhere_with_irqs_off_is_fine)
{
	KT_ASSERT(run_handler_taking(&irq_safe));
	unsigned long f = spin_lock_irqsave(&irq_safe);
	spin_unlock_irqrestore(&irq_safe, f);
}

/* The interrupt could arrive on the CPU holding it, and spin forever. */
KTEST_EXPECT_PANIC(lockdep_irq_unsafe_class_is_reported,
		   "lockdep: irq-unsafe class 'test_irq_unsafe_class'")
{
	KT_ASSERT(run_handler_taking(&irq_unsafe));
	spin_lock(&irq_unsafe);		/* interrupts on: reported */
	spin_unlock(&irq_unsafe);
}

/* ------------------------------------------------------------------- RCU */

struct rcu_obj {
	int value;
};

static struct rcu_obj rcu_obj = { 42 };
static struct rcu_obj *test_rcu_ptr = &rcu_obj;	/* [R] */

KTEST(lockdep_rcu_dereference_inside_reader_passes)
{
	rcu_read_lock();
	KT_ASSERT(rcu_read_lock_held());
	int v = rcu_dereference(test_rcu_ptr)->value;
	rcu_read_unlock();
	KT_EQ(v, 42);
	KT_ASSERT(!rcu_read_lock_held());
}

KTEST_EXPECT_PANIC(lockdep_rcu_dereference_outside_reader_is_reported,
		   "lockdep: unprotected rcu_dereference of test_rcu_ptr")
{
	preempt_disable();	/* keeps grace periods off, but says nothing: still reported */
	int v = rcu_dereference(test_rcu_ptr)->value;
	preempt_enable();
	KT_EQ(v, 42);
}

/* ------------------------------------------------------ radix-tree lookups */

static spinlock_t tree_lock = SPINLOCK_INIT("test_radix_tree_lock");
static spinlock_t other_lock = SPINLOCK_INIT("test_radix_other_lock");
static struct radix_tree_root tree;
static int item = 7;

/* A tree whose writers take tree_lock, with one item at index 5. */
static void tree_setup(void)
{
	radix_tree_init();
	radix_tree_init_root(&tree);
	radix_tree_set_lock(&tree, &tree_lock);
	spin_lock(&tree_lock);
	BUG_ON(radix_tree_insert(&tree, 5, &item) != 0, "no memory for a node");
	spin_unlock(&tree_lock);
}

static void tree_teardown(void)
{
	spin_lock(&tree_lock);
	radix_tree_delete(&tree, 5);
	spin_unlock(&tree_lock);
}

KTEST(lockdep_radix_lookup_under_rcu_or_the_tree_lock_passes)
{
	tree_setup();
	rcu_read_lock();
	void *under_rcu = radix_tree_lookup(&tree, 5);
	rcu_read_unlock();
	spin_lock(&tree_lock);
	void *under_lock = radix_tree_lookup(&tree, 5);
	spin_unlock(&tree_lock);
	tree_teardown();
	KT_EQ((uintptr_t)under_rcu, (uintptr_t)&item);
	KT_EQ((uintptr_t)under_lock, (uintptr_t)&item);
}

KTEST_EXPECT_PANIC(lockdep_radix_lookup_without_protection_is_reported,
		   "lockdep: unprotected rcu_dereference of root->rnode")
{
	tree_setup();
	radix_tree_lookup(&tree, 5);
}

/* Any spinlock keeps grace periods off, but only the tree's lock counts. */
KTEST_EXPECT_PANIC(lockdep_radix_lookup_under_another_lock_is_reported,
		   "lockdep: unprotected rcu_dereference of root->rnode")
{
	tree_setup();
	spin_lock(&other_lock);
	radix_tree_lookup(&tree, 5);
	spin_unlock(&other_lock);
}

KTEST_EXPECT_PANIC(lockdep_radix_insert_without_the_tree_lock_is_reported,
		   "lockdep: assertion failed at mm/radix-tree.c")
{
	tree_setup();
	rcu_read_lock();	/* a reader's protection is not a writer's */
	radix_tree_insert(&tree, 6, &item);
	rcu_read_unlock();
}

/* --------------------------------------------------------------- sleeping */

KTEST_EXPECT_PANIC(lockdep_sleep_inside_rcu_reader_is_reported,
		   "sleeping function called from atomic context")
{
	rcu_read_lock();
	msleep(1);
	rcu_read_unlock();
}

/* ------------------------------------------------------------ off switch */

static spinlock_t off_a = SPINLOCK_INIT("test_off_a");
static spinlock_t off_b = SPINLOCK_INIT("test_off_b");

/*
 * Booted with lockdep=off (tests/boots.txt): the same violations as above
 * pass without a word, and every held-lock assertion passes.
 */
KTEST_BOOT(lockdep_off_checks_nothing)
{
	KT_ASSERT(!lockdep_enabled());
	spin_lock(&off_a);
	spin_lock(&off_b);
	spin_unlock(&off_b);
	spin_unlock(&off_a);
	spin_lock(&off_b);
	spin_lock(&off_a);
	spin_unlock(&off_a);
	spin_unlock(&off_b);
	tree_setup();
	KT_EQ((uintptr_t)radix_tree_lookup(&tree, 5), (uintptr_t)&item);
	tree_teardown();
	KT_ASSERT(lockdep_is_held(&off_a));	/* nothing is tracked: assertions pass */
	KT_EQ(lockdep_nr_edges(), 0);
}
