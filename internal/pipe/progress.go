package pipe

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// progress is the progress observer (Config.Progress), on any driver:
// countItems adds the number of indexes each call of Fold covered to a
// shared counter (one atomic add per block, nothing per item), and a
// reporter goroutine, the only one that calls the callback during the loop,
// reads it every progressEvery. total is the loop's number of items (-1 if
// unknown). When the loop has ended, the reporter is stopped and the caller
// makes the last call (finish): (total, total), or (items, -1) if total is
// unknown. A panic in the callback ends the calls and is re-raised in the
// caller as a *runtime.Panic once the loop has ended; a runtime.Goexit in it
// ends the caller's goroutine with runtime.Goexit then.
type progress struct {
	report func(done, total int)
	total  int
	done   atomic.Int64

	quit     chan struct{} // closed to stop the reporter; nil once stopped
	wg       sync.WaitGroup
	panicked *runtime.Panic // a panic of the callback in the reporter, or its Goexit
}

// startProgress starts the reporter of a loop of total items.
func startProgress(report func(done, total int), total int) *progress {
	p := &progress{report: report, total: total, quit: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		returned := false
		defer func() {
			if v := recover(); v != nil || !returned {
				p.panicked = plumb.Unwinding(v) // a panic, or runtime.Goexit
			}
		}()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				returned = true
				return
			case <-t.C:
				p.report(p.count(), p.total)
			}
		}
	}()
	return p
}

// countItems returns r with a Fold that also counts its items into p.
func countItems(p *progress, r Reducer[any]) Reducer[any] {
	fold := r.Fold
	r.Fold = func(acc any, lo, hi int) any {
		acc = fold(acc, lo, hi)
		p.done.Add(int64(hi - lo))
		return acc
	}
	return r
}

// count returns the items done so far.
func (p *progress) count() int {
	d := int(p.done.Load())
	if p.total >= 0 {
		d = min(d, p.total)
	}
	return d
}

// stop stops the reporter and waits for it, if it still runs.
func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		p.wg.Wait()
		p.quit = nil
	}
}

// finish stops the reporter once the loop has ended, and makes the last
// call.
func (p *progress) finish() {
	p.stop()
	plumb.Raise(p.panicked)
	end := p.total
	if p.total < 0 {
		end = p.count()
	}
	lastReport(p.report, end, p.total)
}

// lastReport makes the last call of a progress callback, on the caller's
// goroutine. A panic in it is re-raised as a *runtime.Panic, as one in an
// earlier call is: whether the callback panics in the reporter or here
// depends only on how long the loop took.
func lastReport(report func(done, total int), done, total int) {
	defer func() {
		if v := recover(); v != nil {
			panic(plumb.NewPanic(v))
		}
	}()
	report(done, total)
}
