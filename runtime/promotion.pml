/*
 * Promela model of lazy promotion (board.go, promote.go, heartbeat.go;
 * its users JoinLazy in joinlazy.go and foldFirst in internal/pipe/inline.go; the
 * board's part of park's last look in sleep.go). The protocol, and the argument that no promotion is
 * lost, are in PROMOTION.md; this file says what is modelled and how.
 *
 * Checks, as .ci/spin.sh runs them (0 errors expected from each):
 *
 *   spin -a promotion.pml
 *   spin -DW=1 -DNPUB=2 -a promotion.pml
 *   spin -DSTUCK_TIMER -DW=1 -a promotion.pml
 *   gcc -O2 -DNP -DNFAIR=4 -DCOLLAPSE -o pan pan.c && ./pan -l -f -m200000
 *
 * -DNO_WORKER_TICK leaves out the hunting workers' overdue ticks (only the
 * timer ticks, as before they were added).
 * -DSTUCK_TIMER: the timer fires only while a worker is parked (its P runs
 * a goroutine that never yields, and Go runs it only once another P goes
 * idle); the hunting workers' ticks alone must then promote.
 *
 * -DNP with -l -f looks for non-progress cycles under weak fairness. The
 * model has no progress labels, so every infinite run is an error: its
 * publications and its work are finite, so a correct pool comes to rest.
 * The same search checks the assertions, among them the monitor's: when
 * nothing can move, every publication has run once and the owner has
 * returned (pan does not check end states while it looks for cycles).
 *
 * Seeded bugs, each of which must fail:
 *
 *   -DW=1 -DNPUB=2 -DBUG_HB_NO_LAST_LOOK
 *                         the heartbeat goes asleep without its last look
 *                         at the board: the publisher's poke, which saw it
 *                         running, is lost, and the parked worker never
 *                         hears of the entry (it takes a second
 *                         publication: the first one's poke starts the
 *                         heartbeat, whose linger then runs out)
 *   -DBUG_PARK_NO_BOARD   park's last look ignores the board: a worker
 *                         parks just after a publisher that saw nobody
 *                         parked, and the entry ripened while it was awake
 *   -DBUG_TAKE_NO_CAS     a worker takes with a load and a store instead of
 *                         a CAS: it takes what the owner took back
 *   -DBUG_NIL_BEFORE_WAIT the owner of a taken func frees the slot before it
 *                         waits: the slot is free while the taker will
 *                         still write panicked and send on done
 *   -DSTUCK_TIMER -DW=1 -DNO_WORKER_TICK
 *                         the code before hunting workers ticked: with the
 *                         timer stuck, the worker hunts for ever beside
 *                         the entry, which never ripens
 *   -DBUG_TICK_NO_RECHECK a worker ticks without looking at the clock again
 *                         under mu: it ticks just after the timer's tick
 *   -DBUG_TICK_NO_SKIP    the timer's beat ticks within a tick of a
 *                         worker's tick
 *   -DBUG_TICK_NO_LOCK    a worker ticks without mu: two ticks at once
 *   -DBUG_MARK_NO_CAS     a tick marks the entry with a store of the word
 *                         it loaded: it writes back an entry its owner took
 *                         back, which a worker then runs a second time
 *   -DBUG_POKE_TICK_ANY_AGE
 *                         the poke that wakes the heartbeat ticks without
 *                         looking at the clock: two ticks under a tick
 *                         apart
 *   -DBUG_RECLAIM_UNMARKED
 *                         Reclaim tries only the unmarked word: the owner
 *                         of an entry a tick marked waits, though nobody
 *                         took it
 *   -DW=1 -DNPUB=2 -DBUG_NO_GEN
 *                         a publication does not bump the slot's
 *                         generation: the owner takes its entry back and
 *                         publishes again between a tick's load and its
 *                         CAS, and the tick marks the new publication with
 *                         the old one's word
 *   -DBUG_FN_AFTER_PUBLISH
 *                         the owner writes fn after the store that
 *                         publishes: a worker takes the entry and reads
 *                         fn before it is written
 *   -DBUG_RECLAIM_KEEPS_FN
 *                         Reclaim frees the slot without clearing fn: the
 *                         board keeps the func alive after its operation
 *
 * The program: W workers (default 2) in their main loop, counted in
 * hunting from the start; one job in the injector, which keeps the worker
 * that takes it busy until the owner is done (with W > 1), so that the
 * other worker alone must take what is published; one owner that publishes
 * NPUB times (default 1) one after the other in one slot. Each publication
 * bumps the slot's generation and starts unmarked, so that a word of one
 * publication is never another's, whatever func each publishes (fn is
 * beside the word: which func it is changes no CAS). For each, the owner is
 * patient (its a waits until b has started, as in the peer test, so b must
 * be taken or the owner never returns) or not (a ends at any moment), as
 * spin chooses. The heartbeat's timer is one process that fires when armed;
 * a worker that sees an entry while the heartbeat runs ticks itself when
 * the last tick is overdue (watchBoard).
 *
 * Time is the clock that lastTick is read against: age is the time since
 * the last tick in three steps, under a tick, a tick or more, over two
 * ticks. It passes when somebody reads it:
 * a worker's look may find any time passed; the timer fires a tick or
 * more after it was armed, so it finds a tick passed unless a worker
 * ticked since then (wt). A tick sets it back to 0.
 *
 * Every statement is one atomic operation of the Go code, under sequential
 * consistency as sync/atomic gives, and a guard's test is its load. Left
 * out or abstracted:
 * - loads whose value nothing uses (they are stutter steps);
 * - mu: a poker's Lock and its look at the clock under mu are one step,
 *   as are a worker's TryLock and its look; so are a tick's store of
 *   lastTick (and lastSeen) and its unlock;
 * - the linger: LINGER (2) ticks without an entry; spin rounds: SPIN (0)
 *   before park, since a round does what the loop after a park that stays
 *   awake does (search, watchBoard);
 * - other work (deques, injector) is one counter, as in sleep.pml, which
 *   checks the sleep protocol itself;
 * - one slot: Wait's help loop is modelled (helpers, waiting, the help
 *   token, the heartbeat ticking and waking it for waiters), but with no
 *   second slot it finds nothing to run: leapfrog.pml checks the
 *   leapfrogging of PROMOTION.md, "Waiting" (pub, runner, the hand-back)
 *   on two slots. Not modelled: the path without curG (a plain receive
 *   on done), closing the pool.
 *
 * Checked:
 * - exactly once: each publication's func runs here or on one worker,
 *   never both; at rest, each has run;
 * - the owner waits only for a func a worker took (Reclaim failed only
 *   because of a take, never because of a tick's marks);
 * - the slot is not reused before its owner frees it: a taker writes
 *   panicked and sends on done only while the publication it took still
 *   owns the slot, and the owner receives its own taker's token;
 * - at most one tick is armed at a time, and at most one runs at a time;
 * - ticks are a tick apart: every tick starts a tick or more after the
 *   last one, so an entry that two ticks saw has waited a tick;
 * - ripeness: a worker takes only a publication that two ticks marked,
 *   also with a second publication in the slot (NPUB 2);
 * - each publication's own words: a tick marks, and a worker takes, only
 *   the publication whose word it loaded, and the worker runs that
 *   publication's fn;
 * - no lost promotion: no infinite run (a worker hunting for ever beside a
 *   published entry, a heartbeat ticking for ever), and no rest with a
 *   patient owner blocked on a func that nobody took; with -DSTUCK_TIMER,
 *   also while the timer does not fire.
 *
 * Figures: PROMOTION.md, "The model".
 */

