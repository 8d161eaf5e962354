package partition

import (
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
)

func TestSplit(t *testing.T) {
	if stealDivisor != 4 {
		t.Skip("GOPAR_STEAL_DIVISOR changes the split")
	}
	for _, c := range []struct{ a, b, mid, high uint64 }{
		{0, 1, 0, 1}, // one item: stealable
		{0, 2, 1, 2},
		{0, 4, 3, 4},
		{0, 100, 75, 100},
		{10, 11, 10, 11},
		{5, 5, 5, 5}, // empty: (b, b)
		{7, 5, 5, 5},
		{0, MaxLen, 3 * MaxLen / 4, MaxLen},
	} {
		mid, high := unpack(split(c.a, c.b))
		if mid != c.mid || high != c.high {
			t.Errorf("split(%d, %d) = (%d, %d), want (%d, %d)", c.a, c.b, mid, high, c.mid, c.high)
		}
	}
}

func TestNewRangeEdges(t *testing.T) {
	for _, c := range []struct{ lo, hi, n int }{
		{0, 0, 0}, {5, 3, 0}, {-10, -5, 5}, {math.MaxInt - 3, math.MaxInt, 3},
		{math.MinInt, math.MinInt + 2, 2}, {math.MaxInt, math.MinInt, 0},
		{-MaxLen / 2, MaxLen - MaxLen/2, MaxLen},
	} {
		r := NewRange(c.lo, c.hi)
		if r.Len() != c.n {
			t.Errorf("NewRange(%d, %d).Len() = %d, want %d", c.lo, c.hi, r.Len(), c.n)
		}
		if c.n == 0 {
			if _, _, s := r.Steal(); s != Empty {
				t.Errorf("Steal on empty range: %v", s)
			}
			if _, _, ok := r.Take(1); ok {
				t.Errorf("Take on empty range succeeded")
			}
			continue
		}
		lo, hi, ok := r.Take(c.n)
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("NewRange(%d, %d).Take(all) = %d, %d, %v", c.lo, c.hi, lo, hi, ok)
		}
		if _, _, ok := r.Take(1); ok {
			t.Errorf("second Take succeeded")
		}
	}
	for _, c := range [][2]int{{0, MaxLen + 1}, {math.MinInt, math.MaxInt}, {-1, MaxLen}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewRange(%d, %d) did not panic", c[0], c[1])
				}
			}()
			NewRange(c[0], c[1])
		}()
	}
}

// ledger counts how often each index of [lo, lo+len(cnt)) was handed out.
type ledger struct {
	lo  int
	cnt []atomic.Int32
}

func newLedger(lo, n int) *ledger { return &ledger{lo: lo, cnt: make([]atomic.Int32, n)} }

func (g *ledger) mark(t testing.TB, lo, hi int) {
	if lo >= hi || lo < g.lo || hi-g.lo > len(g.cnt) {
		t.Fatalf("block [%d, %d) empty or outside [%d, %d)", lo, hi, g.lo, g.lo+len(g.cnt))
	}
	for i := lo; i < hi; i++ {
		if c := g.cnt[i-g.lo].Add(1); c != 1 {
			t.Fatalf("index %d handed out %d times", i, c)
		}
	}
}

func (g *ledger) check(t testing.TB, want int32) {
	t.Helper()
	for i := range g.cnt {
		if c := g.cnt[i].Load(); c != want {
			t.Fatalf("index %d handed out %d times, want %d", g.lo+i, c, want)
		}
	}
}

// TestRangeSequential runs random sequences of Take and Steal on a range
// and on the ranges made of what was stolen, all from one goroutine, and
// checks that the blocks cover the range exactly once.
func TestRangeSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 20000 / race.Scale {
		n := rng.IntN(300)
		if iter%10 == 0 {
			n = rng.IntN(5)
		}
		lo := rng.IntN(2000) - 1000
		g := newLedger(lo, n)
		ranges := []*Range{NewRange(lo, lo+n)}
		maxGrain := 1 + rng.IntN(40)
		for len(ranges) > 0 {
			k := rng.IntN(len(ranges))
			r := ranges[k]
			if rng.IntN(3) == 0 {
				before := r.Len()
				a, b, s := r.Steal()
				switch s {
				case Retry:
					t.Fatalf("Retry without a race")
				case Success:
					// Marked as the new range's blocks are taken.
					if r.Len() >= before {
						t.Fatalf("Len did not drop after a steal: %d -> %d", before, r.Len())
					}
					ranges = append(ranges, NewRange(a, b))
				}
				continue
			}
			a, b, ok := r.Take(rng.IntN(maxGrain+1) - 1)
			if !ok {
				if r.Len() != 0 {
					t.Fatalf("exhausted range has Len %d", r.Len())
				}
				if _, _, s := r.Steal(); s != Empty {
					t.Fatalf("Steal on exhausted range: %v", s)
				}
				ranges = slices.Delete(ranges, k, k+1)
				continue
			}
			g.mark(t, a, b)
		}
		g.check(t, 1)
	}
}

