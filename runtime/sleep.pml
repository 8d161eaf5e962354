/*
 * Promela model of gopar's sleep protocol (sleep.go, join.go's Latch; the
 * argument is in SLEEP.md).
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a sleep.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m1000000
 *
 * Processes: W pool workers running the worker loop (search, announce
 * sleepy, search once more, park on a one-token channel, or retire when the
 * retire timer fires first: the goroutine ends, still announced, and a
 * waker that claims it starts a new one), and one external
 * caller that publishes J jobs (push, then notify) and then waits on a latch
 * that the job finishing last sets. By default the caller does not run jobs
 * while it waits, so the jobs complete only if the workers' wake-ups work;
 * with -DHELP it also runs jobs, as a guest does in Wait. Deques and the injector are abstracted into
 * one counter of published jobs: a search takes a job if there is one, in one
 * atomic step, which is what a successful pop/steal is; a failed search has
 * seen the counter at zero. Every other statement is one atomic operation of
 * the Go code, and interleavings are sequentially consistent as sync/atomic
 * is.
 *
 * Checked: when no process can move any more (timeout), every job has run
 * and the caller has returned: no wake-up was lost, for work published from
 * outside the pool and for the latch. A bug variant must fail:
 *
 *   spin -DBUG_NOTIFY_FIRST -a sleep.pml ...  (notify before publishing: lost wake-up)
 *   spin -DBUG_NO_RECHECK   -a sleep.pml ...  (park without the last look: lost wake-up)
 *   spin -DBUG_RETIRE_UNCLAIMED -a sleep.pml ...  (retire without the CAS from
 *                             sleepy: a waker's claim and token are lost)
 *   spin -DBUG_OWNER_STORE  -a sleep.pml ...  (a retired goroutine clears
 *                             owner with a store: it takes the worker from
 *                             the goroutine a waker has started meanwhile)
 *
 * Also checked: every job a worker's goroutine runs, it runs as the
 * worker's owner (Worker.owner, which Scope.Spawn, Close and a lending wait
 * read). A goroutine makes itself the owner as it starts; a retired one
 * gives the worker up after its retire CAS, concurrently with the goroutine
 * a waker may have started by then (the process exiter), by a CAS from its
 * own id.
 *
 * The workers start retired, as New makes them: the first publication
 * starts one.
 */

#ifndef W
#define W 2
#endif
#ifndef J
#define J 3
#endif

byte jobs = 0;          /* published, not yet taken */
byte pending = J;       /* jobs not yet finished */
#define AWAKE   0
#define SLEEPY  1
#define RETIRED 2

byte sleepers = W;      /* every worker starts retired */
byte sleep[W] = RETIRED; /* AWAKE, SLEEPY or RETIRED */
bool started[W];        /* a waker started a goroutine for a retired worker */
bool token[W + 1];      /* wake channel of capacity one; index W is the caller */
bool latchSet = false;
bool latchWaiter = false;
bool callerDone = false;
byte owner[W];          /* the goroutine acting as the worker, 0 while none */
byte gen[W];            /* the id of the worker's latest goroutine */

/* wakeOne: claim one announced worker with a CAS; give a parked one a
 * token, start a goroutine for a retired one. */
inline wakeOne() {
	i = 0;
	do
	:: i < W ->
		atomic { if :: sleep[i] != AWAKE -> was = sleep[i]; sleep[i] = AWAKE; claimed = true :: else -> claimed = false fi };
		if
		:: claimed ->
			sleepers--;
			if
			:: was == RETIRED -> started[i] = true
			:: else -> token[i] = true
			fi;
			break
		:: else -> i++
		fi
	:: else -> break
	od
}

/* notify: one load of sleepers, then wakeOne if anyone is sleepy. */
inline notify() {
	if
	:: sleepers > 0 -> wakeOne()
	:: else -> skip
	fi
}

/* Running a job: the one that finishes last sets the latch and wakes its waiter. */
inline runJob() {
	atomic { pending--; last = (pending == 0) };
	if
	:: last ->
		latchSet = true;
		if
		:: latchWaiter -> token[W] = true
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* The end of a retired goroutine (Worker.run's deferred function): it gives
 * the worker up, unless a new goroutine has made itself the owner. */
proctype exiter(byte me; byte id) {
#ifdef BUG_OWNER_STORE
	owner[me] = 0
#else
	atomic { if :: owner[me] == id -> owner[me] = 0 :: else -> skip fi }
#endif
}

/* A new goroutine for the worker: a fresh id, and it owns the worker. */
inline begin() {
	started[me] = false;
	gen[me]++;
	my = gen[me];
	owner[me] = my
}

proctype worker(byte me) {
	byte i, was, my; bool claimed, got, last;
	/* No goroutine until a waker starts one (Pool.start). */
end_start:
	started[me] == true;
	begin();
end_loop:
	do
	:: atomic { if :: jobs > 0 -> jobs--; got = true :: else -> got = false fi };
		if
		:: got ->
			/* The job runs as the worker (Spawn reads owner). */
			assert(owner[me] == my);
			runJob()
		:: else ->
			/* park(nil): announce, last look, block. */
			sleep[me] = SLEEPY;
			sleepers++;
#ifdef BUG_NO_RECHECK
			got = false;
#else
			got = (jobs > 0);
#endif
			if
			:: got -> skip
			:: else ->
end_park:	if
				:: token[me] == true -> token[me] = false
				:: true ->
					/* The retire timer fired first (block): retire, unless
					 * a waker has claimed the announcement. */
#ifdef BUG_RETIRE_UNCLAIMED
					sleep[me] = RETIRED; claimed = true;
#else
					atomic { if :: sleep[me] == SLEEPY -> sleep[me] = RETIRED; claimed = true :: else -> claimed = false fi };
#endif
					if
					:: claimed ->
						/* The goroutine ends, still announced, and gives
						 * the worker up on its way out; a waker that claims
						 * the worker starts a new one, which searches. */
						run exiter(me, my);
end_retired:			started[me] == true;
						begin();
						goto end_loop
					:: else -> skip /* claimed: the token is on its way, a spare one */
					fi
				fi
			fi;
			/* Take the announcement back unless a waker did. */
			atomic { if :: sleep[me] == SLEEPY -> sleep[me] = AWAKE; claimed = true :: else -> claimed = false fi };
			if
			:: claimed -> sleepers--
			:: else -> skip
			fi
		fi
	od
}

active proctype caller() {
	byte i, was, n = 0; bool claimed, got, last;
	/* Publish J jobs: push first, notify second. */
	do
	:: n < J ->
#ifdef BUG_NOTIFY_FIRST
		notify();
		jobs++;
#else
		jobs++;
		notify();
#endif
		n++
	:: else -> break
	od;
	/* Wait(latch): help, then park on the latch. */
	do
	:: latchSet -> break
	:: else ->
#ifdef HELP
		atomic { if :: jobs > 0 -> jobs--; got = true :: else -> got = false fi };
#else
		got = false;
#endif
		if
		:: got -> runJob()
		:: else ->
			latchWaiter = true;
			if
			:: latchSet -> skip
			:: else -> token[W] == true; token[W] = false
			fi;
			latchWaiter = false
		fi
	od;
	callerDone = true
}

init {
	byte k = 0;
	atomic {
		do
		:: k < W -> run worker(k); k++
		:: else -> break
		od
	}
}

/* When nothing can move any more, everything must be done. */
active proctype monitor() {
	timeout -> assert(callerDone && pending == 0 && jobs == 0)
}
