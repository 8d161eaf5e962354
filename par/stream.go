package par

import (
	"context"
	"fmt"
	goiter "iter"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// Values returns the items of it, in source order, as a standard iterator
// for a range loop, computed in parallel ahead of the loop:
//
//	for rec := range par.Map(par.FromSeq(lines), parse).Values() {
//		w.Write(rec) // in the order of lines, while later lines are parsed
//	}
//
// It is the ordered pipeline written today with a producer, N workers, a
// results channel and a reordering buffer. The items are computed on the
// pool (or, with Blocking, on goroutines of their own) ahead of the loop:
// over FromSeq as one loop for the whole sequence, whose chunks reach the
// loop body as soon as the chunks before them have, so that no worker
// waits for a slower one; over a range or a slice in batches, each once the
// loop has room for it. At most WithBuffer's n source items (by default
// about 4 MB of items: see WithBuffer) are pulled or computed and not yet
// handed to the loop body. Memory stays bounded
// however long the input: over FromSeq, the sequence is pulled only as fast
// as the loop takes items, and no further ahead of the loop body than the
// items it has taken, so that a break after k items costs O(k) work.
//
// When the loop body breaks, returns or panics, the work stops: nothing
// more is handed out, what runs skips its blocks not yet started and its
// results are dropped, FromSeq pulls no more items, and every goroutine of
// the operation has returned before the loop statement ends. A loop body
// that stops at the item of source item k has had at most k + 1 + n source
// items pulled, plus n for each adapter in the chain that makes a stream
// of a stream (Take, Skip, Enumerate, Chain or Zip after a Filter, a
// FlatMap or over FromSeq: see WithBuffer). A panic in the pipeline's functions is re-raised in the loop's goroutine as
// a *Panic, after a prefix of the items before the one that panicked. No
// panic or runtime.Goexit of a callback that ran is dropped: one that
// happens in work computed ahead while the loop body breaks or returns is
// re-raised by the range statement once the work has stopped (as is the panic of a
// FromSeq sequence that yields again after yield returned false); a panic
// of the loop body itself goes on as it is. WithContext's context ends the
// iteration after a prefix of the items (Iter.WithContext; check
// ctx.Err()), and WithProgress and WithTimeline observe it as any
// operation.
//
// Each range over the result runs the pipeline again (an iterator from
// FromSeq pulls its sequence again, and runs one operation at a time). The
// sequence of FromSeq is pulled by a goroutine of the operation's own, one
// item at a time, never concurrently. The loop body itself runs on the
// caller's goroutine and may call par, or stop early, freely.
func (it Iter[T]) Values() goiter.Seq[T] {
	items := values(it.s, nil)
	// A closure of Values's own, so that a traced range is named Values:
	// the outermost function of par on the stack (see pipe's opName).
	return func(yield func(T) bool) { items(yield) }
}

// values is Values over s; once a range over it ends by itself, *cut, if
// cut is not nil, says whether a done context cut the items short
// (pipe.StreamCut).
func values[T any](s pipe.Spec[T], cut *bool) goiter.Seq[T] {
	parts := pipe.StreamCut(s, cut)
	if s.Unordered && s.Blocking > 0 {
		parts = func(yield func([]T) bool) {
			for _, items := range pipe.StreamUnordered(s, cut) {
				if !yield(items) {
					return
				}
			}
		}
	}
	return func(yield func(T) bool) {
		for batch := range parts {
			for _, v := range batch {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// All returns the items of it with their positions, in source order, as a
// standard iterator for a range loop, as slices.All does for a slice:
// position i is the item that Collect would put at index i (after a Filter,
// the positions count the items that survive it). It works as Values does.
// With Unordered and Blocking, the items come in completion order, each
// with its source position instead (the source item it came from, after a
// Filter or FlatMap), so that the loop body can tell them apart.
//
// (To test a predicate on every item, use Every.)
func (it Iter[T]) All() goiter.Seq2[int, T] {
	s := it.s
	if s.Unordered && s.Blocking > 0 {
		return func(yield func(int, T) bool) {
			for pos, items := range pipe.StreamUnordered(s, nil) {
				for k, v := range items {
					if !yield(pos[k]-s.Lo, v) {
						return
					}
				}
			}
		}
	}
	return func(yield func(int, T) bool) {
		i := 0
		for batch := range pipe.Stream(s) {
			for _, v := range batch {
				if !yield(i, v) {
					return
				}
				i++
			}
		}
	}
}

// Results returns the results of f over the items of it, each with its
// error, as a standard iterator for a range loop: MapErr as a stream,
// computed ahead of the loop as Values computes its items. With Unordered
// and Blocking, each pair comes as soon as its call returns (completion
// order): an I/O fan-out that handles each result or failure as it comes,
// with no struct of its own to carry them.
//
//	for page, err := range par.Results(par.Slice(urls).Blocking(32).Unordered(), fetch) {
//		if err != nil {
//			log.Print(err) // or return err: the work stops
//			continue
//		}
//		show(page)
//	}
//
// Every item gives a pair, failed or not: f's value with f's error, as f
// returned them (wrap the error in f with what the loop needs to know of
// the item). The loop body decides what an error does: a break or a
// return stops the work and leaves no goroutine behind, as out of Values.
// A done context (WithContext) that left items out, or a source that
// failed (FromWalk, ReadLines), gives a last pair of U's zero value and an
// *Unfinished that unwraps to the cause: the pairs end early, never
// silently. As out of Values, the pairs before it are a prefix of the
// source (with Unordered and Blocking, every call that finished). A panic
// in f is re-raised in the loop's goroutine, as in Values.
func Results[T, U any](it Iterator[T], f func(T) (U, error)) goiter.Seq2[U, error] {
	mustFunc(f, "Results")
	s := specOf(it)
	pairs := pipe.MapSpec(s, func(v T) outcome[U] {
		u, err := f(v)
		return outcome[U]{u, err}
	})
	return func(yield func(U, error) bool) {
		cut := false
		for o := range values(pairs, &cut) {
			if !yield(o.v, o.err) {
				return
			}
		}
		u := &Unfinished{Cause: sourceErr(&s), Rest: -1}
		if u.Cause == nil && cut && s.Context != nil {
			u.Cause = context.Cause(s.Context)
		}
		if u.Cause != nil {
			var zero U
			yield(zero, u)
		}
	}
}

// Unordered returns it with its terminal operations free of source order,
// for consumers that do not need it; results stay the same, but:
//
//   - with Blocking, Values and All hand out each item as soon as its call
//     returns (completion order: print each result of an I/O fan-out as
//     it comes), at most the limit's calls and as many finished items
//     ahead of the loop body; All then gives each item's source position;
//   - Fold and Reduce keep an accumulator per goroutine that runs them,
//     for the whole operation (over FromSeq too), and combine them in no
//     particular order: their combine (op) must be commutative as well as
//     associative, and a done context leaves the items that ran in them
//     rather than a prefix.
//
// Collect, FindFirst and the CPU mode's Values keep source order: keeping
// it costs them next to nothing.
func (it Iter[T]) Unordered() Iter[T] {
	it.s.Unordered = true
	return it
}

// Unordered returns it with its terminal operations free of source order;
// see Iter.Unordered.
func (it Nums[T]) Unordered() Nums[T] { return Nums[T]{it.Iter.Unordered()} }

// Unordered returns r with its terminal operations free of source order;
// see Iter.Unordered.
func (r Ints) Unordered() Ints { return Ints{r.Nums.Unordered()} }

// WithBuffer returns it with Values and All holding at most n source items
// pulled or computed ahead of the loop body, rather than the default.
//
// The default holds about 4 MB of items, or the memory budget (WithMemory)
// if less: as many source items as that holds at the size of what each
// takes in the buffer, unsafe.Sizeof of
// the item type T plus, over FromSeq, that of the sequence's item; at most
// 65,536 and at least one per worker of the pool (per call, with
// Blocking). Memory an item points to (a string's bytes, a slice's array)
// is not counted: set n where that is large. 1 KB records are held 2,048
// at a time (1 KB from the sequence and 1 KB computed), lines of text
// 65,536. A buffer of fewer than the pool's workers times a few items
// leaves workers idle.
//
// The buffer holds through the adapters that make a stream of a stream
// (Take, Skip, Enumerate, Chain or Zip after a Filter, a FlatMap or over
// FromSeq): each computes the items before it at most n positions ahead
// of those the rest of the pipeline still uses (by default, as many as
// 4 MB holds at the size of its items), whichever terminal operation runs.
// Other operations than Values and All otherwise ignore it. It panics if
// n < 1.
func (it Iter[T]) WithBuffer(n int) Iter[T] {
	if n < 1 {
		panic(fmt.Sprintf("gopar: WithBuffer(%d): the buffer must hold at least 1 item", n))
	}
	it.s.Buffer = n
	return it
}

// WithBuffer returns it with Values and All holding at most n items ahead
// of the loop body; see Iter.WithBuffer.
func (it Nums[T]) WithBuffer(n int) Nums[T] {
	return Nums[T]{it.Iter.WithBuffer(n)}
}

// WithBuffer returns r with Values and All holding at most n items ahead of
// the loop body; see Iter.WithBuffer.
func (r Ints) WithBuffer(n int) Ints { return Ints{r.Nums.WithBuffer(n)} }
