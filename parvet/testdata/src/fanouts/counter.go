package fanouts

import (
	"sync"
	"sync/atomic"
)

// 95: workers take the items' indexes from an atomic counter: one callback
// per index, at most as many at once as there were workers.
func counterPool(xs []string, out []int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines taking indexes from the counter next; gopar replaces it with par.Range\(0, len\(xs\)\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(xs) {
					return
				}
				out[i] = work(xs[i])
			}
		}()
	}
	wg.Wait()
}

// 95b: the same with atomic.AddInt64, wg.Go and a break.
func counterPoolAdd(xs []string, out []int, workers int) {
	var next int64
	var wg sync.WaitGroup
	for range workers { // want `fan-out: a pool of worker goroutines \(as many as workers\) taking indexes from the counter next`
		wg.Go(func() {
			for {
				i := int(atomic.AddInt64(&next, 1)) - 1
				if i >= len(xs) {
					break
				}
				n := work(xs[i])
				out[i] = n
			}
		})
	}
	wg.Wait()
}
