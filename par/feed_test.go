package par_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// A sequence is pulled on a goroutine of the operation's own while the
// pool works (internal/pipe/feed.go). These tests check what that must not change:
// each item once, the sequence never called concurrently, bounded pulling
// ahead, and no goroutine of the operation left when it returns, however
// it ends.

// watchedSeq is a sequence of the ints 0, 1, ..., n-1 (endless if n < 0)
// that records how many items were pulled, whether it is running, and
// whether two calls of it ever overlapped.
type watchedSeq struct {
	n       int
	pulled  atomic.Int64
	running atomic.Int64
	overlap atomic.Bool
	// panicAt, exitAt: the item before which the sequence panics or calls
	// runtime.Goexit (-1: never).
	panicAt, exitAt int
}

func newWatchedSeq(n int) *watchedSeq { return &watchedSeq{n: n, panicAt: -1, exitAt: -1} }

func (w *watchedSeq) seq(yield func(int) bool) {
	if w.running.Add(1) > 1 {
		w.overlap.Store(true)
	}
	defer w.running.Add(-1)
	for i := 0; w.n < 0 || i < w.n; i++ {
		switch i {
		case w.panicAt:
			panic(fmt.Sprintf("the sequence failed at %d", i))
		case w.exitAt:
			runtime.Goexit()
		}
		w.pulled.Add(1)
		if !yield(i) {
			return
		}
	}
}

// check fails if the sequence still runs after the operation returned, or
// was ever called concurrently.
func (w *watchedSeq) check(t *testing.T, where string) {
	t.Helper()
	if w.running.Load() != 0 {
		t.Fatalf("%s: the sequence still runs after the operation returned", where)
	}
	if w.overlap.Load() {
		t.Fatalf("%s: the sequence was called concurrently", where)
	}
}

// feedPools are pools of 1, 2, 8 and 32 workers.
var feedPools = func() []*par.Pool {
	var pools []*par.Pool
	for _, k := range []int{1, 2, 8, 32} {
		p, err := par.NewPool(k)
		if err != nil {
			panic(err)
		}
		pools = append(pools, p)
	}
	return pools
}()

// TestSeqExactlyOnce: every item of a sequence runs exactly once, on 1,
// 2, 8 and 32 workers, for items of several costs (the pool runs batches
// of all that the feeder pulled meanwhile).
func TestSeqExactlyOnce(t *testing.T) {
	n := long.Pick(200_000, 50_000) / race.Scale
	for _, p := range feedPools {
		for _, spin := range []int{0, 1000} {
			w := newWatchedSeq(n)
			got := make([]atomic.Int32, n)
			var sink atomic.Int64
			par.FromSeq(w.seq).WithPool(p).ForEach(func(i int) {
				h := i
				for range spin {
					h = h*31 + 1
				}
				sink.Add(int64(h & 1))
				got[i].Add(1)
			})
			for i := range got {
				if c := got[i].Load(); c != 1 {
					t.Fatalf("%d workers, spin %d: item %d ran %d times", p.Workers(), spin, i, c)
				}
			}
			w.check(t, fmt.Sprintf("%d workers", p.Workers()))
		}
	}
}

// TestSeqPulledAheadIsBounded: an endless sequence whose search is
// decided at item 1,000 has at most two batches (2 x 65,536 items, plus
// the feeder's chunk of 256) pulled past that item, and has returned when
// the search does.
func TestSeqPulledAheadIsBounded(t *testing.T) {
	const decided, bound = 1000, 2*(1<<16) + 2*256
	for _, p := range feedPools {
		w := newWatchedSeq(-1)
		if !par.FromSeq(w.seq).WithPool(p).Any(func(i int) bool { return i == decided }) {
			t.Fatalf("%d workers: Any did not find item %d", p.Workers(), decided)
		}
		if got := w.pulled.Load(); got > decided+bound {
			t.Fatalf("%d workers: %d items pulled for a search decided at %d, want at most %d", p.Workers(), got, decided, decided+bound)
		}
		w.check(t, fmt.Sprintf("%d workers", p.Workers()))
	}
}

