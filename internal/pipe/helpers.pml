/*
 * helpers.pml: the pool sequence driver's helpers leave and are offered
 * again (seqpool.go, poolSeq; seqblocks.go, block and wanted; feed.go).
 *
 * A helper of a loop over a seq that finds nothing to take leaves the loop
 * instead of waiting, so that its pool worker goes back to the pool. It
 * holds a token while its job is out; leaving, it gives the token back and
 * then looks once more for something to take (wanted), taking the token
 * again to come back if there is. Whoever makes something takeable looks
 * at the tokens after it: the feeder after it publishes an item while the
 * caller does not wait for one (arrive), a participant after a take that
 * leaves more (offer). Either the helper's last look sees the item or the
 * other side sees the token: no offer is lost.
 *
 * The check: the caller takes item 0 first, and its callback waits for the
 * last item to have run, as a callback may wait for a later item. The
 * caller cannot take that item itself, so the loop ends only if a helper
 * is offered for it: a lost offer is a deadlock (an invalid end state).
 *
 * Bugs the model must catch (.ci/spin.sh runs them, expecting a failure):
 *   BUG_NO_RECHECK      the leaving helper gives its token back and leaves
 *                       without looking again
 *   BUG_RECHECK_FIRST   it looks again before it gives the token back
 *   BUG_FEEDER_NO_OFFER the feeder offers no helper when nobody waits
 */

#ifndef N
#define N 3             /* items the seq yields */
#endif
#ifndef H
#define H 1             /* helper tokens: the pool's other workers */
#endif

byte arrived = 0;       /* items the feeder published */
byte taken = 0;         /* items handed out (seqBlocks, under its lock) */
byte idle = 0;          /* tokens not out with a helper job */
bool waiting = false;   /* the caller waits for the feeder's next item */
bool lastRan = false;   /* the last item has run */

/* offer: a participant whose take left more takes a token, if one is
 * idle, and offers a helper job with it. */
inline offer(more) {
	if
	:: more -> atomic { if :: idle > 0 -> idle--; run Helper() :: else -> skip fi }
	:: else -> skip
	fi
}

/* runItem: item 0, on the caller, waits for the last item. */
inline runItem(i) {
	if
	:: i == N-1 -> lastRan = true
	:: else -> skip
	fi
}

proctype Helper() {
	byte mine;
	bool more;
again:
	do
	:: atomic { taken < arrived -> mine = taken; taken++; more = (taken < arrived && idle > 0) };
	   offer(more);
	   runItem(mine)
	:: atomic { taken >= arrived -> skip }; break   /* nothing to take: leave */
	od;
#if defined(BUG_NO_RECHECK)
	idle++
#elif defined(BUG_RECHECK_FIRST)
	if
	:: atomic { !waiting && taken < arrived -> skip } ->
		idle++;
		if
		:: atomic { idle > 0 -> idle-- }; goto again
		:: else -> skip
		fi
	:: else -> idle++
	fi
#else
	idle++;   /* the token back, then one more look */
	if
	:: atomic { !waiting && taken < arrived -> skip } ->
		if
		:: atomic { idle > 0 -> idle-- }; goto again
		:: else -> skip   /* another side took the token: its job comes */
		fi
	:: else -> skip
	fi
#endif
}

proctype Feeder() {
	do
	:: arrived < N ->
		arrived++;   /* publish */
		if
		:: waiting -> skip   /* the waiting caller is woken, and takes it */
		:: else ->
#ifndef BUG_FEEDER_NO_OFFER
			atomic { if :: idle > 0 -> idle--; run Helper() :: else -> skip fi }
#else
			skip
#endif
		fi
	:: else -> break
	od
}

proctype Caller() {
	byte mine, n;
	bool more;
	do
	:: atomic { taken < arrived -> mine = taken; taken++; more = (taken < arrived && idle > 0) };
	   offer(more);
	   if
	   :: mine == 0 -> lastRan   /* item 0's callback waits for the last item */
	   :: else -> runItem(mine)
	   fi
	:: atomic { taken == arrived && arrived < N -> waiting = true; n = arrived };
	   arrived > n;   /* the feeder's wake-up (the sleep protocol: feed.go) */
	   waiting = false
	:: atomic { taken == N -> break }
	od
}

init {
	atomic {
		/* spread: every token goes out with a helper job */
		byte k = 0;
		do
		:: k < H -> run Helper(); k++
		:: else -> break
		od;
		run Feeder();
		run Caller()
	}
}
