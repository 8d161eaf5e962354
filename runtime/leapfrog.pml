/*
 * Promela model of the owner's help while it waits for a taken func
 * (promote.go: Promotion.help, helpOnce, runTaken; the rule and why it holds
 * are in PROMOTION.md, "Waiting"). promotion.pml checks the board's one
 * slot and the heartbeat; this model abstracts the heartbeat away (an
 * entry may be taken at any moment after its publication, which only adds
 * interleavings, and a help token may come at any moment) and checks what
 * needs more slots.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a leapfrog.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * and two seeded bugs, each of which must fail:
 *
 *   -DBUG_NO_RECHECK  the waiter runs what it took without checking pub
 *                     and runner again after its CAS
 *   -DBUG_NO_MARK     runTaken does not mark its goroutine's pending
 *                     entries below: a waiter for the func it runs takes
 *                     one of them
 *
 * The program: owner O (goroutine 1) publishes H in slot C (an outer
 * Join's b, pending until the end), then F in slot A, and takes F back or
 * waits for it (with help), then H. Worker W1 (goroutine 2) takes F and
 * runs it: F publishes G in slot B (a Join's b), then takes G back or
 * waits for it; after F, W1 publishes G once more, outside F, and takes it
 * back or waits for it. W1's waits help too, with what G's runner
 * published: if O runs G, H must not qualify. Worker W2 (goroutine 3)
 * takes G from slot B at any moment, as a main loop does. Every statement
 * is one atomic operation of the Go code.
 *
 * A "goroutine" here is a member of the pool as Pool.self answers it (a
 * pool worker, a guest slot or a spare's slot): pub and runner hold
 * members, and a goroutine acts as one member at a time. pub's BELOW is
 * the member's boardBelow identity, boardAt being the plain number.
 *
 * Checked: F, H and each publication of G run exactly once; O runs G only
 * while F runs on W1 and G was published inside F, and W1 never runs H,
 * published before G started (the waiting rule); a taker hands over only
 * to the publication it took (no reuse of a slot); when nothing can move,
 * everything has run and everyone has returned.
 */

#define NIL   0
#define TAKEN 1
#define FUNC  2

/* slot A: F, published by O */
byte entryA = NIL;
byte pubA = 0;
byte runnerA = 0;
chan doneA = [1] of { bit };
bool waitingA = false;
bool helpA = false;

/* slot B: G, published by W1 */
byte entryB = NIL;
byte pubB = 0;
byte runnerB = 0;
chan doneB = [1] of { bit };
bool handbackB = false;
bool waitingB = false;
bool helpB = false;

/* slot C: H, published by O before F and pending meanwhile (an outer
 * Join's b): it is under no func that O runs later */
byte entryC = NIL;
byte pubC = 0;
chan doneC = [1] of { bit };
bool handbackC = false;

/* a member's boardBelow identity (board.go): BELOW added to its number */
#define BELOW 4

/* ghosts */
byte runsH = 0;
byte runsF = 0;
byte runsG[3];		/* per publication of G: 1 inside F, 2 outside */
byte pubG = 0;		/* the publication of G that owns slot B, 0 none */
byte fOn = 0;		/* the goroutine running F, 0 none */
bool doneO = false, doneW1 = false;

/* The heartbeat, abstracted: a help token for a waiting owner, at any
 * moment (Go: a tick that ripened something). */
active proctype Ticker() {
end_t:
	do
	:: atomic { waitingA && !helpA -> helpA = true }
	:: atomic { waitingB && !helpB -> helpB = true }
	od
}

/* W1's wait for its publication k of G: Wait with help (helpOnce looks
 * at slot C only: slot A holds F, taken, and B is G's own). */
inline waitG(k) {
	waitingB = true;
	do
	:: atomic { nempty(doneB) -> doneB?_ }; break
	:: atomic { empty(doneB) -> skip };
		/* helpOnce: what G's runner published while running G */
		r = runnerB;
		if
		:: r != 0 && entryC == FUNC ->
			if
			:: pubC == r ->
				atomic { if :: entryC == FUNC -> entryC = TAKEN; ok = true :: else -> ok = false fi };
				if
				:: ok ->
					ok = false;
					if
					:: pubC == r ->
						if
						:: runnerB == r -> ok = true
						:: else -> skip
						fi
					:: else -> skip
					fi;
					if
					:: ok ->
						/* H was published before G started: not under it */
						assert(false);
						ok = false
					:: else ->
						handbackC = true;
						doneC!1
					fi
				:: else -> skip
				fi
			:: else -> skip
			fi
		:: else -> skip
		fi;
		r = 0;
		if
		:: atomic { nempty(doneB) -> doneB?_ }; break
		:: atomic { helpB -> helpB = false }
		fi
	od;
	waitingB = false;
	helpB = false;
	if
	:: handbackB ->
		handbackB = false;
		atomic { entryB = NIL; pubG = 0 };
		atomic { assert(runsG[k] == 0); runsG[k]++ }	/* callRecord: runs it itself */
	:: else ->
		atomic { entryB = NIL; pubG = 0 }
	fi
}

