package pipe

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

func TestNextBlock(t *testing.T) {
	cases := []struct {
		size, n int
		took    time.Duration
		want    int
	}{
		{1, 1, 0, maxGrowth},                            // unmeasurably quick: grow as fast as allowed
		{16, 16, blockTarget / 4, 64},                   // a quarter of the target: 4x
		{64, 10, blockTarget / 4, 64},                   // cut short by the end of a range: keep
		{100, 100, blockTarget, 100},                    // on target: keep
		{100, 100, 10 * blockTarget, 10},                // ten times too slow: a tenth
		{1, 1, time.Second, 1},                          // never below one
		{maxBlock, maxBlock, time.Nanosecond, maxBlock}, // never above maxBlock
	}
	// The inline phase grows faster while blocks are far below the
	// target, and as before near it.
	for _, c := range []struct {
		size, n int
		took    time.Duration
		want    int
	}{
		{1, 1, 0, maxInlineGrowth},        // unmeasurably quick
		{1, 1, blockTarget / 32, 32},      // a 32nd of the target: 32x
		{64, 64, blockTarget / 4, 256},    // a quarter of the target: 4x
		{100, 100, blockTarget, 100},      // on target: keep
		{maxBlock, maxBlock, 1, maxBlock}, // never above maxBlock
	} {
		if got := nextBlock(c.size, c.n, c.took, blockTarget, maxInlineGrowth); got != c.want {
			t.Errorf("inline: nextBlock(%d, %d, %v) = %d, want %d", c.size, c.n, c.took, got, c.want)
		}
	}
	for _, c := range cases {
		if got := nextBlock(c.size, c.n, c.took, blockTarget, maxGrowth); got != c.want {
			t.Errorf("nextBlock(%d, %d, %v) = %d, want %d", c.size, c.n, c.took, got, c.want)
		}
	}
}

// TestSizerFixedCost feeds a sizer the times of a model, a take of s items
// costing fixed + s*perItem, as the parallel phase does, and checks where the
// size settles: with a negligible fixed cost at blockTarget per window, and
// with a large one at a size where the fixed cost is at most 1/fixedShare of
// a take (blocks never collapse to one item).
func TestSizerFixedCost(t *testing.T) {
	for _, c := range []struct {
		fixed, perItem time.Duration
		start          int
	}{
		{0, 10 * time.Nanosecond, 1},
		{0, 10 * time.Nanosecond, 100_000},
		{0, 5 * time.Microsecond, 64},                     // costly items: one at a time
		{800 * time.Nanosecond, 20 * time.Nanosecond, 64}, // the race detector's take
		{3 * time.Microsecond, 100 * time.Nanosecond, 8},  // a map built per block
		{50 * time.Microsecond, time.Nanosecond, 1000},    // a preempted machine
	} {
		z := sizer{size: c.start}
		take := math.MaxInt // the settled size: the smallest of the last windows, which probe
		for i := range 60 {
			t := max(z.size/takesPerClock, 1)
			took := time.Duration(takesPerClock) * (c.fixed + time.Duration(t)*c.perItem)
			z.size = t * takesPerClock
			z.observe(t*takesPerClock, takesPerClock, took)
			if i >= 50 {
				take = min(take, t)
			}
		}
		perTake := c.fixed + time.Duration(take)*c.perItem
		if c.fixed*fixedShare/2 > perTake && take > 1 {
			t.Errorf("%+v: settled at takes of %d items: fixed cost %v of %v", c, take, c.fixed, perTake)
		}
		if c.fixed > 0 && c.fixed*fixedShare/2 > perTake {
			t.Errorf("%+v: takes of %d items collapsed: fixed cost %v of %v", c, take, c.fixed, perTake)
		}
		if want := blockTarget / takesPerClock; c.fixed == 0 && c.perItem < want && (perTake < want/3 || perTake > 3*want) {
			t.Errorf("%+v: takes of %d items take %v, want about %v", c, take, perTake, want)
		}
		if c.fixed == 0 && c.perItem > blockTarget && take != 1 {
			t.Errorf("%+v: costly items in takes of %d", c, take)
		}
		if z.fixed > 2*c.fixed+perTake/10 {
			t.Errorf("%+v: estimated a fixed cost of %v", c, z.fixed)
		}
	}
}

