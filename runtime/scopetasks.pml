/*
 * Promela model of the parent of a task that a Scope's task spawns
 * (WAITING.md, "Scope tasks"): it is the Scope's frame, not the spawning
 * task's, so the spawning task's job is recycled once it returns, and the
 * waiting rule still adds no deadlock and leaves no wait unended.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a scopetasks.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
 *   spin -DONE -a scopetasks.pml && ...     (the waiter alone, no pool worker)
 *
 * and the spawner's frame as the parent, with the spawner's job recycled
 * as it returns, which must fail:
 *
 *   spin -DONE -DBUG_PARENT_RECYCLED -a scopetasks.pml && ...
 *
 * The program: G0 runs the Scope's body, which spawns task T, and then
 * waits at the Scope's frame S. T spawns task X, locks mutex M, forks with
 * Join (pushes B, its b, and runs a, which does nothing), takes B back or
 * waits for it, unlocks M and returns; its job is then recycled: its frame
 * becomes another job's, under another frame (OUT). X takes M. Run
 * sequentially (T; X at its spawn, before T locks M; B), nothing
 * deadlocks. G1, unless ONE, is a pool worker in its main loop, which
 * runs any job.
 *
 * Frames: every job is a frame, and so are S, OUT and the root. T has S as
 * its parent, B has T, X has S (with the bug, T). A wait at frame f runs
 * job k only if f is a strict ancestor of k; the main loop (the root) runs
 * any job. Deque operations are one atomic step each, as in waiting.pml;
 * park is "block until what is awaited is done, or a job the wait may run
 * is queued" (sleep.pml checks that such a wake-up is not lost).
 *
 * Checked: no goroutine locks M while it holds it, and when no process
 * can move, every task has run and the Scope's wait has returned.
 */

#define T  0
#define X  1
#define B  2
#define NJ 3

#define S    3
#define OUT  4
#define ROOT 5

byte parent[NJ];
bool done[NJ];
byte pending = 0;      /* the Scope's count: the body and its tasks */
byte M = 0;            /* 0: free; g+1: held by goroutine g */
bool returned = false; /* the Scope's wait has returned */

#define ND 2
byte dq[ND * NJ];
byte top[ND];
byte bot[ND];

/* may: can a wait at frame f run job k? (sets ok) */
inline may(k, f) {
	ok = (f == ROOT);
	a = parent[k];
	do
	:: ok -> break
	:: !ok && a == f -> ok = true
	:: !ok && a != f && a >= S -> break	/* S, OUT and the root have no parent here */
	:: !ok && a != f && a < S -> a = parent[a]
	od
}

/* Take a job for a wait at frame f: own deque's bottom, then the others'
 * tops; k = the job, or NJ if there is none. */
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

/* Is a job that a wait at f may run queued anywhere? (sets ok) */
inline anyFor(f) {
	found = false;
	o = 0;
	do
	:: o == ND -> break
	:: else ->
		i = top[o];
		do
		:: found || i >= bot[o] -> break
		:: else -> may(dq[o * NJ + i], f); found = ok; i++
		od;
		o++
	od
}

inline push(g, j) {
	atomic { dq[g * NJ + bot[g]] = j; bot[g]++ }
}

inline lock(g) {
	assert(M != g + 1);
	atomic { M == 0 -> M = g + 1 }
}

inline runX(g) {
	lock(g);
	M = 0;
	done[X] = true;
	pending--
}

/* Running T on goroutine g. Its Join's wait runs only jobs under B, which
 * has none: it parks until B is done. */
inline runT(g) {
	pending++;
	push(g, X);
	lock(g);
	push(g, B);
	atomic {
		if
		:: bot[g] > top[g] && dq[g * NJ + bot[g] - 1] == B -> bot[g]--; took = true
		:: else -> took = false
		fi
	};
	if
	:: took -> done[B] = true
	:: else ->
		do
		:: done[B] -> break
		:: else ->
			take(g, B);
			if
			:: k != NJ -> assert(false)	/* nothing is under B */
			:: else -> done[B]	/* park until B is done */
			fi
		od
	fi;
	M = 0;
	/* T returns, and its job is recycled: its frame is another job's now. */
	atomic { done[T] = true; parent[T] = OUT; pending-- }
}

inline runJob(g, j) {
	if
	:: j == T -> runT(g)
	:: j == X -> runX(g)
	:: else -> done[B] = true
	fi
}

proctype G0() {
	byte k, a, o, i; bool ok, took, found;
	/* The body: spawn T, return. */
	pending = 2;
	push(0, T);
	pending--;
	/* The Scope's wait at S. */
	do
	:: pending == 0 -> break
	:: else ->
		take(0, S);
		if
		:: k != NJ -> runJob(0, k)
		:: else ->
			/* park until the scope ends or there is a job to run */
			atomic { anyFor(S); (pending == 0 || found) }
		fi
	od;
	returned = true
}

#ifndef ONE
proctype G1() {
	byte k, a, o, i; bool ok, took, found;
end_loop:
	do
	:: take(1, ROOT);
		if
		:: k != NJ -> runJob(1, k)
		:: else ->
end_park:		(bot[0] > top[0] || bot[1] > top[1])
		fi
	od
}
#endif

init {
	atomic {
		parent[T] = S;
#ifdef BUG_PARENT_RECYCLED
		parent[X] = T;
#else
		parent[X] = S;
#endif
		parent[B] = T;
		run G0();
#ifndef ONE
		run G1()
#endif
	}
}

active proctype monitor() {
	timeout -> assert(returned && done[T] && done[X] && done[B])
}
