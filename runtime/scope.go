package runtime

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/latch"
)

// Scope is handed to the body of Worker.Scope and to every task spawned in
// it. Tasks spawned through it may spawn more; the scope ends when all of
// them are done. Spawn may be called on any Scope of the scope from any
// goroutine, for as long as the scope has not ended (see Spawn).
type Scope struct {
	w  *Worker
	st *scopeState
}

type scopeState struct {
	// fr is the scope's frame: the body runs in it, so the tasks it spawns,
	// and theirs, descend from it, and the wait runs only those.
	fr frame
	// pending counts the body and the spawned tasks not yet finished; it
	// never rises again once it has reached zero (see enter).
	pending atomic.Int64
	// wake is set when pending reaches zero, and when a goroutine that
	// does not own the scope's deque starts a task (see spawnForeign):
	// the waiter then hands the task to its own deque, and waits again.
	wake latch.Latch
	// foreign holds, newest first, the tasks started by goroutines that do
	// not own the Worker of the Scope they called Spawn on. Any goroutine
	// pushes; the scope's waiter takes the whole list at once.
	foreign  atomic.Pointer[foreignTask]
	panicked atomic.Pointer[Panic]
	// done is closed when pending reaches zero, if a wait without a
	// Worker made it (see waitNil).
	done atomic.Pointer[chan struct{}]
}

// foreignTask is a task started from a goroutine that does not own the
// Worker it named. It is offered twice, on the scope's foreign list and in
// the pool's injector, and the first to claim it runs it.
type foreignTask struct {
	run     func(*Worker)
	labels  labels.Set   // the spawner's pprof labels, for whoever runs it
	next    *foreignTask // written before the push that publishes it
	claimed atomic.Bool
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
// On a nil Worker, spawned tasks run at once, on the goroutine that spawns
// them.
func (w *Worker) Scope(body func(s Scope)) {
	if body == nil {
		refuse("Worker.Scope", nilFunc)
	}
	st := &scopeState{}
	st.fr.scope = st
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
		st.wait(w)
		if w != nil {
			w.leave(r)
		}
		if p := st.panicked.Load(); isPanic(p) {
			panic(p)
		}
	}()
	if p := catch(func() { body(Scope{w, st}) }); p != nil {
		st.record(p)
	}
	phase = inB
	st.finish()
	st.wait(w)
	if w != nil {
		w.leave(r)
	}
	phase = finished
	raise(st.panicked.Load())
}

// wait returns once every task of the scope has returned. w runs the
// scope's tasks meanwhile, and takes over those that other goroutines
// started (see spawnForeign).
func (st *scopeState) wait(w *Worker) {
	if w == nil {
		st.waitNil()
		return
	}
	for {
		w.waitUnder(&st.wake, &st.fr)
		if st.pending.Load() == 0 {
			return
		}
		// Set for foreign tasks. Reset before taking the list: a task
		// pushed after the take sets wake again, after this reset.
		st.wake.Reset()
		if st.pending.Load() == 0 {
			return // the reset may have hidden the last finish's Set
		}
		for t := st.foreign.Swap(nil); t != nil; t = t.next {
			// Is it still unclaimed (no pool worker took it from the
			// injector)? Then it is ours: offer it from our deque, under
			// the scope's frame (w runs in it here), where the wait runs
			// it or another participant steals it.
			if t.claimed.CompareAndSwap(false, true) {
				j := w.newJob(t.run)
				j.labels = t.labels
				offerJob(w, j)
			}
		}
	}
}

// Scope is Do followed by Worker.Scope.
func (p *Pool) Scope(body func(s Scope)) {
	if p == nil || body == nil {
		p.refuseDo("Pool.Scope", body == nil)
	}
	p.Do(func(w *Worker) { w.Scope(body) })
}

// Spawn starts fn as part of the scope: it runs on some worker, possibly
// this one, before the scope ends. fn receives a Scope bound to the worker
// that runs it, through which it may spawn more.
//
// Spawn may be called from any goroutine while the scope is open: on the
// Scope a function was given, or on one captured from an enclosing function
// (the body's, from a task or from a goroutine the body waits for), as
// Rayon's scope.spawn may. It panics once the scope has ended, that is,
// once the body and every task have returned.
//
// Called by the goroutine acting as the Scope's Worker (the function's own
// Scope, the common case), it pushes fn onto that worker's deque. Called by
// another goroutine, which must not touch that deque, it hands fn to the
// scope's waiter and to the pool's injector, and whichever takes it first
// runs it. Spawn on the zero Scope panics.
func (s Scope) Spawn(fn func(s Scope)) {
	if fn == nil {
		refuse("Scope.Spawn", nilFunc)
	}
	if s.st == nil {
		refuse("Scope.Spawn", zeroScope)
	}
	s.spawn(funcTask(fn))
}

// scopeTask is a task of a Scope, for SpawnTask: Spawn's function, or a value
// that carries what the task needs, so that spawning it allocates nothing
// more (par's Group.Go). It is an alias of an interface literal, so that
// internal/plumb, which cannot name it, asserts spawnTask's type.
type scopeTask = interface {
	Run(s Scope)
}

// funcTask is Spawn's function as a Task. A func value is one pointer, so
// the conversion allocates nothing.
type funcTask func(Scope)

func (f funcTask) Run(s Scope) { f(s) }

