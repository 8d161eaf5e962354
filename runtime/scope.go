package runtime

import "sync/atomic"

// Scope is handed to the body of Worker.Scope and to every task spawned in
// it. Tasks spawned through it may spawn more; the scope ends when all of
// them are done. A Scope value is bound to the worker running the code it was
// handed to: use the one you were given, not one captured from an enclosing
// task.
type Scope struct {
	w  *Worker
	st *scopeState
}

type scopeState struct {
	// fr is the scope's frame: the body runs in it, so the tasks it spawns,
	// and theirs, descend from it, and the wait runs only those.
	fr frame
	// pending counts the body and the spawned tasks not yet finished; the
	// one that brings it to zero sets done.
	pending  atomic.Int64
	done     Latch
	panicked atomic.Pointer[Panic]
}

// Scope runs body, in which tasks may be spawned with Scope.Spawn, and
// returns when body and every task spawned in the scope (recursively) have
// returned. While it waits, w runs the scope's tasks (and what they fork),
// never other work of the pool: a lock held across Scope is taken by a task
// only where the sequential program, in which Spawn calls its task at once,
// would take it too.
//
// # Panics
//
// A panic in body or in a spawned task does not cancel the others: the rest
// of the scope still runs to completion, then Scope re-panics in the calling
// goroutine with a *Panic holding the first panic's value and stack. Later
// panics are dropped. A runtime.Goexit in body or a task is treated as a
// panic, except that Scope then calls runtime.Goexit instead of panicking;
// a panic in the scope wins over it.
//
// On a nil Worker, spawned tasks run at once, on the calling goroutine.
func (w *Worker) Scope(body func(s Scope)) {
	st := &scopeState{}
	st.pending.Store(1)
	// The body runs in the scope's frame, so what it spawns descends from
	// it, and the wait runs only that.
	var r region
	if w != nil {
		r = w.enter(&st.fr)
	}
	// Only runtime.Goexit, in body or in a task that w runs while it
	// waits, reaches the deferred function: the scope's tasks still run,
	// and are waited for, as after a panic (see goexit.go).
	phase := inA // body running; inB: waiting
	defer func() {
		if phase == finished {
			return
		}
		if phase == inA {
			st.record(goexitRecord)
			st.finish()
		}
		if w != nil {
			w.waitUntil(&st.done, &st.fr)
			w.leave(r)
		}
		if p := st.panicked.Load(); isPanic(p) {
			panic(p)
		}
	}()
	if p := Catch(func() { body(Scope{w, st}) }); p != nil {
		st.record(p)
	}
	phase = inB
	st.finish()
	if w != nil {
		w.waitUntil(&st.done, &st.fr)
		w.leave(r)
	}
	phase = finished
	Raise(st.panicked.Load())
}

// Scope is Do followed by Worker.Scope.
func (p *Pool) Scope(body func(s Scope)) {
	p.Do(func(w *Worker) { w.Scope(body) })
}

// Spawn offers fn to the pool as part of the scope: it runs on some worker,
// possibly this one, before the scope ends. fn receives a Scope bound to the
// worker that runs it, through which it may spawn more.
func (s Scope) Spawn(fn func(s Scope)) {
	if fn == nil {
		panic("gopar: Scope.Spawn was given a nil function")
	}
	st := s.st
	st.pending.Add(1)
	s.w.Offer(func(w *Worker) {
		returned := false
		defer func() {
			if !returned {
				// A panic, or runtime.Goexit ending this goroutine.
				st.record(Unwinding(recover()))
			}
			st.finish()
		}()
		fn(Scope{w, st})
		returned = true
	})
}

// Worker returns the worker the scope value is bound to.
func (s Scope) Worker() *Worker { return s.w }

// record keeps the scope's first panic; a Goexit only until a panic comes.
func (st *scopeState) record(p *Panic) { Record(&st.panicked, p) }

func (st *scopeState) finish() {
	if st.pending.Add(-1) == 0 {
		st.done.Set()
	}
}
