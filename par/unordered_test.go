package par_test

import (
	"maps"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestUnorderedFoldOneAccumulatorPerGoroutine: with Unordered, a Fold over
// a sequence of many items makes at most one accumulator per goroutine
// that runs it, for the whole sequence, and counts every item once, on 1,
// 2, 3 and 8 workers. The ordered Fold over the same sequence makes one per
// run of contiguous chunks.
func TestUnorderedFoldOneAccumulatorPerGoroutine(t *testing.T) {
	n := 1_000_000 / race.Scale
	for _, p := range scanPools() {
		var inits atomic.Int64
		counts := par.Fold(par.FromSeq(func(yield func(int) bool) {
			for i := range n {
				if !yield(i % 1000) {
					return
				}
			}
		}).WithPool(p).Unordered(),
			func() map[int]int { inits.Add(1); return map[int]int{} },
			func(m map[int]int, x int) map[int]int { m[x]++; return m },
			func(a, b map[int]int) map[int]int {
				for k, v := range b {
					a[k] += v
				}
				return a
			})
		total := 0
		for _, v := range counts {
			total += v
		}
		if len(counts) != 1000 || total != n {
			t.Fatalf("%d workers: %d keys, %d items counted, want 1000 and %d", p.Workers(), len(counts), total, n)
		}
		// One per participant of the one loop over the sequence: the
		// caller and a helper job per other worker; up to three each where
		// a map would share a cache line with another's (pipe.Apart).
		if got, most := inits.Load(), int64(3*p.Workers()); got > most {
			t.Fatalf("%d workers: %d accumulators for %d items, want at most %d", p.Workers(), got, n, most)
		}
	}
}

// TestMapInitOverASequence: MapInit's states, which the pipeline keeps for
// its whole life, are made at most once per goroutine over a sequence too,
// whatever the number of batches.
func TestMapInitOverASequence(t *testing.T) {
	n := 500_000 / race.Scale
	for _, p := range scanPools() {
		var inits atomic.Int64
		it := par.MapInit(par.FromSeq(func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		}).WithPool(p), func() *int { inits.Add(1); return new(int) }, func(s *int, x int) int { *s++; return x })
		if got, want := par.Sum(it), n*(n-1)/2; got != want {
			t.Fatalf("%d workers: Sum %d, want %d", p.Workers(), got, want)
		}
		if got, most := inits.Load(), int64(p.Workers()+2); got > most {
			t.Fatalf("%d workers: %d states for %d items, want at most %d", p.Workers(), got, n, most)
		}
	}
}

// TestUnorderedValuesInCompletionOrder: with Unordered and Blocking, Values
// hands out an item as soon as its call returns: item 0's call waits until
// the loop body has received item 1, which in source order would never
// come (the test would time out). All gives each item's source position.
func TestUnorderedValuesInCompletionOrder(t *testing.T) {
	got1 := make(chan struct{})
	f := func(i int) int {
		if i == 0 {
			<-got1
		}
		return 10 * i
	}
	var order []int
	for i, v := range par.Map(par.Range(0, 2).Blocking(2), f).Unordered().All() {
		if v != 10*i {
			t.Fatalf("All gave position %d with %d", i, v)
		}
		order = append(order, i)
		if i == 1 {
			close(got1)
		}
	}
	if !slices.Equal(order, []int{1, 0}) {
		t.Fatalf("positions in the order %v, want [1 0]", order)
	}
}