#ifndef W
#define W 2
#endif
#ifndef NPUB
#define NPUB 1
#endif
#ifndef SPIN
#define SPIN 0		/* spin rounds before park */
#endif
#ifndef LINGER
#define LINGER 2	/* ticks without an entry before the heartbeat sleeps */
#endif
#ifdef STUCK_TIMER
/* The timer's P runs a goroutine that never yields, and the other Ps run
 * only goroutines that do not block: Go runs the timer only once a P goes
 * idle, here once a worker parks. */
#define FIRES (sleepers > 0)
#else
#define FIRES true
#endif
#ifndef JOBS
#define JOBS 1
#endif

/* the slot word's kinds */
#define FREE  0
#define HELD  1		/* its publisher writes fn */
#define PUB   2
#define TAKEN 3
/* the marks: a tick saw the entry (SEEN), and the next one too (RIPE) */
#define SEEN  1
#define RIPE  2

/* heartbeat states */
#define ASLEEP  0
#define RUNNING 1

/* the slot: kind, gen and emark are one word, read and written
 * together; fn is the typed field beside it, which holds the number of
 * the publication whose func it is (0: none yet) */
byte kind = FREE;
byte gen = 0;
byte emark = 0;
byte fn = 0;
byte ripeN = 0;
byte panicked = 0;
chan done = [1] of { byte };
bool waiting = false;	/* the owner waits for the taken func */
bool helpTok = false;	/* the slot's help channel, capacity one */

