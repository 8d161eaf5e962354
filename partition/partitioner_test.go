package partition

import (
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// loopRun describes one run of a Loop by goroutines.
type loopRun struct {
	lo, hi       int
	parts, procs int
	grain        int
	cancelAfter  int  // cancel once this many blocks were handed out (< 0: never)
	mark         bool // mark every index (else collect blocks)
	yield        bool // yield between blocks
}

// runLoop runs the loop with procs goroutines and checks exactly-once
// coverage (or, after Cancel, at-most-once), that exactly one Leave returned
// true (none for an empty loop) and that the loop is done.
func runLoop(t testing.TB, c loopRun) {
	t.Helper()
	l := NewLoop(c.lo, c.hi, c.parts)
	n := l.Len()
	if want := max(c.hi-c.lo, 0); c.hi > c.lo && n != want {
		t.Fatalf("Len() = %d, want %d", n, want)
	}
	var g *ledger
	if c.mark {
		g = newLedger(c.lo, n)
	}
	var (
		mu     sync.Mutex
		blocks [][2]int
		lasts  atomic.Int32
		handed atomic.Int64
		wg     sync.WaitGroup
	)
	for range c.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Participant
			if !l.Enter(&p) {
				return
			}
			var mine [][2]int
			for {
				a, b, ok := p.Next(c.grain)
				if !ok {
					break
				}
				if b-a > max(c.grain, 1) || a >= b {
					t.Errorf("block [%d, %d) for grain %d", a, b, c.grain)
				}
				if g != nil {
					g.mark(t, a, b)
				} else {
					mine = append(mine, [2]int{a, b})
				}
				if h := handed.Add(1); c.cancelAfter >= 0 && h >= int64(c.cancelAfter) {
					l.Cancel()
				}
				if c.yield {
					goruntime.Gosched()
				}
			}
			if p.Leave() {
				lasts.Add(1)
			}
			mu.Lock()
			blocks = append(blocks, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if !l.Done() {
		t.Fatalf("%+v: loop not done", c)
	}
	if want := int32(min(n, 1)); lasts.Load() != want {
		t.Fatalf("%+v: %d Leaves returned true, want %d", c, lasts.Load(), want)
	}
	cancelled := l.Cancelled()
	if g != nil {
		for i := range g.cnt {
			if v := g.cnt[i].Load(); v > 1 || v == 0 && !cancelled {
				t.Fatalf("%+v: index %d run %d times", c, c.lo+i, v)
			}
		}
		return
	}
	slices.SortFunc(blocks, func(x, y [2]int) int {
		if x[0] < y[0] {
			return -1
		}
		if x[0] > y[0] {
			return 1
		}
		return 0
	})
	at := c.lo
	for _, b := range blocks {
		if b[0] < at || !cancelled && b[0] != at {
			t.Fatalf("%+v: block [%d, %d) after %d", c, b[0], b[1], at)
		}
		at = b[1]
	}
	if n > 0 && !cancelled && at != c.hi {
		t.Fatalf("%+v: blocks end at %d, want %d", c, at, c.hi)
	}
}

func TestLoopConcurrent(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 3000 / scale {
		n := rng.IntN(5000)
		if iter%5 == 0 {
			n = rng.IntN(10) - 3 // empty, reversed, tiny
		}
		lo := rng.IntN(1<<30) - 1<<29
		switch iter % 7 {
		case 1:
			lo = math.MaxInt - max(n, 0)
		case 2:
			lo = math.MinInt + 3 // room for reversed ranges
		}
		c := loopRun{lo: lo, hi: lo + n, parts: rng.IntN(10) - 1, procs: 1 + rng.IntN(8),
			grain: rng.IntN(100) - 1, cancelAfter: -1, mark: true, yield: iter%3 == 0}
		if iter%4 == 0 {
			c.grain = rng.IntN(4)
		}
		runLoop(t, c)
	}
}

func TestLoopCancel(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(9, 10))
	for range 2000 / scale {
		n := 1 + rng.IntN(5000)
		runLoop(t, loopRun{lo: -n / 2, hi: n - n/2, parts: 1 + rng.IntN(8), procs: 1 + rng.IntN(8),
			grain: 1 + rng.IntN(20), cancelAfter: rng.IntN(50), mark: true, yield: rng.IntN(2) == 0})
	}
}

// TestLoopHuge runs loops longer than MaxLen by collecting blocks.
func TestLoopHuge(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := range 40 / min(scale, 4) {
		n := 1<<32 + rng.IntN(1<<34)
		lo := rng.IntN(1<<40) - 1<<39
		switch iter % 3 {
		case 1:
			lo = math.MaxInt - n
		case 2:
			lo = math.MinInt
		}
		runLoop(t, loopRun{lo: lo, hi: lo + n, parts: rng.IntN(6), procs: 1 + rng.IntN(8),
			grain: 1<<24 + rng.IntN(1<<26), cancelAfter: -1})
	}
}

func TestNewLoopPartitions(t *testing.T) {
	for _, c := range []struct{ lo, hi, parts, want int }{
		{0, 0, 4, 0}, {5, 0, 4, 0}, {0, 3, 8, 3}, {0, 100, 0, 1}, {0, 100, -5, 1},
		{0, 100, 7, 7}, {0, 3 * MaxLen, 1, 3}, {0, 3*MaxLen + 1, 2, 4},
		{0, 10, 1 << 30, 10}, {0, 1 << 40, 1 << 30, MaxPartitions},
	} {
		l := NewLoop(c.lo, c.hi, c.parts)
		if l.Partitions() != c.want {
			t.Errorf("NewLoop(%d, %d, %d) has %d partitions, want %d", c.lo, c.hi, c.parts, l.Partitions(), c.want)
		}
		if c.want == 0 {
			var p Participant
			if !l.Done() || l.Len() != 0 || l.Enter(&p) {
				t.Errorf("empty loop: Done %v Len %d", l.Done(), l.Len())
			}
		}
		// Partitions are contiguous, in order, and at most MaxLen long.
		at := c.lo
		for i := range l.Partitions() {
			r := l.slot[i].Load()
			if r.base != at || r.n == 0 && c.hi-c.lo >= c.want {
				t.Fatalf("partition %d starts at %d (len %d), want %d", i, r.base, r.n, at)
			}
			at += int(r.n)
		}
		if c.want > 0 && at != c.hi {
			t.Errorf("partitions end at %d, want %d", at, c.hi)
		}
	}
	for _, c := range [][2]int{{math.MinInt, math.MaxInt}, {0, math.MaxInt}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewLoop(%d, %d) did not panic", c[0], c[1])
				}
			}()
			NewLoop(c[0], c[1], 4)
		}()
	}
}