// TestRunCombinesInOrder checks the runs of a parallel loop are combined in
// index order, with an operation that is associative but not commutative,
// over loops long enough to go parallel.
func TestRunCombinesInOrder(t *testing.T) {
	type span struct {
		lo, hi int
		ok     bool // not empty
	}
	pool, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	combines := 0 // Combine runs only in the parallel phase, on the caller
	for _, c := range []struct{ lo, n int }{
		{0, 1}, {0, 10}, {0, 1000}, {0, 300_000},
		// A few items: parallel before item 0 (see fewItems).
		{0, 2}, {0, 8}, {math.MaxInt - 8, 8},
		// Negative indexes (a run's end is no sentinel) and the ends of int.
		{-150_000, 300_000}, {math.MinInt, 300_000}, {math.MaxInt - 300_000, 300_000},
	} {
		lo, n := c.lo, c.n
		// Identity left nil: every run, on the caller and on the helpers,
		// starts at the zero span.
		got := Run(Config{Pool: pool}, lo, lo+n, Reducer[span]{
			Fold: func(acc span, lo, hi int) span {
				for i := lo; i < hi; i++ {
					if work(i) == 0 { // a little work per item, so the loop goes parallel
						t.Log("unlikely")
					}
				}
				if !acc.ok {
					return span{lo, hi, true}
				}
				if acc.hi != lo {
					t.Errorf("n=%d: block [%d,%d) folded after a run ending at %d", n, lo, hi, acc.hi)
				}
				return span{acc.lo, hi, true}
			},
			Combine: func(a, b span) span {
				combines++
				if !a.ok {
					return b
				}
				if !b.ok {
					return a
				}
				if a.hi != b.lo {
					t.Errorf("n=%d: combined [%d,%d) with [%d,%d)", n, a.lo, a.hi, b.lo, b.hi)
				}
				return span{a.lo, b.hi, true}
			},
		})
		if got != (span{lo, lo + n, true}) {
			t.Fatalf("[%d, %d): Run covered %v", lo, lo+n, got)
		}
	}
	if combines == 0 {
		t.Fatal("no loop went parallel: the test checked nothing of the parallel phase")
	}
}

// TestFewItemsGoParallelAtOnce: a loop of a few items offers them to the
// pool before item 0 runs, so item 0 can wait for the last item to start.
// Failed before fewItems: item 0 ran alone in the inline phase, and the last
// item started only after it, 3 s later.
func TestFewItemsGoParallelAtOnce(t *testing.T) {
	for _, workers := range []int{2, 4} {
		pool, err := runtime.New(workers)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		for _, n := range []int{2, fewPerWorker * workers} {
			started := make(chan struct{})
			waited := true
			RunBlocks(Config{Pool: pool}, 0, n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					switch i {
					case 0:
						select {
						case <-started:
						case <-time.After(3 * time.Second):
							waited = false
						}
					case n - 1:
						close(started)
					}
				}
			})
			if !waited {
				t.Fatalf("%d workers, %d items: item %d did not start within 3 s while item 0 waited for it", workers, n, n-1)
			}
		}
	}
}

func work(i int) uint64 {
	h := uint64(i)
	for range 20 {
		h = h*0x9E3779B97F4A7C15 + 1
	}
	return h
}

