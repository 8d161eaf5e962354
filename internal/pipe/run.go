package pipe

// Run reads a loop's Config and hands the loop to one driver (drive).

import (
	"math"
	"runtime/trace"
	"time"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// Run folds the items of [lo, hi) with r and returns the combined result.
// Every lo <= hi is valid, up to [math.MinInt, math.MaxInt).
//
// Run is where a loop's Config is read: it starts the observers that cfg
// asks for (observe), then hands the loop to one driver (drive). See
// Config for the drivers and observers, and runPool for the default one.
// Past the pool driver's inline phase, the observers and drivers run over
// a boxed reducer (see boxed).
//
// A panic in Fold stops the loop and is re-raised in the caller as a
// *runtime.Panic, after every goroutine that ran the loop has left it. On a
// closed pool, Run panics with runtime.ErrClosed before running any item.
func Run[A any](cfg Config, lo, hi int, r Reducer[A]) A {
	switch cfg.route(lo, hi) {
	case routeNone:
		return r.identity()
	case routeInline:
		return runPool(cfg, lo, hi, r)
	}
	return unbox[A](observe(cfg, lo, hi, boxed(r)))
}

// Where Run sends a loop (route).
const (
	routeBoxed  = iota // to the observers and drivers, over a boxed reducer
	routeInline        // to the pool driver, over the reducer as it is
	routeNone          // nowhere: no item is to run
)

// route says where Run sends a loop over [lo, hi) under cfg, or panics
// with runtime.ErrClosed on a closed pool, whatever the loop's size. A
// loop on the pool driver with no observer goes to it with the reducer as
// it is (routeInline), so that a loop that ends in the caller's inline
// phase allocates nothing (see runPool), and an empty one, or one whose
// context is done, runs nothing (routeNone); any other loop runs over a
// boxed reducer. Run's code, compiled for every accumulator type, is then
// this switch.
func (cfg *Config) route(lo, hi int) int {
	if p := cfg.Pool; p != nil && p.Closed() {
		panic(runtime.ErrClosed) // before any item runs, whatever the size
	}
	switch {
	case cfg.seq != nil || cfg.stream != nil || cfg.Blocking != 0 || cfg.task != nil || cfg.stats != nil || cfg.observed():
		return routeBoxed
	case hi <= lo || isClosed(cfg.done()):
		return routeNone
	}
	return routeInline
}

// observed says whether cfg asks for an observer: a trace task, statistics,
// the Slow hook, a timeline or progress reports.
func (cfg *Config) observed() bool {
	return cfg.task == nil && trace.IsEnabled() || cfg.stats == nil && cfg.Stats != nil ||
		cfg.Slow != nil || cfg.Timeline != nil || cfg.Progress != nil
}

// configure hands cfg to the steps before an index adapter over a seq,
// which then run with these settings (restream.go).
func (cfg *Config) configure() {
	if c, ok := cfg.seq.(configured); ok {
		cfg.seq = c.withConfig(*cfg)
	}
}

// observe is Run over a boxed reducer (see boxed): it starts the observers
// that cfg asks for, one at a time, each coming back here, then runs the
// loop on its driver.
func observe(cfg Config, lo, hi int, r Reducer[any]) any {
	if cfg.task == nil && trace.IsEnabled() {
		return runTraced(cfg, lo, hi, r)
	}
	if cfg.stats == nil && cfg.Stats != nil {
		return runStats(cfg, lo, hi, r)
	}
	if cfg.Slow != nil {
		return runSlow(cfg, lo, hi, r)
	}
	cfg.configure()
	if cfg.Timeline != nil || cfg.Progress != nil {
		return runObserved(cfg, lo, hi, r)
	}
	return drive(cfg, lo, hi, r)
}

// runObserved runs the loop on its driver with the observers that cfg asks
// for. An observer plugs into any driver and never picks one: the timeline
// through cfg.rec, to which each driver adds the blocks it runs, and
// progress by counting the items of each call of Fold. Over an iter.Seq,
// both span every batch of the loop.
func runObserved(cfg Config, lo, hi int, r Reducer[any]) any {
	if t := cfg.Timeline; t != nil {
		rec := &recording{start: time.Now(), others: map[laneKey][]partition.Block{}}
		cfg.rec = rec
		defer rec.finish(t) // after a panic too: what ran until then
	}
	report := cfg.Progress
	if report == nil {
		return drive(cfg, lo, hi, r)
	}
	total := span(lo, hi)
	if cfg.seq != nil {
		total = -1 // unknown until the seq ends
	}
	p := startProgress(report, total)
	defer p.stop() // the loop panicked: stop the reporter, then go on panicking
	acc := drive(cfg, lo, hi, countItems(p, r))
	p.finish()
	return acc
}

// drive runs a boxed loop on the driver that cfg calls for (Run hands a
// loop that it finds inline to the pool driver itself). The observers, if
// any, are already in place. A
// stream over a seq runs on the sequence driver, which hands its runs to
// the stream's consumer; the stream driver, over a range, runs each of its
// batches on driveRange.
func drive(cfg Config, lo, hi int, r Reducer[any]) any {
	switch {
	case cfg.seq != nil:
		return runSeq(cfg, r)
	case cfg.stream != nil:
		return runStream(cfg, lo, hi, r)
	}
	return driveRange(cfg, lo, hi, r)
}

// driveRange is drive over a range whose result goes to no stream: the
// pool driver, or the blocking driver.
func driveRange(cfg Config, lo, hi int, r Reducer[any]) any {
	switch {
	case hi <= lo || isClosed(cfg.done()):
		return r.identity()
	case cfg.Blocking != 0:
		return runBlocking(cfg, lo, hi, r)
	}
	return runPool(cfg, lo, hi, r)
}

// span returns the number of items in [lo, hi) as an int, at most
// math.MaxInt: enough for a block, whose end it bounds.
func span(lo, hi int) int {
	if n := uint64(hi) - uint64(lo); n <= math.MaxInt {
		return int(n)
	}
	return math.MaxInt
}

// RunBlocks runs body on blocks that together cover [lo, hi), as Run does,
// for loops that produce no result but their side effects.
func RunBlocks(cfg Config, lo, hi int, body func(lo, hi int)) {
	Run(cfg, lo, hi, Reducer[struct{}]{
		Identity: func() struct{} { return struct{}{} },
		Fold: func(acc struct{}, lo, hi int) struct{} {
			body(lo, hi)
			return acc
		},
	})
}

// RunPrefix is RunBlocks for a loop whose results land in place (Collect
// into a slice): it returns how many items from lo ran without a hole, all
// of them unless a done context stopped the loop (see Reducer.AllRuns).
// Items after the first hole may have run too; their results do not count.
func RunPrefix(cfg Config, lo, hi int, body func(lo, hi int)) int {
	return Run(cfg, lo, hi, Reducer[int]{
		Fold: func(acc int, lo, hi int) int {
			body(lo, hi)
			return acc + (hi - lo)
		},
		Combine: func(a, b int) int { return a + b },
	})
}