// TestUnorderedValuesEveryItemOnce: over a range, a slice and a sequence,
// with filters and on limits 1 to 16, every item comes exactly once; a
// break stops the loop with every call returned.
func TestUnorderedValuesEveryItemOnce(t *testing.T) {
	n := 2000 / race.Scale
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	for _, limit := range []int{1, 2, 16} {
		for name, it := range map[string]par.Iter[int]{
			"Range":   par.Range(0, n).Iter,
			"Slice":   par.Slice(xs),
			"FromSeq": par.FromSeq(slices.Values(xs)),
		} {
			var running atomic.Int64
			it := par.Map(it.Blocking(limit).Unordered(), func(x int) int {
				running.Add(1)
				defer running.Add(-1)
				return x
			}).Filter(func(x int) bool { return x%3 != 0 })
			seen := map[int]int{}
			for v := range it.Values() {
				seen[v]++
			}
			want := map[int]int{}
			for _, x := range xs {
				if x%3 != 0 {
					want[x] = 1
				}
			}
			if !maps.Equal(seen, want) {
				t.Fatalf("%s, limit %d: the items seen differ from the source's", name, limit)
			}
			k := 0
			for range it.Values() {
				if k++; k == 10 {
					break
				}
			}
			if r := running.Load(); r != 0 {
				t.Fatalf("%s, limit %d: %d calls still running after the loop broke", name, limit, r)
			}
		}
	}
}

// TestUnorderedValuesPanicAndGoexit: a panic in a call reaches the loop as
// a *par.Panic, also after a break; a runtime.Goexit ends the loop's
// goroutine.
func TestUnorderedValuesPanicAndGoexit(t *testing.T) {
	it := par.Map(par.Range(0, 100).Blocking(4).Unordered(), func(i int) int {
		if i == 50 {
			panic("item 50")
		}
		return i
	})
	mustPanicWith(t, "item 50", func() {
		for range it.Values() {
		}
	})
	exited := make(chan bool)
	go func() {
		done := false
		defer func() { exited <- !done }()
		for range par.Map(par.Range(0, 100).Blocking(4).Unordered(), func(i int) int {
			if i == 7 {
				runtime.Goexit()
			}
			return i
		}).Values() {
		}
		done = true
	}()
	if !<-exited {
		t.Fatal("the loop's goroutine went on after a call's runtime.Goexit")
	}
}

// TestSeqAllocationsPerChunk: an operation over a sequence allocates per
// chunk of items (the feeder's, the participants'), never per item: a
// million items cost a few thousand allocations at most, ordered or not.
func TestSeqAllocationsPerChunk(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	defer settleForAllocs(t)()
	const n = 1_000_000
	seq := func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"Sum", func() { sink = par.Sum(par.FromSeq(seq)) }},
		{"Reduce", func() {
			sink = par.FromSeq(seq).Reduce(func() int { return 0 }, func(a, b int) int { return a + b })
		}},
		{"Unordered Fold", func() {
			sink = par.Fold(par.FromSeq(seq).Unordered(), func() int { return 0 },
				func(a, x int) int { return a + x }, func(a, b int) int { return a + b })
		}},
	} {
		if got, most := testing.AllocsPerRun(3, c.run), float64(n/100); got > most {
			t.Errorf("%s over a sequence of %d items: %.0f allocations, want at most %.0f", c.name, n, got, most)
		}
	}
}

// TestFoldEveryInitValueCombined: every value init makes reaches combine,
// the ones Fold passes over because they would share a cache line with
// another run's accumulator included, ordered and Unordered, over a slice
// and a sequence, on 1, 2, 3 and 8 workers. The accumulator is a pointer to
// 16 bytes, which the allocator puts four to a line.
func TestFoldEveryInitValueCombined(t *testing.T) {
	type acc struct{ sum, parts int }
	n := 200_000 / race.Scale
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	for _, p := range scanPools() {
		for _, unordered := range []bool{false, true} {
			for name, it := range map[string]par.Iter[int]{
				"Slice":   par.Slice(xs).WithPool(p),
				"FromSeq": par.FromSeq(slices.Values(xs)).WithPool(p),
			} {
				if unordered {
					it = it.Unordered()
				}
				var made atomic.Int64
				got := par.Fold(it,
					func() *acc { made.Add(1); return &acc{parts: 1} },
					func(a *acc, x int) *acc { a.sum += x; return a },
					func(a, b *acc) *acc { a.sum += b.sum; a.parts += b.parts; return a })
				if got.sum != n*(n-1)/2 || int64(got.parts) != made.Load() {
					t.Fatalf("%d workers, %s, unordered %v: sum %d, %d values combined of %d made, want %d and all",
						p.Workers(), name, unordered, got.sum, got.parts, made.Load(), n*(n-1)/2)
				}
			}
		}
	}
}
