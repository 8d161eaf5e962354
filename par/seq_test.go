package par_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// counted is a generator of 0..n-1 that records how it was driven: how
// many items it produced, whether it was called concurrently, and whether
// it saw yield return false.
type counted struct {
	n        int
	produced atomic.Int64
	inside   atomic.Int32
	stopped  atomic.Bool
}

func (c *counted) seq(yield func(int) bool) {
	if c.inside.Add(1) != 1 {
		panic("seq called concurrently")
	}
	defer c.inside.Add(-1)
	for i := range c.n {
		c.produced.Add(1)
		if !yield(i) {
			c.stopped.Store(true)
			return
		}
	}
}

func seqN() int {
	if race.Enabled {
		return 20_000
	}
	return long.Pick(300_000, 60_000)
}

func TestFromSeqOrderAndExactlyOnce(t *testing.T) {
	n := seqN()
	for _, workers := range []int{1, 2, 3, 8} {
		pool, err := runtime.New(workers)
		if err != nil {
			t.Fatal(err)
		}
		c := &counted{n: n}
		calls := make([]atomic.Int32, n)
		it := par.FromSeq(c.seq).WithPool(pool)
		it.ForEach(func(i int) { calls[i].Add(1) })
		for i := range calls {
			if v := calls[i].Load(); v != 1 {
				t.Fatalf("%d workers: item %d seen %d times", workers, i, v)
			}
		}
		got := par.Map(it, func(i int) int { return 3 * i }).Filter(func(v int) bool { return v%2 == 0 }).Collect()
		if len(got) != (n+1)/2 {
			t.Fatalf("%d workers: Collect gave %d items, want %d", workers, len(got), (n+1)/2)
		}
		for k, v := range got {
			if v != 6*k {
				t.Fatalf("%d workers: Collect[%d] = %d, want %d", workers, k, v, 6*k)
			}
		}
		cat := par.Map(par.FromSeq(c.seq).WithPool(pool), func(i int) string { return fmt.Sprint(i % 10) }).
			Reduce(func() string { return "" }, func(a, b string) string { return a + b })
		var want strings.Builder
		for i := range n {
			want.WriteString(fmt.Sprint(i % 10))
		}
		if cat != want.String() {
			t.Fatalf("%d workers: Reduce out of order", workers)
		}
		if got, want := par.Sum(it), n*(n-1)/2; got != want {
			t.Fatalf("%d workers: Sum = %d, want %d", workers, got, want)
		}
		if got := it.Count(); got != n {
			t.Fatalf("%d workers: Count = %d, want %d", workers, got, n)
		}
		if int(c.produced.Load()) != 5*n || c.stopped.Load() {
			t.Fatalf("%d workers: seq produced %d items (stopped %v), want %d, not stopped", workers, c.produced.Load(), c.stopped.Load(), 5*n)
		}
		pool.Close()
	}
}

// TestFromSeqEarlyExitStopsSeq: a search or an error decided at item
// n/10 stops the seq well before its end.
func TestFromSeqEarlyExitStopsSeq(t *testing.T) {
	n := seqN()
	target := n / 10
	for name, run := range map[string]func(par.Iter[int]) bool{
		"Any":   func(it par.Iter[int]) bool { return it.Any(func(i int) bool { return i == target }) },
		"Every": func(it par.Iter[int]) bool { return !it.Every(func(i int) bool { return i != target }) },
		"Find": func(it par.Iter[int]) bool {
			v, ok := it.Find(func(i int) bool { return i == target })
			return ok && v == target
		},
		"FindFirst": func(it par.Iter[int]) bool {
			v, ok := it.FindFirst(func(i int) bool { return i >= target })
			return ok && v == target
		},
		"TryForEach": func(it par.Iter[int]) bool {
			// The error is that of the lowest failing item among those
			// that ran: target or above.
			var at failAt
			err := it.TryForEach(func(i int) error {
				if i >= target {
					return failAt(i)
				}
				return nil
			})
			return errors.As(err, &at) && int(at) >= target
		},
	} {
		c := &counted{n: n}
		if !run(par.FromSeq(c.seq)) {
			t.Errorf("%s: wrong result", name)
		}
		// The seq is pulled ahead of the work by at most the items taken
		// so far: a decision at target leaves at most about 4*target
		// items pulled (internal/pipe/feed.go), and a seq not pulled to its end
		// has had yield return false.
		if p := c.produced.Load(); p > int64(4*target+2) || (p < int64(n) && !c.stopped.Load()) {
			t.Errorf("%s: seq not stopped (produced %d of %d, stopped %v)", name, p, n, c.stopped.Load())
		}
	}
}

// TestFromSeqTryMapStopsSeq: an error in TryMap stops the seq too, and
// the error is that of the lowest failing item among those that ran.
func TestFromSeqTryMapStopsSeq(t *testing.T) {
	n := seqN()
	c := &counted{n: n}
	got, err := par.TryMap(par.FromSeq(c.seq), failAbove(n/3))
	var at failAt
	if got != nil || !errors.As(err, &at) || int(at) <= n/3 {
		t.Fatalf("TryMap: %d results, %v", len(got), err)
	}
	if !c.stopped.Load() || c.produced.Load() >= int64(n) {
		t.Fatalf("TryMap: seq not stopped (produced %d of %d)", c.produced.Load(), n)
	}
}

