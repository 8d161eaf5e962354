package par_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// TestValuesOrder: Values and All give Collect's items, in order, with
// Collect's indexes, on every kind of pipeline, worker count and buffer.
func TestValuesOrder(t *testing.T) {
	n := seqN()
	square := func(i int) int { return i * i }
	odd := func(i int) bool { return i%2 == 1 }
	for _, workers := range []int{1, 2, 8} {
		pool := newPool(t, workers)
		pipelines := map[string]par.Iter[int]{
			"range":         par.Map(par.Range(0, n), square),
			"slice":         par.Slice(make([]int, n)).Map(func(int) int { return 7 }),
			"filter":        par.Range(0, n).Filter(odd).Map(square).Iter,
			"fromseq":       par.Map(par.FromSeq((&counted{n: n}).seq), square),
			"fromseq-filt":  par.FromSeq((&counted{n: n}).seq).Filter(odd),
			"flatmap":       par.FlatMap(par.Range(0, n/10), func(i int) []int { return []int{i, -i} }),
			"empty":         par.Range(0, 0).Iter,
			"reversed":      par.Range(5, -5).Iter,
			"zero":          {},
			"blocking":      par.Map(par.Range(0, 2000), square).Blocking(16),
			"seq-blocking":  par.FromSeq((&counted{n: 2000}).seq).Blocking(16),
			"buffer1":       par.Map(par.Range(0, 3000), square).WithBuffer(1),
			"buffer7-seq":   par.FromSeq((&counted{n: 3000}).seq).WithBuffer(7),
			"negative-ints": par.Range(-3000, 3000).Iter,
		}
		for name, it := range pipelines {
			it = it.WithPool(pool)
			want := it.Collect()
			got := slices.Collect(it.Values())
			if !slices.Equal(got, want) {
				t.Fatalf("%d workers, %s: Values gives %d items, Collect %d, or they differ", workers, name, len(got), len(want))
			}
			k := 0
			for i, v := range it.All() {
				if i != k || v != want[i] {
					t.Fatalf("%d workers, %s: All gives (%d, %d) at position %d, Collect %d", workers, name, i, v, k, want[k])
				}
				k++
			}
			if k != len(want) {
				t.Fatalf("%d workers, %s: All gives %d items, Collect %d", workers, name, k, len(want))
			}
		}
	}
}

// pullCounter is a generator of 0, 1, ... (up to n) that counts the items
// pulled and records whether it has returned.
type pullCounter struct {
	n        int
	pulled   atomic.Int64
	returned atomic.Bool
}

func (c *pullCounter) seq(yield func(int) bool) {
	defer c.returned.Store(true)
	for i := range c.n {
		c.pulled.Add(1)
		if !yield(i) {
			return
		}
	}
}

// TestValuesWindow: while the loop body holds item k, at most k + buffer
// source items have been pulled (the window of stream.go), and a break
// after 1,000 items leaves at most 1,000 + buffer pulled, with the
// sequence returned by the time the loop statement ends. Without the
// window (a producer that pulls freely) the first check fails.
func TestValuesWindow(t *testing.T) {
	const stopAt = 1000
	for _, workers := range []int{1, 2, 4} {
		pool := newPool(t, workers)
		for _, buffer := range []int{1, 16, 256, 0} {
			limit := buffer
			c := &pullCounter{n: 1 << 20}
			it := par.Map(par.FromSeq(c.seq), func(i int) int { return i + 1 }).WithPool(pool)
			if buffer > 0 {
				it = it.WithBuffer(buffer)
			} else {
				limit = 1 << 16 // the default, documented on Values
			}
			for k, v := range it.All() {
				if v != k+1 {
					t.Fatalf("item %d is %d", k, v)
				}
				if p := c.pulled.Load(); p > int64(k+limit) {
					t.Fatalf("%d workers, buffer %d: %d items pulled while the loop body holds item %d", workers, buffer, p, k)
				}
				if k+1 == stopAt {
					break
				}
			}
			if !c.returned.Load() {
				t.Fatalf("%d workers, buffer %d: the sequence still runs after the loop ended", workers, buffer)
			}
			if p := c.pulled.Load(); p > int64(stopAt+limit) {
				t.Fatalf("%d workers, buffer %d: %d items pulled for a break after %d", workers, buffer, p, stopAt)
			}
		}
	}
}

