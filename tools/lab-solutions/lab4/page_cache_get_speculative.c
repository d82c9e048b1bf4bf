	/* pagecache.h, step 3: a compare-and-swap loop (lock cmpxchg, fully
	 * ordered) that never raises a count of 0: 0 is free or frozen. */
	for (int c = atomic_read(&page->refcount); c != 0;) {
		int was = atomic_cmpxchg(&page->refcount, c, c + 1);
		if (was == c)
			return true;
		c = was;
	}
	return false;
