package pipe

import (
	stditer "iter"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// StreamUnordered is Stream for a loop in blocking mode whose consumer does
// not need source order (Config.Unordered): each block's items (one item,
// unless MinBlock says more) go to the loop body as soon as the block's
// calls have returned, with their source positions (see EachIndex). The
// loop runs on a producer goroutine as for Stream, on the blocking driver,
// whose goroutines wait to hand their items over while the body is busy:
// at most the limit's calls run, and as many blocks wait, ahead of the
// body. Stopping, panics and runtime.Goexit are as for Stream, and cut is
// as for StreamCut.
func StreamUnordered[T any](s Spec[T], cut *bool) stditer.Seq2[[]int, []T] {
	return func(yield func([]int, []T) bool) {
		st, cfg, cancel, finish := openStream(&s)
		defer finish() // after the producer has ended (stop)
		parts := make(chan unorderedPart[T], max(s.Blocking, 1))
		disarm, returned := streamSlow(&cfg), false
		defer func() { disarm(returned) }()
		// With statistics, held counts the items computed and not yet
		// handed to the loop body, and most the most of them at once.
		var held, most atomic.Int64
		emit, short := counted(unorderedEmit(&s, st, parts, &held, &most), &s, cut != nil)
		st.wait.Add(1)
		go st.produce(func() {
			defer close(parts)
			defer func() { st.stats.source(int(most.Load()), 0, 0) }()
			Run(cfg, s.Lo, s.Hi, emit)
			st.cut = short()
		})
		defer st.stop(cancel) // the loop body panicked: its panic goes on
		for {
			part, ok := nextUnordered(st, parts, s.Pool)
			if !ok {
				break
			}
			if st.stats != nil {
				held.Add(-int64(len(part.items)))
			}
			if !yield(part.pos, part.items) {
				st.stop(cancel)
				st.end()
				returned = true
				return
			}
		}
		st.end()
		returned = true
		if cut != nil {
			*cut = st.cut // written before parts was closed
		}
	}
}

// unorderedEmit is StreamUnordered's Reducer: its Fold sends each block's
// items, with their source positions, to parts, and waits while the loop
// body is busy, until st's consumer stops. With statistics, it adds the
// items it sends to held, and keeps in most the most held at once.
func unorderedEmit[T any](s *Spec[T], st *stream, parts chan<- unorderedPart[T], held, most *atomic.Int64) Reducer[struct{}] {
	return Reducer[struct{}]{
		Fold: func(acc struct{}, lo, hi int) struct{} {
			var part unorderedPart[T]
			s.EachIndex(lo, hi, func(i int, v T) {
				part.pos = append(part.pos, i)
				part.items = append(part.items, v)
			})
			if len(part.items) > 0 {
				if st.stats != nil {
					atomicMax(most, held.Add(int64(len(part.items))))
				}
				select {
				case parts <- part: // waits while the loop body is busy
				case <-st.quit.done():
				}
			}
			return acc
		},
	}
}

// nextUnordered waits for the next block's items from parts, on
// StreamUnordered's consumer, lending its slot of pool while it waits as
// stream.next does; false once parts is closed.
func nextUnordered[T any](st *stream, parts <-chan unorderedPart[T], pool *runtime.Pool) (unorderedPart[T], bool) {
	select {
	case part, ok := <-parts: // ready: no wait to lend a slot for
		return part, ok
	default:
		return waitUnordered(st, parts, pool)
	}
}

// waitUnordered is nextUnordered's wait, out of line so that the results,
// which its closure captures, move to the heap only when the consumer
// waits.
func waitUnordered[T any](st *stream, parts <-chan unorderedPart[T], pool *runtime.Pool) (part unorderedPart[T], ok bool) {
	t := st.stats.waiting()
	plumb.Block(pool, func() { part, ok = <-parts })
	st.stats.consumer(t)
	return part, ok
}

// atomicMax raises m to v if v is larger.
func atomicMax(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}

// unorderedPart is one block's items and their source positions.
type unorderedPart[T any] struct {
	pos   []int
	items []T
}