// TestValuesBufferBytes: by default a stream holds about 4 MB of items,
// counted at their size: 1 KB records from FromSeq, each mapped to
// another, are at most 2,048 ahead of the loop body (1 KB in the ring and
// 1 KB computed), and over a range, whose items are only computed, 4,096;
// at least one per worker. A limit of 65,536 items, whatever their size,
// fails it.
func TestValuesBufferBytes(t *testing.T) {
	type record [1024]byte
	const n = 20_000
	for _, workers := range []int{1, 2, 4, 64} {
		pool := newPool(t, workers)
		var pulled, computed atomic.Int64
		seq := func(yield func(record) bool) {
			for i := range n {
				pulled.Add(1)
				var r record
				r[0], r[1] = byte(i), byte(i>>8)
				if !yield(r) {
					return
				}
			}
		}
		mapped := func(r record) record { computed.Add(1); r[2] = 1; return r }
		limit := int64(max(2048, workers))
		k := int64(0)
		for r := range par.Map(par.FromSeq(seq), mapped).WithPool(pool).Values() {
			if int(r[0])|int(r[1])<<8 != int(k%(1<<16)) || r[2] != 1 {
				t.Fatalf("%d workers: item %d is wrong", workers, k)
			}
			if p := pulled.Load(); p > k+1+limit {
				t.Fatalf("%d workers: %d records pulled while the loop body holds record %d (limit %d)", workers, p, k, limit)
			}
			k++
		}
		if k != n {
			t.Fatalf("%d workers: %d records, want %d", workers, k, n)
		}
		computed.Store(0)
		limit = int64(max(4096, workers))
		k = 0
		for r := range par.Map(par.Range(0, n), func(i int) record {
			computed.Add(1)
			var r record
			r[0] = byte(i)
			return r
		}).WithPool(pool).Values() {
			if r[0] != byte(k) {
				t.Fatalf("%d workers: range item %d is wrong", workers, k)
			}
			if c := computed.Load(); c > k+1+limit {
				t.Fatalf("%d workers: %d records computed while the loop body holds record %d (limit %d)", workers, c, k, limit)
			}
			k++
		}
	}
}

// TestWithBufferThroughAdapters: WithBuffer(n) holds through the adapters
// that make a stream of a stream (Enumerate, Skip, Take, Chain, Zip after
// a Filter, over FromSeq): a loop body that breaks after k items has had at
// most n source items pulled past the source item of the k-th, per such
// adapter in the chain. Without the pump's credit, Enumerate after a
// Filter pulled about 500 for a break after 10.
func TestWithBufferThroughAdapters(t *testing.T) {
	even := func(i int) bool { return i%2 == 0 }
	key := func(p par.Pair[int, int]) int { return p.Value }
	chains := []struct {
		name   string
		layers int // adapters that make a stream of a stream
		build  func(src par.Iter[int]) par.Iter[int]
	}{
		{"Enumerate(Filter)", 1, func(src par.Iter[int]) par.Iter[int] { return par.Map(par.Enumerate(src.Filter(even)), key) }},
		{"Enumerate(Enumerate(Filter))", 2, func(src par.Iter[int]) par.Iter[int] {
			return par.Map(par.Enumerate(par.Map(par.Enumerate(src.Filter(even)), key)), key)
		}},
		{"Filter.Skip", 1, func(src par.Iter[int]) par.Iter[int] { return src.Filter(even).Skip(4) }},
		{"FlatMap.Take", 1, func(src par.Iter[int]) par.Iter[int] {
			return par.FlatMap(src, func(i int) []int { return []int{i, i} }).Take(1 << 30)
		}},
		{"Chain(Filter, Slice)", 1, func(src par.Iter[int]) par.Iter[int] { return par.Chain(src.Filter(even), par.Slice([]int{-1})) }},
		{"Zip(Filter, Range)", 1, func(src par.Iter[int]) par.Iter[int] {
			return par.ZipWith(src.Filter(even), par.Range(0, 1<<40), func(x, _ int) int { return x })
		}},
	}
	const stopAt = 10
	for _, workers := range []int{1, 2, 4} {
		pool := newPool(t, workers)
		for _, buffer := range []int{1, 16, 100} {
			for _, ch := range chains {
				c := &pullCounter{n: 1 << 20}
				k, last := 0, 0
				for v := range ch.build(par.FromSeq(c.seq)).WithPool(pool).WithBuffer(buffer).Values() {
					last = v
					if k++; k == stopAt {
						break
					}
				}
				if k != stopAt {
					t.Fatalf("%s: %d items, want %d", ch.name, k, stopAt)
				}
				if p := c.pulled.Load(); p > int64(last+1+buffer*ch.layers) {
					t.Errorf("%s, %d workers, WithBuffer(%d): %d items pulled for a break at source item %d", ch.name, workers, buffer, p, last)
				}
			}
		}
	}
}