// TestRunBlockBounds: with MaxBlock no block exceeds it; with MinBlock no
// block is smaller, except the last piece of a range. Both bounds are
// checked on the blocks of the parallel phase apart, which must have run:
// the inline prefix alone honouring them proves nothing about the
// partitioner's blocks.
func TestRunBlockBounds(t *testing.T) {
	pool, err := runtime.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n = 200_000
	// blocks describes the blocks of a run; par is the same over the runs
	// of the parallel phase only. Combine folds the runs left to right
	// from the inline prefix, so its right operand is always a run of the
	// parallel phase.
	type blocks struct{ small, large, count int }
	type sizes struct {
		all, par blocks
		sink     uint64
	}
	merge := func(a, b blocks) blocks {
		return blocks{min(a.small, b.small), max(a.large, b.large), a.count + b.count}
	}
	for _, cfg := range []Config{{Pool: pool, MaxBlock: 3}, {Pool: pool, MinBlock: 5000}} {
		got := Run(cfg, 0, n, Reducer[sizes]{
			Identity: func() sizes { return sizes{all: blocks{small: n}, par: blocks{small: n}} },
			Fold: func(acc sizes, lo, hi int) sizes {
				for i := lo; i < hi; i++ {
					acc.sink += work(i)
				}
				acc.all = merge(acc.all, blocks{hi - lo, hi - lo, 1})
				return acc
			},
			Combine: func(a, b sizes) sizes {
				return sizes{merge(a.all, b.all), merge(a.par, b.all), a.sink + b.sink}
			},
		})
		if got.par.count == 0 {
			t.Fatalf("%+v: no block ran in the parallel phase (%d blocks in all)", cfg, got.all.count)
		}
		if cfg.MaxBlock > 0 && (got.all.large > cfg.MaxBlock || got.par.large > cfg.MaxBlock) {
			t.Errorf("MaxBlock %d: a block of %d items (%d in the parallel phase)", cfg.MaxBlock, got.all.large, got.par.large)
		}
		// Only the last piece of a range may be short, and there are few
		// ranges (two partitions plus one per steal).
		if cfg.MinBlock > 0 && got.all.count > n/cfg.MinBlock+64 {
			t.Errorf("MinBlock %d: %d blocks for %d items", cfg.MinBlock, got.all.count, n)
		}
		if cfg.MinBlock > 0 && got.par.large < cfg.MinBlock {
			t.Errorf("MinBlock %d: the parallel phase's largest block holds %d items", cfg.MinBlock, got.par.large)
		}
	}
}

// TestSizerClampedWindows: under a MaxBlock, every window is shorter than
// the size asked for, so only the probe changes the size; it must stay
// bounded (it once doubled on and on, and the first partition of a growing
// loop, sized from it, spanned 2^32 items).
func TestSizerClampedWindows(t *testing.T) {
	const clamp = 64
	z := sizer{size: 1}
	for range 10_000 {
		z.observe(clamp, 1, 10*time.Nanosecond)
		if z.size > blockLimit(blockTarget) || z.size < 1 {
			t.Fatalf("size %d after clamped windows (limit %d)", z.size, blockLimit(blockTarget))
		}
	}
}