// TestLoopSteals checks that an idle participant steals from a busy one and
// that the counters add up.
func TestLoopSteals(t *testing.T) {
	l := NewLoop(0, 1000, 2)
	var a, b Participant
	if !l.Enter(&a) || !l.Enter(&b) {
		t.Fatal("Enter failed")
	}
	var c Participant
	if l.Enter(&c) {
		t.Fatal("third Enter succeeded on two partitions")
	}
	g := newLedger(0, 1000)
	// b runs its partition dry, then must steal from a.
	for {
		lo, hi, ok := b.Next(10)
		if !ok {
			break
		}
		g.mark(t, lo, hi)
	}
	if b.Steals() == 0 {
		t.Fatal("b never stole")
	}
	for {
		lo, hi, ok := a.Next(10)
		if !ok {
			break
		}
		g.mark(t, lo, hi)
	}
	if a.Steals()+b.Steals() == 0 || a.Taken()+b.Taken() != 1000 {
		t.Fatalf("steals %d %d, taken %d %d", a.Steals(), b.Steals(), a.Taken(), b.Taken())
	}
	g.check(t, 1)
	if a.Leave() == b.Leave() || !l.Done() {
		t.Fatal("not exactly one last Leave")
	}
}

func BenchmarkLoop(b *testing.B) {
	for range b.N {
		l := NewLoop(0, 1<<16, 1)
		var p Participant
		l.Enter(&p)
		for {
			if _, _, ok := p.Next(64); !ok {
				break
			}
		}
		p.Leave()
	}
}
