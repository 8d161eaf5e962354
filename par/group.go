package par

import (
	"github.com/gopar-dev/gopar/internal/plumb"
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
		if pv := plumb.Catch(fns[0]); pv != nil {
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
// body and to every task.
//
// Go may be called from any goroutine while the scope is open, as Rayon's
// scope.spawn may: on the *Group your own function was given, or on one
// captured from an enclosing function (the body's *Group from a task, from
// a ForEach callback in the body, or from a goroutine the body waits for),
// even after that function has returned. The scope waits for every task so
// started. The Group your own function was given is the fast one: it starts
// the task on the worker running your function, where a *Group of another
// function's worker hands it over through the pool. Go panics once the
// scope has ended, that is, once Scope has returned or is returning
// because the body and every task have finished.
type Group struct {
	s runtime.Scope
}

// runGroup calls fn with a Group bound to the worker of s.
func runGroup(s runtime.Scope, fn func(g *Group)) {
	fn(&Group{s: s})
}

// Go starts task as part of the scope: it runs, possibly in parallel with
// the caller, before Scope returns, and receives a *Group of its own
// through which it may start more tasks. Go returns at once. A nil task
// panics; so does a Go after the scope has ended (see Group).
//
// A task allocates nothing of gopar's beyond its closure: the tasks that
// one worker runs in a scope receive the same *Group. It costs two atomic
// operations on the scope's count: tens of nanoseconds on one core, more
// while workers contend for the count. A task should do at least some
// microseconds of work (docs/which.md, "Fork-join and recursion").
func (g *Group) Go(task func(g *Group)) {
	if task == nil {
		panic("gopar: Group.Go was given a nil function")
	}
	plumb.SpawnTask(g.s, groupTask(task))
}

// groupTask is a task started with Group.Go. A func is one pointer, so
// its conversion to the runtime's task interface allocates nothing.
type groupTask func(g *Group)

// Run calls the task with the Group of the worker that runs it.
func (t groupTask) Run(s runtime.Scope) {
	t(plumb.Bound(s, newGroup).(*Group))
}

// newGroup is the Group bound to s's worker in s's scope.
func newGroup(s runtime.Scope) any { return &Group{s: s} }
