step3_get:	atomic {				/* CAS: succeeds only on a nonzero count */
			if
			:: refcount[p] == 0 -> ok = false
			:: else -> refcount[p]++; rrefs[p]++; ok = true
			fi
		};
step3_retry:	if
		:: ok -> skip
		:: else -> goto again			/* interleaving B */
		fi;
