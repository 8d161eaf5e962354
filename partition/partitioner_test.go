package partition

import (
	"cmp"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
)

// loopRun describes one run of a Loop by goroutines.
type loopRun struct {
	lo, hi       int
	parts, procs int
	first        int // > 0: NewGrowingLoop with this first size
	grain        int
	cutAfter     int  // cut once this many blocks were handed out (< 0: never)
	cancel       bool // the cut is Cancel; else CutAt the end of that block
	mark         bool // mark every index (else collect blocks)
	yield        bool // yield between blocks
}

// block is one block handed out by Next, and whether the Next call that
// returned it started after the loop was cut.
type block struct {
	lo, hi   int
	afterCut bool
}

// runLoop runs the loop with procs goroutines and checks that every item
// below the cut was handed out exactly once and none twice, that no Next
// started after the cut returned anything at or above it, that exactly one
// Leave returned true (none for an empty loop) and that the loop is done.
func runLoop(t testing.TB, c loopRun) {
	t.Helper()
	var l *Loop
	if c.first > 0 {
		l = NewGrowingLoop(c.lo, c.hi, c.parts, c.first)
	} else {
		l = NewLoop(c.lo, c.hi, c.parts)
	}
	n := l.Len()
	if want := span(c.lo, c.hi); n != want {
		t.Fatalf("Len() = %d, want %d", n, want)
	}
	var g *ledger
	if c.mark {
		g = newLedger(c.lo, int(n))
	}
	var (
		mu     sync.Mutex
		blocks []block
		lasts  atomic.Int32
		handed atomic.Int64
		cutNow atomic.Bool // set once the cut has been made
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
			var mine []block
			for {
				after := cutNow.Load()
				a, b, ok := p.Next(c.grain)
				if !ok {
					break
				}
				if b-a > max(c.grain, 1) || a >= b {
					t.Errorf("block [%d, %d) for grain %d", a, b, c.grain)
				}
				if after && b > l.Cut() {
					t.Errorf("block [%d, %d) handed out after the cut at %d", a, b, l.Cut())
				}
				if g != nil {
					g.mark(t, a, b)
				}
				mine = append(mine, block{a, b, after})
				if h := handed.Add(1); h == int64(c.cutAfter) {
					if c.cancel {
						l.Cancel()
					} else {
						l.CutAt(b)
					}
					cutNow.Store(true)
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
	if !l.Done() && n > 0 {
		t.Fatalf("%+v: loop not done", c)
	}
	if want := int32(min(n, 1)); lasts.Load() != want {
		t.Fatalf("%+v: %d Leaves returned true, want %d", c, lasts.Load(), want)
	}
	// The items below the cut tile [lo, min(hi, cut)); above it, blocks may
	// only be those handed out before the cut, and never overlap.
	end := min(l.at(n), l.Cut())
	if g != nil {
		for i := range g.cnt {
			if v := g.cnt[i].Load(); v > 1 || v == 0 && c.lo+i < end {
				t.Fatalf("%+v: index %d run %d times (cut at %d)", c, c.lo+i, v, l.Cut())
			}
		}
		return
	}
	slices.SortFunc(blocks, func(x, y block) int { return cmp.Compare(x.lo, y.lo) })
	at := c.lo
	for _, b := range blocks {
		if b.lo < at || b.lo < end && b.lo != at {
			t.Fatalf("%+v: block [%d, %d) after %d (cut at %d)", c, b.lo, b.hi, at, l.Cut())
		}
		at = b.hi
	}
	if n > 0 && end > c.lo && at < end {
		t.Fatalf("%+v: blocks end at %d, want %d", c, at, end)
	}
}

func TestLoopConcurrent(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 3000 / race.Scale {
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
			grain: rng.IntN(100) - 1, cutAfter: -1, mark: true, yield: iter%3 == 0}
		if iter%4 == 0 {
			c.grain = rng.IntN(4)
		}
		if iter%2 == 0 {
			c.first = rng.IntN(40) - 1
		}
		runLoop(t, c)
	}
}

// TestLoopCut cuts loops at the end of a random block, or cancels them.
func TestLoopCut(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 4000 / race.Scale {
		n := 1 + rng.IntN(5000)
		c := loopRun{lo: -n / 2, hi: n - n/2, parts: 1 + rng.IntN(8), procs: 1 + rng.IntN(8),
			grain: 1 + rng.IntN(20), cutAfter: 1 + rng.IntN(50), cancel: iter%3 == 0,
			mark: iter%2 == 0, yield: rng.IntN(2) == 0}
		if iter%4 < 2 {
			c.first = 1 + rng.IntN(64)
		}
		runLoop(t, c)
	}
}

// TestLoopHuge runs loops longer than one Range can hold, up to
// [math.MinInt, math.MaxInt), by collecting blocks; the longest ones only
// finish because they are cut.
func TestLoopHuge(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := range 60 / min(race.Scale, 4) {
		n := 1<<32 + rng.IntN(1<<34)
		lo := rng.IntN(1<<40) - 1<<39
		switch iter % 3 {
		case 1:
			lo = math.MaxInt - n
		case 2:
			lo = math.MinInt
		}
		c := loopRun{lo: lo, hi: lo + n, parts: rng.IntN(6), procs: 1 + rng.IntN(8),
			grain: 1<<24 + rng.IntN(1<<26), cutAfter: -1}
		if iter%2 == 1 {
			// The whole int range, or [lo, MaxInt): cut after a few blocks.
			c.hi = math.MaxInt
			if iter%4 == 1 {
				c.lo = math.MinInt
			}
			c.grain = 1<<28 + rng.IntN(1<<30)
			c.cutAfter = 1 + rng.IntN(16)
			if iter%8 == 3 {
				c.first = 1 + rng.IntN(1<<28)
			}
		}
		runLoop(t, c)
	}
}

func TestNewLoopPartitions(t *testing.T) {
	for _, c := range []struct {
		lo, hi, parts, first int
		want                 uint64
	}{
		{0, 0, 4, 0, 0}, {5, 0, 4, 0, 0}, {0, 3, 8, 0, 3}, {0, 100, 0, 0, 1}, {0, 100, -5, 0, 1},
		{0, 100, 7, 0, 7}, {0, 10, 1 << 30, 0, 10}, {0, 1 << 40, 1 << 30, 0, MaxParticipants},
		// Too long for equal partitions: MaxLen each.
		{0, 3 * MaxLen, 1, 0, 3}, {0, 3*MaxLen + 1, 2, 0, 4},
		{0, 1 << 40, 1, 0, 1<<8 + 1},
		{math.MinInt, math.MaxInt, 4, 0, 1<<32 + 1},
		// Growing: 10, 10, 20, 20, 40 (cut short).
		{0, 95, 2, 10, 5}, {0, 100, 2, 10, 5}, {0, 101, 2, 10, 6},
		{0, 1, 3, 100, 1}, {-7, 1 << 20, 1, 1, 21},
		{math.MinInt, math.MaxInt, 2, 1, 64 + 1<<32 - 1},
	} {
		var l *Loop
		if c.first > 0 {
			l = NewGrowingLoop(c.lo, c.hi, c.parts, c.first)
		} else {
			l = NewLoop(c.lo, c.hi, c.parts)
		}
		if l.Partitions() != c.want {
			t.Errorf("%+v: %d partitions, want %d", c, l.Partitions(), c.want)
		}
		if c.want == 0 {
			var p Participant
			if !l.Done() || l.Len() != 0 || l.Enter(&p) {
				t.Errorf("empty loop: Done %v Len %d", l.Done(), l.Len())
			}
			continue
		}
		// Partitions are contiguous, in order, non-empty, at most MaxLen
		// long, and never shrink.
		prev := uint64(0)
		for k := range min(l.Partitions(), 1<<12) {
			a, b := l.offset(k), l.offset(k+1)
			size := b - a
			if size == 0 || size > MaxLen || c.first > 0 && k+1 < l.Partitions() && size < prev {
				t.Fatalf("%+v: partition %d is [%d, %d)", c, k, a, b)
			}
			prev = size
		}
		if l.offset(0) != 0 || l.offset(l.Partitions()) != l.Len() || l.offset(l.Partitions()-1) >= l.Len() {
			t.Errorf("%+v: partitions do not end at the loop's end", c)
		}
	}
}

// TestLoopSteals checks that an idle participant steals from a busy one.
func TestLoopSteals(t *testing.T) {
	l := NewLoop(0, 1000, 2)
	var a, b Participant
	if !l.Enter(&a) || !l.Enter(&b) {
		t.Fatal("Enter failed")
	}
	var c Participant
	if l.Enter(&c) {
		t.Fatal("third Enter succeeded on a loop for two")
	}
	g := newLedger(0, 1000)
	// a claims its partition; b runs the other dry, then must steal from a.
	lo, hi, _ := a.Next(10)
	g.mark(t, lo, hi)
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
	g.check(t, 1)
	if a.Leave() == b.Leave() || !l.Done() {
		t.Fatal("not exactly one last Leave")
	}
	if l.Enter(&c) {
		t.Fatal("Enter succeeded on a done loop")
	}
}

// TestRecordSteals checks the steal log: one entry per steal, naming the
// victim's slot, and each stolen range the start of the thief's next blocks.
func TestRecordSteals(t *testing.T) {
	l := NewLoop(0, 1000, 2)
	var a, b Participant
	if !l.Enter(&a) || !l.Enter(&b) {
		t.Fatal("Enter failed")
	}
	var log []Stolen
	b.RecordSteals(&log)
	a.Next(10) // a holds its partition [0, 500) and has taken 10
	var got [][2]int
	for {
		lo, hi, ok := b.Next(10)
		if !ok {
			break
		}
		got = append(got, [2]int{lo, hi})
	}
	if len(log) == 0 || len(log) != b.Steals() {
		t.Fatalf("log of %d steals, Steals() = %d", len(log), b.Steals())
	}
	for _, s := range log {
		if s.Victim != a.Slot() || s.Lo < 10 || s.Hi > 500 || s.Lo >= s.Hi {
			t.Errorf("steal %+v: want a range inside [10, 500) from slot %d", s, a.Slot())
		}
		// The thief's next block starts the stolen range.
		if !slices.ContainsFunc(got, func(b [2]int) bool { return b[0] == s.Lo }) {
			t.Errorf("steal %+v: no block of the thief starts at %d", s, s.Lo)
		}
	}
	if a.Slot() == b.Slot() {
		t.Errorf("both participants in slot %d", a.Slot())
	}
}

// TestLoopCutBound checks the bound on work after a cut: once CutAt(c)
// has returned, Next hands out nothing at or above c, from any range; the
// items still run above c are the blocks already handed out.
func TestLoopCutBound(t *testing.T) {
	l := NewGrowingLoop(0, math.MaxInt, 3, 100)
	var ps [3]Participant
	for i := range ps {
		if !l.Enter(&ps[i]) {
			t.Fatal("Enter failed")
		}
	}
	// Each participant takes a block from its own partition.
	var ends []int
	for i := range ps {
		_, hi, ok := ps[i].Next(7)
		if !ok {
			t.Fatal("no first block")
		}
		ends = append(ends, hi)
	}
	c := ends[1] - 3 // inside participant 1's block, above participant 0's
	l.CutAt(c)
	l.CutAt(c + 50) // higher: changes nothing
	if l.Cut() != c {
		t.Fatalf("Cut() = %d, want %d", l.Cut(), c)
	}
	g := newLedger(0, c)
	for i := range ps {
		if ends[i] <= c {
			g.mark(t, ends[i]-7, ends[i])
		} else if i == 1 {
			g.mark(t, ends[i]-7, c) // the cut falls inside this block
		}
	}
	for i := range ps {
		for {
			lo, hi, ok := ps[i].Next(7)
			if !ok {
				break
			}
			if hi > c {
				t.Fatalf("participant %d got [%d, %d) after the cut at %d", i, lo, hi, c)
			}
			g.mark(t, lo, hi)
		}
	}
	g.check(t, 1)
	lasts := 0
	for i := range ps {
		if ps[i].Leave() {
			lasts++
		}
	}
	if lasts != 1 || !l.Done() {
		t.Fatalf("%d last Leaves, done %v", lasts, l.Done())
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

// TestParticipantLeft: Left is what the participant's own range still holds,
// 0 before its first block and once the range is done.
func TestParticipantLeft(t *testing.T) {
	l := NewLoop(0, 100, 2) // partitions [0, 50) and [50, 100)
	var p Participant
	if !l.Enter(&p) {
		t.Fatal("Enter failed")
	}
	if n := p.Left(); n != 0 {
		t.Errorf("Left before any block = %d, want 0", n)
	}
	if lo, hi, ok := p.Next(10); !ok || lo != 0 || hi != 10 {
		t.Fatalf("Next(10) = %d, %d, %v", lo, hi, ok)
	}
	if n := p.Left(); n != 40 {
		t.Errorf("Left after [0, 10) = %d, want 40", n)
	}
	p.Next(40)
	if n := p.Left(); n != 0 {
		t.Errorf("Left after the whole partition = %d, want 0", n)
	}
}
