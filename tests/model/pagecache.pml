/*
 * pagecache.pml - the lockless page cache lookup against eviction and
 * reuse, for the spin model checker. A model of mm/pagecache.h: every
 * statement carries the name of the step it stands for (step2_load, E2 as
 * e2_freeze, ...), and each step is as atomic here as it is in mm/filemap.c
 * and mm/page_alloc.c - one step per locked instruction or plain load or
 * store, never more. docs/model.md says how to run it and read a trail.
 *
 * The world: two pages, and two slots, each the one slot of a file's tree
 * that matters here:
 *   slot[0]  (mapping A, index i): the slot both readers look up.
 *   slot[1]  (mapping B, index j): another file, where a freed page is
 *            reused (interleaving C).
 * Processes:
 *   reader x2  find_get_page(A, i) twice (LOOKUPS), steps 1-5 with both
 *              retries; checks the page it returns; then put_page.
 *   evictor    reclaim of the page in slot 0: isolate, E1-E5 (retrying
 *              after a failed freeze or a dirty page), then allocates a
 *              page for (B, j) and inserts it into slot 1.
 *   refiller   a later read of (A, i): allocates a page and inserts it
 *              into slot 0 if that is empty (-EEXIST otherwise).
 *   watch      checks the invariants below after every step.
 *
 * Ghost state (the model's, not the kernel's): owner[] says whom each page
 * is allocated for, rrefs[] how many references readers hold on it.
 *
 * The variants (spin -DVARIANT=NAME), the kernels that the debug switches
 * pagecache.debug_* build:
 *   CORRECT       the protocol as written.
 *   PLAIN_GET     step 3 is a plain increment (no "unless zero").
 *   SKIP_RECHECK  no step 4.
 *   SPLIT_FREEZE  E2 loads the count, then stores 0 if it was 2.
 */

#define CORRECT		0
#define PLAIN_GET	1
#define SKIP_RECHECK	2
#define SPLIT_FREEZE	3
#ifndef VARIANT
#define VARIANT		CORRECT
#endif

#define LOOKUPS	2	/* find_get_page calls per reader */
#define NPAGES	2
#define NONE	2	/* an empty slot: NULL in the tree */

/* owner[]: the identity a page is allocated for. */
#define FREE	0	/* on the allocator's free lists */
#define ID_A	1	/* (mapping A, index i): slot 0 */
#define ID_B	2	/* (mapping B, index j): slot 1 */

/* Lock legend: [A] atomic, [R] read by lockless readers, [L:tree_lock[s]],
 * [G] ghost (the model's bookkeeping; no kernel code reads it). */
short refcount[NPAGES];	/* [A] struct page.refcount; 0 = free or frozen */
byte slot[2] = NONE;	/* [R] readers, [L:tree_lock[s]] writers */
bit tree_lock[2];	/* writers only: mapping A's and mapping B's */
byte owner[NPAGES];	/* [G] FREE, ID_A or ID_B */
byte rrefs[NPAGES];	/* [G] references readers hold on the page */
bool dirtied;		/* [G] E3's dirty path is taken at most once */

/* The invariants, checked by watch after every step. */
#define HELD_NOT_FREE(p)	(rrefs[p] == 0 || owner[p] != FREE)
#define SLOT_OWNED(s, id)	(slot[s] == NONE || owner[slot[s]] == id)
#define INVARIANTS	(HELD_NOT_FREE(0) && HELD_NOT_FREE(1) && \
			 SLOT_OWNED(0, ID_A) && SLOT_OWNED(1, ID_B))

/*
 * The allocator and put_page, each one atomic step (page_alloc.c: the
 * allocator's own lock; put_page is one lock xadd). The asserts marked
 * "kernel" are the panics page_alloc.c has; "property" ones are the
 * safety property itself, checked with the ghost state.
 */

/* A page's last reference is gone (put_page), or E5 frees a frozen page. */
inline free_page(p)
{
	assert(rrefs[p] == 0);		/* property: no reader holds a page being freed */
	assert(owner[p] != FREE);	/* kernel: double free (PG_buddy already set) */
	assert(refcount[p] == 0);	/* kernel: free_frozen_pages with a nonzero count */
	owner[p] = FREE
}

/* alloc_page for identity id: any free page; the one 0 -> 1 transition. */
inline alloc_page(q, id)
{
	if
	:: owner[0] == FREE -> q = 0
	:: owner[1] == FREE -> q = 1
	fi;
	assert(refcount[q] == 0);	/* kernel: allocating a page in use */
	refcount[q] = 1;		/* smp_store_release: a store, not an add */
	owner[q] = id
}

inline put_page(p)
{
	refcount[p]--;
	assert(refcount[p] >= 0);	/* kernel: refcount underflow */
	if
	:: refcount[p] == 0 -> free_page(p)
	:: else -> skip
	fi
}

/* ---------------------------------------------------------------- lookup */

