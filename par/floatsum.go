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
// order (a longer block as the running sum of its pieces of sumBlock items,
// so that a done context can stop it between two), and the block sums are
// combined in a fixed pairwise tree. The pairwise tree is also more accurate
// than a running sum: its rounding error grows with log(n), not n. The cost
// is one stored float per block (a 2^26-item sum keeps 16,384 of them) and
// the final tree, about n/4096 additions.
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
	// end returns the offset where block k ends. (k+1)*size would wrap
	// for the last block of [math.MinInt, math.MaxInt): 2^20 blocks of
	// 2^44 items.
	end := func(k int) uint64 { return uint64(k)*size + min(size, n-uint64(k)*size) }
	if report := cfg.Progress; report != nil {
		// Report items, not blocks.
		total := int(min(n, math.MaxInt))
		cfg.Progress = func(blocks, _ int) {
			done := n // all blocks: blocks*size could wrap
			switch {
			case blocks <= 0:
				done = 0
			case blocks < len(sums):
				done = uint64(blocks) * size
			}
			report(int(min(done, math.MaxInt)), total)
		}
	}
	var stop <-chan struct{}
	if s.Context != nil {
		stop = s.Context.Done()
	}
	iter.RunBlocks(cfg, 0, len(sums), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			a := int(uint64(s.Lo) + uint64(k)*size)
			e := int(uint64(s.Lo) + end(k))
			sums[k] = sumPieces(&s, a, e, stop)
		}
	})
	return pairwise(sums)
}

// sumPieces adds up the items of [lo, hi) in order, sumBlock items at a
// time, and stops early once stop is closed: the blocks of a very long
// range hold up to 2^44 items (hours), and a done context must still end
// the loop promptly. A block of sumBlock items or fewer (every block of a
// range up to 2^32 items) is one SumBlock, as it always was.
func sumPieces[T Number](s *iter.Spec[T], lo, hi int, stop <-chan struct{}) T {
	if uint64(hi)-uint64(lo) <= sumBlock {
		return iter.SumBlock(s, lo, hi)
	}
	var acc T
	for i := lo; i < hi; {
		e := i + min(sumBlock, hi-i)
		acc += iter.SumBlock(s, i, e)
		i = e
		select {
		case <-stop:
			return acc
		default:
		}
	}
	return acc
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
