package pipe

import (
	"math"
	"reflect"
	"sync"

	"github.com/gopar-dev/gopar/partition"
)

// Sum returns the sum of the surviving items of s (0 for none). Integer
// sums wrap around as + does and follow the blocks the schedule hands out;
// float and complex sums are reproducible (see sumBlock), over an iter.Seq
// too (see seqSum).
func Sum[T Number](s Spec[T]) T {
	if inexact[T]() {
		if IsSeq(&s) {
			return seqSum(s)
		}
		return reproducibleSum(s)
	}
	if s.kind == formAt && s.bind == nil {
		return sumAtLoop(s.Config, s.Lo, s.Hi, s.at)
	}
	return sumSpec(s)
}

// sumAtLoop is Sum over at(i) for i in [lo, hi): par.Range(lo, hi).Map(f).Sum().
// Its Fold is a sumAtFold's, which holds at alone, and which comes from a
// pool rather than from a func literal. Run's closures escape (the parallel
// phase keeps them in the loop's shared state), so a Fold that captured at
// would be allocated at every call, even for a loop that never leaves the
// caller: on W0 (1,000 cheap items) that one allocation of 24 bytes is
// some 0.1 us of the per-item form's 1.7-2.1 us. (A closure that captured
// the whole Spec, as sumSpec's does, would move that Spec, some 200 bytes,
// to the heap instead.)
func sumAtLoop[T Number](cfg Config, lo, hi int, at func(int) T) T {
	pool := &sumAtFolds[reflect.TypeFor[T]().Kind()]
	f, _ := pool.Get().(*sumAtFold[T])
	if f == nil {
		f = new(sumAtFold[T])
		f.fold = f.sum
	}
	f.at = at
	acc := Run(cfg, lo, hi, Reducer[T]{ // Identity: 0
		Fold:    f.fold,
		Combine: sumCombine[T](),
	})
	// Run has returned: no goroutine calls f.fold any more (a promoted
	// rest and every participant of the parallel phase are done, and a
	// helper that starts late finds the loop over before it folds
	// anything). After a panic or a Goexit, f is left to the collector.
	f.at = nil
	pool.Put(f)
	return acc
}

// sumAtFold is the Fold of sumAtLoop: the sum of at(i) over a block.
type sumAtFold[T Number] struct {
	at   func(int) T
	fold func(acc T, lo, hi int) T // f.sum, bound once per sumAtFold
}

func (f *sumAtFold[T]) sum(acc T, lo, hi int) T { return acc + sumAt(f.at, lo, hi) }

// sumAtFolds keeps the sumAtFolds of loops that have returned, for the next
// Sum, a pool per reflect.Kind (every Number's is at most Complex128), so
// that Sums of two predeclared types in turn do not drop each other's. A
// type defined on a number (type Celsius float64) shares its kind's pool:
// one of another type is dropped and a new one made.
var sumAtFolds [reflect.Complex128 + 1]sync.Pool

// sumSpec is Sum over exact numbers of any other pipeline.
func sumSpec[T Number](s Spec[T]) T {
	return Run(s.Config, s.Lo, s.Hi, Reducer[T]{ // Identity: 0
		Fold: func(acc T, lo, hi int) T {
			return acc + SumBlock(&s, lo, hi)
		},
		Combine: sumCombine[T](),
	})
}

// sumCombine returns Sum's Combine, a + b. A func literal in a generic
// function captures the type's dictionary, and Run's closures escape, so
// it would cost an allocation at every Sum; for the predeclared number
// types the func comes from adds instead, and only types defined on them
// (type Celsius float64) get a closure.
func sumCombine[T Number]() func(a, b T) T {
	if k := reflect.TypeFor[T]().Kind(); int(k) < len(adds) {
		if f, ok := adds[k].(func(a, b T) T); ok {
			return f
		}
	}
	return func(a, b T) T { return a + b }
}

// adds holds add for each predeclared number type, by its reflect.Kind.
var adds = [...]any{
	reflect.Int: add[int], reflect.Int8: add[int8], reflect.Int16: add[int16],
	reflect.Int32: add[int32], reflect.Int64: add[int64],
	reflect.Uint: add[uint], reflect.Uint8: add[uint8], reflect.Uint16: add[uint16],
	reflect.Uint32: add[uint32], reflect.Uint64: add[uint64], reflect.Uintptr: add[uintptr],
	reflect.Float32: add[float32], reflect.Float64: add[float64],
	reflect.Complex64: add[complex64], reflect.Complex128: add[complex128],
}