// spawnTask is Scope.Spawn of t. A nil t, or the zero Scope, panics.
func spawnTask(s Scope, t scopeTask) {
	if t == nil {
		refuse("SpawnTask", "was given a nil Task; pass the task to run")
	}
	if s.st == nil {
		refuse("SpawnTask", zeroScope)
	}
	s.spawn(t)
}

// zeroScope is what a spawn on the zero Scope says.
const zeroScope = "was called on the zero Scope; spawn on the Scope that Worker.Scope or Pool.Scope hands to its body"

func (s Scope) spawn(t scopeTask) {
	st, w := s.st, s.w
	switch {
	case w == nil:
		st.enter()
		st.run(nil, t)
	case w.isSelf():
		// Does the body or a task of the scope run here? It counts in
		// pending until it returns: pending is not zero.
		own := w.at != nil && w.at.scope == st
		if own {
			st.pending.Add(1)
		} else {
			st.enter()
		}
		offerJob(w, w.newTask(st, t, own))
	default:
		st.enter()
		st.spawnForeign(w.pool, func(w *Worker) { st.run(w, t) })
	}
}

// run runs t, a task of the scope, on w (nil: the spawner, at once), and
// counts it finished however it ends: a panic, or runtime.Goexit ending the
// goroutine, is recorded for the scope's waiter.
func (st *scopeState) run(w *Worker, t scopeTask) {
	returned := false
	defer func() {
		if !returned {
			st.record(unwinding(recover()))
		}
		st.finish()
	}()
	t.Run(Scope{w, st})
	returned = true
}

// enter counts one more task, unless the scope has ended: pending never
// rises from zero, so a task is either waited for or refused.
func (st *scopeState) enter() {
	for {
		n := st.pending.Load()
		if n == 0 {
			panic("gopar: a task was started in a scope that has ended; start tasks (Group.Go, Scope.Spawn) only while the Scope call runs: from its body, from its tasks, or from goroutines they wait for")
		}
		if st.pending.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// spawnForeign starts run for a goroutine that does not own the Worker of
// the Scope it called Spawn on. The task goes on the scope's foreign list,
// for its waiter, and into the pool's injector, for any worker's main loop,
// so that it may start while the body still runs; the first to claim it
// runs it. Either way it runs under the scope's frame: a wait for the scope
// may then run what it forks.
func (st *scopeState) spawnForeign(p *Pool, run func(*Worker)) {
	t := &foreignTask{run: run, labels: labels.Current()}
	for {
		t.next = st.foreign.Load()
		if st.foreign.CompareAndSwap(t.next, t) {
			break
		}
	}
	j := &job{fn: func(w *Worker) {
		if t.claimed.CompareAndSwap(false, true) {
			run(w)
		}
	}, labels: t.labels}
	j.fr.detached = true
	j.fr.setParent(&st.fr)
	p.injector.Push(j)
	p.notify()
	st.wake.Set()
}

// scopeBinding is a value that the layer above bound to a worker in one
// scope (bound).
type scopeBinding struct {
	st *scopeState
	v  any
}

// bound returns the value mk made for s: made at the first call on s's
// worker in s's scope, and returned again while that worker's calls stay
// in that scope. par's *Group is such a value, so that a task allocates
// none: the tasks a worker runs in one scope share one. mk's value must
// depend only on s, since it is handed to every later call on the same
// worker and scope; a caller may keep it for as long as it likes. Only the
// goroutine acting as s's worker calls bound; a nil Worker gets a new value
// at every call. The worker holds the last value (and its scope's record)
// until it binds another, parks, or is released (a guest slot).
func bound(s Scope, mk func(Scope) any) any {
	if mk == nil {
		refuse("Bound", nilFunc)
	}
	w := s.w
	if w == nil {
		return mk(s)
	}
	// (Where the pool cannot tell which goroutine acts as a worker, isSelf
	// is false for all: the check is for where it can.)
	if invariant.Enabled && useCurG.Load() && !w.pool.inline && !w.isSelf() {
		invariant.Failf("bound called for worker %d by a goroutine that does not act as it", w.index)
	}
	if b := &w.bound; b.st == s.st {
		return b.v
	}
	v := mk(s)
	w.bound = scopeBinding{s.st, v}
	return v
}

// Worker returns the worker the scope value is bound to.
func (s Scope) Worker() *Worker { return s.w }

// record keeps the scope's first panic; a Goexit only until a panic comes.
func (st *scopeState) record(p *Panic) { record(&st.panicked, p) }

func (st *scopeState) finish() {
	if st.pending.Add(-1) == 0 {
		st.wake.Set()
		if ch := st.done.Load(); ch != nil {
			close(*ch)
		}
	}
}

// waitNil is wait without a Worker. The tasks ran at once where they were
// spawned; only those spawned from other goroutines can still be running.
// There is no worker to park: it blocks on a channel that the last finish
// closes (a goroutine of a testing/synctest bubble must block, not yield in
// a loop, for fake time to advance). The channel is stored before pending
// is read again, and finish reads it after its decrement: one of the two
// sees the other.
func (st *scopeState) waitNil() {
	if st.pending.Load() == 0 {
		return
	}
	ch := make(chan struct{})
	st.done.Store(&ch)
	if st.pending.Load() != 0 {
		<-ch
	}
}
