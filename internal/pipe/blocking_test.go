package pipe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBlockingBadLimit: a negative limit set on the Config directly panics
// naming Blocking.
func TestBlockingBadLimit(t *testing.T) {
	defer func() {
		if msg := fmt.Sprint(recover()); !strings.Contains(msg, "Blocking") {
			t.Errorf("panic %q does not name Blocking", msg)
		}
	}()
	RunBlocks(Config{Blocking: -1}, 0, 10, func(lo, hi int) {})
}

// TestBlockingWholeIntRange: the hand-out counts up from lo for any range,
// and a Cut stops it once every item below the cut has run (that Run
// returns at all shows that the rest of the 2^64-1 items were dropped).
func TestBlockingWholeIntRange(t *testing.T) {
	const match = math.MinInt + 100
	var mu sync.Mutex
	ran := map[int]bool{}
	got := Run(Config{Blocking: 4}, math.MinInt, math.MaxInt, Reducer[int]{
		Identity: func() int { return math.MaxInt },
		Fold: func(acc int, lo, hi int) int {
			for i := lo; i < hi; i++ {
				mu.Lock()
				ran[i] = true
				mu.Unlock()
				if i == match || i == match+2 {
					acc = min(acc, i)
				}
			}
			return acc
		},
		Combine: func(a, b int) int { return min(a, b) },
		Cut:     func(acc int) int { return acc },
	})
	if got != match {
		t.Errorf("Run = %d, want %d", got, match)
	}
	for i := math.MinInt; i <= match; i++ {
		if !ran[i] {
			t.Fatalf("item %d below the cut did not run", i)
		}
	}
}

// TestBlockingMinBlock: MinBlock items are handed out at a time, in order.
func TestBlockingMinBlock(t *testing.T) {
	var mu sync.Mutex
	var blocks [][2]int
	RunBlocks(Config{Blocking: 1, MinBlock: 7}, 0, 30, func(lo, hi int) {
		mu.Lock()
		blocks = append(blocks, [2]int{lo, hi})
		mu.Unlock()
	})
	want := [][2]int{{0, 7}, {7, 14}, {14, 21}, {21, 28}, {28, 30}}
	if fmt.Sprint(blocks) != fmt.Sprint(want) {
		t.Errorf("blocks %v, want %v", blocks, want)
	}
}

// TestBlockingHugeBlocksTile: with MinBlock near math.MaxInt, the hand-out
// over [math.MinInt, math.MaxInt) must not count past 2^64 and wrap to
// offsets it already handed out: the blocks tile the range exactly once.
// (Fold returns at once, so 2^64-1 items "run" in a few calls.)
func TestBlockingHugeBlocksTile(t *testing.T) {
	for _, take := range []int{math.MaxInt, math.MaxInt/2 + 1, 1 << 62, 3 << 61, 1 << 61} {
		var mu sync.Mutex
		var blocks [][2]int
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("MinBlock %d: %v; blocks %v", take, v, blocks)
				}
			}()
			RunBlocks(Config{Blocking: 8, MinBlock: take}, math.MinInt, math.MaxInt, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				if blocks = append(blocks, [2]int{lo, hi}); len(blocks) > 64 {
					panic("more than 64 blocks: the hand-out wrapped")
				}
			})
		}()
		slices.SortFunc(blocks, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
		at := math.MinInt
		for _, b := range blocks {
			if b[0] != at || b[1] <= b[0] {
				t.Fatalf("MinBlock %d: blocks %v do not tile [MinInt, MaxInt)", take, blocks)
			}
			at = b[1]
		}
		if at != math.MaxInt {
			t.Fatalf("MinBlock %d: blocks %v end at %d", take, blocks, at)
		}
	}
}
