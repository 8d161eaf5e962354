package pipe

import (
	"math"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/partition"
	"github.com/gopar-dev/gopar/runtime"
)

// scriptHand hands out a fixed list of blocks and records what the engine
// tells it.
type scriptHand struct {
	blocks    [][2]int
	newRuns   int
	verdicts  [][2]int // [stop (0 or 1), cut] per folded block
	abandoned bool
	left      []run
	leftLog   *laneLog
	leaves    int
	each      bool  // blockRuns
	keptAt    []int // the blocks folded when each keep came
	resumed   *run
}

func (h *scriptHand) resume() (run, bool) {
	if h.resumed == nil {
		return run{}, false
	}
	return *h.resumed, true
}

func (h *scriptHand) next() (lo, hi int, ok bool) {
	if len(h.blocks) == 0 {
		return 0, 0, false
	}
	b := h.blocks[0]
	h.blocks = h.blocks[1:]
	return b[0], b[1], true
}

func (h *scriptHand) newRun()         { h.newRuns++ }
func (h *scriptHand) blockRuns() bool { return h.each }

func (h *scriptHand) folded(lo, hi int, stop bool, cut int) {
	s := 0
	if stop {
		s = 1
	}
	h.verdicts = append(h.verdicts, [2]int{s, cut})
}

func (h *scriptHand) keep(mine []run, x run) []run {
	h.keptAt = append(h.keptAt, len(h.verdicts))
	return append(mine, x)
}
func (h *scriptHand) abandon() { h.abandoned = true }
func (h *scriptHand) leave(mine []run, log *laneLog) {
	h.left, h.leftLog = mine, log
	h.leaves++
}

// indexes is a boxed Reducer that collects the indexes it folds; it panics at
// item panicAt, calls runtime.Goexit at goexitAt (math.MinInt: never), and cuts at
// cutAt (math.MaxInt: never).
func indexes(panicAt, goexitAt, cutAt int, unordered bool) Reducer[any] {
	return boxed(Reducer[[]int]{
		Identity: func() []int { return nil },
		Fold: func(acc []int, lo, hi int) []int {
			for i := lo; i < hi; i++ {
				switch i {
				case panicAt:
					panic("boom")
				case goexitAt:
					goruntime.Goexit()
				}
				acc = append(acc, i)
			}
			return acc
		},
		Combine:   func(a, b []int) []int { return append(a, b...) },
		Cut:       func(acc []int) int { return cutAt },
		Unordered: unordered,
	})
}

// TestEngineRuns checks the engine's runs: contiguous blocks fold into one
// run, a block that does not extend it begins a new one (newRun), every
// run reaches leave through keep, and the Reducer's verdict reaches the
// hand after each block. Where the hand asks for it (blockRuns), every
// block is a run, kept as soon as it is folded.
func TestEngineRuns(t *testing.T) {
	for _, c := range []struct {
		name      string
		unordered bool
		each      bool
		blocks    [][2]int
		runs      [][2]int
	}{
		{"contiguous", false, false, [][2]int{{0, 3}, {3, 5}, {5, 9}}, [][2]int{{0, 9}}},
		{"steals", false, false, [][2]int{{0, 3}, {7, 9}, {9, 10}, {3, 4}}, [][2]int{{0, 3}, {7, 10}, {3, 4}}},
		{"negative", false, false, [][2]int{{-5, -2}, {-2, 0}, {4, 6}}, [][2]int{{-5, 0}, {4, 6}}},
		// An unordered run ends where its last block does.
		{"unordered", true, false, [][2]int{{0, 3}, {7, 9}, {3, 4}}, [][2]int{{0, 4}}},
		{"block runs", false, true, [][2]int{{0, 3}, {3, 5}, {9, 10}}, [][2]int{{0, 3}, {3, 5}, {9, 10}}},
		{"none", false, false, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &scriptHand{blocks: slices.Clone(c.blocks), each: c.each}
			r := indexes(math.MinInt, math.MinInt, 42, c.unordered)
			var failed atomic.Pointer[runtime.Panic]
			participate(&r, &failed, observers{}, hand(h))
			if failed.Load() != nil || h.abandoned || h.leaves != 1 {
				t.Fatalf("failed %v, abandoned %v, %d leaves; want none, false, 1", failed.Load(), h.abandoned, h.leaves)
			}
			if h.newRuns != len(c.runs) {
				t.Errorf("%d new runs, want %d", h.newRuns, len(c.runs))
			}
			var got [][2]int
			for _, x := range h.left {
				want := []int{}
				for _, b := range c.blocks {
					if c.unordered || (b[0] >= x.lo && b[1] <= x.hi) {
						for i := b[0]; i < b[1]; i++ {
							want = append(want, i)
						}
					}
				}
				if got := unbox[[]int](x.acc); !slices.Equal(got, want) {
					t.Errorf("run [%d, %d) folded %v, want %v", x.lo, x.hi, got, want)
				}
				got = append(got, [2]int{x.lo, x.hi})
			}
			if !slices.Equal(got, c.runs) {
				t.Errorf("runs %v, want %v", got, c.runs)
			}
			if len(h.verdicts) != len(c.blocks) {
				t.Fatalf("%d verdicts for %d blocks", len(h.verdicts), len(c.blocks))
			}
			if c.each {
				for k, at := range h.keptAt {
					if at != k+1 {
						t.Errorf("run %d kept after %d blocks were folded, want %d", k, at, k+1)
					}
				}
			}
			for _, v := range h.verdicts {
				if v != [2]int{0, 42} {
					t.Errorf("verdict %v, want no stop and the cut at 42", v)
				}
			}
		})
	}
}

