package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/par"
)

// TestBlockingEveryTerminal runs every terminal operation in blocking mode
// and compares it with the CPU mode.
func TestBlockingEveryTerminal(t *testing.T) {
	const n = 3000
	cpu := par.Range(0, n)
	blk := par.Range(0, n).Blocking(16)
	add := func(a, b int) int { return a + b }
	var ran atomic.Int64
	blk.ForEach(func(int) { ran.Add(1) })
	if ran.Load() != n {
		t.Errorf("ForEach ran %d items, want %d", ran.Load(), n)
	}
	if got, want := blk.Sum(), cpu.Sum(); got != want {
		t.Errorf("Sum = %d, want %d", got, want)
	}
	concat := func(a, b string) string { return a + b }
	strs := par.Map(blk, strconv.Itoa)
	if got, want := strs.Reduce(func() string { return "" }, concat), par.Map(cpu, strconv.Itoa).Reduce(func() string { return "" }, concat); got != want {
		t.Errorf("Reduce (concatenation) differs: %d vs %d bytes", len(got), len(want))
	}
	if got := par.Fold(blk, func() int { return 0 }, add, add); got != cpu.Sum() {
		t.Errorf("Fold = %d", got)
	}
	if got, want := blk.Collect(), cpu.Collect(); !slices.Equal(got, want) {
		t.Errorf("Collect differs")
	}
	odd := func(i int) bool { return i%2 == 1 }
	if got, want := blk.Filter(odd).Collect(), cpu.Filter(odd).Collect(); !slices.Equal(got, want) {
		t.Errorf("Collect after Filter differs")
	}
	if got := blk.Filter(odd).Count(); got != n/2 {
		t.Errorf("Count = %d", got)
	}
	if v, ok := blk.FindFirst(func(i int) bool { return i >= 1234 }); !ok || v != 1234 {
		t.Errorf("FindFirst = %d, %v", v, ok)
	}
	if v, ok := blk.Find(func(i int) bool { return i == 777 }); !ok || v != 777 {
		t.Errorf("Find = %d, %v", v, ok)
	}
	if !blk.Any(func(i int) bool { return i == n-1 }) || blk.Every(func(i int) bool { return i < n-1 }) {
		t.Error("Any/Every wrong")
	}
	if v, ok := par.Max(blk); !ok || v != n-1 {
		t.Errorf("Max = %d, %v", v, ok)
	}
	got, err := par.TryMap(blk, func(i int) (string, error) { return strconv.Itoa(i), nil })
	if err != nil || len(got) != n || got[n-1] != strconv.Itoa(n-1) {
		t.Errorf("TryMap: %d results, %v", len(got), err)
	}
	if err := blk.TryForEach(func(int) error { return nil }); err != nil {
		t.Errorf("TryForEach = %v", err)
	}
	if v, ok := par.Min(blk); !ok || v != 0 {
		t.Errorf("Min = %d, %v", v, ok)
	}
	byLast := func(a, b int) int { return a%10 - b%10 }
	if v, ok := par.MinFunc(blk, byLast); !ok || v != 0 {
		t.Errorf("MinFunc = %d, %v (ties go to the first item)", v, ok)
	}
	if v, ok := par.MaxFunc(blk, byLast); !ok || v != 9 {
		t.Errorf("MaxFunc = %d, %v (ties go to the first item)", v, ok)
	}
	if got := blk.Count(); got != n {
		t.Errorf("Count = %d", got)
	}
	half := func(i int) (int, bool) { return i / 2, i%2 == 0 }
	if got, want := par.FilterMap(blk, half).Collect(), par.FilterMap(cpu, half).Collect(); !slices.Equal(got, want) {
		t.Errorf("FilterMap + Collect differs")
	}
	pair := func(i int) []int { return []int{i, -i} }
	if got, want := par.FlatMap(blk, pair).Collect(), par.FlatMap(cpu, pair).Collect(); !slices.Equal(got, want) {
		t.Errorf("FlatMap + Collect differs")
	}
	third := func(i int) float64 { return float64(i) / 3 }
	if got, want := par.Sum(par.Map(blk, third)), par.Sum(par.Map(cpu, third)); got != want {
		t.Errorf("float Sum = %v, CPU mode %v: not the same bits", got, want)
	}
	if got := par.FromSeq(slices.Values(cpu.Collect())).Blocking(16).Collect(); !slices.Equal(got, cpu.Collect()) {
		t.Errorf("FromSeq + Collect differs")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran.Store(0)
	blk.WithContext(ctx).ForEach(func(int) { ran.Add(1) })
	if ran.Load() != 0 {
		t.Errorf("a done context ran %d items", ran.Load())
	}
}

// gate lets the first limit callbacks block until all of them are in
// flight, and records the most in flight at once.
type gate struct {
	limit          int
	inFlight, most atomic.Int64
	full           chan struct{}
	once           sync.Once
	first          []int
	mu             sync.Mutex
}

func newGate(limit int) *gate { return &gate{limit: limit, full: make(chan struct{})} }

func (g *gate) call(t *testing.T, i int) {
	// Record the item before counting it in flight: the gate opens when
	// limit calls are counted, and a call counted but not yet recorded would
	// let items handed out after the opening into first ahead of it.
	g.mu.Lock()
	if len(g.first) < g.limit {
		g.first = append(g.first, i)
	}
	g.mu.Unlock()
	cur := g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	for {
		m := g.most.Load()
		if cur <= m || g.most.CompareAndSwap(m, cur) {
			break
		}
	}
	if cur == int64(g.limit) {
		g.once.Do(func() { close(g.full) })
	}
	select {
	case <-g.full:
	case <-time.After(10 * time.Second):
		t.Errorf("item %d: only %d calls in flight after 10 s, want %d", i, g.inFlight.Load(), g.limit)
	}
}

// TestBlockingLimit: the limit is reached (items that block all run at
// once, up to it), never exceeded, and the first items start first.
func TestBlockingLimit(t *testing.T) {
	for _, limit := range []int{1, 3, 16, 64} {
		g := newGate(limit)
		par.Range(0, 200).Blocking(limit).ForEach(func(i int) { g.call(t, i) })
		if m := g.most.Load(); m != int64(limit) {
			t.Errorf("limit %d: %d calls in flight at most", limit, m)
		}
		slices.Sort(g.first)
		for k, i := range g.first {
			if i != k {
				t.Errorf("limit %d: the first calls were for items %v, want 0..%d", limit, g.first, limit-1)
				break
			}
		}
	}
	// With a limit of one, the calls follow source order exactly.
	var order []int
	par.Range(0, 500).Blocking(1).ForEach(func(i int) { order = append(order, i) })
	for k, i := range order {
		if i != k {
			t.Fatalf("limit 1: call %d was for item %d", k, i)
		}
	}
}

// waitGoroutines waits until no more goroutines run than before, or fails
// after a generous deadline.
func waitGoroutines(t *testing.T, before int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for goruntime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines, %d before", what, goruntime.NumGoroutine(), before)
		}
		goruntime.Gosched()
	}
}