func add[T Number](a, b T) T { return a + b }

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
// the final tree, about n/4096 additions. sumBlock and maxSumBlocks are in
// tuning.go.

// inexact reports whether + on T rounds: float and complex types.
func inexact[T Number]() bool {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// reproducibleSum is Sum for float and complex items; see sumBlock.
func reproducibleSum[T Number](s Spec[T]) T {
	n := uint64(s.Hi) - uint64(s.Lo)
	if n == 0 {
		// An empty loop still refuses a closed pool and reports (0, 0).
		RunBlocks(s.Config, 0, 0, func(lo, hi int) {})
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
		cfg.Progress = sumProgress(report, n, size, len(sums))
	}
	// item is where block k starts (k = len(sums): the end). k*size would
	// wrap past the end of [math.MinInt, math.MaxInt): 2^20 blocks of 2^44
	// items.
	item := func(k int) int {
		if k >= len(sums) {
			return int(uint64(s.Lo) + n)
		}
		return int(uint64(s.Lo) + uint64(k)*size)
	}
	var stop <-chan struct{}
	if s.Context != nil {
		stop = s.Context.Done()
	}
	if t := cfg.Timeline; t != nil {
		// The loop runs over block numbers; the timeline speaks of items
		// (also when a panic leaves it partial).
		defer itemTimeline(t, item)
	}
	if cfg.Stats != nil && cfg.stats == nil {
		// Likewise the statistics: a block of block numbers counts its
		// items.
		op := newOpStats()
		op.span = func(lo, hi int) int { return int(uint64(item(hi)) - uint64(item(lo))) }
		cfg.stats = op
		defer op.finish(cfg.Stats)
	}
	if stop == nil {
		RunBlocks(cfg, 0, len(sums), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				sums[k], _ = sumPieces(&s, item(k), item(k+1), stop)
			}
		})
		return pairwise(sums)
	}
	k := sumWholeBlocks(cfg, &s, sums, item, stop)
	if k == 0 {
		return 0
	}
	return pairwise(sums[:k])
}

// sumProgress returns the Progress of reproducibleSum's loop over the blocks
// of n items, size each, that reports items to report, not blocks.
func sumProgress(report func(done, total int), n, size uint64, blocks int) func(int, int) {
	total := int(min(n, math.MaxInt))
	return func(ran, _ int) {
		done := n // all blocks: ran*size could wrap
		switch {
		case ran <= 0:
			done = 0
		case ran < blocks:
			done = uint64(ran) * size
		}
		report(int(min(done, math.MaxInt)), total)
	}
}

// itemTimeline turns the block numbers of reproducibleSum's timeline t into
// the items where the blocks start (item).
func itemTimeline(t *partition.Timeline, item func(k int) int) {
	for _, l := range t.Lanes {
		for i := range l.Blocks {
			l.Blocks[i].Lo, l.Blocks[i].Hi = item(l.Blocks[i].Lo), item(l.Blocks[i].Hi)
		}
	}
	for i := range t.Steals {
		t.Steals[i].Lo, t.Steals[i].Hi = item(t.Steals[i].Lo), item(t.Steals[i].Hi)
	}
}

// sumWholeBlocks adds up reproducibleSum's blocks into sums where a done
// context, stop, may end the loop, and returns how many blocks from the
// first ran whole.
func sumWholeBlocks[T Number](cfg Config, s *Spec[T], sums []T, item func(k int) int, stop <-chan struct{}) int {
	// A done context may stop the loop with blocks skipped or cut short:
	// the sum is that of the blocks before the first one that did not run
	// whole (see Reducer.AllRuns).
	type whole struct {
		n      int  // blocks added up whole, from the run's start
		broken bool // a block after them was cut short
	}
	w := Run(cfg, 0, len(sums), Reducer[whole]{
		Fold: func(acc whole, lo, hi int) whole {
			for k := lo; k < hi && !acc.broken; k++ {
				var ok bool
				sums[k], ok = sumPieces(s, item(k), item(k+1), stop)
				if ok {
					acc.n++
				} else {
					acc.broken = true
				}
			}
			return acc
		},
		Combine: func(a, b whole) whole {
			if a.broken {
				return a
			}
			return whole{a.n + b.n, b.broken}
		},
	})
	return w.n
}

