/*
 * Promela model of gopar's spares (spare.go; the protocol is in
 * WAITING.md, "Spares"): a pool worker parked in a wait lends its slot to a
 * spare goroutine, which runs as a guest slot in a worker's main loop until
 * its lender recalls it; then it retires and gives the slot back, and the
 * slot may pass to the next spare at once.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a spare.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * and two seeded bugs, each of which must fail:
 *
 *   -DBUG_DRAIN_AFTER_RELEASE  the retiring spare drains its slot's wake
 *                              channel after giving the slot up: it can eat
 *                              a token meant for the slot's next spare
 *   -DBUG_NO_HANDOFF           a spare woken for work that retires instead
 *                              drops the wake-up: the work waits while
 *                              others sleep
 *
 * The program: spare S0 runs on guest slot g, lent by L0, which recalls it
 * at any moment. L1 leases g as soon as it is free and starts spare S1 on
 * it, and recalls it at any moment. K is a pool worker in its main loop.
 * P publishes one job and notifies. Every statement is one atomic
 * operation of the Go code (sleep.go, spare.go); a job is a counter, the
 * deques and the injector being one place to look (sleep.pml models them
 * with the same abstraction). The sleep protocol is SLEEP.md's: announce
 * (sleepy, sleepers), look once more, park on the wake channel (capacity
 * one), take the announcement back.
 *
 * Checked: when no process can move, the job has run and both spares have
 * exited: no wake-up is lost and no spare is left parked.
 */

byte work = 0;
byte done = 0;
byte sleepers = 0;
bool sleepyG = false;   /* slot g's announcement: its spare's, whichever */
bool sleepyK = false;
bool leased = true;     /* slot g, leased for S0 at the start */
bool retire[2];
bool exited[2];
chan tokG = [1] of { bit };
chan tokK = [1] of { bit };

/* Worker.wakeup: a non-blocking send. */
inline wakeG() { atomic { if :: nfull(tokG) -> tokG!1 :: full(tokG) -> skip fi } }
inline wakeK() { atomic { if :: nfull(tokK) -> tokK!1 :: full(tokK) -> skip fi } }

/* Pool.notify and wakeOne: claim a sleepy announcement with a CAS, send
 * that participant a token. */
inline notify() {
	if
	:: sleepers > 0 ->
		if
		:: atomic { sleepyG -> sleepyG = false; sleepers-- }; wakeG()
		:: atomic { sleepyK -> sleepyK = false; sleepers-- }; wakeK()
		:: else -> skip
		fi
	:: else -> skip
	fi
}

proctype Spare(byte id) {
	bool took;
	do
	:: retire[id] -> break	/* Worker.retiring, at a job boundary */
	:: else ->
		atomic { if :: work > 0 -> work--; took = true :: else -> took = false fi };
		if
		:: took -> done++
		:: else ->
			sleepyG = true; sleepers++;
			if
			:: retire[id] || work > 0 -> skip	/* the last look */
			:: else -> tokG?_
			fi;
			atomic { if :: sleepyG -> sleepyG = false; sleepers-- :: else -> skip fi }
		fi
	od;
#ifndef BUG_NO_HANDOFF
	/* A retiring spare may have been woken for work: hand the wake-up on. */
	if
	:: work > 0 -> notify()
	:: else -> skip
	fi;
#endif
	/* Pool.release: drain the slot's stale token, then give it up. */
#ifdef BUG_DRAIN_AFTER_RELEASE
	leased = false;
	atomic { if :: nempty(tokG) -> tokG?_ :: empty(tokG) -> skip fi };
#else
	atomic { if :: nempty(tokG) -> tokG?_ :: empty(tokG) -> skip fi };
	leased = false;
#endif
	exited[id] = true
}

/* A pool worker's main loop. */
proctype K() {
	bool took;
end_loop:
	do
	:: atomic { if :: work > 0 -> work--; took = true :: else -> took = false fi };
		if
		:: took -> done++
		:: else ->
			sleepyK = true; sleepers++;
			if
			:: work > 0 -> skip
			:: else ->
end_park:			tokK?_
			fi;
			atomic { if :: sleepyK -> sleepyK = false; sleepers-- :: else -> skip fi }
		fi
	od
}

/* spare.recall: set retire, then send a token, whether or not it parks. */
proctype L0() {
	retire[0] = true;
	wakeG()
}

proctype L1() {
	atomic { !leased -> leased = true };
	run Spare(1);
	retire[1] = true;
	wakeG()
}

proctype P() {
	work++;
	notify()
}

init {
	atomic {
		run Spare(0);
		run K();
		run L0();
		run L1();
		run P()
	}
}

active proctype monitor() {
	timeout -> assert(done == 1 && exited[0] && exited[1])
}