// TestBlockingStops: an error, a cancelled context and a panic stop the
// hand-out (the calls already running finish: at most limit start after
// the decision), and every goroutine has returned afterwards. The items
// wait 50 us, as I/O would (with items that return at once, goroutines that
// never wait could run on while the deciding one is descheduled).
func TestBlockingStops(t *testing.T) {
	const n, limit, at = 2000, 8, 300
	io := func() { time.Sleep(50 * time.Microsecond) }
	par.Range(0, 10).Blocking(4).ForEach(func(int) {}) // warm up whatever starts once
	before := goruntime.NumGoroutine()

	// Each figure is the best of a few attempts: a deciding goroutine that
	// is descheduled before its decision reaches the driver lets the others
	// start more items meanwhile.
	best := func(measure func(decide, count func()) error, check func(error) bool, what string) {
		least := int64(math.MaxInt64)
		for range 5 {
			var decided atomic.Bool
			var after atomic.Int64
			err := measure(func() { decided.Store(true) }, func() {
				if decided.Load() {
					after.Add(1)
				}
			})
			if !check(err) {
				t.Errorf("%s: returned %v", what, err)
			}
			if least = min(least, after.Load()); least <= limit {
				break
			}
		}
		if least > limit {
			t.Errorf("%s: %d calls started after the decision (limit %d)", what, least, limit)
		}
		waitGoroutines(t, before, what)
	}
	bad := errors.New("bad")
	best(func(decide, count func()) error {
		return par.Range(0, n).Blocking(limit).TryForEach(func(i int) error {
			count()
			io()
			if i == at {
				decide()
				return fmt.Errorf("item %d: %w", i, bad)
			}
			return nil
		})
	}, func(err error) bool { return errors.Is(err, bad) }, "an error")
	stop := errors.New("stop")
	best(func(decide, count func()) error {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		return par.Range(0, n).Blocking(limit).WithContext(ctx).TryForEach(func(i int) error {
			count()
			io()
			if i == at {
				decide()
				cancel(stop)
			}
			return nil
		})
	}, func(err error) bool { return err == stop }, "a cancel")

	p := plumb.Catch(func() {
		par.Range(0, n).Blocking(limit).ForEach(func(i int) {
			if i == at {
				panic("boom")
			}
		})
	})
	if p == nil || p.Value != "boom" {
		t.Errorf("panic came back as %v", p)
	}
	waitGoroutines(t, before, "after a panic")
	par.Range(0, n).Blocking(limit).ForEach(func(int) {})
	waitGoroutines(t, before, "after success")
}

