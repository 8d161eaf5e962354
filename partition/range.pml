/*
 * Promela model of the stealable Range (range.go): one owner taking blocks of
 * G items from a range of N items, THIEVES thieves stealing the top quarter
 * of what remains, with exactly the word/low protocol of range.go (including
 * the thief's "stale word" rule), and termination by a remaining count.
 *
 * Check (0 errors expected; end states are checked, so no -E):
 *
 *   spin -a range.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m1000000
 *
 * Other sizes: spin -DN=8 -DG=3 -DTHIEVES=2 -a range.pml (same gcc and pan).
 * Afterwards: rm -f pan pan.* _spin_nvr.tmp
 *
 * Every atomic operation of the Go code is one Promela statement; the
 * arithmetic between them is local and folded into the next statement.
 */

#ifndef N
#define N 7        /* items in the range, offsets 0..N-1 (N < 16) */
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
byte remaining = N;       /* items not yet reported */
byte left = 0;            /* processes that have reported */

inline claim(a, b) {      /* claim items [a, b) */
	i = a;
	do
	:: i < b -> taken[i]++; assert(taken[i] == 1); cnt++; i++
	:: else -> break
	od
}

active proctype Owner() {
	byte l = 0, nl, e, w, i, cnt = 0;
	do
	:: l >= N -> break
	:: else ->
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
			l = nl
		:: l < HIGH(w) && nl > MID(w) ->
			/* into the steal range (or a stale word): CAS for it */
			if
			:: atomic { word == w -> word = SPLIT(nl, HIGH(w)) } ->
				e = ((nl < HIGH(w)) -> nl : HIGH(w));
				claim(l, e);
				l = nl
			:: atomic { word != w -> w = word } -> goto again
			fi
		fi
	od;
	atomic { remaining = remaining - cnt; left++ }
}

active [THIEVES] proctype Thief() {
	byte w, x, from, i, cnt = 0;
	do
	:: w = word;                            /* load the word */
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
		:: atomic { word == w -> word = SPLIT(x, from) } ->
			x = HIGH(w);
			claim(from, x)                /* Success: [from, high) is ours */
		:: atomic { word != w } -> skip   /* Retry */
		fi
	od;
	atomic { remaining = remaining - cnt; left++ }
}

/* Termination: once everyone has reported, every item was claimed exactly
 * once and the remaining count is zero. (Every process must get here: an
 * invalid end state would be reported.) */
active proctype Check() {
	byte i;
	left == THIEVES + 1;
	assert(remaining == 0);
	i = 0;
	do
	:: i < N -> assert(taken[i] == 1); i++
	:: else -> break
	od
}
