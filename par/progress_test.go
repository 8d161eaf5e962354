package par_test

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// progressLog records the calls of a progress callback and checks that
// they never overlap, that done never goes down and stays within total.
type progressLog struct {
	t      *testing.T
	inside atomic.Int32
	mu     sync.Mutex
	calls  [][2]int
}

func (l *progressLog) report(done, total int) {
	if l.inside.Add(1) != 1 {
		l.t.Error("progress callback called concurrently")
	}
	defer l.inside.Add(-1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.calls); n > 0 && done < l.calls[n-1][0] {
		l.t.Errorf("done went down: %v then %d", l.calls[n-1], done)
	}
	if total >= 0 && done > total {
		l.t.Errorf("done %d > total %d", done, total)
	}
	l.calls = append(l.calls, [2]int{done, total})
}

func (l *progressLog) last() [2]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) == 0 {
		return [2]int{-2, -2}
	}
	return l.calls[len(l.calls)-1]
}

func TestProgressFinalCall(t *testing.T) {
	n := 1<<18 + 3
	if race.Enabled {
		n = 1<<14 + 3
	}
	xs := make([]float64, n)
	cases := map[string]struct {
		run  func(report func(int, int))
		want [2]int
	}{
		"ForEach": {func(r func(int, int)) { par.Range(5, 5+n).WithProgress(r).ForEach(func(int) {}) }, [2]int{n, n}},
		"Filter.Collect": {func(r func(int, int)) {
			par.Range(0, n).WithProgress(r).Filter(func(i int) bool { return i%3 == 0 }).Collect()
		}, [2]int{n, n}},
		"float Sum": {func(r func(int, int)) { par.Numbers(xs).WithProgress(r).Sum() }, [2]int{n, n}},
		// Collect runs Map's function on every item even without a Filter,
		// so it reports; only Count without a Filter runs nothing (below).
		"Map.Collect": {func(r func(int, int)) {
			par.Range(0, n).WithProgress(r).Map(func(i int) int { return i + 1 }).Collect()
		}, [2]int{n, n}},
		"Any":             {func(r func(int, int)) { par.Range(0, n).WithProgress(r).Any(func(i int) bool { return i == 7 }) }, [2]int{n, n}},
		"FromSeq":         {func(r func(int, int)) { par.FromSeq(gen(n)).WithProgress(r).Count() }, [2]int{n, -1}},
		"empty":           {func(r func(int, int)) { par.Range(0, 0).WithProgress(r).ForEach(func(int) {}) }, [2]int{0, 0}},
		"empty float Sum": {func(r func(int, int)) { par.Numbers([]float64{}).WithProgress(r).Sum() }, [2]int{0, 0}},
		// The toolkit's operations, each ending with done == total.
		"Fold": {func(r func(int, int)) {
			par.Fold(par.Slice(xs).WithProgress(r), func() int { return 0 },
				func(a int, _ float64) int { return a + 1 }, func(a, b int) int { return a + b })
		}, [2]int{n, n}},
		"Min":             {func(r func(int, int)) { par.Min(par.Slice(xs).WithProgress(r)) }, [2]int{n, n}},
		"MaxFunc":         {func(r func(int, int)) { par.MaxFunc(par.Range(0, n).WithProgress(r), cmp.Compare[int]) }, [2]int{n, n}},
		"FilterMap":       {func(r func(int, int)) { par.FilterMap(par.Range(0, n).WithProgress(r), half).Collect() }, [2]int{n, n}},
		"FlatMap":         {func(r func(int, int)) { par.FlatMap(par.Range(0, n).WithProgress(r), twice).Count() }, [2]int{n, n}},
		"TryMap":          {func(r func(int, int)) { par.TryMap(par.Range(0, n).WithProgress(r), failAbove(-1)) }, [2]int{n, n}},
		"TryMap, failing": {func(r func(int, int)) { par.TryMap(par.Range(0, n).WithProgress(r), failAbove(n/2)) }, [2]int{n, n}},
		"Blocking":        {func(r func(int, int)) { par.Range(0, 1000).WithProgress(r).Blocking(8).ForEach(func(int) {}) }, [2]int{1000, 1000}},
		"FromSeq float Sum": {func(r func(int, int)) {
			par.Sum(par.Map(par.FromSeq(gen(n)).WithProgress(r), func(v uint64) float64 { return float64(v) }))
		}, [2]int{n, -1}},
		"FromSeq TryMap, failing": {func(r func(int, int)) {
			par.TryMap(par.Map(par.FromSeq(gen(n)).WithProgress(r), func(v uint64) int { return int(v) }), failAbove(n/2))
		}, [2]int{-3, -1}}, // done: however many items were pulled
		"cancelled": {func(r func(int, int)) {
			ctx, cancel := context.WithCancel(context.Background())
			par.Range(0, n).WithContext(ctx).WithProgress(r).ForEach(func(i int) {
				if i == n/3 {
					cancel()
				}
			})
		}, [2]int{n, n}},
	}
	for name, c := range cases {
		l := &progressLog{t: t}
		c.run(l.report)
		got := l.last()
		if c.want[0] == -3 && got[0] >= 0 && got[0] <= n {
			got[0] = -3 // any count of items pulled will do
		}
		if got != c.want {
			t.Errorf("%s: last call %v, want %v", name, got, c.want)
		}
	}
	// nil turns progress off.
	par.Range(0, 10).WithProgress(nil).ForEach(func(int) {})

	// Count without a Filter knows its result from the length and runs
	// nothing, so it makes no call (the doc says so).
	l := &progressLog{t: t}
	if got := par.Range(0, n).WithProgress(l.report).Count(); got != n {
		t.Fatalf("Count = %d, want %d", got, n)
	}
	if got := l.last(); got != [2]int{-2, -2} {
		t.Errorf("Count without a Filter: last call %v, want no call", got)
	}
}

