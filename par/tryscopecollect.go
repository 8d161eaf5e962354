package par

import (
	"context"
	"sync"
	"sync/atomic"
)

// TryScopeCollect is TryScope for tasks that give results: each task, and
// body, adds its results with CollectGroup.Emit, and TryScopeCollect
// returns them all, in the order a depth-first run on one goroutine would
// give them whatever the schedule: body's results and its tasks' in the
// order body emitted and started them, each task's in its place, in turn
// its own and its tasks' in the order it emitted and started them. A
// recursive walk that gathers what it finds, with no mutex of its own:
//
//	sums, err := par.TryScopeCollect(ctx, 16, func(ctx context.Context, g *par.CollectGroup[Sum]) error {
//		var walk func(dir string) func(context.Context, *par.CollectGroup[Sum]) error
//		walk = func(dir string) func(context.Context, *par.CollectGroup[Sum]) error {
//			return func(ctx context.Context, g *par.CollectGroup[Sum]) error {
//				entries, err := os.ReadDir(dir)
//				for _, e := range entries {
//					path := filepath.Join(dir, e.Name())
//					if e.IsDir() {
//						g.Go(walk(path)) // its sums come here, in entry order
//						continue
//					}
//					g.Go(func(ctx context.Context, g *par.CollectGroup[Sum]) error {
//						s, err := hash(ctx, path)
//						g.Emit(s)
//						return err
//					})
//				}
//				return err
//			}
//		}
//		g.Go(walk(root))
//		return nil
//	})
//
// Tasks, the limit, errors, the context, panics and Goexit follow
// TryScope: at the first error or panic the context of every task is
// cancelled and no waiting task starts; the tasks running finish. It
// returns the results and nil (an empty, non-nil slice for none), or a nil
// slice and the error TryScope would return: no partial result.
//
// Each task gets a *CollectGroup of its own, the place of its results.
// Its Go and Emit may be called from any goroutine while the scope is
// open; the calls on one group are ordered as they happen. Emit panics
// once the scope has ended, as Go does; TryScopeCollect panics as
// TryScope does on a limit below 1 or a nil function.
func TryScopeCollect[R any](ctx context.Context, limit int, body func(ctx context.Context, g *CollectGroup[R]) error) ([]R, error) {
	mustFunc(body, "TryScopeCollect")
	root := &CollectGroup[R]{scope: &collectScope{}}
	err := TryScope(ctx, limit, func(ctx context.Context, tg *TryGroup) error {
		root.scope.tg = tg
		return body(ctx, root)
	})
	root.scope.ended.Store(true)
	if err != nil {
		return nil, err
	}
	return root.appendTo(make([]R, 0, root.count())), nil
}

// CollectGroup starts the tasks of a TryScopeCollect and keeps the
// results of one task (or of the scope's body) with the groups of the
// tasks it started, in the order of the calls of Emit and Go.
type CollectGroup[R any] struct {
	scope *collectScope
	mu    sync.Mutex
	out   []collected[R]
}

// collectScope is what the groups of one TryScopeCollect share.
type collectScope struct {
	tg    *TryGroup
	ended atomic.Bool
}

// collected is a result, or, with sub set, the group of a task started.
type collected[R any] struct {
	r   R
	sub *CollectGroup[R]
}

// Go starts task as part of the scope, as TryGroup.Go does: it runs once
// a slot is free and receives the scope's context and a group of its own,
// whose results take this place in g's. Go returns at once. A nil task
// panics; so does a Go after the scope has ended.
func (g *CollectGroup[R]) Go(task func(ctx context.Context, g *CollectGroup[R]) error) {
	if task == nil {
		panic("gopar: CollectGroup.Go was given a nil function")
	}
	if g.scope.ended.Load() {
		panic("gopar: CollectGroup.Go called after its TryScopeCollect ended; start tasks from the scope's body or its tasks")
	}
	sub := &CollectGroup[R]{scope: g.scope}
	g.scope.tg.Go(func(ctx context.Context, _ *TryGroup) error { return task(ctx, sub) })
	g.mu.Lock()
	g.out = append(g.out, collected[R]{sub: sub})
	g.mu.Unlock()
}

// Emit adds r to g's results, after those emitted and the tasks started
// on g so far. It panics once the scope has ended.
func (g *CollectGroup[R]) Emit(r R) {
	if g.scope.ended.Load() {
		panic("gopar: CollectGroup.Emit called after its TryScopeCollect ended; emit from the scope's body or its tasks")
	}
	g.mu.Lock()
	g.out = append(g.out, collected[R]{r: r})
	g.mu.Unlock()
}

// count returns the number of results of g and the groups under it. The
// scope has ended: nothing changes them any more.
func (g *CollectGroup[R]) count() int {
	n := 0
	for _, c := range g.out {
		if c.sub != nil {
			n += c.sub.count()
		} else {
			n++
		}
	}
	return n
}

// appendTo appends the results of g and the groups under it to out, in
// order.
func (g *CollectGroup[R]) appendTo(out []R) []R {
	for _, c := range g.out {
		if c.sub != nil {
			out = c.sub.appendTo(out)
		} else {
			out = append(out, c.r)
		}
	}
	return out
}