func TestFromSeqCancel(t *testing.T) {
	c := &counted{n: seqN()}
	ctx, cancel := context.WithCancel(context.Background())
	var seen atomic.Int64
	par.FromSeq(c.seq).WithContext(ctx).ForEach(func(i int) {
		if seen.Add(1) == 100 {
			cancel()
		}
	})
	if !c.stopped.Load() || c.produced.Load() >= int64(c.n) {
		t.Fatalf("seq not stopped on cancellation (produced %d of %d)", c.produced.Load(), c.n)
	}
}

func TestFromSeqPanics(t *testing.T) {
	// A panic in a callback stops seq and reaches the caller as a *runtime.Panic.
	c := &counted{n: seqN()}
	v := catch(func() {
		par.FromSeq(c.seq).ForEach(func(i int) {
			if i == 1000 {
				panic("boom")
			}
		})
	})
	if p, ok := v.(*runtime.Panic); !ok || p.Value != "boom" {
		t.Fatalf("callback panic: recovered %#v", v)
	}
	if !c.stopped.Load() {
		t.Fatal("callback panic: seq not stopped")
	}
	// A panic in seq reaches the caller as it is.
	v = catch(func() {
		par.FromSeq(func(yield func(int) bool) {
			for i := range 10 {
				yield(i)
			}
			panic("seq boom")
		}).ForEach(func(int) {})
	})
	if v != "seq boom" {
		t.Fatalf("seq panic: recovered %#v", v)
	}
	// A seq that ignores yield's false gets a clear panic.
	v = catch(func() {
		par.FromSeq(func(yield func(int) bool) {
			for i := range 1 << 20 {
				yield(i)
			}
		}).Any(func(i int) bool { return i == 5 })
	})
	if s, ok := v.(string); !ok || !strings.Contains(s, "after yield returned false") {
		t.Fatalf("misbehaving seq: recovered %#v", v)
	}
	// Every way of stopping a seq that ignores yield's false ends in a
	// clear panic, never a hang; after a callback's panic, in that panic.
	ignoring := func(yield func(int) bool) {
		for i := range 1 << 20 {
			yield(i)
		}
	}
	alreadyDone, cancel := context.WithCancel(context.Background())
	cancel()
	var seen atomic.Int64
	for name, c := range map[string]struct {
		run  func(it par.Iter[int])
		want string
	}{
		"FindFirst":  {func(it par.Iter[int]) { it.FindFirst(func(i int) bool { return i == 5 }) }, "after yield returned false"},
		"TryForEach": {func(it par.Iter[int]) { _ = it.TryForEach(func(i int) error { return failAt(i) }) }, "after yield returned false"},
		"TryMap":     {func(it par.Iter[int]) { _, _ = par.TryMap(it, failAbove(3)) }, "after yield returned false"},
		"cancelled": {func(it par.Iter[int]) {
			ctx, cancel := context.WithCancel(context.Background())
			it.WithContext(ctx).ForEach(func(int) {
				if seen.Add(1) == 100 {
					cancel()
				}
			})
		}, "after yield returned false"},
		"a callback panics": {func(it par.Iter[int]) {
			it.ForEach(func(i int) {
				if i == 3 {
					panic("callback boom")
				}
			})
		}, "callback boom"},
	} {
		v := catch(func() { c.run(par.FromSeq(ignoring)) })
		if p, ok := v.(*runtime.Panic); ok {
			v = p.Value
		}
		if s, ok := v.(string); !ok || !strings.Contains(s, c.want) {
			t.Errorf("%s, over a seq that ignores yield's false: recovered %#v, want a panic with %q", name, v, c.want)
		}
	}
	// A context done before the start pulls nothing at all.
	if n := par.FromSeq(ignoring).WithContext(alreadyDone).Count(); n != 0 {
		t.Errorf("FromSeq with a done context counted %d items", n)
	}
	// Two terminal operations at once on one iterator.
	var it par.Iter[int]
	it = par.FromSeq(c.seq)
	v = catch(func() { it.ForEach(func(int) { it.Count() }) })
	p, ok := v.(*runtime.Panic)
	if !ok {
		t.Fatalf("nested terminal operation: recovered %#v", v)
	}
	if s, ok := p.Value.(string); !ok || !strings.Contains(s, "one terminal operation at a time") {
		t.Fatalf("nested terminal operation: recovered %#v", p.Value)
	}
}

type failAt int

func (f failAt) Error() string { return fmt.Sprint("failed at ", int(f)) }