// TestEngineUnwinds checks how a participant ends when the user's code
// panics or calls runtime.Goexit: the failure is recorded, the hand is told
// to stop the loop (abandon), the run being folded is lost, the runs that
// ended before it reach leave, and leave runs once.
func TestEngineUnwinds(t *testing.T) {
	for _, c := range []struct {
		name              string
		panicAt, goexitAt int
		goexit            bool
	}{
		{"panic", 11, math.MinInt, false},
		{"goexit", math.MinInt, 11, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &scriptHand{blocks: [][2]int{{0, 5}, {8, 10}, {10, 12}, {20, 30}}}
			r := indexes(c.panicAt, c.goexitAt, math.MaxInt, false)
			var failed atomic.Pointer[runtime.Panic]
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { recover() }() // a panic must not get past the engine
				participate(&r, &failed, observers{}, hand(h))
			}()
			wg.Wait()
			p := failed.Load()
			if p == nil || p.IsGoexit() != c.goexit {
				t.Fatalf("recorded %v, want a Goexit %v", p, c.goexit)
			}
			if !h.abandoned || h.leaves != 1 {
				t.Errorf("abandoned %v, %d leaves; want true, 1", h.abandoned, h.leaves)
			}
			if len(h.left) != 1 || h.left[0].lo != 0 || h.left[0].hi != 5 || !slices.Equal(unbox[[]int](h.left[0].acc), []int{0, 1, 2, 3, 4}) {
				t.Errorf("runs %v, want [0, 5) alone (the run of [8, 12) is lost)", h.left)
			}
			if len(h.blocks) != 1 {
				t.Errorf("%d blocks left, want 1: the engine takes none after the failure", len(h.blocks))
			}
		})
	}
}

// TestEngineTimeline checks that the engine records each block it folds
// on the participant's lane, and hands the lane to leave.
func TestEngineTimeline(t *testing.T) {
	rec := &recording{others: map[laneKey][]partition.Block{}}
	log := &laneLog{rec: rec, key: laneKey{goroutineLane, 3}}
	h := &scriptHand{blocks: [][2]int{{0, 2}, {5, 6}}}
	r := indexes(math.MinInt, math.MinInt, math.MaxInt, false)
	var failed atomic.Pointer[runtime.Panic]
	participate(&r, &failed, observers{log: log}, hand(h))
	if h.leftLog != log {
		t.Fatalf("leave got lane %p, want %p", h.leftLog, log)
	}
	var got [][2]int
	for _, b := range log.blocks {
		if b.End < b.Start {
			t.Errorf("block %+v ends before it starts", b)
		}
		got = append(got, [2]int{b.Lo, b.Hi})
	}
	if want := [][2]int{{0, 2}, {5, 6}}; !slices.Equal(got, want) {
		t.Errorf("lane blocks %v, want %v", got, want)
	}
}

// A participant that resumes a run (a helper back in its slot) folds its
// blocks into that run while they extend it, and ends it where one does
// not: an unordered loop's one accumulator goes on.
func TestEngineResumes(t *testing.T) {
	for _, c := range []struct {
		name      string
		unordered bool
		blocks    [][2]int
		runs      [][2]int
		accs      [][]int
	}{
		{"extends", false, [][2]int{{3, 5}}, [][2]int{{0, 5}}, [][]int{{0, 1, 2, 3, 4}}},
		{"a new run", false, [][2]int{{7, 8}}, [][2]int{{0, 3}, {7, 8}}, [][]int{{0, 1, 2}, {7}}},
		{"unordered", true, [][2]int{{7, 8}, {4, 5}}, [][2]int{{0, 5}}, [][]int{{0, 1, 2, 7, 4}}},
		{"no blocks", false, nil, [][2]int{{0, 3}}, [][]int{{0, 1, 2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &scriptHand{blocks: slices.Clone(c.blocks), resumed: &run{lo: 0, hi: 3, acc: box([]int{0, 1, 2})}}
			r := indexes(math.MinInt, math.MinInt, 42, c.unordered)
			var failed atomic.Pointer[runtime.Panic]
			participate(&r, &failed, observers{}, hand(h))
			var got [][2]int
			var accs [][]int
			for _, x := range h.left {
				got = append(got, [2]int{x.lo, x.hi})
				accs = append(accs, unbox[[]int](x.acc))
			}
			if !slices.Equal(got, c.runs) || !slices.EqualFunc(accs, c.accs, slices.Equal[[]int]) {
				t.Errorf("runs %v folding %v, want %v folding %v", got, accs, c.runs, c.accs)
			}
		})
	}
}
