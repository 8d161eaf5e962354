package iter

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/runtime"
)

// progressEvery is the shortest time between two calls of a progress
// callback.
const progressEvery = 100 * time.Millisecond

// runProgress is Run for a loop with a progress callback (cfg.Progress):
// each Fold adds the number of indexes it covered to a
// shared counter (one atomic add per block, nothing per item), and a
// reporter goroutine, the only one that calls the callback during the loop,
// reads it every progressEvery. total is the loop's number of items (-1 if
// unknown). When the loop has ended, the reporter is stopped and the caller
// makes the last call: (total, total), or (items, -1) if total is unknown.
// A panic in the callback ends the calls and is re-raised in the caller as
// a *runtime.Panic once the loop has ended.
func runProgress[A any](cfg Config, lo, hi int, r Reducer[A], total int) A {
	report := cfg.Progress
	cfg.Progress = nil
	var done atomic.Int64
	fold := r.Fold
	r.Fold = func(acc A, lo, hi int) A {
		acc = fold(acc, lo, hi)
		done.Add(int64(hi - lo))
		return acc
	}
	count := func() int {
		d := int(done.Load())
		if total >= 0 {
			d = min(d, total)
		}
		return d
	}

	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		panicked any
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { panicked = recover() }()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				report(count(), total)
			}
		}
	}()
	finish := func() {
		close(stop)
		wg.Wait()
	}
	defer func() {
		if stop != nil {
			finish() // the loop panicked: stop the reporter, then go on panicking
		}
	}()
	acc := Run(cfg, lo, hi, r)
	finish()
	stop = nil
	if panicked != nil {
		panic(runtime.NewPanic(panicked))
	}
	end := total
	if total < 0 {
		end = count()
	}
	lastReport(report, end, total)
	return acc
}

// lastReport makes the last call of a progress callback, on the caller's
// goroutine. A panic in it is re-raised as a *runtime.Panic, as one in an
// earlier call is: whether the callback panics in the reporter or here
// depends only on how long the loop took.
func lastReport(report func(done, total int), done, total int) {
	defer func() {
		if v := recover(); v != nil {
			panic(runtime.NewPanic(v))
		}
	}()
	report(done, total)
}
