/*
 * Promela model of the stealable Range (range.go): one owner taking blocks of
 * G items from a range of N items, THIEVES thieves stealing the top quarter
 * of what remains, with exactly the word/low protocol of range.go (including
 * the thief's "stale word" rule), and a Loop's cut (CutAt): a Cutter sets
 * the cut once, to any offset or not at all, at any moment; the owner drops
 * its range once a block would start at or above the cut and clips a block
 * that crosses it; a thief refuses loot that would start at or above it. The
 * check: every item below the final cut runs exactly once, none twice.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a range.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m1000000
 *
 * N=6 (the default, run in CI) stores about 86M states in 100 s on the
 * development machine; N=7 about 188M in 5 minutes. Other sizes:
 * spin -DN=7 -DG=3 -DTHIEVES=2 -a range.pml (same gcc and pan).
 * The model fails (an item below the cut never runs) if the owner drops its
 * range as soon as a block would cross the cut, instead of clipping it.
 * Afterwards: rm -f pan pan.* _spin_nvr.tmp
 *
 * Every atomic operation of the Go code is one Promela statement; the
 * arithmetic between them is local and folded into the next statement.
 */

#ifndef N
#define N 6        /* items in the range, offsets 0..N-1 (N < 16) */
#endif
#ifndef G
#define G 2        /* the owner's grain */
#endif
#ifndef THIEVES
#define THIEVES 2
#endif

/* The word packs the steal range [mid, high) as mid*16 + high. */
#define MID(w)  ((w) / 16)
#define HIGH(w) ((w) % 16)
/* split(a, b): the top quarter of [a, b), rounded up; (b, b) when empty. */
#define SPLIT(a, b) (((b) <= (a)) -> ((b)*16 + (b)) : (((a) + 3*((b) - (a))/4)*16 + (b)))

byte word = SPLIT(0, N);
byte low = 0;             /* written by the owner only */
byte taken[N];            /* times each item was claimed */
byte ran[N];              /* times each item ran */
byte cut = N;             /* items at or above cut are no longer needed */
byte left = 0;            /* processes that have left */

inline claim(a, b) {      /* claim items [a, b) */
	i = a;
	do
	:: i < b -> taken[i]++; assert(taken[i] == 1); i++
	:: else -> break
	od
}

inline runBelow(a, b, c) { /* run the items of [a, b) below the cut c */
	i = a;
	do
	:: i < b && i < c -> ran[i]++; assert(ran[i] == 1); i++
	:: else -> break
	od
}

active proctype Cutter() {
	byte c = 0;
	do                        /* choose any cut in [0, N], N meaning none */
	:: c < N -> c++
	:: break
	od;
	cut = c
}

active proctype Owner() {
	byte l = 0, nl, e, w, i, c;
	do
	:: l >= N -> break
	:: else ->
		c = cut;                        /* Next reads the cut first */
		if
		:: l >= c -> break              /* the rest lies above it: drop */
		:: else
		fi;
		nl = ((l + G < N) -> l + G : N);
		low = nl;                       /* seq-cst store: reserve [l, nl) */
		w = word;                       /* then load the word */
again:
		if
		:: l >= HIGH(w) -> break        /* everything left was stolen */
		:: l < HIGH(w) && nl <= MID(w) ->
			/* below the steal range: ours; shrink it when close */
			if
			:: MID(w) - nl <= 2*(HIGH(w) - MID(w)) && SPLIT(nl, HIGH(w)) != w ->
				atomic { if :: word == w -> word = SPLIT(nl, HIGH(w)) :: else fi }
			:: else
			fi;
			claim(l, nl);
			runBelow(l, nl, c);
			l = nl
		:: l < HIGH(w) && nl > MID(w) ->
			/* into the steal range (or a stale word): CAS for it */
			if
			:: atomic { word == w -> word = SPLIT(nl, HIGH(w)) } ->
				e = ((nl < HIGH(w)) -> nl : HIGH(w));
				claim(l, e);
				runBelow(l, e, c);
				l = nl
			:: atomic { word != w -> w = word } -> goto again
			fi
		fi
	od;
	left++
}

active [THIEVES] proctype Thief() {
	byte w, x, from, i, c;
	do
	:: c = cut;                             /* the scan reads the cut */
		w = word;                         /* load the word */
		if
		:: MID(w) >= HIGH(w) -> break     /* Empty */
		:: else
		fi;
		x = low;                          /* then load low */
		if
		:: x >= HIGH(w) -> break          /* Empty: all reserved by the owner */
		:: else
		fi;
		from = ((x > MID(w)) -> MID(SPLIT(x, HIGH(w))) : MID(w));
		if
		:: from >= c -> break             /* Empty: all above the cut */
		:: else
		fi;
		if
		:: atomic { word == w -> word = SPLIT(x, from) } ->
			x = HIGH(w);
			claim(from, x);               /* Success: [from, high) is ours */
			c = cut;                      /* its blocks run below the cut */
			runBelow(from, x, c)
		:: atomic { word != w } -> skip   /* Retry */
		fi
	od;
	left++
}

/* Termination, as a Loop detects it: once every participant has left, every
 * item below the cut has run exactly once. (Every process must get here: an
 * invalid end state would be reported.) */
active proctype Check() {
	byte i;
	left == THIEVES + 1;
	i = 0;
	do
	:: i < N && i < cut -> assert(ran[i] == 1); i++
	:: else -> break
	od
}