// TestSeqStopsEveryWay: a panic or runtime.Goexit in the sequence or in a
// callback, an error, and a cancelled context each end the operation with
// the sequence returned and never called concurrently.
func TestSeqStopsEveryWay(t *testing.T) {
	for _, p := range feedPools {
		on := fmt.Sprintf("%d workers", p.Workers())

		w := newWatchedSeq(1_000_000)
		w.panicAt = 5000
		mustPanicWith(t, "the sequence failed at 5000", func() { par.FromSeq(w.seq).WithPool(p).ForEach(func(int) {}) })
		w.check(t, on+", panic in the sequence")

		w = newWatchedSeq(1_000_000)
		mustPanicWith(t, "callback failed", func() {
			par.FromSeq(w.seq).WithPool(p).ForEach(func(i int) {
				if i == 5000 {
					panic("callback failed")
				}
			})
		})
		w.check(t, on+", panic in a callback")

		n := checkErrorAndCancel(t, on, func(w *watchedSeq) par.Iter[int] { return par.FromSeq(w.seq).WithPool(p) })
		if n > 5000+2*(1<<16)+512 {
			t.Fatalf("%s: a cancelled Count over an endless sequence counted %d items", on, n)
		}

		for name, goexitIn := range map[string]bool{"the sequence": true, "a callback": false} {
			w = newWatchedSeq(1_000_000)
			if goexitIn {
				w.exitAt = 5000
			}
			ended := make(chan bool)
			go func() {
				returned := false
				defer func() { ended <- returned }()
				par.FromSeq(w.seq).WithPool(p).ForEach(func(i int) {
					if !goexitIn && i == 5000 {
						runtime.Goexit()
					}
				})
				returned = true
			}()
			if <-ended {
				t.Fatalf("%s: ForEach returned after a runtime.Goexit in %s", on, name)
			}
			w.check(t, on+", Goexit in "+name)
		}
	}
}

// TestBlockingSeqHasNoBarrier: with Blocking over a sequence, a slow call
// holds back only its own goroutine. Item 0's call returns only once the
// next 500 items (many times the limit) have run; a driver that waited
// for every call of a batch before it pulled the next items would never
// run them.
func TestBlockingSeqHasNoBarrier(t *testing.T) {
	const n, others = 2000, 500
	for _, limit := range []int{2, 4, 16} {
		w := newWatchedSeq(n)
		var ran atomic.Int64
		othersDone := make(chan struct{})
		got := make([]atomic.Int32, n)
		par.FromSeq(w.seq).Blocking(limit).ForEach(func(i int) {
			got[i].Add(1)
			if i == 0 {
				select {
				case <-othersDone:
				case <-time.After(time.Minute): // a guard, so that the failure is reported and does not hang
					t.Errorf("Blocking(%d): item 0's call waited a minute for items 1..%d", limit, others)
				}
				return
			}
			if i <= others && ran.Add(1) == others {
				close(othersDone)
			}
		})
		for i := range got {
			if c := got[i].Load(); c != 1 {
				t.Fatalf("Blocking(%d): item %d ran %d times", limit, i, c)
			}
		}
		w.check(t, fmt.Sprintf("Blocking(%d)", limit))
	}
}

