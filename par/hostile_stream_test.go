package par_test

import (
	"errors"
	goruntime "runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// The stream sources (FromSeq, FromWalk, FromSeqErr) under the things a
// user's code does to them that a loop over a slice never meets: a
// t.Fatal in a callback or in the source itself, a panic or a break in the
// body of a range over Values. Each case ends as the sequential program
// would, with every goroutine of the operation returned and the pool
// whole. The waits of the stream drivers (a participant waiting for the
// feeder, the feeder waiting for room) are what each case crosses.

// streamN is the number of items of the sources below: enough for the
// operation to reach its parallel phase.
var streamN = 30_000 / race.Scale

func countTo(n int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n && yield(i); i++ {
		}
	}
}

func walkTo(n int) func(yield func(int) error) error {
	return func(yield func(int) error) error {
		for i := range n {
			if err := yield(i); err != nil {
				return err
			}
		}
		return nil
	}
}

func pairsTo(n int) func(yield func(int, error) bool) {
	return func(yield func(int, error) bool) {
		for i := 0; i < n && yield(i, nil); i++ {
		}
	}
}

func sum(a, b int) int { return a + b }

// TestGoexitStreams: runtime.Goexit (t.Fatal) in a callback over each
// stream source, under each driver that pulls one (ordered and unordered
// folds, a keyed fold after FlatMap, Blocking), at the first, a middle and
// the last item, ends the calling goroutine with Goexit once every
// callback that was running has returned.
func TestGoexitStreams(t *testing.T) {
	n := streamN
	zero := func() int { return 0 }
	ops := []struct {
		name string
		run  func(f func(i int))
	}{
		{"FromSeq.ForEach", func(f func(int)) { par.FromSeq(countTo(n)).ForEach(f) }},
		{"Fold(FromSeq)", func(f func(int)) {
			par.Fold(par.FromSeq(countTo(n)), zero, func(a, i int) int { f(i); return a + i }, sum)
		}},
		{"Fold(FromSeq.Unordered)", func(f func(int)) {
			par.Fold(par.FromSeq(countTo(n)).Unordered(), zero, func(a, i int) int { f(i); return a + i }, sum)
		}},
		{"CountBy(FlatMap(FromSeq))", func(f func(int)) {
			par.CountBy(par.FlatMap(par.FromSeq(countTo(n)), func(i int) []int { f(i); return []int{i, i} }),
				func(i int) int { return i % 7 })
		}},
		{"FromSeq.Blocking(4).ForEach", func(f func(int)) { par.FromSeq(countTo(n)).Blocking(4).ForEach(f) }},
		{"FromWalk.TryForEach", func(f func(int)) {
			_ = par.FromWalk(walkTo(n)).TryForEach(func(i int) error { f(i); return nil })
		}},
		{"TryFold(FromWalk)", func(f func(int)) {
			_, _ = par.TryFold(par.FromWalk(walkTo(n)), zero, func(a, i int) (int, error) { f(i); return a + i, nil }, sum)
		}},
		{"FromSeqErr.Blocking(4).TryForEach", func(f func(int)) {
			_ = par.FromSeqErr(pairsTo(n)).Blocking(4).TryForEach(func(i int) error { f(i); return nil })
		}},
	}
	for _, op := range ops {
		for _, at := range []int{0, n / 2, n - 1} {
			checkGoexitAt(t, op.name+", Goexit at item "+strconv.Itoa(at), at, op.run)
		}
	}
	checkWhole(t, par.DefaultPool())
}

