package par

import (
	"context"
	"fmt"
	"sync"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// TryScope runs body, and the tasks it starts with TryGroup.Go, and the
// tasks those start, for work that blocks, such as I/O, at most limit
// tasks at once; it returns when all have returned. It is the recursive
// form of Blocking(limit).TryForEachContext: a directory walk that reads
// each directory and hashes each file, a crawler, a paginated lister
// whose pages list more pages.
//
//	err := par.TryScope(ctx, 16, func(ctx context.Context, g *par.TryGroup) error {
//		var walk func(dir string) func(context.Context, *par.TryGroup) error
//		walk = func(dir string) func(context.Context, *par.TryGroup) error {
//			return func(ctx context.Context, g *par.TryGroup) error {
//				entries, err := os.ReadDir(dir)
//				for _, e := range entries {
//					path := filepath.Join(dir, e.Name())
//					if e.IsDir() {
//						g.Go(walk(path))
//					} else {
//						g.Go(func(ctx context.Context, _ *par.TryGroup) error { return hash(ctx, path) })
//					}
//				}
//				return err
//			}
//		}
//		g.Go(walk(root))
//		return nil
//	})
//
// Tasks run on goroutines of their own, never on the pool's workers, at
// most limit at once (body runs on the caller's goroutine and does not
// count). Go never waits: a task that finds every slot taken waits in a
// queue, so a task that starts tasks cannot deadlock, as it can with an
// errgroup whose SetLimit makes Go wait. The most recently started waiting
// task runs first, which keeps a walk depth-first and its queue short.
//
// Errors and context are those of TryForEachContext: every task and body
// receive a context that derives from ctx and is cancelled, with the
// failure as its cause (context.Cause), at the first error or panic of a
// task or body; from then on no waiting task starts, and the tasks in
// flight see their context done. Once they have returned, TryScope returns
// that first failure, never an error it provoked. If ctx is done first, no
// task starts after it, and TryScope returns context.Cause(ctx) if that
// left a task out, nil if every task had run and returned nil. A panic is
// re-raised in the caller as a *Panic once every running task has
// returned; a runtime.Goexit in a task cancels the context with ErrGoexit,
// then ends the caller's goroutine as runtime.Goexit.
//
// For tasks that give results (a walk that gathers what it finds), use
// TryScopeCollect, which returns them in a fixed order.
//
// TryScope panics if limit < 1 or a function is nil; Go panics once the
// scope has ended.
func TryScope(ctx context.Context, limit int, body func(ctx context.Context, g *TryGroup) error) error {
	if ctx == nil {
		panic("gopar: par.TryScope was given a nil context; use context.Background() for none")
	}
	if limit < 1 {
		panic(fmt.Sprintf("gopar: par.TryScope(%d): the limit of tasks at once must be at least 1", limit))
	}
	mustFunc(body, "TryScope")
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g := &TryGroup{ctx: cctx, cancel: cancel, limit: limit}
	g.pending.Add(1) // body
	normal := false
	defer func() {
		if !normal {
			// body panicked or called runtime.Goexit: the tasks learn it
			// at once, and the caller waits for the running ones.
			p := plumb.Unwinding(recover())
			g.fail(p)
			g.done()
			g.wait()
			plumb.Raise(plumb.Stronger(p, g.panicked))
		}
	}()
	if err := body(cctx, g); err != nil {
		cancel(err) // only the first cancel sets the cause
		g.failed()
	}
	normal = true
	g.done()
	g.wait()
	plumb.Raise(g.panicked)
	if g.hasFailed || g.left {
		return context.Cause(cctx)
	}
	return nil
}

// TryGroup starts the tasks of a TryScope. Each task and the scope's body
// get the same *TryGroup; it may be used from any goroutine while the
// scope is open.
type TryGroup struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	limit  int

	// pending counts body and the tasks started and not yet returned
	// (waiting or running): TryScope returns when it is zero.
	pending sync.WaitGroup
	// workers counts the goroutines that run tasks, so that none is left
	// when TryScope returns.
	workers sync.WaitGroup

	mu        sync.Mutex
	queue     []func(context.Context, *TryGroup) error // waiting tasks, the newest last
	running   int                                      // goroutines running tasks
	closed    bool                                     // the scope has ended: Go panics
	hasFailed bool                                     // a task or body failed
	left      bool                                     // a task was dropped, not run
	panicked  *runtime.Panic                           // the strongest panic or Goexit of a task
}

// Go starts task as part of the scope: it runs once a slot is free, before
// TryScope returns, and receives the scope's context and *TryGroup. Go
// returns at once. A task that has not started when the scope's context is
// done is dropped. A nil task panics; so does a Go after the scope has
// ended.
func (g *TryGroup) Go(task func(ctx context.Context, g *TryGroup) error) {
	if task == nil {
		panic("gopar: TryGroup.Go was given a nil function")
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		panic("gopar: TryGroup.Go called after its TryScope ended; start tasks from the scope's body or its tasks")
	}
	g.pending.Add(1)
	g.queue = append(g.queue, task)
	start := g.running < g.limit
	if start {
		g.running++
	}
	g.mu.Unlock()
	if start {
		g.workers.Add(1)
		go g.work()
	}
}

// work runs waiting tasks, newest first, until none is left.
func (g *TryGroup) work() {
	defer g.workers.Done() // after a runtime.Goexit too
	for {
		g.mu.Lock()
		n := len(g.queue)
		if n == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		task := g.queue[n-1]
		g.queue[n-1] = nil
		g.queue = g.queue[:n-1]
		g.mu.Unlock()
		if g.ctx.Err() != nil {
			// The scope is failing or its context is done: the task is
			// dropped without a call.
			g.mu.Lock()
			g.left = true
			g.mu.Unlock()
			g.done()
			continue
		}
		g.run(task)
	}
}

// run runs one task. A panic is recovered and recorded; a runtime.Goexit
// is recorded and goes on, ending this goroutine, whose slot another one
// takes if tasks wait.
func (g *TryGroup) run(task func(context.Context, *TryGroup) error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		p := plumb.Unwinding(recover())
		g.fail(p)
		if p.IsGoexit() {
			g.mu.Lock()
			g.running--
			more := len(g.queue) > 0 && g.running < g.limit
			if more {
				g.running++
			}
			g.mu.Unlock()
			if more {
				g.workers.Add(1)
				go g.work()
			}
		}
		g.done()
	}()
	if err := task(g.ctx, g); err != nil {
		g.cancel(err) // only the first cancel sets the cause
		g.failed()
	}
	returned = true
	g.done()
}

// fail records a panic or Goexit p and cancels the scope's context with
// it (ErrGoexit for a Goexit).
func (g *TryGroup) fail(p *runtime.Panic) {
	if p.IsGoexit() {
		g.cancel(ErrGoexit)
	} else {
		g.cancel(p)
	}
	g.mu.Lock()
	g.panicked = plumb.Stronger(g.panicked, p)
	g.hasFailed = true
	g.mu.Unlock()
}

// failed records that a task or body returned an error.
func (g *TryGroup) failed() {
	g.mu.Lock()
	g.hasFailed = true
	g.mu.Unlock()
}

// done counts body or a task as returned.
func (g *TryGroup) done() { g.pending.Done() }

// wait waits until body and every task have returned, ends the scope (Go
// panics from then on), and waits until the goroutines that ran the tasks
// have returned.
func (g *TryGroup) wait() {
	g.pending.Wait()
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.workers.Wait()
}
