package iter

import (
	"fmt"
	"math"
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