// TestValuesStopsTheWork: after a break in the loop body, the work in
// flight stops: a range of 2^40 costly items returns at once, and no
// callback runs after the loop statement has ended.
func TestValuesStopsTheWork(t *testing.T) {
	var running, after atomic.Int64
	var ended atomic.Bool
	it := par.Map(par.Range(0, 1<<40), func(i int) int {
		running.Add(1)
		if ended.Load() {
			after.Add(1)
		}
		x := i
		for range 1000 {
			x = x*31 + 1
		}
		running.Add(-1)
		return x
	})
	for i, v := range it.All() {
		_ = v
		if i == 5000 {
			break
		}
	}
	ended.Store(true)
	if r := running.Load(); r != 0 {
		t.Fatalf("%d callbacks still run after the loop ended", r)
	}
	// One more operation on the pool: had a callback of the stream been
	// left running, it could count here.
	par.Range(0, 100_000).ForEach(func(int) {})
	if a := after.Load(); a != 0 {
		t.Fatalf("%d callbacks ran after the loop ended", a)
	}
}

// TestValuesLoopBodyPanics: a panic in the loop body propagates as it is,
// stops the sequence, and leaves the iterator reusable.
func TestValuesLoopBodyPanics(t *testing.T) {
	c := &pullCounter{n: 1 << 20}
	it := par.Map(par.FromSeq(c.seq), func(i int) int { return i })
	func() {
		defer func() {
			if v := recover(); v != "body" {
				t.Fatalf("recovered %v, want the loop body's panic", v)
			}
		}()
		for v := range it.Values() {
			if v == 100 {
				panic("body")
			}
		}
	}()
	if !c.returned.Load() {
		t.Fatal("the sequence still runs after the loop body panicked")
	}
	c.n = 10
	if got := slices.Collect(it.Values()); len(got) != 10 {
		t.Fatalf("a second range gives %d items, want 10", len(got))
	}
}

// TestValuesCallbackPanics: a panic in the pipeline reaches the loop's
// goroutine as a *par.Panic holding the value, after the items of the
// batches before, and with the sequence stopped.
func TestValuesCallbackPanics(t *testing.T) {
	const bad = 50_000
	for _, workers := range []int{1, 2, 4} {
		pool := newPool(t, workers)
		c := &pullCounter{n: 1 << 20}
		errBad := errors.New("bad item")
		it := par.Map(par.FromSeq(c.seq), func(i int) int {
			if i == bad {
				panic(errBad)
			}
			return i
		}).WithPool(pool)
		next := 0
		func() {
			defer func() {
				v := recover()
				var p *par.Panic
				if e, ok := v.(error); !ok || !errors.As(e, &p) || !errors.Is(e, errBad) {
					t.Fatalf("%d workers: recovered %v, want a *par.Panic of the callback's error", workers, v)
				}
			}()
			for v := range it.Values() {
				if v != next {
					t.Fatalf("item %d is %d", next, v)
				}
				next++
			}
			t.Fatal("the loop ended without the panic")
		}()
		if next > bad {
			t.Fatalf("%d workers: %d items given before the panic of item %d", workers, next, bad)
		}
		if !c.returned.Load() {
			t.Fatalf("%d workers: the sequence still runs after the panic", workers)
		}
	}
}

