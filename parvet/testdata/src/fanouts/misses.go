package fanouts

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// 70: workers that drain the channel in a select that also watches a
// context, fed by a producer that watches the same context.
func workersSelect(ctx context.Context, items []string, out *sync.Map) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; .*; no fix: the workers select on other channels besides jobs`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case j, ok := <-jobs:
					if !ok {
						return
					}
					out.Store(j, work(j))
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	for _, it := range items {
		select {
		case jobs <- it:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
}

// 71: the same with errgroup workers and the group's context.
func workersSelectGroup(ctx context.Context, items []string, out *sync.Map) error {
	jobs := make(chan string)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for _, it := range items {
			select {
			case jobs <- it:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for i := 0; i < 8; i++ { // want `fan-out: a pool of 8 errgroup workers draining a channel; .*; no fix: the workers select on other channels besides jobs`
		g.Go(func() error {
			for {
				select {
				case <-gctx.Done():
					return gctx.Err()
				case j, ok := <-jobs:
					if !ok {
						return nil
					}
					if err := check(gctx, j); err != nil {
						return err
					}
				}
			}
		})
	}
	return g.Wait()
}

// 72: the Wait inside a closure that the caller calls after the loop.
func wgWaitClosure(words []string, out *sync.Map) {
	var wg sync.WaitGroup
	wait := func() {
		wg.Wait()
	}
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the Wait runs inside wait, a closure`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Store(w, work(w))
		}()
	}
	wait()
}

// 73: the Wait deferred before the loop.
func wgDeferWait(words []string, out *sync.Map) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the Wait is deferred`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Store(w, work(w))
		}()
	}
}

// 74: the Wait in a deferred function, with the results' close.
func wgDeferFunc(words []string) chan int {
	results := make(chan int, len(words))
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		close(results)
	}()
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the Wait is deferred`
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- work(w)
		}()
	}
	return results
}

// 75: the group's Wait run as a task of another group (wg.Go(savers.Wait)),
// over a channel that the first group's producer fills.
func egWaitAsTask(ctx context.Context, items []string) error {
	var wg errgroup.Group
	ch := make(chan string)
	wg.Go(func() error {
		defer close(ch)
		for _, it := range items {
			ch <- it
		}
		return nil
	})
	var savers errgroup.Group
	savers.SetLimit(4)
	for s := range ch { // want `fan-out: an errgroup loop; .*; no fix: the Wait runs in a goroutine of its own`
		savers.Go(func() error {
			return check(ctx, s)
		})
	}
	wg.Go(savers.Wait)
	return wg.Wait()
}

// 77: errgroup workers whose endless loop takes work in a select among
// other statements, and a WaitGroup of the workers waited in a group task.
func workersSelectLater(ctx context.Context, items []string) error {
	g, gctx := errgroup.WithContext(ctx)
	ch := make(chan string)
	var loaders sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 errgroup workers draining a channel; .*; no fix: the workers select on other channels besides ch`
		loaders.Add(1)
		g.Go(func() error {
			defer loaders.Done()
			for {
				var s string
				var ok bool
				select {
				case <-gctx.Done():
					return nil
				case s, ok = <-ch:
					if !ok {
						return nil
					}
				}
				if err := check(gctx, s); err != nil {
					return err
				}
			}
		})
	}
	for _, it := range items {
		ch <- it
	}
	close(ch)
	return g.Wait()
}

// 78: errgroup workers that a WaitGroup also counts, waited in a task of
// the group: the task is the caller working beside the workers.
func wgWaitInTask(items []string, out *sync.Map) error {
	var g errgroup.Group
	ch := make(chan string)
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 errgroup workers draining a channel; .*; no fix: the caller works between the loop and the Wait`
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			for s := range ch {
				out.Store(s, work(s))
			}
			return nil
		})
	}
	g.Go(func() error {
		wg.Wait()
		return nil
	})
	for _, it := range items {
		ch <- it
	}
	close(ch)
	return g.Wait()
}

// 79: a goroutine per item that sends to a consumer the caller starts
// between the loop and the Wait (syncthing's NAT discovery).
func natConsumer(ctx context.Context, names []string) map[string]int {
	var wg sync.WaitGroup
	wg.Add(len(names))
	c := make(chan string)
	done := make(chan struct{})
	for _, n := range names { // want `fan-out: a goroutine per item with a sync.WaitGroup whose goroutines wait \(a select\)`
		go func(n string) {
			defer wg.Done()
			select {
			case c <- n:
			case <-ctx.Done():
			}
		}(n)
	}
	seen := map[string]int{}
	go func() {
		defer close(done)
		for n := range c {
			seen[n] = work(n)
		}
	}()
	wg.Wait()
	close(c)
	<-done
	return seen
}
