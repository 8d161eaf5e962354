//go:build race

package par_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/invariant"
	"github.com/gopar-dev/gopar/par"
)

// TestBlocksDoNotCollapseUnderRace: under the race detector every take from
// the partitioner costs about a microsecond, more than a block's time
// target. Block sizing accounts for that fixed cost (internal/pipe's sizer), so cheap
// loops still run in long blocks: on the 2-core development machine a sum
// over 2^30 items takes 0.23-0.36 s, a FindFirst with no match over 2^26
// items 0.09-1.35 s, in 10-20k blocks for 2^30 items; with blocks of one
// item, 2^24 items took 7 s. The bounds below leave ten times the
// measured time, for slower CI machines; the block count is the bound that
// does not depend on the machine.
//
// With -tags gopar_debug as well, the partitioner marks every item it hands
// out in a bitmap (loops up to 2^28 items): a cost per item, about 160 ns
// under the race detector, which made the FindFirst take 10.9 s. The time
// bounds are then ten times larger; the block count stays.
func TestBlocksDoNotCollapseUnderRace(t *testing.T) {
	scale := time.Duration(1)
	if invariant.Enabled {
		scale = 10
	}
	start := time.Now()
	if got, want := par.Range(0, 1<<30).Sum(), (1<<30)*(1<<30-1)/2; got != want {
		t.Fatalf("Sum = %d, want %d", got, want)
	}
	d := time.Since(start)
	if d > 4*time.Second*scale {
		t.Errorf("a sum over 2^30 items took %v under -race (bound %v)", d, 4*time.Second*scale)
	}
	t.Logf("a sum over 2^30 items: %v (bound %v)", d, 4*time.Second*scale)
	start = time.Now()
	if _, ok := par.Range(0, 1<<26).FindFirst(func(i int) bool { return i < 0 }); ok {
		t.Fatal("FindFirst found a negative index")
	}
	d = time.Since(start)
	if d > 15*time.Second*scale {
		t.Errorf("a FindFirst over 2^26 items took %v under -race (bound %v)", d, 15*time.Second*scale)
	}
	t.Logf("a FindFirst with no match over 2^26 items: %v (bound %v)", d, 15*time.Second*scale)
	var blocks atomic.Int64
	par.Range(0, 1<<30).Blocks(func(lo, hi int) { blocks.Add(1) })
	b := blocks.Load()
	if b > 1<<18 {
		t.Errorf("2^30 items ran in %d blocks under -race (%d items each): blocks collapsed", b, (1<<30)/b)
	}
	t.Logf("2^30 items in %d blocks (bound 2^18)", b)
}