// TestValuesSeqPanics: a panic in the sequence itself reaches the loop as
// it is, as FromSeq documents for every operation.
func TestValuesSeqPanics(t *testing.T) {
	seq := func(yield func(int) bool) {
		for i := range 5000 {
			if i == 3000 {
				panic("seq broke")
			}
			if !yield(i) {
				return
			}
		}
	}
	defer func() {
		if v := recover(); v != "seq broke" {
			t.Fatalf("recovered %v", v)
		}
	}()
	for range par.FromSeq(seq).Values() {
	}
	t.Fatal("no panic")
}

// goexitOf runs f on a goroutine of its own and reports whether it ended
// by runtime.Goexit (rather than by returning).
func goexitOf(f func()) (goexited bool) {
	done := make(chan bool)
	go func() {
		returned := false
		defer func() { done <- !returned }()
		f()
		returned = true
	}()
	return <-done
}

// TestValuesGoexit: runtime.Goexit (t.Fatal) in the loop body ends the
// loop's goroutine and stops the sequence; in a callback run on the
// goroutine that runs the stream's batches (the first item, which the
// inline phase runs there), it ends the loop's goroutine too, after
// stopping the work.
func TestValuesGoexit(t *testing.T) {
	c := &pullCounter{n: 1 << 20}
	after := false
	if !goexitOf(func() {
		for v := range par.FromSeq(c.seq).Values() {
			if v == 10 {
				goruntime.Goexit()
			}
		}
		after = true
	}) || after {
		t.Fatal("Goexit in the loop body did not end the goroutine")
	}
	if !c.returned.Load() {
		t.Fatal("the sequence still runs after Goexit in the loop body")
	}

	c = &pullCounter{n: 1 << 20}
	it := par.Map(par.FromSeq(c.seq), func(i int) int {
		if i == 0 {
			goruntime.Goexit()
		}
		return i
	}).WithPool(newPool(t, 1)) // one worker: the producer runs every item
	got := 0
	if !goexitOf(func() {
		for range it.Values() {
			got++
		}
	}) {
		t.Fatal("Goexit in a callback did not end the loop's goroutine")
	}
	if got != 0 {
		t.Fatalf("%d items given after the callback of item 0 called Goexit", got)
	}
	if !c.returned.Load() {
		t.Fatal("the sequence still runs after Goexit in a callback")
	}
}

// TestValuesContext: a done context ends the iteration early, without a
// panic; one done before the loop gives no item.
func TestValuesContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for range par.Range(0, 1<<40).WithContext(ctx).Values() {
		if n++; n == 1000 {
			cancel()
		}
	}
	if n < 1000 {
		t.Fatalf("%d items", n)
	}
	for range par.Range(0, 10).WithContext(ctx).Values() {
		t.Fatal("an item after the context was done")
	}
}

// TestValuesNested: a stream consumed inside a callback of a one-worker
// pool, whose only worker then waits for it, still completes: the
// goroutine that runs the stream's batches runs them itself.
func TestValuesNested(t *testing.T) {
	pool := newPool(t, 1)
	sums := par.Map(par.Range(0, 4).WithPool(pool), func(k int) int {
		s := 0
		for v := range par.Range(0, 20_000).WithPool(pool).Values() {
			s += v
		}
		return s
	}).Collect()
	for _, s := range sums {
		if s != 20_000*19_999/2 {
			t.Fatalf("nested sum %d", s)
		}
	}
}

// TestValuesClosedPool: ranging over a stream on a closed pool panics with
// ErrClosed, as every operation does.
func TestValuesClosedPool(t *testing.T) {
	pool, err := par.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	defer func() {
		if v := recover(); v != runtime.ErrClosed {
			t.Fatalf("recovered %v", v)
		}
	}()
	for range par.Range(0, 10).WithPool(pool).Values() {
		t.Fatal("an item on a closed pool")
	}
}

// TestWithBufferBad: a buffer under 1 is refused where it is set.
func TestWithBufferBad(t *testing.T) {
	defer func() {
		if v := fmt.Sprint(recover()); v == "<nil>" {
			t.Fatal("WithBuffer(0) did not panic")
		}
	}()
	par.Range(0, 10).WithBuffer(0)
}

