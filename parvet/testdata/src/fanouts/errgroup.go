package fanouts

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
)

func check(ctx context.Context, s string) error {
	if s == "" {
		return errors.New("empty")
	}
	return ctx.Err()
}

func validate(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	return nil
}

// 13: an errgroup, no limit, no context: every item runs, even after one
// has failed, so the rewrite runs them all with ForEach and keeps the
// first error, where TryForEach would start none after it.
func egPlain(words []string) error {
	var g errgroup.Group
	for _, w := range words { // want `fan-out: an errgroup loop; gopar replaces it with par.Slice\(words\).ForEach \(every item runs, as in the group, and the first error is kept, as its Wait returns it; ForEachErr for every error\) on the pool`
		g.Go(func() error {
			return validate(w)
		})
	}
	return g.Wait()
}

// 14: SetLimit.
func egSetLimit(words []string) error {
	var g errgroup.Group
	g.SetLimit(4)
	for _, w := range words { // want `par.Slice\(words\).Blocking\(4\).ForEach \(at most 4 at once, every item runs, as in the group, and the first error is kept`
		g.Go(func() error { return validate(w) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return nil
}

// 15: WithContext.
func egWithContext(ctx context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want `par.Slice\(urls\).WithContext\(ctx\).TryForEachContext`
		g.Go(func() error {
			return check(ctx, u)
		})
	}
	return g.Wait()
}

// 16: WithContext and SetLimit.
func egWithContextLimit(parent context.Context, urls []string, n int) error {
	g, gctx := errgroup.WithContext(parent)
	g.SetLimit(n)
	for _, u := range urls { // want `par.Slice\(urls\).WithContext\(parent\).Blocking\(n\).TryForEachContext`
		g.Go(func() error {
			return check(gctx, u)
		})
	}
	err := g.Wait()
	return err
}

// 17: results by index.
func egIndexValue(words []string) ([]int, error) {
	out := make([]int, len(words))
	g := new(errgroup.Group)
	for i, w := range words { // want `fan-out: an errgroup loop`
		g.Go(func() error {
			if err := validate(w); err != nil {
				return err
			}
			out[i] = work(w)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// 18: a count.
func egCount(n int, out []int) error {
	g := &errgroup.Group{}
	for i := range n { // want `par.Range\(0, n\).TryForEach`
		g.Go(func() error {
			out[i] = i
			return nil
		})
	}
	return g.Wait()
}

// 19: the group's context discarded: every item runs, even after one has
// failed.
func egNoCtx(ctx context.Context, words []string) error {
	g, _ := errgroup.WithContext(ctx)
	for _, w := range words { // want `fan-out: an errgroup loop; gopar replaces it with par.Slice\(words\).ForEach \(every item runs, as in the group, and the first error is kept`
		g.Go(func() error { return validate(w) })
	}
	return g.Wait()
}

// 21: each task backs off for a while, which its context may cut short:
// a sleep, not a wait on the other tasks.
func egBackoff(parent context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(parent)
	for _, u := range urls { // want `par.Slice\(urls\).WithContext\(parent\).TryForEachContext`
		g.Go(func() error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
			return check(ctx, u)
		})
	}
	return g.Wait()
}

// 94: each task takes a unit of a semaphore.Weighted of 4: Blocking(4)
// carries the bound (the semaphore stays, taken inside the callback).
func egWeighted(ctx context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(ctx)
	sem := semaphore.NewWeighted(4)
	for _, u := range urls { // want `fan-out: an errgroup loop whose tasks each take a unit of sem, a semaphore.Weighted; gopar replaces it with par.Slice\(urls\).WithContext\(ctx\).Blocking\(4\).TryForEachContext`
		g.Go(func() error {
			if err := sem.Acquire(ctx, 1); err != nil {
				return err
			}
			defer sem.Release(1)
			return check(ctx, u)
		})
	}
	return g.Wait()
}

// dirs gives its paths from a method, as a call the loop ranges over.
type dirs struct{ paths []string }

func (d *dirs) Paths() []string { return d.paths }

// 96: the loop ranges over what a method returns, which it evaluates once,
// before the first task: the rewrite evaluates it once at the same place,
// in par.Slice's argument.
func egRangeCall(ctx context.Context, d *dirs, n int) error {
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(n)
	for _, p := range d.Paths() { // want `par.Slice\(d.Paths\(\)\).Blocking\(n\).ForEach \(at most n at once, every item runs`
		g.Go(func() error { return validate(p) })
	}
	return g.Wait()
}

// 97: the loop checks the group's context before it starts each task, and
// stops starting them once it is done (an error, or the parent's cancel):
// with a limit, tasks start as others end, which is what WithContext does
// for par's items, so the rewrite drops the check.
func egStopsOnCtx(parent context.Context, urls []string, n int) error {
	g, ctx := errgroup.WithContext(parent)
	g.SetLimit(n)
loop:
	for _, u := range urls { // want `par.Slice\(urls\).WithContext\(parent\).Blocking\(n\).TryForEachContext`
		select {
		case <-ctx.Done():
			break loop
		default:
		}
		g.Go(func() error { return check(ctx, u) })
	}
	return g.Wait()
}

// 103: the loop counts from one bound to another (<=) and skips some
// items with continue: par.Range over the bounds, the skip a return at
// the callback's start.
func egEpochs(ctx context.Context, first, last int, out []error) error {
	g, ctx := errgroup.WithContext(ctx)
	for n := first; n <= last; n++ { // want `fan-out: an errgroup loop; gopar replaces it`
		if n < 0 {
			continue
		}
		g.Go(func() error {
			return check(ctx, string(rune('a'+n)))
		})
	}
	return g.Wait()
}

// 103b: the skip comes after the task starts, where it skips nothing: it
// may not move before the task, so no fix.
func egSkipAfter(ctx context.Context, urls []string, bad map[string]bool) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want "fan-out: an errgroup loop; .*no fix: the loop does more than start the goroutines \\(`if bad\\[u\\] {`\\)"
		g.Go(func() error { return check(ctx, u) })
		if bad[u] {
			continue
		}
	}
	return g.Wait()
}

// 103c: the bound changes in the loop: no fix.
func egBoundMoves(ctx context.Context, lo, hi int) error {
	g, ctx := errgroup.WithContext(ctx)
	for i := lo; i < hi; i++ { // want "fan-out: an errgroup loop; .*no fix: the loop is neither a range"
		g.Go(func() error { return check(ctx, string(rune(i))) })
		hi--
	}
	return g.Wait()
}

// 109: a declaration between the loop and the Wait that reads nothing the
// loop changes stays where it is.
func egBetween(ctx context.Context, urls []string, prefix string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want `fan-out: an errgroup loop; gopar replaces it`
		g.Go(func() error { return check(ctx, u) })
	}
	label := prefix + "/checked"
	if err := g.Wait(); err != nil {
		return errors.New(label + ": " + err.Error())
	}
	return nil
}

// 108b: the group and its context declared in a var block beside the
// limit's variable: the rewrite removes the group's line, whose context
// becomes the callback's, and keeps the limit's.
func egVarBlock(urls []string) error {
	var (
		g, ctx  = errgroup.WithContext(context.Background())
		workers = len(urls) / 2
	)
	g.SetLimit(workers + 1)
	for i := 0; i < len(urls); i++ { // want `par.Range\(0, len\(urls\)\).WithContext\(context.Background\(\)\).Blocking\(workers \+ 1\).TryForEachContext`
		g.Go(func() error { return check(ctx, urls[i]) })
	}
	return g.Wait()
}