// TestRangeInterleaved runs owners and thieves of a family of ranges in one
// goroutine, stopping each between its atomic steps at random: an owner
// between publishing low and reading the word, a thief between reading the
// word and low and its CAS (which makes stale thieves). It checks exactly
// once coverage.
func TestRangeInterleaved(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 / race.Scale {
		n := 1 + rng.IntN(200)
		interleaved(t, rng, n, 1+rng.IntN(3), 1+rng.IntN(20))
	}
}

// interleaved is the body of TestRangeInterleaved and FuzzRange.
func interleaved(t testing.TB, rng *rand.Rand, n, thieves, grain int) {
	g := newLedger(0, n)
	type owner struct {
		r        *Range
		reserved bool // low stored, word not yet read
	}
	type thief struct {
		r    *Range
		w, x uint64 // loaded, CAS pending
		busy bool
	}
	owners := []*owner{{r: NewRange(0, n)}}
	ts := make([]thief, thieves)
	for len(owners) > 0 {
		if k := rng.IntN(len(owners) + thieves); k < len(owners) {
			o := owners[k]
			if !o.reserved && rng.IntN(2) == 0 {
				// First half of Take: publish low.
				if l := uint64(o.r.next); l < uint64(o.r.n) {
					o.r.low.Store(uint32(min(l+uint64(grain), uint64(o.r.n))))
					o.reserved = true
				}
				continue
			}
			// (Second half of) Take: stores the same low again.
			o.reserved = false
			a, b, ok := o.r.Take(grain)
			if !ok {
				owners = slices.Delete(owners, k, k+1)
				continue
			}
			g.mark(t, a, b)
		} else {
			th := &ts[k-len(owners)]
			if !th.busy {
				// Mostly gang up on one range, so that one thief's
				// stale word meets another thief before its owner.
				th.r = owners[0].r
				if rng.IntN(4) == 0 {
					th.r = owners[rng.IntN(len(owners))].r
				}
				th.w = th.r.word.Load()
				th.x = uint64(th.r.low.Load())
				th.busy = true
				continue
			}
			th.busy = false
			a, b, s := th.r.stealFrom(th.w, th.x, math.MaxInt)
			if s == Success {
				owners = append(owners, &owner{r: NewRange(a, b)})
			}
		}
	}
	g.check(t, 1)
}

// TestRangeConcurrent: an owner takes while thieves steal and run what they
// stole as owners of new ranges, which the other thieves steal from too.
func TestRangeConcurrent(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(5, 6))
	for range 400 / race.Scale {
		n := rng.IntN(20000)
		lo := rng.IntN(1<<20) - 1<<19
		thieves := 1 + rng.IntN(7)
		grain := 1 + rng.IntN(64)
		g := newLedger(lo, n)
		slots := make([]atomic.Pointer[Range], thieves+1)
		slots[0].Store(NewRange(lo, lo+n))
		var wg sync.WaitGroup
		wg.Add(thieves + 1)
		run := func(r *Range) {
			for {
				a, b, ok := r.Take(grain)
				if !ok {
					return
				}
				g.mark(t, a, b)
			}
		}
		go func() { defer wg.Done(); run(slots[0].Load()) }()
		for i := 1; i <= thieves; i++ {
			go func() {
				defer wg.Done()
				for {
					retry, stole := false, false
					for k := range slots {
						r := slots[k].Load()
						if r == nil {
							continue
						}
						a, b, s := r.Steal()
						if s == Retry {
							retry = true
						}
						if s == Success {
							nr := NewRange(a, b)
							slots[i].Store(nr)
							run(nr)
							stole = true
							break
						}
					}
					if !retry && !stole {
						return
					}
				}
			}()
		}
		wg.Wait()
		g.check(t, 1)
	}
}

func BenchmarkTake(b *testing.B) {
	for _, grain := range []int{1, 64, 4096} {
		b.Run(fmt.Sprint("grain=", grain), func(b *testing.B) {
			r := NewRange(0, MaxLen)
			for range b.N {
				if _, _, ok := r.Take(grain); !ok {
					r = NewRange(0, MaxLen)
				}
			}
		})
	}
}

func BenchmarkSteal(b *testing.B) {
	r := NewRange(0, MaxLen)
	for range b.N {
		if _, _, s := r.Steal(); s != Success {
			r = NewRange(0, MaxLen)
		}
	}
}

func TestStealDivisorFromEnv(t *testing.T) {
	for v, want := range map[string]uint64{"": 4, "2": 2, "16": 16, "1": 4, "17": 4, "x": 4, "-3": 4} {
		if got := stealDivisorFromEnv(v); got != want {
			t.Errorf("stealDivisorFromEnv(%q) = %d, want %d", v, got, want)
		}
	}
}