proctype reader()
{
	byte p;		/* the page pointer step 2 loaded */
	byte seen;	/* [G] owner[p] at the instant of step 4 */
	byte n;		/* lookups done */
	bool ok;

step1_rcu_lock:	skip;	/* tree nodes stay; pages may be freed: nothing to model */
again:
step2_load:	p = slot[0];
step2_miss:	if
		:: p == NONE -> goto step5_miss
		:: else -> skip
		fi;
#if VARIANT == PLAIN_GET
step3_get:	atomic { refcount[p]++; rrefs[p]++ };	/* BROKEN: lock incl, no zero check */
#else
/* LAB 4 BEGIN step3: the reader's step 3 (docs/labs/lab4.md) */
step3_get:	atomic {				/* inc-unless-zero: the CAS that succeeds */
			if
			:: refcount[p] > 0 -> refcount[p]++; rrefs[p]++; ok = true
			:: else -> ok = false
			fi
		};
step3_retry:	if
		:: !ok -> goto again			/* interleaving B */
		:: else -> skip
		fi;
/* LAB 4 END step3 */
#endif
#if VARIANT == SKIP_RECHECK
		/* BROKEN: no step 4 */
#else
/* LAB 4 BEGIN step4: the reader's step 4 (docs/labs/lab4.md) */
step4_recheck:	atomic { ok = (slot[0] == p); seen = owner[p] };	/* one load of the slot */
step4_lost:	if
		:: !ok -> atomic { rrefs[p]--; put_page(p) }; goto again	/* interleaving C */
		:: else -> skip
		fi;
step4_seen:	assert(seen == ID_A);	/* property: the page WAS (A, i)'s at step 4 */
/* LAB 4 END step4 */
#endif
step5_return:	assert(refcount[p] >= 1 && owner[p] == ID_A);	/* property: allocated, (A, i)'s */
step5_put:	atomic { rrefs[p]--; put_page(p) };	/* the caller is done with it */
step5_miss:	skip;
next_lookup:	n++;
		if
		:: n < LOOKUPS -> goto step1_rcu_lock
		:: else -> skip
		fi
}

/* ---------------------------------------------------------------- eviction */

proctype evictor()
{
	byte p = 0;	/* the page reclaim took from the LRU: slot 0's first page */
	byte q;
	short c;

again:
#if VARIANT == PLAIN_GET
e0_isolate:	refcount[p]++;				/* vmscan isolate(): the same get */
#else
e0_isolate:	atomic { refcount[p] > 0 -> refcount[p]++ };	/* cached: never 0 here */
#endif
e1_lock:	atomic { tree_lock[0] == 0 -> tree_lock[0] = 1 };
#if VARIANT == SPLIT_FREEZE
e2_freeze_load:	c = refcount[p];			/* BROKEN: the check ... */
e2_freeze_test:	if
		:: c == 2 -> skip
		:: else -> goto e2_failed
		fi;
e2_freeze_store: refcount[p] = 0;			/* ... and, apart, the store */
#else
/* LAB 5 BEGIN e2_freeze: the evictor's step E2 (docs/labs/lab5.md) */
e2_freeze:	atomic {				/* lock cmpxchg(2 -> 0) */
			if
			:: refcount[p] == 2 -> refcount[p] = 0
			:: else -> goto e2_failed
			fi
		};
/* LAB 5 END e2_freeze */
#endif
e3_dirty:	if
		:: !dirtied -> dirtied = true; goto e3_unfreeze	/* dirtied after reclaim looked */
		:: true -> skip
		fi;
e4_delete:	slot[0] = NONE;				/* radix_tree_delete; mapping = NULL */
e5_unlock:	tree_lock[0] = 0;
e5_free:	atomic { free_page(p) };		/* free_frozen_pages: no put_page */
		goto reuse;

e3_unfreeze:	refcount[p] = 2;			/* a release store */
e3_unlock:	tree_lock[0] = 0;
		goto e3_putback;
e2_failed:	tree_lock[0] = 0;			/* interleaving A: a reference is held, the page stays */
e3_putback:	atomic { put_page(p) };			/* reclaim's reference; try again later */
		goto again;

	/* The freed page (or the other free one) goes to another file. */
reuse:
r1_alloc:	atomic { alloc_page(q, ID_B) };
r2_get:		refcount[q]++;				/* add_to_page_cache: the cache's reference */
r3_lock:	atomic { tree_lock[1] == 0 -> tree_lock[1] = 1 };
r4_insert:	slot[1] = q;				/* radix_tree_insert: a release store */
r5_unlock:	tree_lock[1] = 0;
r6_put:		atomic { put_page(q) }			/* the allocating caller's reference */
}

/* ---------------------------------------------------------------- refill */

proctype refiller()
{
	byte q;

f1_alloc:	atomic { alloc_page(q, ID_A) };
f2_get:		refcount[q]++;				/* the cache's reference */
f3_lock:	atomic { tree_lock[0] == 0 -> tree_lock[0] = 1 };
f4_insert:	if
		:: slot[0] == NONE -> slot[0] = q;
f5_unlock:		tree_lock[0] = 0;
f6_put:			atomic { put_page(q) }		/* the caller's; the cache's stays */
		:: else ->				/* -EEXIST: (A, i) is cached again */
f5_exist_unlock:	tree_lock[0] = 0;
f6_exist_put:		atomic { put_page(q) };		/* the cache's reference, unused */
f7_exist_put:		atomic { put_page(q) }		/* the caller's: the page is freed */
		fi
}

/* ---------------------------------------------------------------- checks */

/* Blocked until an invariant breaks; "end" marks a valid place to stop. */
proctype watch()
{
end_watch:	atomic {
			!INVARIANTS ->
			assert(HELD_NOT_FREE(0) && HELD_NOT_FREE(1));	/* property: a reader holds a free page */
			assert(SLOT_OWNED(0, ID_A) && SLOT_OWNED(1, ID_B))	/* model: a slot holds a stranger */
		}
}

init
{
	atomic {
		/* (A, i) is cached in page 0: the cache's reference. Page 1 is free. */
		refcount[0] = 1; owner[0] = ID_A; slot[0] = 0;
		run watch();
		run reader(); run reader();
		run evictor(); run refiller()
	}
}