// TestProgressBlockingCallback: while the callback blocks, the work goes
// on; the operation ends after the last call. Item 0 waits for the first
// call (which comes after 100 ms), and that call blocks until every item
// has run: were the work waiting on the callback, this would deadlock.
func TestProgressBlockingCallback(t *testing.T) {
	const n = 1000
	var ran atomic.Int32
	first, allRan := make(chan struct{}), make(chan struct{})
	var once sync.Once
	l := &progressLog{t: t}
	par.Range(0, n).WithProgress(func(done, total int) {
		once.Do(func() { close(first); <-allRan })
		l.report(done, total)
	}).ForEach(func(i int) {
		if i == 0 {
			<-first
		}
		if ran.Add(1) == n {
			close(allRan)
		}
	})
	if got := l.last(); got != [2]int{n, n} {
		t.Fatalf("last call %v, want [%d %d]", got, n, n)
	}
	if len(l.calls) < 2 {
		t.Fatalf("%d calls, want a call while running and the last one", len(l.calls))
	}
}

func TestProgressPanickingCallback(t *testing.T) {
	const n = 1000
	var ran atomic.Int32
	first := make(chan struct{})
	calls := 0
	v := catch(func() {
		par.Range(0, n).WithProgress(func(done, total int) {
			calls++
			close(first)
			panic("progress boom")
		}).ForEach(func(i int) {
			if i == 0 {
				<-first
			}
			ran.Add(1)
		})
	})
	if p, ok := v.(*runtime.Panic); !ok || p.Value != "progress boom" {
		t.Fatalf("recovered %#v, want a *runtime.Panic of the callback's value", v)
	}
	if ran.Load() != n || calls != 1 {
		t.Fatalf("%d items ran, callback called %d times; want %d and 1", ran.Load(), calls, n)
	}
}

// TestProgressPanicsInTheLastCall: a callback that panics in its last
// call, the only call of an operation shorter than 100 ms, is re-raised as a
// *runtime.Panic too, whatever the operation.
func TestProgressPanicsInTheLastCall(t *testing.T) {
	boom := func(done, total int) { panic("progress boom") }
	for name, run := range map[string]func(){
		"ForEach":         func() { par.Range(0, 10).WithProgress(boom).ForEach(func(int) {}) },
		"empty":           func() { par.Range(0, 0).WithProgress(boom).ForEach(func(int) {}) },
		"float Sum":       func() { par.Numbers([]float64{1, 2}).WithProgress(boom).Sum() },
		"empty float Sum": func() { par.Numbers([]float64(nil)).WithProgress(boom).Sum() },
		"FromSeq":         func() { par.FromSeq(gen(10)).WithProgress(boom).Count() },
		"TryMap":          func() { par.TryMap(par.Range(0, 10).WithProgress(boom), failAbove(-1)) },
		"Blocking":        func() { par.Range(0, 10).WithProgress(boom).Blocking(2).ForEach(func(int) {}) },
	} {
		v := catch(run)
		if p, ok := v.(*runtime.Panic); !ok || p.Value != "progress boom" {
			t.Errorf("%s: recovered %#v, want a *runtime.Panic of the callback's value", name, v)
		}
	}
}

// half, twice and failAbove are functions for the toolkit's operations.
func half(i int) (int, bool) { return i / 2, i%2 == 0 }

func twice(i int) []int { return []int{i, i} }

// failAbove returns a TryMap function that fails on the items above k.
func failAbove(k int) func(int) (int, error) {
	return func(i int) (int, error) {
		if k >= 0 && i > k {
			return 0, failAt(i)
		}
		return i, nil
	}
}

func ExampleIter_WithProgress() {
	var last [2]int
	par.Range(0, 1_000_000).WithProgress(func(done, total int) {
		// Called at most every 100 ms while the work runs (a progress bar
		// would redraw here), and once at the end.
		last = [2]int{done, total}
	}).ForEach(func(i int) {})
	fmt.Println("done:", last[0], "of", last[1])
	// Output: done: 1000000 of 1000000
}

// BenchmarkProgress: the cost of WithProgress on a cheap loop.
func BenchmarkProgress(b *testing.B) {
	benchSetting(b, func(r par.Ints) par.Ints { return r.WithProgress(func(int, int) {}) })
}

// benchSetting times a cheap per-item sum (blocks of a few microseconds,
// where a per-block cost shows most) without a setting and with it.
func benchSetting(b *testing.B, with func(par.Ints) par.Ints) {
	n := 1 << 24
	if testing.Short() {
		n = 1 << 16
	}
	b.Run("off", func(b *testing.B) {
		for range b.N {
			sink = par.Sum(par.Map(par.Range(0, n), mixInt))
		}
	})
	b.Run("on", func(b *testing.B) {
		for range b.N {
			sink = par.Sum(par.Map(with(par.Range(0, n)), mixInt))
		}
	})
}

func ExampleNums_WithProgress() {
	var last [2]int
	sum := par.Range(1, 1001).WithProgress(func(done, total int) { last = [2]int{done, total} }).Sum()
	fmt.Println(sum, last)
	// Output: 500500 [1000 1000]
}

// TestBlocksProgress: the block API reports the items its blocks covered.
func TestBlocksProgress(t *testing.T) {
	var last [2]int
	var ran atomic.Int64
	par.Range(0, 1<<20).WithProgress(func(done, total int) { last = [2]int{done, total} }).Blocks(func(lo, hi int) { ran.Add(int64(hi - lo)) })
	if last != [2]int{1 << 20, 1 << 20} || ran.Load() != 1<<20 {
		t.Errorf("Blocks with progress: last call %v, %d items ran", last, ran.Load())
	}
}