// TestValuesObserved: progress and a timeline observe a stream as any
// operation: the last report counts every item, and the timeline has
// blocks covering them.
func TestValuesObserved(t *testing.T) {
	n := 100_000
	if race.Enabled {
		n = 10_000
	}
	var last [2]int
	var tl par.Timeline
	it := par.Range(0, n).WithProgress(func(done, total int) { last = [2]int{done, total} }).WithTimeline(&tl)
	k := 0
	for range it.Values() {
		k++
	}
	if k != n || last != [2]int{n, n} {
		t.Fatalf("%d items, last report %v", k, last)
	}
	covered := 0
	for _, l := range tl.Lanes {
		for _, b := range l.Blocks {
			covered += b.Hi - b.Lo
		}
	}
	if covered != n {
		t.Fatalf("the timeline's blocks cover %d items of %d", covered, n)
	}
}

// TestValuesOneLoop: over FromSeq, Values runs one loop for the whole
// sequence, in which a slow item holds back only its own chunk: item
// slowAt waits until item slowAt+gap has been computed, farther on than
// any batch reaches (a stream in batches deadlocks here, each batch
// waiting for its slowest item), and the items still come in order.
func TestValuesOneLoop(t *testing.T) {
	const (
		n      = 200_000
		slowAt = 40_000
		gap    = 20_000 // past a batch's most: a quarter of the buffer
	)
	for _, workers := range []int{2, 4} {
		reached := make(chan struct{})
		timedOut := false
		it := par.Map(par.FromSeq((&pullCounter{n: n}).seq), func(i int) int {
			switch i {
			case slowAt:
				select {
				case <-reached:
				case <-time.After(20 * time.Second): // the failure this test detects, not a synchronisation
					timedOut = true
				}
			case slowAt + gap:
				close(reached)
			}
			return 2 * i
		}).WithPool(newPool(t, workers))
		k := 0
		for v := range it.Values() {
			if v != 2*k {
				t.Fatalf("%d workers: item %d is %d", workers, k, v)
			}
			k++
		}
		if k != n || timedOut {
			t.Fatalf("%d workers: %d items, and item %d waited for item %d in vain: %v", workers, k, slowAt, slowAt+gap, timedOut)
		}
	}
}

// TestValuesRamp: over FromSeq, the sequence runs no further ahead of the
// loop body than the items the body has taken: while the body holds item
// k, at most 2k+1 items have been pulled, so that a break after k items
// costs O(k) work, however large the buffer.
func TestValuesRamp(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		c := &pullCounter{n: 1 << 20}
		it := par.Map(par.FromSeq(c.seq), func(i int) int { return i }).WithPool(newPool(t, workers))
		for v := range it.Values() {
			if p := c.pulled.Load(); p > int64(2*v+1) {
				t.Fatalf("%d workers: %d items pulled while the loop body holds item %d", workers, p, v)
			}
			if v == 100_000 {
				break
			}
		}
	}
}

// TestValuesBufferFollowsTheBudget: a memory budget below 4 MB bounds a
// stream's buffer: under WithMemory(64 KB), 1 KB records from FromSeq,
// each mapped to another, are at most 32 ahead of the loop body (at least
// one per worker), and Stats.BufferedBytes stays within the budget.
func TestValuesBufferFollowsTheBudget(t *testing.T) {
	type record [1024]byte
	const n = 5_000
	for _, workers := range []int{1, 2, 64} {
		var pulled atomic.Int64
		seq := func(yield func(record) bool) {
			for range n {
				pulled.Add(1)
				if !yield(record{}) {
					return
				}
			}
		}
		var st par.Stats
		limit := int64(max(32, workers))
		k := int64(0)
		it := par.Map(par.FromSeq(seq), func(r record) record { r[0] = 1; return r })
		for range it.WithPool(newPool(t, workers)).WithMemory(64 << 10).WithStats(&st).Values() {
			if p := pulled.Load(); p > k+1+limit {
				t.Fatalf("%d workers: %d records pulled while the loop body holds record %d (limit %d)", workers, p, k, limit)
			}
			k++
		}
		if k != n || st.BufferedBytes > max(64<<10, 2048*int64(workers)) {
			t.Fatalf("%d workers: %d records, %d bytes held; want %d records within the budget", workers, k, st.BufferedBytes, n)
		}
	}
}