// TestGoexitInStreamSource: a source that calls runtime.Goexit while it
// runs (a t.Fatal in the lister a walk wraps) ends the operation, which
// runs the source on a goroutine of its own, with Goexit in the caller's
// goroutine, as the sequential program's loop over the source would; the
// items pulled before it ran, and the source has returned.
func TestGoexitInStreamSource(t *testing.T) {
	n := streamN
	for _, at := range []int{0, n / 2, n - 1} {
		var pulled, ran atomic.Int64
		var inSource atomic.Int32
		seq := func(yield func(int) bool) {
			inSource.Add(1)
			defer inSource.Add(-1)
			for i := range n {
				if i == at {
					goruntime.Goexit()
				}
				pulled.Add(1)
				if !yield(i) {
					return
				}
			}
		}
		walk := func(yield func(int) error) error {
			seq(func(i int) bool { return yield(i) == nil })
			return nil
		}
		ops := map[string]func(){
			"FromSeq.ForEach": func() { par.FromSeq(seq).ForEach(func(int) { ran.Add(1) }) },
			"Fold(FromSeq)": func() {
				par.Fold(par.FromSeq(seq), func() int { return 0 }, func(a, i int) int { ran.Add(1); return a + i }, sum)
			},
			"FromSeq.Blocking(4).ForEach": func() { par.FromSeq(seq).Blocking(4).ForEach(func(int) { ran.Add(1) }) },
			"FromWalk.TryForEach":         func() { _ = par.FromWalk(walk).TryForEach(func(int) error { ran.Add(1); return nil }) },
		}
		for name, op := range ops {
			pulled.Store(0)
			ran.Store(0)
			e := endOf(t, op)
			if !e.Goexited {
				t.Errorf("%s, Goexit in the source at item %d: %v, want runtime.Goexit", name, at, e)
			}
			if inSource.Load() != 0 {
				t.Errorf("%s, Goexit in the source at item %d: the operation returned while the source ran", name, at)
			}
			if r, p := ran.Load(), pulled.Load(); r > p {
				t.Errorf("%s, Goexit in the source at item %d: %d calls for %d items pulled", name, at, r, p)
			}
		}
	}
	checkWhole(t, par.DefaultPool())
}

// TestRangeBodyOverWalk: a break out of a range over Values of a FromWalk
// makes the walk's yield return an error, and the range ends once the walk
// has returned; a panic in the body goes on to the caller as it is (it is
// the caller's own code), with the walk returned too.
func TestRangeBodyOverWalk(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		p := newPool(t, workers)
		for _, at := range []int{0, 100, streamN - 1} {
			w := newWalker(streamN, -1)
			seen := 0
			for v := range par.FromWalk(w.walk).WithPool(p).Values() {
				if seen++; v == at {
					break
				}
			}
			if w.running.Load() != 0 || seen != at+1 {
				t.Errorf("%d workers, break at %d: %d items seen, walk still running: %v", workers, at, seen, w.running.Load() != 0)
			}
			if at < streamN-1 && !w.stopped.Load() {
				t.Errorf("%d workers, break at %d: the walk's yield never returned an error", workers, at)
			}

			w = newWalker(streamN, -1)
			boom := errors.New("the body's own panic")
			e := endOf(t, func() {
				for v := range par.FromWalk(w.walk).WithPool(p).Values() {
					if v == at {
						panic(boom)
					}
				}
			})
			if e.Panicked != boom {
				t.Errorf("%d workers, panic in the body at %d: %v, want the body's panic as it is", workers, at, e)
			}
			if w.running.Load() != 0 {
				t.Errorf("%d workers, panic in the body at %d: the walk still runs", workers, at)
			}
		}
		checkWhole(t, p)
	}
}

// TestGoexitInNestedLoops: a Goexit in the inner loop of a nested
// operation, which runs on the worker its outer callback runs on, ends the
// outer operation's caller with Goexit once every callback has returned,
// and leaves the pool whole; so does one in a par.Join inside a callback.
func TestGoexitInNestedLoops(t *testing.T) {
	const outer = 64
	inner := streamN / outer
	n := outer * inner
	nested := func(f func(int)) {
		par.Range(0, outer).ForEach(func(o int) { par.Range(o*inner, (o+1)*inner).ForEach(f) })
	}
	joined := func(f func(int)) {
		par.Range(0, outer).ForEach(func(o int) {
			mid := o*inner + inner/2
			par.Join(func() { par.Range(o*inner, mid).ForEach(f) }, func() { par.Range(mid, (o+1)*inner).ForEach(f) })
		})
	}
	for _, at := range []int{0, n / 2, n - 1} {
		checkGoexitAt(t, "nested Range, Goexit at item "+strconv.Itoa(at), at, nested)
		checkGoexitAt(t, "Join inside Range, Goexit at item "+strconv.Itoa(at), at, joined)
	}
	checkWhole(t, par.DefaultPool())
}
