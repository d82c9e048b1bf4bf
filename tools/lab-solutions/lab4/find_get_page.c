	for (;;) {
		void **slot = radix_tree_lookup_slot(&m->tree, index);	/* pagecache.h, step 2 */
		page = slot ? radix_tree_deref_slot(slot) : NULL;
		if (!page)
			break;					/* a miss */
		race_window();
		if (!page_cache_get_speculative(page)) {	/* step 3 */
			lost_race_count_was_zero(page);		/* interleaving B */
			continue;
		}
		race_window();
		if (slot_still_holds(slot, page))		/* step 4 */
			break;
		lost_race_slot_changed(page);			/* interleaving C */
	}
