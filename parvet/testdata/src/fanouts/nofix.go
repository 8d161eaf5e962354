package fanouts

import (
	"context"
	"log"
	"maps"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// 26: the WaitGroup is used again after the wait: reported, not rewritten.
func wgReused(a, b []string) {
	var wg sync.WaitGroup
	for _, w := range a { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
	wg.Wait()
	for _, w := range b { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
	wg.Wait()
}

// 27: the loop does more than start goroutines.
func wgMore(words []string) {
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item`
		log.Println("starting", w)
		wg.Add(1)
		go func() { defer wg.Done(); work(w) }()
	}
	wg.Wait()
}

// 28: errgroup's context used after the wait.
func egCtxAfter(ctx context.Context, words []string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, w := range words { // want `fan-out: an errgroup loop`
		g.Go(func() error { return check(ctx, w) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// 30: workers with state of their own.
func workersState(jobs []string) {
	ch := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines`
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64)
			for j := range ch {
				buf = append(buf[:0], j...)
				work(string(buf))
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// 32: an argument that is not the loop variable.
func wgArgExpr(n int, out []int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func(j int) { defer wg.Done(); out[j/2] = j }(i * 2)
	}
	wg.Wait()
}

// 33: a Done in a branch, right before its return: the callback's return
// says the same, so a fix.
func wgDoneInBranch(words []string) {
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() {
			if w == "" {
				wg.Done()
				return
			}
			work(w)
			wg.Done()
		}()
	}
	wg.Wait()
}

// 33b: a branch that calls Done before its return, and another that
// returns without one (a Done missed, and Wait never returns): no fix.
func wgDoneNotBeforeReturn(words []string) {
	var wg sync.WaitGroup
	for _, w := range words { // want "fan-out: a goroutine per item.*no fix: the goroutine uses the WaitGroup or the semaphore other than in its Done and release"
		wg.Add(1)
		go func() {
			if w == "" {
				wg.Done()
				return
			}
			if w == "x" {
				return
			}
			work(w)
			wg.Done()
		}()
	}
	wg.Wait()
}

// 60: the task declares ctx again with :=, which the rewrite's callback
// has as its parameter: the callback's body goes in a block of its own.
func egShadowedCtx(parent context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(parent)
	for _, u := range urls { // want `fan-out: an errgroup loop; gopar replaces it`
		g.Go(func() error {
			ctx := context.WithValue(ctx, keyURL{}, u)
			return check(ctx, u)
		})
	}
	return g.Wait()
}

type keyURL struct{}

// 60b: the loop declares its variable again before the task starts, which
// the rewrite moves into the callback beside the parameter of that name:
// the fix would not compile, so none is offered.
func egShadowedItem(ctx context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, u := range urls { // want `fan-out: an errgroup loop; .*; no fix: the rewrite would not compile: line \d+: no new variables on left side of :=`
		u := u + "/"
		g.Go(func() error { return check(ctx, u) })
	}
	return g.Wait()
}

// 61: declarations in the loop that the rewrite may not move into the
// callback: one calls a function that writes, one divides (it may panic), one reads a
// variable that the loop changes.
func wgUnmovable(xs []int, n int) {
	var wg sync.WaitGroup
	for i := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the loop does more than start the goroutines`
		y := tally("x")
		wg.Add(1)
		go func() { defer wg.Done(); xs[i] = y }()
	}
	wg.Wait()
	for i := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the loop does more than start the goroutines`
		q := n / (i + 1)
		wg.Add(1)
		go func() { defer wg.Done(); xs[i] = q }()
	}
	wg.Wait()
	last := 0
	for i := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*; no fix: the loop does more than start the goroutines`
		at := last + i
		wg.Add(1)
		go func() { defer wg.Done(); xs[i] = at; last = i }()
	}
	wg.Wait()
}

// 91: workers drain a channel into a slot of their own, indexed by the
// loop's counter: a callback of par has no counterpart of the counter.
func workersSlots(p int, items <-chan uint64) uint64 {
	sums := make([]uint64, p)
	var wg sync.WaitGroup
	for k := range p { // want `fan-out: .*; no fix: the worker uses the loop's counter k`
		wg.Go(func() {
			for h := range items {
				sums[k] += h
			}
		})
	}
	wg.Wait()
	var s uint64
	for _, v := range sums {
		s += v
	}
	return s
}

// 62c: the same pool, but the caller may stop receiving before the last
// value (a return): no fix, the rewrite would stop the work instead of
// leaving the workers blocked.
func workersCountedStops(xs []string) int {
	jobs := make(chan string)
	results := make(chan int, len(xs))
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining jobs, joined by counting receives from results; .*; no fix: the receives are not one per item in a loop over the items that runs to its end`
		go func() {
			for j := range jobs {
				results <- work(j)
			}
		}()
	}
	for _, x := range xs {
		jobs <- x
	}
	close(jobs)
	total := 0
	for range xs {
		r := <-results
		if r < 0 {
			return -1
		}
		total += r
	}
	return total
}

// 92: the worker closure is started again after the loop: its declaration
// must stay, and the rewrite would have to copy its body.
func workersNamedTwice(jobs chan string, out *sync.Map) {
	var wg sync.WaitGroup
	worker := func() {
		for j := range jobs {
			out.Store(j, work(j))
		}
	}
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; .*; no fix: the goroutine runs worker, a named function`
		wg.Go(worker)
	}
	wg.Wait()
	worker()
}

