package fanouts

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// 98: errgroup workers, a closure with a name, share their group with the
// producer, whose sends watch the group's context: the workers become one
// task of the group that drains the channel with TryForEach.
func egNamedWorkers(ctx context.Context, urls []string, n int) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan string)
	g.Go(func() error {
		defer close(jobs)
		for _, u := range urls {
			select {
			case <-ctx.Done():
				return nil
			case jobs <- u:
			}
		}
		return nil
	})
	worker := func() error {
		for u := range jobs {
			err := check(ctx, u)
			if err != nil {
				return err
			}
		}
		return nil
	}
	for range n { // want `fan-out: a pool of n errgroup workers draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(n\).TryForEach`
		g.Go(worker)
	}
	return g.Wait()
}

// 98b: the same, but the producer's send does not watch the context: once
// TryForEach stops after a failed call, the producer would block for ever,
// where the other workers drained the channel.
func egWorkersPlainSend(ctx context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan string)
	g.Go(func() error {
		defer close(jobs)
		for _, u := range urls {
			jobs <- u
		}
		return nil
	})
	for range 4 { // want "fan-out: a pool of 4 errgroup workers draining a channel; .*; no fix: a send on jobs does not watch the group's context, and would block once TryForEach stops \\(`jobs <- u`\\)"
		g.Go(func() error {
			for u := range jobs {
				if err := check(ctx, u); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// 98c: workers that never fail, fed by a producer task started after them
// with plain sends: every item runs, as it did, with ForEach.
func egWorkersNoFail(targets map[string][]string, out chan<- string) error {
	var g errgroup.Group
	ch := make(chan string)
	for range 2 { // want `fan-out: a pool of 2 errgroup workers draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(2\).TryForEach`
		g.Go(func() error {
			for job := range ch {
				out <- job + "!"
			}
			return nil
		})
	}
	g.Go(func() error {
		for os, archs := range targets {
			for _, arch := range archs {
				ch <- os + "/" + arch
			}
		}
		close(ch)
		return nil
	})
	return g.Wait()
}

// 98d: the group has a limit, which bounds the workers and the producer
// together: the rewrite would change how many run at once.
func egWorkersLimit(ctx context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(3)
	jobs := make(chan string)
	g.Go(func() error {
		defer close(jobs)
		for _, u := range urls {
			select {
			case <-ctx.Done():
				return nil
			case jobs <- u:
			}
		}
		return nil
	})
	for range 2 { // want "fan-out: a pool of 2 errgroup workers draining a channel; .*; no fix: the group is used other than to start its tasks and wait \\(a limit, say\\) \\(`g.SetLimit\\(3\\)`\\)"
		g.Go(func() error {
			for u := range jobs {
				if err := check(ctx, u); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// 98e: the producer is a task started after the workers, between the loop
// and the Wait: the workers' task starts where they did, and the producer
// and the Wait stay where they are.
func egWorkersProducerAfter(ctx context.Context, urls []string, n int) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan string)
	worker := func() error {
		for u := range jobs {
			if err := check(ctx, u); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < n; i++ { // want `fan-out: a pool of n errgroup workers draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(n\).TryForEach`
		g.Go(worker)
	}
	g.Go(func() error {
		defer close(jobs)
		for _, u := range urls {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case jobs <- u:
			}
		}
		return nil
	})
	return g.Wait()
}

// 98e: the same with a count of workers of another integer type (uint):
// the limit converts it to an int.
func egNamedWorkersUint(ctx context.Context, urls []string, n uint) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan string)
	g.Go(func() error {
		defer close(jobs)
		for _, u := range urls {
			select {
			case jobs <- u:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	worker := func() error {
		for u := range jobs {
			if err := check(ctx, u); err != nil {
				return err
			}
		}
		return nil
	}
	for range n { // want `fan-out: a pool of n errgroup workers draining a channel; gopar replaces it`
		g.Go(worker)
	}
	return g.Wait()
}
