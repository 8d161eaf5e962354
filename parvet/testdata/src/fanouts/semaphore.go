package fanouts

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
)

// 20: a semaphore channel, released by a deferred function.
func semChan(urls []string, sizes []int) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, u := range urls { // want `fan-out: a goroutine per item bounded by a semaphore; gopar replaces it with par.Slice\(urls\).Blocking\(8\).ForEach`
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sizes[i] = work(u)
		}()
	}
	wg.Wait()
}

// 21: released as the last statement.
func semChanLast(urls []string, sizes []int, limit int) {
	var wg sync.WaitGroup
	sem := make(chan bool, limit)
	for i := range urls { // want `par.Range\(0, len\(urls\)\)|Blocking\(limit\)`
		sem <- true
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sizes[i] = work(urls[i])
			<-sem
		}(i)
	}
	wg.Wait()
}

// 22: x/sync/semaphore: reported, not rewritten.
func semWeighted(ctx context.Context, urls []string) {
	sem := semaphore.NewWeighted(4)
	var wg sync.WaitGroup
	for _, u := range urls { // want `a goroutine per item bounded by a semaphore`
		if err := sem.Acquire(ctx, 1); err != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sem.Release(1)
			work(u)
		}()
	}
	wg.Wait()
}

// 79b: wg.Go bounded by a semaphore channel (syncthing's fsyncDirs):
// Blocking over the channel's capacity.
func wgGoSem(dirs []string, out *sync.Map) {
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, d := range dirs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out.Store(d, work(d))
		})
	}
	wg.Wait()
}

// 104: an errgroup task per item, bounded by a semaphore channel whose
// release the task defers: Blocking over the channel's capacity.
func egSem(ctx context.Context, ids []string, parallelism int) error {
	g, ctx := errgroup.WithContext(ctx)
	sem := make(chan struct{}, parallelism)
	for _, id := range ids { // want `fan-out: an errgroup loop; gopar replaces it`
		sem <- struct{}{}
		g.Go(func() error {
			defer func() {
				<-sem
			}()
			return check(ctx, id)
		})
	}
	return g.Wait()
}

// 104b: SetLimit and a semaphore channel both bound the group: no fix.
func egSemAndLimit(ctx context.Context, ids []string) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	sem := make(chan struct{}, 2)
	for _, id := range ids { // want `fan-out: an errgroup loop; .*no fix: both SetLimit and a semaphore channel bound the group`
		sem <- struct{}{}
		g.Go(func() error {
			defer func() { <-sem }()
			return check(ctx, id)
		})
	}
	return g.Wait()
}

// 104c: the task releases the semaphore before its work ends, so more
// than the capacity may run at once: no fix.
func egSemEarly(ctx context.Context, ids []string) error {
	g, ctx := errgroup.WithContext(ctx)
	sem := make(chan struct{}, 2)
	for _, id := range ids { // want `fan-out: an errgroup loop; .*no fix: the semaphore is not released once, deferred or last, in the task`
		sem <- struct{}{}
		g.Go(func() error {
			if err := check(ctx, id); err != nil {
				return err
			}
			<-sem
			return check(ctx, id+"/2")
		})
	}
	return g.Wait()
}
