package par

import (
	"math"
	"reflect"

	"github.com/gopar-dev/gopar/iter"
)

// Sums of floating-point items are reproducible: the same items give the
// same bits, whatever the number of workers, the steals and the run.
// Floating-point addition is not associative, so a sum that followed the
// blocks the scheduler happened to hand out would differ in its last bits
// from run to run. Instead the items are cut into fixed blocks aligned to
// the start of the range (sumBlock items each; more for ranges so long that
// there would be over maxSumBlocks of them), each block is added up in
// order, and the block sums are combined in a fixed pairwise tree. The
// pairwise tree is also more accurate than a running sum: its rounding
// error grows with log(n), not n. The cost is one stored float per block
// (a 2^26-item sum keeps 16,384 of them) and the final tree, about n/4096
// additions.
const (
	sumBlock     = 1 << 12
	maxSumBlocks = 1 << 20
)

// inexact reports whether + on T rounds: float and complex types.
func inexact[T Number]() bool {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// reproducibleSum is Sum for float and complex items; see sumBlock.
func reproducibleSum[T Number](s iter.Spec[T]) T {
	n := uint64(s.Hi) - uint64(s.Lo)
	if n == 0 {
		if s.Progress != nil {
			s.Progress(0, 0) // as Run reports an empty loop
		}
		if s.Timeline != nil {
			*s.Timeline = iter.Timeline{} // as Run records an empty loop
		}
		return 0
	}
	size := uint64(sumBlock)
	for (n-1)/size >= maxSumBlocks {
		size *= 2
	}
	sums := make([]T, (n-1)/size+1)
	// The loop runs over block numbers; bounds on items per block make no
	// sense there.
	cfg := s.Config
	cfg.MinBlock, cfg.MaxBlock = 0, 0
	if report := cfg.Progress; report != nil {
		// Report items, not blocks.
		total := int(min(n, math.MaxInt))
		cfg.Progress = func(blocks, _ int) { report(int(min(uint64(blocks)*size, n, math.MaxInt)), total) }
	}
	// item is where block k starts (k = len(sums): the end).
	item := func(k int) int { return int(uint64(s.Lo) + min(uint64(k)*size, n)) }
	if t := cfg.Timeline; t != nil {
		// The loop runs over block numbers; the timeline speaks of items
		// (also when a panic leaves it partial).
		defer func() {
			for _, l := range t.Lanes {
				for i := range l.Blocks {
					l.Blocks[i].Lo, l.Blocks[i].Hi = item(l.Blocks[i].Lo), item(l.Blocks[i].Hi)
				}
			}
			for i := range t.Steals {
				t.Steals[i].Lo, t.Steals[i].Hi = item(t.Steals[i].Lo), item(t.Steals[i].Hi)
			}
		}()
	}
	iter.RunBlocks(cfg, 0, len(sums), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			sums[k] = iter.SumBlock(&s, item(k), item(k+1))
		}
	})
	return pairwise(sums)
}

// pairwise adds xs up in a fixed binary tree: the sum of each half, then
// the two.
func pairwise[T Number](xs []T) T {
	if len(xs) == 1 {
		return xs[0]
	}
	h := len(xs) / 2
	return pairwise(xs[:h]) + pairwise(xs[h:])
}
