package runtime

import (
	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/internal/labels"
)

// JoinFunc is the fast form of Join for recursive divide and conquer: it
// returns f(w, a) and f(w, b), computed possibly in parallel.
//
//	func fib(w *runtime.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		x, y := runtime.JoinFunc(w, fib, n-1, n-2)
//		return x + y
//	}
//
// Where Join offers b for stealing at once (a closure that escapes to the
// heap, and two atomic operations), JoinFunc keeps (f, b) private to w and
// calls f(w, a); the pending call becomes stealable only when another
// participant is looking for work, and then it is the largest piece of work
// w has. When nobody is idle, a JoinFunc costs a few nanoseconds over the
// two plain calls and allocates nothing. That still outweighs pieces of a
// few nanoseconds: a recursion over tiny pieces (a tree's nodes) runs
// faster forking only above a depth or a size, with the plain recursion
// below.
//
// Pass a function that is not a closure (or a closure created once, outside
// the recursion): a closure created at every level is an allocation per
// call. Put everything the two halves differ in into A, and keep A small;
// it is copied into the record.
//
// # Panics
//
// As Join: if f panics for a or for b, JoinFunc still waits for the other
// call, then re-panics with a *Panic (a's if both panicked). A panic in the
// call for a does not skip the call for b.
//
// On a nil Worker, JoinFunc calls f(nil, a), then f(nil, b), with the same
// panic behaviour. A nil f panics at once.
func JoinFunc[A, R any](w *Worker, f func(*Worker, A) R, a, b A) (ra, rb R) {
	// JoinFunc records (f, b) in a private stack of w's and calls f(w, a).
	// The record becomes a job that other workers can steal only when one of
	// them is looking for work: the next JoinFunc on w then shares the oldest
	// record still private, the largest piece of work w has. This is the lazy
	// publication of Spice's heartbeat scheduling, with hunger in place of the
	// timer.
	if f == nil {
		refuse("JoinFunc", nilFunc)
	}
	if w == nil {
		return joinFuncInline(f, a, b)
	}
	s, ok := w.forks.(*forkStack[A, R])
	if !ok {
		s = forkStackFor[A, R](w)
	}
	i := len(s.frames)
	s.frames = append(s.frames, forkFrame[A, R]{f: f, arg: b})
	if w.pool.idle.anyIdle() {
		w.share()
	}
	// One deferred function covers both calls: cheaper than a recover
	// around each, and it does nothing unless one of them panics or ends
	// the goroutine with runtime.Goexit.
	phase := inA
	defer func() {
		if phase != finished {
			s.unwind(w, i, phase, recover())
		}
	}()
	ra = f(w, a)
	// Index again: the call above may have grown the slice. A shared
	// frame's argument has moved into its job.
	b = s.frames[i].arg
	if j := s.pop(i); j != nil {
		// The shared path keeps its own deferred function, out of line:
		// the inline path's stays as small as it was before frames.
		phase = finished
		return ra, j.join(w)
	}
	phase = inBInline
	rb = f(w, b)
	phase = finished
	return ra, rb
}

// join returns the result of a shared frame's job once it has run, on w or
// on its thief, and re-raises its panic or Goexit. A Goexit from a job w
// runs while it waits still waits for j before it goes on.
func (j *forkJob[A, R]) join(w *Worker) R {
	phase := inB
	defer func() {
		if phase == inB {
			p := unwinding(recover())
			j.wait(w, nil)
			if p = stronger(p, j.panicked); isPanic(p) {
				panic(p)
			}
		}
	}()
	j.wait(w, &phase)
	phase = finished
	raise(j.panicked) // a panic, or a Goexit on the thief
	return j.result
}

// wait returns once j has run, on w or on its thief. If w takes j back to
// run it, *phase (if phase is not nil) becomes inBInline first.
func (j *forkJob[A, R]) wait(w *Worker, phase *int) {
	if w.takeBack(&j.job, phase) {
		j.panicked = w.call(j.fn)
	} else {
		w.waitUnder(&j.done, &j.fr)
	}
}

// pop removes frame i, the top one, and returns its job, if it was shared.
func (s *forkStack[A, R]) pop(i int) *forkJob[A, R] {
	if invariant.Enabled && i != len(s.frames)-1 {
		invariant.Failf("JoinFunc popping frame %d of %d: frames must unwind in stack order", i, len(s.frames))
	}
	j := s.frames[i].job
	s.frames[i] = forkFrame[A, R]{}
	s.frames = s.frames[:i]
	s.shared = min(s.shared, i)
	return j
}

