/*
 * Check with (run in steal/, then delete the generated pan* files):
 *
 *   spin -a deque.pml && gcc -O2 -DSAFETY -DMEMLIM=3000 -o pan pan.c && ./pan -m100000
 *
 * Spin 6.5.2 reports "errors: 0" after 11,168,301 stored states (depth 1508,
 * about 1 GB, 20 s), with no unreached states. The same model with a
 * known-wrong variant must fail, and does within seconds:
 *
 *   spin -DBUG_THIEF_CLEARS -a deque.pml && ...   (a steal returns nil)
 *   spin -DBUG_POP_NO_CAS   -a deque.pml && ...   (an item is taken twice)
 *
 * A Promela model of the Chase-Lev deque in deque.go: one owner pushing and
 * popping (in any order the model checker likes), two thieves stealing. Each
 * Promela statement is one atomic step and the interleavings are sequentially
 * consistent, which matches Go's sync/atomic. Every load, store, CAS and swap
 * of deque.go is a separate statement here; steps that touch only memory no
 * one else can see yet (the new ring while growing) are merged.
 *
 * Modelled: pushes with wrap-around in a 2-slot ring, one grow into a 4-slot
 * ring (thieves may keep reading the old one), Pop's fast empty path, its
 * uncontested path that clears its slot with Swap(nil), the CAS race for the
 * last item, and the owner's lazy sweep of stolen slots. Abstracted: growing
 * more than once (the owner simply does not push into a full 4-slot ring).
 *
 * Checked: a successful steal or pop never returns nil (a cleared slot), no
 * item is taken twice, and when everyone has finished every pushed item has
 * been taken exactly once. Invalid end states (a process stuck) are errors too.
 */

#define K 4                 /* items the owner pushes, numbered 1..K; 0 is nil */

short top = 0;              /* thieves' end; changed only by CAS */
short bottom = 0;           /* owner's end; written only by the owner */
byte r0[2];                 /* the initial ring */
byte r1[4];                 /* the ring after one grow */
bit cur = 0;                /* the ring pointer: 0 means r0, 1 means r1 */
byte taken[K + 1];          /* how many times each item was taken */
byte pushed = 0;            /* items pushed so far */
bit ownerDone = 0;          /* the owner has pushed all it will and drained */

/* slot read/write of index i in ring c */
#define READ(c, i)  (c == 0 -> r0[(i) % 2] : r1[(i) % 4])
inline WRITE(c, i, v) {
	if
	:: c == 0 -> r0[(i) % 2] = v
	:: else   -> r1[(i) % 4] = v
	fi
}

inline TAKE(x) {
	assert(x != 0);         /* never hand out a cleared slot */
	assert(taken[x] == 0);  /* never hand out an item twice */
	taken[x]++
}

proctype Owner() {
	short b, t, i, cleared = 0;
	byte x;
	bit won;

	do
	:: d_step { b = 0; t = 0; i = 0; x = 0; won = 0 };  /* forget scratch values: fewer states */
	   if
	   :: pushed < K ->
		/* Push */
		b = bottom;
		t = top;
		if
		:: cur == 0 && b - t >= 2 ->
			/* grow: copy the live [t, b) into the bigger ring, publish it */
			i = t;
			do
			:: i < b -> r1[i % 4] = r0[i % 2]; i++
			:: else -> break
			od;
			cur = 1;
			cleared = t
		:: cur == 1 && b - t >= 4 ->
			goto nopush     /* would grow again: not modelled */
		:: else ->
			/* sweep the slots of items stolen since last time */
			i = cleared;
			do
			:: i < t -> WRITE(cur, i, 0); i++
			:: else -> break
			od;
			cleared = t
		fi;
		WRITE(cur, b, pushed + 1);
		bottom = b + 1;
		pushed++;
nopush:		skip

	   :: true ->
		/* Pop */
		b = bottom;
		t = top;
		if
		:: b <= t ->
			/* empty: sweep */
			i = cleared;
			do
			:: i < t -> WRITE(cur, i, 0); i++
			:: else -> break
			od;
			cleared = t
		:: else ->
			b = b - 1;
			bottom = b;
			t = top;
			if
			:: t < b ->
				/* Swap(nil) */
				atomic { x = READ(cur, b); WRITE(cur, b, 0) };
				TAKE(x)
			:: t > b ->
				bottom = b + 1
			:: t == b ->
#ifdef BUG_POP_NO_CAS
				won = 1;
#else
				atomic {
					if
					:: top == t -> top = t + 1; won = 1
					:: else -> won = 0
					fi
				};
#endif
				bottom = b + 1;
				if
				:: won ->
					x = READ(cur, b);
					i = cleared;
					do
					:: i < t + 1 -> WRITE(cur, i, 0); i++
					:: else -> break
					od;
					cleared = t + 1;
					TAKE(x)
				:: else ->
					/* lost to a thief: top is past b, sweep as well */
					i = cleared;
					do
					:: i < t + 1 -> WRITE(cur, i, 0); i++
					:: else -> break
					od;
					cleared = t + 1
				fi
			fi
		fi

	   :: pushed == K -> break
	   fi
	od;

	/* Drain: pop until empty, as the stress test does. */
	do
	:: b = bottom;
	   t = top;
	   if
	   :: b <= t -> break
	   :: else ->
		b = b - 1;
		bottom = b;
		t = top;
		if
		:: t < b ->
			atomic { x = READ(cur, b); WRITE(cur, b, 0) };
			TAKE(x)
		:: t > b ->
			bottom = b + 1
		:: t == b ->
			atomic {
				if
				:: top == t -> top = t + 1; won = 1
				:: else -> won = 0
				fi
			};
			bottom = b + 1;
			if
			:: won -> x = READ(cur, b); WRITE(cur, b, 0); TAKE(x)
			:: else -> skip
			fi
		fi
	   fi
	od;
	ownerDone = 1
}

proctype Thief() {
	short t, b;
	byte x;
	bit c, ok;

	do
	:: d_step { t = 0; b = 0; x = 0; c = 0; ok = 0 };  /* forget scratch values */
	   t = top;
	   b = bottom;
	   if
	   :: t >= b ->
		/* Empty. Stop only once the owner has drained its deque. */
		if
		:: ownerDone -> break
		:: else -> skip
		fi
	   :: else ->
		c = cur;                /* load the ring after bottom */
		x = READ(c, t);         /* load the slot */
		atomic {                /* CAS top t -> t+1 */
			if
			:: top == t -> top = t + 1; ok = 1
			:: else -> ok = 0
			fi
		};
		if
		:: ok ->
#ifdef BUG_THIEF_CLEARS
			WRITE(c, t, 0);  /* wrong: the owner may have reused the slot */
#endif
			TAKE(x)
		:: else -> skip         /* Retry */
		fi
	   fi
	od
}

init {
	byte i;
	atomic {
		run Owner();
		run Thief();
		run Thief()
	};
	/* wait for everyone, then check nothing was lost */
	(_nr_pr == 1);
	assert(top == bottom);
	i = 1;
	do
	:: i <= pushed -> assert(taken[i] == 1); i++
	:: else -> break
	od
}
