package pipe

import stditer "iter"

// Restreams: an index adapter (adapt.go) over a Spec whose positions are
// known only in order (a seq, a filter, a FlatMap) makes a Spec over the
// items of the Spec before it, as a stream: the steps after the adapter run
// on its items as on FromSeq's, with the same drivers, while the steps
// before it run ahead of them, in order, on the pool.
//
// For each operation, a producer goroutine (the pump) computes the items
// before the adapter in batches, each batch a parallel loop of its own
// (runBatches), and hands them over a batch at a time through a small
// channel; its credit bounds how far it runs ahead, in positions before the
// adapter, as the operation's buffer says (Config.Buffer, or the bytes of
// bufferLimit): a batch starts only once the batches whose items the
// driver may still use leave room for it. The operation's driver takes
// them into the store (seqStore) that the Spec's item function reads, as it takes a
// seq's. So the result is a seq like any other, except in three points
// that a seq cannot give:
//
//   - the steps before the adapter run with the operation's settings
//     (Run hands them over: configured), so that a setting anywhere in a
//     pipeline applies to all of it, as it does without an index adapter;
//   - the operation stops the pump at once, even while it waits (for a
//     FromChan's channel, or for the items before the adapter): the pump's
//     context is cancelled, and the batch or the seq driver under it
//     returns;
//   - the operation tells items cut short by a done context from a stream
//     that ended (the Try forms need it: see inOrderLoop.overSeq), batch by batch:
//     a batch that ran whole is not cut, and the next one tells.

// producer computes the items before an adapter for one operation, with
// the settings up (up.Context is the pump's, cancelled when the operation
// stops it), and hands them to emit in order, a chunk at a time, until emit
// returns false; each batch it computes is reserved from the pump's
// credit first. It reports whether it handed out every item: false if emit
// or the context stopped it. The chunks handed to emit are not reused.
type producer[T any] func(up Config, c *credit, emit func([]T) bool) bool

// configured is a batchSource whose work before its items runs with the
// settings of the operation that pulls it: Run hands them over with
// withConfig before it reads the Config.
type configured interface {
	withConfig(cfg Config) batchSource
}

// restream returns the Spec over the items that produce gives, in order,
// with the settings cfg.
func restream[T any](cfg Config, produce producer[T]) Spec[T] {
	out := FromSeq[T](nil) // its item function reads the store
	w := out.seq.(*seqStore[T])
	out.Config = cfg
	out.stream, out.rec = nil, nil
	out.seq = &chunks[T]{w: w, produce: produce}
	return out
}

// upstream returns s with the settings up, its own seq, if any, given them
// too.
func upstream[T any](s Spec[T], up Config) Spec[T] {
	src := s.seq
	if c, ok := src.(configured); ok {
		src = c.withConfig(up)
	}
	s.Config = up
	s.seq = src
	return s
}

// itemsOf is the producer of the items of s, in order.
func itemsOf[T any](s Spec[T]) producer[T] {
	return func(up Config, c *credit, emit func([]T) bool) bool { return runBatches(s, up, c, -1, emit) }
}

// prefixOf is the producer of the first n items of s.
func prefixOf[T any](s Spec[T], n int) producer[T] {
	return func(up Config, c *credit, emit func([]T) bool) bool { return n == 0 || runBatches(s, up, c, n, emit) }
}

// pair is an item of a and the item of b at the same position.
type pair[T, U any] struct {
	x T
	y U
}

// zipOf is the producer of the pairs of the items of a and b, in order,
// until either runs out.
func zipOf[T, U any](a Spec[T], b Spec[U]) producer[pair[T, U]] {
	left, right := itemsOf(a), itemsOf(b)
	return func(up Config, c *credit, emit func([]pair[T, U]) bool) bool {
		var rightEnded bool
		next, stop := stditer.Pull(stditer.Seq[[]U](func(yield func([]U) bool) { rightEnded = right(up, c, yield) }))
		defer stop()
		// The second side first: over an empty one, the first need not run.
		ys, more := next()
		if !more {
			if rightEnded {
				return true
			}
			// Cut short: the pairs have ended anyway if the first side
			// has no item.
			some := false
			return left(up, c, func([]T) bool { some = true; return false }) && !some
		}
		// The next batch of the second side is taken as soon as the last
		// one is used up: once it has none, the pairs end with the item of
		// the first side that used it, and no more of that side runs.
		short, emitted := false, true
		all := left(up, c, func(xs []T) bool {
			out := make([]pair[T, U], 0, len(xs))
			for _, x := range xs {
				out = append(out, pair[T, U]{x, ys[0]})
				for ys = ys[1:]; len(ys) == 0 && more; {
					ys, more = next()
				}
				if !more {
					short = true
					emitted = emit(out)
					return false
				}
			}
			return emit(out)
		})
		if short {
			return emitted && rightEnded
		}
		return all
	}
}
