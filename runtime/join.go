package runtime

// Join runs a and b, possibly in parallel, and returns when both are done.
//
// b is pushed onto w's deque, where an idle worker can steal it, while w runs
// a itself. Then w takes b back and runs it, unless it was stolen; in that
// case w runs the work b forks (stealing it from b's thief and from whoever
// stole from that thief) until b is done, and parks when there is none.
// Both functions receive the worker that runs them, to fork further.
//
// # Panics
//
// If a or b panics, Join still waits for the other, then re-panics in the
// calling goroutine with a *Panic holding the original value and the stack
// where it happened (a's panic if both did). The pool stays usable.
//
// # Locks
//
// A lock may be held across Join. While it waits, w runs only work forked by
// b (and by what b forks), never another task of the pool, so the only way
// to deadlock on a lock held across Join is one that a and b running one
// after the other would deadlock on too (see WAITING.md).
//
// On a nil Worker, Join runs a then b on the calling goroutine. A nil a or
// b panics at once.
func (w *Worker) Join(a, b func(*Worker)) {
	if a == nil || b == nil {
		refuse("Worker.Join", nilFunc)
	}
	if w == nil {
		joinInline(a, b)
		return
	}
	w.join(a, b, false)
}

// join is Join on a non-nil worker. An offered b (JoinLazy's shared path)
// counts in the idleState's offered until it starts (see Worker.started), and if a
// worker was parked as it was offered, the caller yields once before a, as
// a loop's open does; Worker.Join's own forks do not (SLEEP.md).
func (w *Worker) join(a, b func(*Worker), offered bool) {
	jb := w.newJob(b)
	wakes := false
	if offered {
		jb.offered = true
		w.pool.idle.offer()
		wakes = w.pool.idle.anyToWake()
	}
	w.push(jb)
	if wakes {
		// Let the worker the push woke start b now, not after the
		// scheduler's back-off (SLEEP.md, "Waking from a goroutine that
		// goes on running").
		yield()
	}
	// As in JoinFunc, one deferred function covers both calls, and does
	// nothing unless one of them panics or calls runtime.Goexit: cheaper
	// than a recover around each.
	phase := inA
	defer func() {
		if phase != finished {
			w.unwindJoin(jb, phase, recover())
		}
	}()
	// Run a; hopefully b gets stolen in the meantime.
	a(w)
	phase = inB
	if w.takeBack(jb, &phase) {
		b(w)
		phase = finished
		w.recycle(jb)
		return
	}
	// b was stolen: run what b forks until its thief is done.
	w.waitUnder(&jb.done, &jb.fr)
	phase = finished
	pb := jb.panicked
	w.recycle(jb)
	raise(pb) // b's panic, or its Goexit on the thief
}

// The phases of a join, for its deferred function.
const (
	inA       = iota
	inB       // a has returned: taking b back, or waiting for its thief
	inBInline // b taken back, running on this goroutine
	finished
)

// unwindJoin finishes a join that did not return: a call panicked with v,
// or (v nil) runtime.Goexit is ending the goroutine, in the given phase.
// After a's failure b still runs, or is waited for; then the failure goes
// on: a's panic if both panicked, a panic rather than a Goexit. In phase
// inB only a Goexit can reach here (execute and Wait recover panics), from
// a job this goroutine ran while it took b back or waited for it.
func (w *Worker) unwindJoin(jb *job, phase int, v any) {
	p := unwinding(v)
	if phase != inBInline {
		// A Goexit in b, run here, must not swallow a's panic.
		callAfter(p, func() { w.finishB(jb) })
		p = stronger(p, jb.panicked)
	}
	// jb is not recycled: this path is rare, and the collector takes it.
	if isPanic(p) {
		panic(p)
	}
}

// finishB returns once jb has run: w takes it back and runs it, or waits
// for its thief.
func (w *Worker) finishB(jb *job) {
	if w.takeBack(jb, nil) {
		jb.panicked = w.call(jb.fn)
	} else {
		w.waitUnder(&jb.done, &jb.fr)
	}
}

// takeBack pops w's deque until it finds jb, which it leaves to the caller
// to run inline (true; *phase, if not nil, becomes inBInline), or finds the
// deque empty: jb was stolen (false). Jobs above jb were pushed while a ran
// and not taken (offered work nobody stole): they are run on the way down.
// Jobs below jb cannot be reached: a thief takes the oldest job first, so if
// jb is gone, so is everything older.
func (w *Worker) takeBack(jb *job, phase *int) bool {
	for {
		j := w.deque.Pop()
		switch j {
		case nil:
			return false
		case jb:
			w.started(jb)
			if phase != nil {
				*phase = inBInline
			}
			return true
		default:
			w.execute(j)
		}
	}
}

func joinInline(a, b func(*Worker)) {
	joinCalls(func() { a(nil) }, func() { b(nil) })
}