func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestFromSeqEmpty(t *testing.T) {
	for name, seq := range map[string]iter.Seq[int]{"nil": nil, "empty": func(func(int) bool) {}} {
		it := par.FromSeq(seq)
		if got := it.Collect(); got == nil || len(got) != 0 {
			t.Errorf("%s: Collect = %#v, want []int{}", name, got)
		}
		if it.Count() != 0 || par.Sum(it) != 0 || it.Any(func(int) bool { return true }) || it.Len() != -1 {
			t.Errorf("%s: Count, Sum, Any or Len wrong", name)
		}
		if _, ok := it.FindFirst(func(int) bool { return true }); ok {
			t.Errorf("%s: FindFirst found an item", name)
		}
		if err := it.TryForEach(func(int) error { return errors.New("x") }); err != nil {
			t.Errorf("%s: TryForEach = %v", name, err)
		}
	}
}

func ExampleFromSeq() {
	ages := map[string]int{"ada": 36, "alan": 41, "grace": 85}
	names := par.FromSeq(maps.Keys(ages)).Filter(func(name string) bool { return ages[name] > 40 }).Collect()
	slices.Sort(names) // map order is random; FromSeq keeps it
	fmt.Println(names)

	// Over an ordered sequence, Collect keeps the order.
	squares := par.Map(par.FromSeq(slices.Values([]int{1, 2, 3, 4})), func(x int) int { return x * x }).Collect()
	fmt.Println(squares)
	// Output:
	// [alan grace]
	// [1 4 9 16]
}

// TestFromSeqToolkit: the operations added beside FromSeq (TryMap, Fold,
// Min, FilterMap, Blocking, float Sum) see a seq's items as a slice's.
func TestFromSeqToolkit(t *testing.T) {
	xs := make([]int, 5000)
	for i := range xs {
		xs[i] = (i * 7919) % 5003
	}
	seq := func() par.Iter[int] { return par.FromSeq(slices.Values(xs)) }
	double := func(x int) (int, error) { return 2 * x, nil }
	got, err := par.TryMap(seq(), double)
	want, _ := par.TryMap(par.Slice(xs), double)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("TryMap over FromSeq: err %v, equal %v", err, slices.Equal(got, want))
	}
	stop := errors.New("stop")
	if _, err := par.TryMap(seq(), func(x int) (int, error) {
		if x == xs[4000] {
			return 0, stop
		}
		return x, nil
	}); err != stop {
		t.Errorf("TryMap over FromSeq failing at item 4000: err %v", err)
	}
	sum := func() int { return 0 }
	add := func(a, x int) int { return a + x }
	plus := func(a, b int) int { return a + b }
	if g, w := par.Fold(seq(), sum, add, plus), par.Fold(par.Slice(xs), sum, add, plus); g != w {
		t.Errorf("Fold over FromSeq = %d, want %d", g, w)
	}
	if g, ok := par.Min(seq()); !ok || g != slices.Min(xs) {
		t.Errorf("Min over FromSeq = %d, %v", g, ok)
	}
	even := func(x int) (int, bool) { return x / 2, x%2 == 0 }
	if g, w := par.FilterMap(seq(), even).Collect(), par.FilterMap(par.Slice(xs), even).Collect(); !slices.Equal(g, w) {
		t.Errorf("FilterMap over FromSeq: %d items, want %d", len(g), len(w))
	}
	if g := seq().Blocking(8).Count(); g != len(xs) {
		t.Errorf("FromSeq(...).Blocking(8).Count() = %d, want %d", g, len(xs))
	}
	fs := par.Map(seq(), func(x int) float64 { return float64(x) / 3 })
	var w float64
	for _, x := range xs {
		w += float64(x) / 3
	}
	if g := par.Sum(fs); math.Abs(g-w) > 1e-9*w {
		t.Errorf("float Sum over FromSeq = %v, want %v", g, w)
	}
}

// TestFromSeqScannerReuse: a seq that yields bufio.Scanner.Bytes hands the
// callbacks lines that the next Scan overwrites (the FromSeq doc's
// warning); yielding Text gives every line as it was.
func TestFromSeqScannerReuse(t *testing.T) {
	var text strings.Builder
	var want []string
	for i := range 200_000 / race.Scale {
		line := fmt.Sprintf("line %d of the file", i)
		want = append(want, line)
		text.WriteString(line + "\n")
	}
	scan := func(yieldBytes bool) []string {
		sc := bufio.NewScanner(strings.NewReader(text.String()))
		if yieldBytes {
			return par.Map(par.FromSeq(func(yield func([]byte) bool) {
				for sc.Scan() {
					if !yield(sc.Bytes()) {
						return
					}
				}
			}), func(b []byte) string { return string(b) }).Collect()
		}
		return par.FromSeq(func(yield func(string) bool) {
			for sc.Scan() {
				if !yield(sc.Text()) {
					return
				}
			}
		}).Collect()
	}
	if got := scan(false); !slices.Equal(got, want) {
		t.Errorf("yielding Text: %d lines, not the file's %d", len(got), len(want))
	}
	// The scanner refills its 4 KiB buffer every few hundred lines, on
	// the goroutine that pulls the seq, while the pool runs the lines
	// already pulled: some lines are overwritten before they run. The
	// race detector reports that reuse as the race it is, so it runs only
	// without the detector.
	if race.Enabled {
		return
	}
	if got := scan(true); slices.Equal(got, want) {
		t.Error("yielding Bytes gave every line intact: the warning in FromSeq's doc is wrong")
	}
}
