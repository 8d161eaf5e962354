package runtime

// Join runs a and b, possibly in parallel, and returns when both are done.
//
// b is pushed onto w's deque, where an idle worker can steal it, while w runs
// a itself. Then w takes b back and runs it, unless it was stolen; in that
// case w runs other work (its own deque first, then stolen work) until b's
// thief is done, so the goroutine is never blocked while there is work.
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
// Do not hold a lock across Join that b, or anything else that may run on
// this pool, also takes: while waiting for b, w may run another task that
// blocks on that lock, and then neither can proceed.
//
// On a nil Worker, Join runs a then b on the calling goroutine.
func (w *Worker) Join(a, b func(*Worker)) {
	if w == nil {
		joinInline(a, b)
		return
	}
	w.join(a, b, false)
}

// join is Join on a non-nil worker. An offered b counts in Pool.offered
// until it starts (see Worker.started).
func (w *Worker) join(a, b func(*Worker), offered bool) {
	jb := w.newJob(b)
	if offered {
		jb.offered = true
		w.pool.offered.Add(1)
	}
	w.push(jb)
	// Run a; hopefully b gets stolen in the meantime.
	pa := w.call(a)
	if !w.takeBack(jb) {
		// b was stolen: help until its thief is done.
		w.Wait(&jb.done)
	}
	pb := jb.panicked
	w.recycle(jb)
	if pa != nil {
		panic(pa)
	}
	if pb != nil {
		panic(pb)
	}
}

// takeBack pops w's deque until it finds jb and runs it inline (true), or
// finds the deque empty: jb was stolen (false). Jobs above jb were pushed
// while a ran and not taken (offered work nobody stole): they are run on the
// way down. Jobs below jb cannot be reached: a thief takes the oldest job
// first, so if jb is gone, so is everything older.
func (w *Worker) takeBack(jb *job) bool {
	for {
		j := w.deque.Pop()
		switch j {
		case nil:
			return false
		case jb:
			w.started(jb)
			jb.panicked = w.call(jb.fn)
			return true
		default:
			w.execute(j)
		}
	}
}

func joinInline(a, b func(*Worker)) {
	pa := Catch(func() { a(nil) })
	pb := Catch(func() { b(nil) })
	if pa != nil {
		panic(pa)
	}
	if pb != nil {
		panic(pb)
	}
}