// 93: a declaration between the closure and the loop shadows a name its
// body uses (the package's work): moved to the loop, the body would call
// the local one.
func workersNamedShadowed(jobs chan string, out *sync.Map) int {
	var wg sync.WaitGroup
	worker := func() {
		for j := range jobs {
			out.Store(j, work(j))
		}
	}
	work := func(s string) int { return len(s) }
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; .*; no fix: the goroutine runs worker, a named function`
		wg.Go(worker)
	}
	wg.Wait()
	return work("done")
}

// 52c: the function's parameter has another name than the variable
// passed to it, so its body's text would mean something else at the loop.
func workersFuncRenamed(queue chan string, n int, out *sync.Map) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `fan-out: a pool of n worker goroutines draining a channel; .*; no fix: the goroutine runs drain, a named function`
		wg.Add(1)
		go drain(queue, out, &wg)
	}
	wg.Wait()
}

// 52d: a local variable shadows a name the function's body uses from the
// package (work), so its text would mean something else at the loop.
func workersFuncShadowed(jobs chan string, out *sync.Map) {
	work := func(string) int { return 0 }
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ { // want `fan-out: a pool of 2 worker goroutines draining a channel; .*; no fix: the goroutine runs drain, a named function`
		wg.Add(1)
		go drain(jobs, out, &wg)
	}
	wg.Wait()
	out.Store("", work(""))
}

// 95c: the counter is read after the pool (how many were taken), so it
// cannot go.
func counterPoolKept(xs []string, out []int) int64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines taking indexes from the counter next; .*; no fix: the counter next is used outside the pool's loop`
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
	return next.Load()
}

// 96b: the loop ranges over a map that a call returns: the rewrite would
// read the map again, by key, at every item.
func wgRangeMapCall(index func() map[string]int, out []int) {
	var wg sync.WaitGroup
	for k, v := range index() { // want "fan-out: .*; no fix: the loop ranges over the map that `index\\(\\)` gives, which the rewrite would read again at each item"
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[v%len(out)] = len(k)
		}()
	}
	wg.Wait()
}

// 97b: the loop checks the group's context before it starts each task, but
// with no limit every task starts at once, before most have run: par
// would skip the items not yet started once the context is done.
func egStopsOnCtxNoLimit(parent context.Context, urls []string) error {
	g, ctx := errgroup.WithContext(parent)
loop:
	for _, u := range urls { // want "fan-out: an errgroup loop; .*; no fix: the loop does more than start the goroutines \\(`select {`\\)"
		select {
		case <-ctx.Done():
			break loop
		default:
		}
		g.Go(func() error { return check(ctx, u) })
	}
	return g.Wait()
}

// 99b: a range over an iterator of two values (maps.All): par has no
// source of pairs.
func wgSeq2(m map[string]int, out *sync.Map) {
	var wg sync.WaitGroup
	for k, v := range maps.All(m) { // want "fan-out: .*; no fix: the loop ranges over a function that is not an iterator of one value"
		wg.Go(func() {
			out.Store(k, v)
		})
	}
	wg.Wait()
}

// 100b: the worker stops at an item with break: every other worker goes
// on, where a callback cannot stop the loop for itself alone.
func workersBreak(jobs chan string, out *sync.Map) {
	var wg sync.WaitGroup
	for range 4 { // want "fan-out: a pool of 4 worker goroutines draining a channel; .*; no fix: the worker's range loop returns, breaks out or jumps"
		wg.Go(func() {
			for j := range jobs {
				if j == "stop" {
					break
				}
				out.Store(j, work(j))
			}
		})
	}
	wg.Wait()
}

// decoder stands for a resource a worker makes once and releases at its
// end.
type decoder struct{ buf []byte }

func newDecoder() *decoder             { return &decoder{} }
func (d *decoder) Close()              { d.buf = nil }
func (d *decoder) Decode(s string) int { return len(s) + len(d.buf) }

// 111: n workers, each over every n-th item, each with a decoder it
// releases at its end: a rewrite over the workers would only restate
// them, and one over the items would make and release a decoder per item,
// so no fix.
func workersWithDecoder(items []string, out []int, n int) {
	var wg sync.WaitGroup
	for w := 0; w < n; w++ { // want "fan-out: .*no fix: each goroutine is a worker over a share of the items that keeps dec for them and releases it at its end"
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec := newDecoder()
			defer dec.Close()
			for i := w; i < len(items); i += n {
				out[i] = dec.Decode(items[i])
			}
		}()
	}
	wg.Wait()
}