// unwind finishes a JoinFunc that did not return: its call for a or b
// panicked with v, or (v nil) ended the goroutine with runtime.Goexit. The
// call for b still runs, or is waited for; then the failure goes on as a
// *Panic, a's if both calls panicked, and a panic wins over a Goexit. (A
// shared b taken back or waited for is forkJob.join's to finish.)
func (s *forkStack[A, R]) unwind(w *Worker, i int, phase int, v any) {
	p := unwinding(v)
	if phase == inA {
		fr := s.frames[i]
		if j := s.pop(i); j == nil {
			p = callAfter(p, func() { fr.f(w, fr.arg) })
		} else {
			callAfter(p, func() { j.wait(w, nil) })
			p = stronger(p, j.panicked)
		}
	}
	if isPanic(p) {
		panic(p)
	}
}

func joinFuncInline[A, R any](f func(*Worker, A) R, a, b A) (ra, rb R) {
	phase := inA
	defer func() {
		if phase != finished {
			p := unwinding(recover())
			if phase == inA {
				p = callAfter(p, func() { f(nil, b) })
			}
			if isPanic(p) {
				panic(p)
			}
		}
	}()
	ra = f(nil, a)
	phase = inBInline
	rb = f(nil, b)
	phase = finished
	return ra, rb
}

// callFunc returns f(w, x), or what it panicked with.
func callFunc[A, R any](w *Worker, f func(*Worker, A) R, x A) (r R, p *Panic) {
	returned := false
	defer func() {
		if !returned {
			p = unwinding(recover())
		}
	}()
	r = f(w, x)
	returned = true
	return r, nil
}

// forkFrame is the record of one JoinFunc in progress: the call for b that
// is still to be made, and the job it became if it was shared.
type forkFrame[A, R any] struct {
	f   func(*Worker, A) R
	arg A
	job *forkJob[A, R]
}

// forkStack holds the frames of the JoinFuncs of one type that are running
// on a worker, outermost first. frames[:shared] have been shared: a frame
// is shared only once every older frame is, so the jobs enter the deque in
// the order thieves should take them, oldest (largest) first. Only the
// worker's goroutine touches it.
type forkStack[A, R any] struct {
	frames []forkFrame[A, R]
	shared int
	// floor seals the frames of outer regions: frames[:floor] were pushed
	// before the worker entered the region it runs in now (a job it took
	// while waiting, a Scope, a loop), and are not shared until it leaves
	// (see Worker.seal). So every frame at or above floor was pushed in the
	// frame running now, w.at, which becomes its job's parent: no call
	// records its frame.
	floor int
}

// forkJob is a shared frame: a job whose result the owner reads once done
// is set.
type forkJob[A, R any] struct {
	job
	result R
}

// sharer is the untyped view of a forkStack.
type sharer interface {
	// shareOldest turns the oldest private frame into a job on w's deque,
	// and reports false if there is none.
	shareOldest(w *Worker) bool
	// seal raises the floor to the frames pushed so far and returns the
	// old floor, for unseal.
	seal() int
	unseal(floor int)
}

func (s *forkStack[A, R]) seal() int {
	f := s.floor
	s.floor = len(s.frames)
	return f
}

func (s *forkStack[A, R]) unseal(floor int) { s.floor = floor }

func (s *forkStack[A, R]) shareOldest(w *Worker) bool {
	k := s.shared
	if k == len(s.frames) {
		return false
	}
	// Does the frame belong to an outer region of this worker (a JoinFunc
	// that waits further down the stack, while w runs a job it took)? Then
	// it is not shared while w is inside: its job would sit on top of the
	// inner region's jobs, where the inner waits, which may not run it,
	// would find it first.
	if k < s.floor {
		return false
	}
	fr := &s.frames[k]
	if invariant.Enabled && (fr.job != nil || (k > 0 && s.frames[k-1].job == nil)) {
		invariant.Failf("sharing frame %d of %d: shared frames must be exactly the oldest %d", k, len(s.frames), k)
	}
	f, arg := fr.f, fr.arg
	j := new(forkJob[A, R])
	// The frame was pushed in the region w runs in now (it is above the
	// floor): the job descends from it.
	at := w.at
	at.fork()
	j.fr.setParent(at)
	j.fn = func(w *Worker) { j.result = f(w, arg) }
	j.labels = labels.Current() // the frame's: pushed in this region
	fr.job = j
	fr.arg = *new(A) // the job holds it now
	s.shared = k + 1
	w.push(&j.job)
	return true
}

// forkStackFor returns w's stack for JoinFunc[A, R], creating it on first
// use, and makes it the one JoinFunc finds first.
func forkStackFor[A, R any](w *Worker) *forkStack[A, R] {
	for _, sh := range w.forkStacks {
		if s, ok := sh.(*forkStack[A, R]); ok {
			w.forks = s
			return s
		}
	}
	s := &forkStack[A, R]{}
	w.forkStacks = append(w.forkStacks, s)
	w.forks = s
	return s
}

// share gives an idle participant something to steal: the oldest private
// JoinFunc frame, unless w's deque already holds work nobody took.
func (w *Worker) share() {
	if w.deque.Len() > 0 {
		return
	}
	for _, s := range w.forkStacks {
		if s.shareOldest(w) {
			w.stats.shared.Add(1)
			return
		}
	}
}
