package fanouts

import (
	"context"
	"sync"

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
