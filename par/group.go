package par

import (
	"sync/atomic"

	"github.com/gopar-dev/gopar/runtime"
)

// JoinAll runs every function of fns, possibly in parallel, on the default
// pool, and returns when all of them have returned: Join for any number of
// different tasks, the `var wg sync.WaitGroup` over a few closures.
//
//	par.JoinAll(
//		func() { stretch = check(bottomUp(maxDepth + 1)) },
//		func() { longLived = bottomUp(maxDepth) },
//		func() { report = depths(minDepth, maxDepth) },
//	)
//
// It splits fns in halves and joins the halves with Join, recursively, so it
// has Join's rules: it runs the functions inline while every participant is
// busy, and a goroutine that waits runs only work of its own tasks, so a
// JoinAll nested anywhere (in a task, in a ForEach callback) cannot deadlock.
// For tasks that are discovered while running, such as one task per
// directory found, use Scope.
//
// A panic in one function does not skip the others: once all have returned,
// JoinAll re-panics with a *Panic holding the value and stack of the
// lowest-indexed function that panicked. No functions is a no-op; a nil
// function panics at once, before any runs.
func JoinAll(fns ...func()) {
	for _, f := range fns {
		if f == nil {
			panic("gopar: par.JoinAll was given a nil function")
		}
	}
	joinAll(runtime.Default(), fns)
}

// joinAll joins the two halves of fns, so that the tasks are shared out as
// a balanced tree: the first steal takes half of them.
func joinAll(p *runtime.Pool, fns []func()) {
	switch len(fns) {
	case 0:
	case 1:
		// A *Panic as from any other count of functions.
		if pv := runtime.Catch(fns[0]); pv != nil {
			panic(pv)
		}
	case 2:
		p.JoinLazy(fns[0], fns[1])
	default:
		mid := len(fns) / 2
		p.JoinLazy(func() { joinAll(p, fns[:mid]) }, func() { joinAll(p, fns[mid:]) })
	}
}

// Scope calls body with a *Group on the default pool, and returns when body
// and every task started with Group.Go in it, and the tasks those started,
// have returned: Rayon's scope, or a sync.WaitGroup whose Wait is the end
// of body. Use it when the tasks are found as the work goes on (the
// subdirectories of a walk, the two halves of a recursive split, a task per
// level); for a list of functions known up front, JoinAll reads better.
//
//	par.Scope(func(g *par.Group) {
//		for _, dir := range roots {
//			g.Go(func(g *par.Group) { walk(g, dir) })
//		}
//	})
//
// While it waits, the calling goroutine runs the scope's tasks itself, so a
// Scope nested in a task or in a ForEach callback cannot deadlock, even on a
// one-worker pool.
//
// A panic in body or in a task does not stop the others: the scope still
// runs every task it started, then Scope re-panics in the caller with a
// *Panic holding the first panic's value and stack. A nil body panics at
// once.
func Scope(body func(g *Group)) {
	if body == nil {
		panic("gopar: par.Scope was given a nil function")
	}
	runtime.Default().Scope(func(s runtime.Scope) { runGroup(s, body) })
}

// Group starts tasks inside a Scope. A *Group is handed to the scope's
// body and to every task, and is bound to the goroutine running that
// function: start tasks with the *Group your own function was given, never
// with one captured from an enclosing function (which runs on another
// goroutine). Go on a *Group whose function has returned panics.
type Group struct {
	s runtime.Scope
	// live is cleared when the function the group was handed to returns,
	// so that a Group kept past it is caught rather than pushing work onto
	// a deque it does not own.
	live atomic.Bool
}

// runGroup calls fn with a Group bound to the worker of s, and retires the
// Group when fn returns (or panics).
func runGroup(s runtime.Scope, fn func(g *Group)) {
	g := &Group{s: s}
	g.live.Store(true)
	defer g.live.Store(false)
	fn(g)
}

// Go starts task as part of the scope: it runs, possibly in parallel with
// the caller, before Scope returns, and receives a *Group of its own
// through which it may start more tasks. Go returns at once. A nil task
// panics.
func (g *Group) Go(task func(g *Group)) {
	if task == nil {
		panic("gopar: Group.Go was given a nil function")
	}
	if !g.live.Load() {
		panic("gopar: Group.Go on a *Group whose function has returned; start tasks with the *Group your own function was given")
	}
	g.s.Spawn(func(s runtime.Scope) { runGroup(s, task) })
}
