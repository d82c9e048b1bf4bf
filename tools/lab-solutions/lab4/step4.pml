step4_recheck:	atomic { seen = owner[p]; ok = (slot[0] == p) };	/* one load of the slot */
step4_lost:	if
		:: ok -> skip
		:: else -> atomic { rrefs[p]--; put_page(p) }; goto again	/* interleaving C */
		fi;
step4_seen:	assert(seen == ID_A);	/* property: the page was (A, i)'s at step 4 */