/* the heartbeat */
byte state = ASLEEP;
bool armed = false;	/* the timer: armed only by whoever set RUNNING, or a beat */
bool mu = false;
byte since = 0;		/* timer beats since a tick saw an entry (lastSeen) */
/* The clock, as far as lastTick tells it: the time since the last tick is
 * 0: under a tick, 1: a tick or more, 2: over two ticks (overdue). Time passes when somebody reads the clock (below). */
byte age = 0;
bool wt = false;	/* a worker ticked since the timer was armed */

/* the pool */
byte hunting = W;
byte helpers = 0;	/* waiters in Promotion.help */
byte sleepers = 0;
bool sleepy[W];
bool token[W];		/* wake channel of capacity one */
byte jobs = JOBS;

/* ghosts */
byte owner = 0;		/* the publication owning the slot: its claim (CAS free->held) to its free */
byte runs[NPUB + 1];
bool started[NPUB + 1];
byte ticksSeen[NPUB + 1];	/* ticks that marked the publication (at most 2) */
bool ownerDone = false;
byte ticking = 0;	/* ticks running */

/* timer.Reset: one tick at most is armed. */
inline arm() { atomic { assert(!armed); armed = true; wt = false } }

/* pokeHeartbeat: if the heartbeat is asleep, set it running, tick under mu
 * unless the last tick is under a tick old, and arm the timer. It reads
 * the clock once, under mu, where any time may have passed; its lastSeen
 * (since) is the poke's whether it ticks or not. */