// TestWholeWindow checks when a participant takes the rest of its window in
// one take rather than in pieces.
func TestWholeWindow(t *testing.T) {
	const n = 1 << 20
	var p partition.Participant
	if !partition.NewLoop(0, n, 1).Enter(&p) {
		t.Fatal("cannot enter a new loop")
	}
	if _, _, ok := p.Next(1); !ok { // claim the range: Left is then n-1
		t.Fatal("no first item")
	}
	for _, c := range []struct {
		name         string
		steady       bool
		pieces, take int
		maxBlock     int
		want         int
	}{
		{"not steady", false, 0, 100, 0, 1},
		{"steady, a new window", true, 0, 100, 0, takesPerClock},
		{"steady, three pieces taken", true, 3, 100, 0, takesPerClock - 3},
		{"steady, one piece left", true, takesPerClock - 1, 100, 0, 1},
		{"steady, the range holds less than the window", true, 0, n / 4, 0, 1},
		{"steady, MaxBlock allows three pieces", true, 0, 100, 350, 3},
		{"steady, MaxBlock allows one piece", true, 0, 100, 199, 1},
	} {
		st := poolHand{steady: c.steady, pieces: c.pieces, take: c.take}
		if got := st.wholeWindow(&p, c.maxBlock); got != c.want {
			t.Errorf("%s: wholeWindow = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestSteadiness checks the rule behind wholeWindow: a participant is steady
// after two windows in the same range whose items cost about the same, and
// stops being steady at once when the items get costlier or the range
// changes.
func TestSteadiness(t *testing.T) {
	var st poolHand
	step := func(what string, per time.Duration, want bool) {
		t.Helper()
		st.windowCost(per*1000, 1000)
		if st.steady != want {
			t.Errorf("%s: steady = %v, want %v", what, st.steady, want)
		}
	}
	step("the first window", 2, false)
	step("the same cost again", 2, true)
	step("cheaper items", 1, true)
	step("items three times costlier", 3, false)
	step("the new cost again", 3, true)
	step("twice the cost: still steady", 6, true)
	st.newRange()
	if st.steady {
		t.Error("steady in a new range")
	}
	step("the first window of a new range", 6, false)
	step("the second window of the new range", 6, true)
}

// TestSizerWholeWindows runs the sizer as a steady participant feeds it:
// two windows of pieces, then windows of one take each (the cost model of
// TestSizerFixedCost). The windows must still settle at about blockTarget
// when takes cost nothing fixed, and never collapse when they do.
func TestSizerWholeWindows(t *testing.T) {
	for _, c := range []struct {
		fixed, perItem time.Duration
	}{
		{0, 2 * time.Nanosecond},
		{0, 10 * time.Nanosecond},
		{800 * time.Nanosecond, 20 * time.Nanosecond},
		{3 * time.Microsecond, 100 * time.Nanosecond},
	} {
		z := sizer{size: 64}
		for i := range 60 {
			takes := takesPerClock
			if i >= 2 {
				takes = 1
			}
			per := max(z.size/takes, 1)
			took := time.Duration(takes) * (c.fixed + time.Duration(per)*c.perItem)
			z.observe(per*takes, takes, took)
		}
		window := c.fixed + time.Duration(z.size)*c.perItem
		if c.fixed == 0 && (window < blockTarget/3 || window > 3*blockTarget) {
			t.Errorf("%+v: windows of %d items take %v, want about %v", c, z.size, window, blockTarget)
		}
		if c.fixed > 0 && c.fixed*fixedShare/2 > window {
			t.Errorf("%+v: windows of %d items collapsed: fixed cost %v of %v", c, z.size, c.fixed, window)
		}
	}
}

// TestRunExactlyOnceWhenCostsChange runs a loop whose items are cheap with
// costly stretches in between, so that participants switch between whole
// windows and pieces many times (wholeWindow), on more workers than this
// machine has cores: every item must run exactly once, and the runs must
// combine to the sequential result.
func TestRunExactlyOnceWhenCostsChange(t *testing.T) {
	pool, err := runtime.New(8)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const n = 1 << 19
	cost := func(i int) uint64 {
		h := work(i)
		if i%(1<<15) >= 1<<15-256 { // the last 256 items of every 32Ki: 50 times costlier
			for range 49 {
				h = work(int(h))
			}
		}
		return h
	}
	var want uint64
	for i := range n {
		want += cost(i)
	}
	for round := range 4 {
		seen := make([]atomic.Int32, n)
		got := Run(Config{Pool: pool}, 0, n, Reducer[uint64]{
			Identity: func() uint64 { return 0 },
			Fold: func(acc uint64, lo, hi int) uint64 {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
					acc += cost(i)
				}
				return acc
			},
			Combine: func(a, b uint64) uint64 { return a + b },
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("round %d: item %d ran %d times", round, i, c)
			}
		}
		if got != want {
			t.Fatalf("round %d: sum %d, want %d", round, got, want)
		}
	}
}

// TestNextBlockGrowsAsTheDivision checks that nextBlock's growth, which
// divides only where target/took is below growth, is min(growth,
// target/took) everywhere: at the boundary took*growth == target and
// beside it, and with targets so long that took*growth passes 2^64.
func TestNextBlockGrowsAsTheDivision(t *testing.T) {
	const maxDur = time.Duration(math.MaxInt64)
	for _, target := range []time.Duration{blockTarget, 3*blockTarget + 7, maxDur / 3, maxDur} {
		for _, growth := range []int{maxGrowth, maxInlineGrowth, 3} {
			g := time.Duration(growth)
			for _, took := range []time.Duration{1, 2, 7, target / g, target/g + 1, target/g - 1, target / (g + 1), target/2 - 1, target / 5} {
				if took <= 0 || took >= target/2 {
					continue
				}
				want := int(min(int64(growth), int64(target/took)))
				limit := blockLimit(target)
				if got := nextBlock(1, 1, took, target, growth); got != min(want, limit) {
					t.Errorf("nextBlock(1, 1, %v, target %v, growth %d) = %d, want %d", took, target, growth, got, min(want, limit))
				}
			}
		}
	}
}
