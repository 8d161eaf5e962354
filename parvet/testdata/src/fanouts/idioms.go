package fanouts

import (
	"context"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
)

// 53: the Wait in a goroutine of its own, which closes the results when all
// are done: the par call takes the Wait's place there, every item at once
// as before, and the loop goes.
func wgCloseResults(words []string) int {
	results := make(chan int)
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- work(w)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	total := 0
	for r := range results {
		total += r
	}
	return total
}

// 53b: the same, but the caller clears the words while the callbacks would
// still read them: no fix.
func wgCloseResultsCleared(words []string) int {
	results := make(chan int)
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the caller changes the items after the loop`
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- work(w)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	clear(words)
	total := 0
	for r := range results {
		total += r
	}
	return total
}

// 54: a labelled loop that stops on its context.
func wgLabelled(ctx context.Context, words []string) {
	var wg sync.WaitGroup
loop:
	for _, w := range words { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the loop does more than start the goroutines \\(`select {`\\)"
		select {
		case <-ctx.Done():
			break loop
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	wg.Wait()
}

// 55: the spawn under an if: the callback returns where the condition is
// false.
func wgUnderIf(words []string, out []int) {
	var wg sync.WaitGroup
	for i, w := range words { // want "fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it"
		if w != "" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = work(w)
			}()
		}
	}
	wg.Wait()
}

// 55b: the spawn under an if whose condition calls a function that
// writes, which the loop evaluates in order: no fix.
func wgUnderIfCall(words []string, out []int) {
	var wg sync.WaitGroup
	for i, w := range words { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the goroutine starts only under an if \\(`if tally\\(w\\) > 0 {`\\)"
		if tally(w) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = work(w)
			}()
		}
	}
	wg.Wait()
}

// 56: joined by counting receives, with no group, the first error
// returned before the last receive: a range over Map's values would stop
// the rest of the work with it, so the par call runs in a goroutine of its
// own in the loop's place, every item at once as before, and the receives
// stay.
func countedErrors(ctx context.Context, urls []string) error {
	errc := make(chan error, len(urls))
	for _, u := range urls { // want `fan-out: a goroutine per item joined by counting receives from errc; gopar replaces it`
		go func() {
			errc <- check(ctx, u)
		}()
	}
	for range urls {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

// 56b: the same, every receive made: a range over Map's values, in the
// items' order.
func countedAll(ctx context.Context, urls []string) (failed int) {
	errc := make(chan error, len(urls))
	for _, u := range urls { // want `fan-out: a goroutine per item joined by counting receives from errc; gopar replaces it`
		go func() {
			u := strings.TrimSpace(u)
			errc <- check(ctx, u)
		}()
	}
	for range urls {
		if err := <-errc; err != nil {
			failed++
		}
	}
	return failed
}

// 56c: a count of goroutines doing the same work (badger's Flatten),
// joined by as many receives.
func countedWorkers(ctx context.Context, workers int) (success int) {
	errCh := make(chan error, 1)
	for i := 0; i < workers; i++ { // want `fan-out: a goroutine per item joined by counting receives from errCh; gopar replaces it`
		go func() {
			errCh <- check(ctx, "compact")
		}()
	}
	for i := 0; i < workers; i++ {
		err := <-errCh
		if err == nil {
			success++
		}
	}
	return success
}

// 57: a semaphore joined by refilling it: Blocking over its capacity, the
// refill gone.
func semRefill(words []string, out []int) {
	sem := make(chan struct{}, 4)
	for i, w := range words { // want `fan-out: a goroutine per item bounded by a semaphore, joined by refilling it; gopar replaces it with par.Slice\(words\).Blocking\(4\).ForEach`
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			out[i] = work(w)
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
}

// 57b: the same, the refill counted by the capacity's name and the
// semaphore closed after it (kopia's LoadSnapshots).
func semRefillClose(ids []string, limit int) []int {
	result := make([]int, len(ids))
	sem := make(chan bool, limit)
	for i, n := range ids { // want `fan-out: a goroutine per item bounded by a semaphore, joined by refilling it; gopar replaces it`
		sem <- true
		go func(i int, n string) {
			defer func() { <-sem }()
			result[i] = work(n)
		}(i, n)
	}
	for i := 0; i < limit; i++ {
		sem <- true
	}
	close(sem)
	return result
}

// 57c: the refill fills half the capacity: it does not wait for every
// goroutine, so no fix.
func semRefillHalf(ids []string, out []int) {
	sem := make(chan bool, 8)
	for i, n := range ids { // want `fan-out: a goroutine per item bounded by a semaphore, joined by refilling it; .*no fix: the join is not one loop that fills the semaphore to its capacity`
		sem <- true
		go func() {
			defer func() { <-sem }()
			out[i] = work(n)
		}()
	}
	for range 4 {
		sem <- true
	}
}

// 58: a semaphore.Weighted acquired in the goroutine.
func weightedInside(ctx context.Context, urls []string) {
	sem := semaphore.NewWeighted(4)
	var wg sync.WaitGroup
	for _, u := range urls { // want `fan-out: a goroutine per item bounded by a semaphore; .*; no fix: a semaphore.Weighted's Acquire`
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sem.Acquire(ctx, 1); err != nil {
				return
			}
			defer sem.Release(1)
			check(ctx, u)
		}()
	}
	wg.Wait()
}

// 59: errgroup workers that drain a channel a producer in the same group
// fills.
func egWorkers(ctx context.Context, urls []string) error {
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
	for i := 0; i < 4; i++ { // want `fan-out: a pool of 4 errgroup workers draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(4\).TryForEach`
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

// 60: a consumer between the loop and the Wait.
func wgConsumer(words []string) int {
	results := make(chan int)
	var wg sync.WaitGroup
	for _, w := range words { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the caller works between the loop and the Wait with variables the goroutines use \\(`for range words {`\\)"
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- work(w)
		}()
	}
	total := 0
	for range words {
		total += <-results
	}
	wg.Wait()
	return total
}