inline poke() {
	if
	:: state == ASLEEP ->
		atomic { if :: state == ASLEEP -> state = RUNNING; pk = true :: else -> skip fi };
		if
		:: pk ->
			atomic {
				!mu -> mu = true; pk = false;
#ifdef STUCK_TIMER
				if :: age < 2 -> age++ :: else -> skip fi;
#else
				if :: skip :: age < 2 -> age++ :: age = 2 fi;
#endif
#ifdef BUG_POKE_TICK_ANY_AGE
				tgo = true
#else
				tgo = (age >= 1)
#endif
			};
			if
			:: tgo -> tick();
				atomic { tocc = false; ticking = 0; age = 0; since = 0; mu = false }
			:: else -> atomic { since = 0; mu = false }
			fi;
			arm()
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* tick, under mu: mark the entry, a CAS from the word it loaded: an
 * unmarked one SEEN, a SEEN one RIPE (newly ripe: wake one parked worker);
 * tocc says whether the board held an entry. It runs on the timer's
 * goroutine (beat) or on a hunting worker's (watchBoard), each of which
 * first sets tgo, and then stores lastTick (age = 0). since is the
 * heartbeat's, under mu. Every tick comes at least a tick after the last
 * one (age), so that an entry that two ticks marked has waited a tick: the
 * first mark is before the first tick's lastTick, the second after the
 * second tick began. */
inline tick() {
	atomic {
		tgo -> tgo = false;
		assert(ticking == 0 && age >= 1);
		ticking = 1;
		te = kind; tg = gen; ts = emark; tp = owner;
		if
		:: te != PUB -> te = 0; tg = 0; ts = 0; tp = 0
		:: else -> tocc = true
		fi
	};
	if
	:: tocc ->
		atomic {
			if
			:: ts == RIPE -> tn = 1
			:: else ->
				/* the CAS: the owner may have taken it back, or
				 * published again (a new generation, unmarked) */
				if
#ifdef BUG_MARK_NO_CAS
				:: true -> kind = te; gen = tg; emark = ts + 1;
#else
				:: kind == te && gen == tg && emark == ts ->
					emark++;
#endif
					/* a tick marks only the publication it loaded */
					assert(owner == tp);
					if
					:: ticksSeen[owner] < 2 -> ticksSeen[owner]++
					:: else -> skip
					fi;
					if
					:: emark == RIPE -> tn = 1; tfresh = true
					:: else -> skip
					fi
				:: else -> skip
				fi
			fi;
			te = 0; tg = 0; ts = 0; tp = 0
		}
	:: else -> skip
	fi;
	atomic { ripeN = tn; tn = 0 };
	if
	:: tfresh ->
		tfresh = false;
		/* wake one parked worker for the newly ripe entry */
		if
		:: sleepers != 0 ->
			ti = 0;
			do
			:: ti < W ->
				atomic {
					if
					:: sleepy[ti] -> sleepy[ti] = false; twk = true
					:: else -> skip
					fi
				};
				if
				:: twk -> sleepers--; atomic { token[ti] = true; twk = false; ti = 0 }; break
				:: else -> ti++
				fi
			:: else -> ti = 0; break
			od
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* A hunting worker's look at the clock: time passes (or not); tgo says
 * whether the last tick is over two ticks old, and so overdue. With
 * -DSTUCK_TIMER, which checks liveness, time goes on instead: each look
 * comes later than the last. */
inline overdue() {
#ifdef STUCK_TIMER
	if
	:: age < 2 -> age++
	:: else -> skip
	fi;
#else
	if
	:: skip
	:: age = 2
	fi;
#endif
	tgo = (age == 2)
}

/* watchBoard: if an entry is published (one load per slot), make sure the
 * heartbeat runs, and tick if it runs but its tick is overdue (TryLock,
 * and the clock again under mu); seen says whether an entry was. */
inline watchBoard() {
	if
	:: kind == PUB ->
		seen = true;
		if
		:: state != RUNNING -> poke()
#ifdef NO_WORKER_TICK
		:: else -> skip
#else
		:: else ->
			atomic { overdue() };
			if
			:: atomic {
#ifdef BUG_TICK_NO_LOCK
				tgo -> tgo = false;
#else
				tgo && !mu -> tgo = false; mu = true;	/* TryLock */
#endif
#ifdef BUG_TICK_NO_RECHECK
				tgo = true
#else
				overdue()	/* again under mu: a tick may have run since */
#endif
			   };
				if
				:: tick();
					/* lastSeen if it saw an entry; lastTick; unlock */
					atomic {
						if :: tocc -> since = 0 :: else -> skip fi;
						tocc = false; ticking = 0; age = 0; wt = true;
#ifndef BUG_TICK_NO_LOCK
						mu = false
#endif
					}
				:: atomic {
					!tgo ->
#ifndef BUG_TICK_NO_LOCK
					mu = false
#else
					skip
#endif
				   }
				fi
			:: else -> tgo = false	/* not overdue, or mu is held */
			fi
#endif
		fi
	:: else -> seen = false
	fi
}

proctype Worker(byte me) {
	bool idle = true;	/* counted in hunting from the start (New) */
	bool seen, pk;
	byte e, eg, ep, p, rounds;
	byte te, tg, ts, tp, ti, tn;	/* a tick's */
	bool tgo, tocc, tfresh, twk;
end_loop:
	/* findWork: own deque, injector, others' deques: one counter */
	atomic {
		if
		:: jobs > 0 -> jobs--; goto ranJob
		:: else -> skip
		fi
	};
	/* takePromoted: ripeN, the slot's word (ripe?), then the CAS from
	 * it to the generation's taken word, then fn */
	atomic { if :: ripeN == 0 -> goto idling :: else -> skip fi };
	atomic { e = kind; eg = gen; ep = owner; if :: e != PUB || emark != RIPE -> e = 0; eg = 0; ep = 0; goto idling :: else -> skip fi };
#ifdef BUG_TAKE_NO_CAS
	atomic { if :: kind == PUB && emark == RIPE -> skip :: else -> e = 0; eg = 0; ep = 0; goto idling fi };
	atomic { kind = TAKEN; emark = 0; p = owner; e = 0; eg = 0; ep = 0 };
#else
	atomic {
		if
		:: kind == e && gen == eg && emark == RIPE ->
			kind = TAKEN; emark = 0; p = owner;
			/* one CAS takes the publication it loaded */
			assert(p == ep);
			e = 0; eg = 0; ep = 0
		:: else -> e = 0; eg = 0; ep = 0; goto idling
		fi
	};
#endif
	assert(ticksSeen[p] >= 2);
	/* the func it runs is that publication's */
	atomic { assert(fn == p) };
	atomic { rounds = 0; if :: idle -> idle = false; hunting-- :: else -> skip fi };
	/* s.run(f) on the taker: f, then panicked, then done */
	atomic { started[p] = true; assert(runs[p] == 0); runs[p]++ };
	atomic { assert(owner == p); panicked = p };
	atomic { assert(owner == p); done!p; p = 0 };
	goto end_loop;
ranJob:
	atomic { rounds = 0; if :: idle -> idle = false; hunting-- :: else -> skip fi };
#if W > 1
	ownerDone;	/* the job runs until the owner is done */
#endif
	goto end_loop;
idling:
	atomic { if :: !idle -> idle = true; hunting++ :: else -> skip fi };
	watchBoard();
	seen = false;
	if
	:: rounds < SPIN -> rounds++; goto end_loop	/* spin: yield, search again */
	:: else -> rounds = 0
	fi;
	/* park(nil): announce, last look, block, take the announcement back */
	sleepy[me] = true;
	sleepers++;
	atomic { if :: jobs > 0 -> goto awake :: else -> skip fi };
#ifndef BUG_PARK_NO_BOARD
	watchBoard();
	if
	:: seen -> seen = false; goto awake
	:: else -> skip
	fi;
#endif
end_park:
	atomic { token[me] -> token[me] = false };
awake:
	atomic { if :: sleepy[me] -> sleepy[me] = false; e = 1 :: else -> skip fi };
	if
	:: e == 1 -> atomic { e = 0; sleepers-- }
	:: else -> skip
	fi;
	goto end_loop
}

/* The timer's goroutine: fires beat when armed. */
active proctype Heartbeat() {
	byte te, tg, ts, tp, ti, tn;
	bool tgo, tocc, tfresh, twk, keep, pk;
end_timer:
	/* the timer fires beat, a tick or more after it was armed; the state
	 * is RUNNING (closing the pool is not modelled); beat locks mu. So
	 * the last tick is a tick old or more, unless a worker ticked since
	 * the timer was armed. */
	atomic {
		armed && !mu && FIRES -> armed = false; mu = true;
		if
		:: !wt -> if :: age == 0 -> age = 1 :: else -> skip fi
		:: wt -> if :: age == 0 -> age = 1 :: skip fi
		fi;
#ifndef BUG_TICK_NO_SKIP
		/* a tick within a tick of the last (a worker's) is skipped */
		if
		:: age == 0 -> goto skipped
		:: else -> skip
		fi;
#endif
		tgo = true
	};
	tick();
skipped:
	/* lastSeen, lastTick, the linger, and unlock. A skipped tick counts
	 * as one that saw no entry: a tick has passed since the last beat. */
	atomic {
		if
		:: tocc -> since = 0
		:: else -> if :: since < LINGER -> since++ :: else -> skip fi
		fi;
		if
		:: ticking -> ticking = 0; age = 0
		:: else -> skip
		fi;
		keep = (since < LINGER);
		tocc = false;
		mu = false
	};
	if
	:: atomic { keep -> keep = false; if :: hunting > 0 -> goto rearm :: else -> skip fi };
		if
		:: helpers > 0 -> goto rearm
		:: else -> skip
		fi
	:: atomic { !keep -> skip }
	fi;
	/* sleep, unless something came meanwhile */
	atomic { assert(state == RUNNING); state = ASLEEP };
#ifndef BUG_HB_NO_LAST_LOOK
	if
	:: kind == PUB ->
		if
		:: hunting > 0 -> poke()
		:: else ->
			if
			:: helpers > 0 -> poke()
			:: else -> skip
			fi
		fi
	:: else -> skip
	fi;
#endif
	goto end_timer;
rearm:
	arm();
	goto end_timer
}

active proctype Owner() {
	byte me = 1, x, lg, mg;	/* lg: the free word's generation loaded; mg: the publication's */
	bool patient, pk;
	byte te, tg, ts, tp, ti, tn;	/* a poke's tick's */
	bool tgo, tocc, tfresh, twk;
	do
	:: me <= NPUB ->
		if
		:: patient = true
		:: patient = false
		fi;
		/* Promote: a load (freeSlot), the CAS of that free word to held,
		 * fn, then the store of the next generation's published word,
		 * unmarked */
		atomic { if :: kind != FREE -> goto inUse :: else -> lg = gen fi };
		atomic {
			if
			:: kind == FREE && gen == lg -> kind = HELD; owner = me
			:: else -> lg = 0; goto inUse
			fi
		};
#ifndef BUG_FN_AFTER_PUBLISH
		fn = me;
#endif
#ifdef BUG_NO_GEN
		mg = lg;
#else
		mg = lg + 1;
#endif
		atomic { kind = PUB; gen = mg; emark = 0; lg = 0 };
#ifdef BUG_FN_AFTER_PUBLISH
		fn = me;
#endif
		if
		:: sleepers != 0 -> poke()
		:: else ->
			if
			:: helpers != 0 -> poke()
			:: else -> skip
			fi
		fi;
		/* a runs; a patient a waits until b has started */
		if
		:: patient -> started[me]
		:: else -> skip
		fi;
		patient = false;
		/* Reclaim: CAS of the publication's unmarked word to its held
		 * word; if a tick marked it (reclaimMarked), a load and a CAS of
		 * the marked word, until it is taken back or found taken. Taken
		 * back, the owner clears fn and stores the free word (free). */
		atomic {
			if
			:: kind == PUB && gen == mg && emark == 0 -> kind = HELD; goto back
			:: else -> skip
			fi
		};
#ifndef BUG_RECLAIM_UNMARKED
		do
		:: atomic { if :: !(kind == PUB && gen == mg) -> break :: else -> x = emark fi };
			atomic {
				if
				:: kind == PUB && gen == mg && emark == x -> kind = HELD; emark = 0; x = 0; goto back
				:: else -> x = 0
				fi
			}
		od;
#endif
		/* Wait: only for a func a worker took, this publication */
		assert(kind == TAKEN && gen == mg);
#ifdef BUG_NIL_BEFORE_WAIT
		fn = 0;
		atomic { kind = FREE; owner = 0 };
#endif
		/* help: count in helpers, set waiting, poke; then until the token
		 * on done, run what the taker publishes (helpOnce: there is no
		 * other slot here, so it finds nothing, and its loads are left
		 * out) or block on done or help */
		helpers++;
		waiting = true;
		poke();
		do
		:: atomic { nempty(done) -> done?x; assert(x == me) }; break
		:: atomic { empty(done) -> skip };
			if
			:: atomic { nempty(done) -> done?x; assert(x == me) }; break
			:: atomic { helpTok -> helpTok = false }
			fi
		od;
		waiting = false;
		helpers--;
		helpTok = false;	/* a spare token, not for the slot's next owner */
		/* not handed back: read panicked, free the slot */
		atomic { x = panicked; assert(x == me); x = 0 };
		panicked = 0;
#ifndef BUG_NIL_BEFORE_WAIT
		/* free: clear fn, store the free word */
		fn = 0;
		atomic { kind = FREE; owner = 0 };
#endif
		goto next;
back:
#ifndef BUG_RECLAIM_KEEPS_FN
		fn = 0;
#endif
		atomic { kind = FREE; owner = 0; assert(runs[me] == 0); runs[me]++ };	/* b runs here */
		goto next;
inUse:		atomic { assert(runs[me] == 0); runs[me]++ };	/* slot in use: b runs inline */
next:		atomic { patient = false; mg = 0; me++ }
	:: else -> break
	od;
	ownerDone = true
}

init {
	byte k = 0;
	atomic {
		do
		:: k < W -> run Worker(k); k++
		:: else -> break
		od
	}
}

/* When nothing can move any more, every publication has run once, and the
 * slot keeps no func alive. */
active proctype monitor() {
	byte k;
	timeout ->
	k = 1;
	do
	:: k <= NPUB -> assert(runs[k] == 1); k++
	:: else -> break
	od;
	assert(ownerDone && kind == FREE && jobs == 0 && fn == 0)
}