// sumPieces adds up the items of [lo, hi) in order, sumBlock items at a
// time, and stops early once stop is closed: the blocks of a very long
// range hold up to 2^44 items (hours), and a done context must still end
// the loop promptly; whole says whether it reached hi. A block of sumBlock
// items or fewer (every block of a range up to 2^32 items) is one
// SumBlock.
func sumPieces[T Number](s *Spec[T], lo, hi int, stop <-chan struct{}) (sum T, whole bool) {
	if uint64(hi)-uint64(lo) <= sumBlock {
		return SumBlock(s, lo, hi), true
	}
	var acc T
	for i := lo; i < hi; {
		e := i + min(sumBlock, hi-i)
		acc += SumBlock(s, i, e)
		i = e
		select {
		case <-stop:
			return acc, i == hi
		default:
		}
	}
	return acc, true
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

// seqSum is the reproducible Sum over a pipeline on an iter.Seq. Its
// batches fall where timing puts them and its length is not known in
// advance, so it cannot write block sums to fixed places as
// reproducibleSum does. Its accumulator is instead a run of positions with
// the sums of the blocks that lie in it; a block that a run boundary cuts
// in two is still added up in order, from its first item: the run that
// holds its start keeps a running sum (tail), and the run after it keeps
// its own first items as they are (head), to be added to that sum when the
// two runs are combined. The blocks are reproducibleSum's (sumBlock items
// from position 0, without the doubling past maxSumBlocks), so over the
// same items, up to 2^32 of them, the two give the same bits.
func seqSum[T Number](s Spec[T]) T {
	r := Run(s.Config, s.Lo, s.Hi, Reducer[sumRun[T]]{
		Identity: func() sumRun[T] { return sumRun[T]{} },
		Fold: func(acc sumRun[T], lo, hi int) sumRun[T] {
			acc.fold(&s, lo, hi)
			return acc
		},
		Combine: combineSumRuns[T],
	})
	sums := r.sums
	if len(r.head) > 0 {
		// Only when a cancellation skipped the start: add what ran.
		var h T
		for _, v := range r.head {
			h += v
		}
		sums = append([]T{h}, sums...)
	}
	if r.open {
		sums = append(sums, r.tail) // the last block, cut short by the end
	}
	if len(sums) == 0 {
		return 0
	}
	return pairwise(sums)
}

// sumRun is seqSum's accumulator: the items at positions [lo, hi), cut
// at the multiples of sumBlock.
type sumRun[T Number] struct {
	lo, hi int
	any    bool // the run covers at least one position
	// head: lo is inside a block, which started in an earlier run. These
	// are the items from lo to that block's end, or to hi if the block goes
	// on past it (headEnd is false).
	head    []T
	headEnd bool
	sums    []T // the blocks that start and end in the run, in order
	// tail: hi is inside a block that started in the run (open); the
	// running sum of its items so far.
	tail T
	open bool
}

// fold adds the items at positions [lo, hi), which follow the run's.
func (r *sumRun[T]) fold(s *Spec[T], lo, hi int) {
	if !r.any {
		r.lo, r.any = lo, true
	}
	i := lo
	if i%sumBlock != 0 {
		// Inside a block: finish it, or take it as far as hi.
		blockEnd := (i/sumBlock + 1) * sumBlock
		end := min(blockEnd, hi)
		if r.open {
			// The block started in this run: go on with its sum, in order.
			t := r.tail
			s.Each(i, end, func(v T) { t += v })
			r.tail = t
			if end == blockEnd {
				r.sums, r.tail, r.open = append(r.sums, t), 0, false
			}
		} else {
			// The run has not yet reached a block start: it is all head.
			s.Each(i, end, func(v T) { r.head = append(r.head, v) })
			r.headEnd = end == blockEnd
		}
		i = end
	}
	for i < hi {
		end := min(i+sumBlock, hi)
		if x := SumBlock(s, i, end); end-i == sumBlock {
			r.sums = append(r.sums, x)
		} else {
			r.tail, r.open = x, true
		}
		i = end
	}
	r.hi = hi
}

// combineSumRuns joins two adjacent runs, a first: the block that b's
// head belongs to is completed, in order, from a's tail (or a's head, if a
// lies inside that block too).
func combineSumRuns[T Number](a, b sumRun[T]) sumRun[T] {
	switch {
	case !a.any:
		return b
	case !b.any:
		return a
	}
	if b.lo%sumBlock != 0 {
		if a.open {
			t := a.tail
			for _, v := range b.head {
				t += v
			}
			a.tail = t
			if b.headEnd {
				a.sums, a.tail, a.open = append(a.sums, t), 0, false
			}
		} else {
			a.head, a.headEnd = append(a.head, b.head...), b.headEnd
		}
		if !b.headEnd {
			// b lies inside that block: it has nothing else.
			a.hi = b.hi
			return a
		}
	}
	a.sums = append(a.sums, b.sums...)
	a.tail, a.open, a.hi = b.tail, b.open, b.hi
	return a
}
