/*
 * Promela model of gopar's waiting rule (frame.go; the argument is in
 * WAITING.md): a goroutine that waits runs only jobs that descend from what
 * it waits for.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a waiting.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * and the old rule (a waiter runs any job of the pool), which must fail:
 *
 *   spin -DBUG_OLD_RULE -a waiting.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *
 * The program: goroutine G0 runs task A, which locks mutex M, then forks
 * with Join: it pushes job A1 (Join's b) onto its deque, runs a (nothing),
 * takes A1 back or, if it was stolen, waits for it, and unlocks M. A1, on
 * whichever goroutine runs it, forks B1 the same way and waits for it. X is
 * an unrelated job that takes M, left in the deque of a guest that has
 * returned (a loop's helper nobody took yet, say). G1 is a pool worker in
 * its main loop, which runs any job. Run sequentially (A, then
 * X), nothing deadlocks: the model checks that gopar does not either.
 *
 * Frames: every job is a frame, and so is task A (a guest's lease). A
 * job's parent is the frame that forked it: A1 under A, B1 under A1, X
 * under the root. A wait for job j runs a job k only if j is a strict
 * ancestor of k (under below); the main loop (the root) runs any job.
 *
 * Deque operations are one atomic step each: deque.pml checks the
 * Chase-Lev deque itself, and StealIf's check-then-CAS either takes the
 * item it checked or fails and retries, so it is atomic too. Park is
 * "block until the awaited job is done"; the sleep protocol (sleep.pml)
 * checks that such a wake-up is not lost.
 *
 * Checked: no goroutine ever locks a mutex it already holds (a goroutine
 * waiting for itself), and when no process can move, every job has run
 * and task A has returned: no deadlock.
 */

#define A1 0
#define B1 1
#define X  2
#define NJ 3

/* frames: a job's frame is its id; task A and the root are frames too */
#define FA   3
#define ROOT 4

byte parent[NJ];
bool done[NJ];
byte M = 0;            /* 0: free; g+1: held by goroutine g */
bool finishedA = false;

/* deques: dq[g*NJ + i] for indices top[g] <= i < bot[g]. Deque 2 is a
 * guest's that has returned: X, which it offered, is still there. */
#define ND 3
byte dq[ND * NJ];
byte top[ND];
byte bot[ND];

/* may: can a wait for frame f run job k? (sets ok) */
inline may(k, f) {
#ifdef BUG_OLD_RULE
	ok = true
#else
	/* The root runs any job; a wait walks k's ancestors for f. */
	ok = (f == ROOT);
	a = parent[k];
	do
	:: ok -> break
	:: !ok && a == f -> ok = true
	:: !ok && a != f && (a == ROOT || a == FA) -> break
	:: !ok && a != f && a != ROOT && a != FA -> a = parent[a]
	od
#endif
}

/* Take a job for a wait on frame f, own deque's bottom first, then the
 * others' tops: k = the job, or NJ if there is none. */
inline take(g, f) {
	atomic {
		k = NJ;
		if
		:: bot[g] > top[g] ->
			may(dq[g * NJ + bot[g] - 1], f);
			if
			:: ok -> k = dq[g * NJ + bot[g] - 1]; bot[g]--
			:: else -> skip
			fi
		:: else -> skip
		fi;
		o = 0;
		do
		:: k != NJ || o == ND -> break
		:: else ->
			if
			:: o != g && bot[o] > top[o] ->
				may(dq[o * NJ + top[o]], f);
				if
				:: ok -> k = dq[o * NJ + top[o]]; top[o]++
				:: else -> skip
				fi
			:: else -> skip
			fi;
			o++
		od
	}
}

inline push(g, j) {
	atomic { dq[g * NJ + bot[g]] = j; bot[g]++ }
}

inline lock(g) {
	/* Locking a mutex the goroutine holds: it would wait for itself. */
	assert(M != g + 1);
	atomic { M == 0 -> M = g + 1 }
}

inline unlock(g) {
	M = 0
}

/* Running a leaf job (B1, X) on goroutine g. */
inline runLeaf(g, j) {
	if
	:: j == X -> lock(g); unlock(g)
	:: else -> skip
	fi;
	done[j] = true
}

/* Join's end on goroutine g for job j pushed there: take it back if it is
 * still at the bottom, else wait for it, running only jobs under it. The
 * leaf waits (for B1) run leaves only. */
inline joinLeaf(g, j) {
	atomic {
		if
		:: bot[g] > top[g] && dq[g * NJ + bot[g] - 1] == j -> bot[g]--; took = true
		:: else -> took = false
		fi
	};
	if
	:: took -> runLeaf(g, j)
	:: else ->
		do
		:: done[j] -> break
		:: else ->
			take(g, j);
			if
			:: k != NJ -> runLeaf(g, k)
			:: else -> done[j]	/* park until it is done */
			fi
		od
	fi
}

/* Running A1 on goroutine g: fork B1, wait for it. */
inline runA1(g) {
	push(g, B1);
	joinLeaf(g, B1);
	done[A1] = true
}

inline runJob(g, j) {
	if
	:: j == A1 -> runA1(g)
	:: else -> runLeaf(g, j)
	fi
}

proctype G0() {
	byte k, a, o; bool ok, took;
	/* Task A: lock, Join(nothing, A1), unlock. */
	lock(0);
	push(0, A1);
	atomic {
		if
		:: bot[0] > top[0] && dq[bot[0] - 1] == A1 -> bot[0]--; took = true
		:: else -> took = false
		fi
	};
	if
	:: took -> runA1(0)
	:: else ->
		do
		:: done[A1] -> break
		:: else ->
			take(0, A1);
			if
			:: k == A1 -> assert(false)	/* a job is never under itself */
			:: k != NJ -> runJob(0, k)
			:: else -> done[A1]
			fi
		od
	fi;
	unlock(0);
	finishedA = true
}

proctype G1() {
	byte k, a, o; bool ok, took;
	/* The main loop: any job, own deque first. */
end_loop:
	do
	:: take(1, ROOT);
		if
		:: k != NJ -> runJob(1, k)
		:: else ->
end_park:		(bot[0] > top[0] || bot[1] > top[1] || bot[2] > top[2])	/* park until there is work */
		fi
	od
}

init {
	atomic {
		parent[A1] = FA;
		parent[B1] = A1;
		parent[X] = ROOT;
		/* X is waiting in the returned guest's deque. */
		dq[2 * NJ] = X; bot[2] = 1;
		run G0();
		run G1()
	}
}

/* When nothing can move any more, everything must be done. */
active proctype monitor() {
	timeout -> assert(finishedA && done[A1] && done[B1] && done[X])
}