// TestBlockingSeqExactlyOnceAndStops: the blocking driver over a sequence,
// at limits 1, 2, 8 and 32: every item once, in order for Collect and
// Reduce, and a panic or runtime.Goexit in the sequence or a callback, an
// error, a found item and a cancelled context each end the operation with
// the sequence returned and never called concurrently.
func TestBlockingSeqExactlyOnceAndStops(t *testing.T) {
	n := 20_000 / race.Scale
	for _, limit := range []int{1, 2, 8, 32} {
		on := fmt.Sprintf("Blocking(%d)", limit)
		w := newWatchedSeq(n)
		got := make([]atomic.Int32, n)
		par.FromSeq(w.seq).Blocking(limit).ForEach(func(i int) { got[i].Add(1) })
		for i := range got {
			if c := got[i].Load(); c != 1 {
				t.Fatalf("%s: item %d ran %d times", on, i, c)
			}
		}
		w.check(t, on+", ForEach")

		w = newWatchedSeq(n)
		out := par.Map(par.FromSeq(w.seq).Blocking(limit), func(i int) int { return 2 * i }).Collect()
		if len(out) != n {
			t.Fatalf("%s: Collect gave %d items, want %d", on, len(out), n)
		}
		for i, v := range out {
			if v != 2*i {
				t.Fatalf("%s: Collect()[%d] = %d, want %d", on, i, v, 2*i)
			}
		}
		w.check(t, on+", Collect")

		w = newWatchedSeq(n)
		// Concatenation is associative, not commutative: the order shows.
		s := par.Map(par.FromSeq(w.seq).Blocking(limit), func(i int) []int { return []int{i} }).
			Reduce(func() []int { return nil }, func(a, b []int) []int { return append(a, b...) })
		for i, v := range s {
			if v != i {
				t.Fatalf("%s: Reduce put %d at %d", on, v, i)
			}
		}
		w.check(t, on+", Reduce")

		w = newWatchedSeq(-1)
		if i, ok := par.FromSeq(w.seq).Blocking(limit).FindFirst(func(i int) bool { return i >= 3000 }); !ok || i != 3000 {
			t.Fatalf("%s: FindFirst over an endless sequence = %d, %v; want 3000, true", on, i, ok)
		}
		w.check(t, on+", FindFirst")

		w = newWatchedSeq(n)
		w.panicAt = n / 2
		mustPanicWith(t, fmt.Sprintf("the sequence failed at %d", n/2), func() { par.FromSeq(w.seq).Blocking(limit).ForEach(func(int) {}) })
		w.check(t, on+", panic in the sequence")

		w = newWatchedSeq(n)
		mustPanicWith(t, "callback failed", func() {
			par.FromSeq(w.seq).Blocking(limit).ForEach(func(i int) {
				if i == n/2 {
					panic("callback failed")
				}
			})
		})
		w.check(t, on+", panic in a callback")

		c := checkErrorAndCancel(t, on, func(w *watchedSeq) par.Iter[int] { return par.FromSeq(w.seq).Blocking(limit) })
		if c < 5000 {
			t.Fatalf("%s: a Count cancelled at item 5000 counted %d items: the prefix before 5000 ran", on, c)
		}

		for name, goexitIn := range map[string]bool{"the sequence": true, "a callback": false} {
			w = newWatchedSeq(n)
			if goexitIn {
				w.exitAt = n / 2
			}
			ended := make(chan bool)
			go func() {
				returned := false
				defer func() { ended <- returned }()
				par.FromSeq(w.seq).Blocking(limit).ForEach(func(i int) {
					if !goexitIn && i == n/2 {
						runtime.Goexit()
					}
				})
				returned = true
			}()
			if <-ended {
				t.Fatalf("%s: ForEach returned after a runtime.Goexit in %s", on, name)
			}
			w.check(t, on+", Goexit in "+name)
		}
	}
}

// checkErrorAndCancel runs, over an endless sequence, a TryForEach whose
// item 5000 fails and a Count whose context is cancelled at item 5000,
// each through from, and checks that each ends with the sequence returned
// and never called concurrently. It returns the cancelled Count.
func checkErrorAndCancel(t *testing.T, on string, from func(*watchedSeq) par.Iter[int]) int {
	t.Helper()
	boom := errors.New("boom")
	w := newWatchedSeq(-1)
	err := from(w).TryForEach(func(i int) error {
		if i == 5000 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Fatalf("%s: TryForEach = %v, want boom", on, err)
	}
	w.check(t, on+", an error")

	w = newWatchedSeq(-1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := from(w).WithContext(ctx).Filter(func(i int) bool {
		if i == 5000 {
			cancel()
		}
		return true
	}).Count()
	w.check(t, on+", cancelled")
	return n
}