/* W1 publishes G (publication k), then takes it back or waits. */
inline joinG(k) {
	atomic { if :: entryB == NIL -> entryB = FUNC; pubG = k; ok = true :: else -> ok = false fi };
	if
	:: ok ->
		pubB = 2;
		/* a runs; then Reclaim: clear pub, CAS */
		pubB = 0;
		atomic { if :: entryB == FUNC -> entryB = NIL; pubG = 0; ok = true :: else -> ok = false fi };
		if
		:: ok -> atomic { assert(runsG[k] == 0); runsG[k]++ }
		:: else -> waitG(k)
		fi
	:: else -> atomic { assert(runsG[k] == 0); runsG[k]++ }
	fi;
	ok = false
}

/* runTaken(B, G) on goroutine g: mark g's entries below, store runner,
 * run G, hand over. */
inline runG(g) {
#ifndef BUG_NO_MARK
	if
	:: pubC == g -> pubC = g + BELOW
	:: else -> skip
	fi;
#endif
	runnerB = g;
	atomic { p = pubG; assert(p != 0 && runsG[p] == 0); runsG[p]++ };
	runnerB = 0;
	atomic { assert(pubG == p); doneB!1; p = 0 }
}

proctype W1() {
	bool ok; byte p, r;
	/* take F from slot A (any moment: ripeness abstracted) */
end_take:
	atomic { entryA == FUNC -> entryA = TAKEN };
	/* runTaken(A, F): markBelow (nothing pending), runner, F */
	runnerA = 2;
	atomic { fOn = 2; assert(runsF == 0); runsF++ };
	joinG(1);	/* F's body: a Join whose b is G */
	fOn = 0;
	runnerA = 0;
	doneA!1;
	/* after F: G once more, outside F */
	joinG(2);
	doneW1 = true
}

/* a main-loop worker taking G */
proctype W2() {
	byte p;
end_take:
	atomic { entryB == FUNC -> entryB = TAKEN };
	runG(3)
}

active proctype O() {
	bool ok; byte r, p;
	/* Promote H: pending until the end */
	atomic { entryC == NIL -> entryC = FUNC };
	pubC = 1;
	/* Promote F */
	atomic { entryA == NIL -> entryA = FUNC };
	pubA = 1;
	/* a runs; then Reclaim */
	pubA = 0;
	atomic { if :: entryA == FUNC -> entryA = NIL; ok = true :: else -> ok = false fi };
	if
	:: ok ->
		/* F runs here: W1 never starts; G is not published, so nothing is
		 * left to check on this path */
		atomic { runsF++; runsG[1] = 1; runsG[2] = 1 }
	:: else ->
		/* Wait with help */
		waitingA = true;
		do
		:: atomic { nempty(doneA) -> doneA?_ }; break
		:: atomic { empty(doneA) -> skip };
			/* helpOnce */
			r = runnerA;
			if
			:: r == 0 -> skip
			:: else ->
				if
				:: entryB == FUNC ->
					if
					:: pubB == r ->
						atomic { if :: entryB == FUNC -> entryB = TAKEN; ok = true :: else -> ok = false fi };
						if
						:: ok ->
							ok = false;
#ifdef BUG_NO_RECHECK
							ok = true;
#else
							if
							:: pubB == r ->
								if
								:: runnerA == r -> ok = true
								:: else -> skip
								fi
							:: else -> skip
							fi;
#endif
							if
							:: ok ->
								/* the waiting rule: G is under F, which still runs */
								assert(pubG == 1 && fOn == r);
								runG(1);
								ok = false
							:: else ->
								handbackB = true;
								atomic { assert(pubG != 0); doneB!1 }
							fi
						:: else -> skip
						fi
					:: else -> skip
					fi
				:: else -> skip
				fi
			fi;
			r = 0;
			if
			:: atomic { nempty(doneA) -> doneA?_ }; break
			:: atomic { helpA -> helpA = false }
			fi
		od;
		waitingA = false;
		helpA = false;
		entryA = NIL
	fi;
	/* Reclaim H, or wait for whoever took it */
	pubC = 0;
	atomic { if :: entryC == FUNC -> entryC = NIL; ok = true :: else -> ok = false fi };
	if
	:: ok -> runsH++
	:: else ->
		doneC?_;
		assert(handbackC);
		handbackC = false;
		entryC = NIL;
		runsH++
	fi;
	doneO = true
}

init {
	atomic { run W1(); run W2() }
}

active proctype monitor() {
	timeout -> assert(doneO && runsF == 1 && runsG[1] == 1 && runsG[2] == 1 && runsH == 1 && entryA == NIL && entryB == NIL && entryC == NIL)
}