// TestBlockingNestsCPU: a CPU pipeline inside a blocking callback runs on
// the pool as usual.
func TestBlockingNestsCPU(t *testing.T) {
	want := par.Range(0, 100_000).Sum()
	var bad atomic.Int64
	par.Range(0, 64).Blocking(8).ForEach(func(int) {
		if par.Range(0, 100_000).Sum() != want {
			bad.Add(1)
		}
	})
	if bad.Load() != 0 {
		t.Errorf("%d nested sums were wrong", bad.Load())
	}
}

func TestBlockingBadLimit(t *testing.T) {
	mustPanicWith(t, "gopar: Blocking(0): the limit of calls at once must be at least 1", func() { par.Range(0, 1).Blocking(0) })
	mustPanicWith(t, "gopar: Blocking(-3)", func() { par.Slice([]int{1}).Blocking(-3) })
}

// TestBlockingFromSeq: over a seq, the blocking mode reaches its limit too
// (batches sized by time alone held one slow item each, and ran it alone),
// hands the items out in order, and keeps their order.
func TestBlockingFromSeq(t *testing.T) {
	const limit = 8
	xs := make([]int, 100)
	for i := range xs {
		xs[i] = i
	}
	g := newGate(limit)
	got := par.Map(par.FromSeq(slices.Values(xs)).Blocking(limit), func(i int) int { g.call(t, i); return i }).Collect()
	if m := g.most.Load(); m != limit {
		t.Errorf("%d calls in flight at most, want %d", m, limit)
	}
	slices.Sort(g.first)
	if !slices.Equal(g.first, xs[:limit]) {
		t.Errorf("the first calls were for items %v, want 0..%d", g.first, limit-1)
	}
	if !slices.Equal(got, xs) {
		t.Errorf("Collect over the seq lost its order")
	}
}

// TestBlockingErrorRule: when several calls fail, TryForEach and TryMap
// return the error of the lowest-index one among those that ran, whatever
// the order they returned in: here item 3 fails first, then item 1.
func TestBlockingErrorRule(t *testing.T) {
	run := func(name string, try func(f func(int) error) error) {
		t.Helper()
		var started atomic.Int64
		all := make(chan struct{}) // closed once items 0-3 are all running
		threeDone := make(chan struct{})
		err := try(func(i int) error {
			if i < 4 && started.Add(1) == 4 {
				close(all)
			}
			switch i {
			case 1:
				<-threeDone
				return fmt.Errorf("item %d", i)
			case 3:
				<-all
				defer close(threeDone)
				return fmt.Errorf("item %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "item 1" {
			t.Errorf("%s returned %v, want item 1's error", name, err)
		}
	}
	it := par.Range(0, 100).Blocking(4)
	run("TryForEach", func(f func(int) error) error { return it.TryForEach(f) })
	run("TryMap", func(f func(int) error) error {
		_, err := par.TryMap(it, func(i int) (int, error) { return i, f(i) })
		return err
	})
}
