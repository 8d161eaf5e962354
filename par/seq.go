package par

import (
	goiter "iter"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// FromSeq returns an iterator over the items of seq, such as the keys of a
// map (maps.Keys), the lines of a file or a generator: Rayon's par_bridge.
//
// A terminal operation pulls seq on a goroutine of its own while the pool
// works on the items already pulled: the caller and the pool's workers
// each take the next chunk of what has arrived, run it, and take the next,
// for the whole seq. A chunk grows while the seq is ahead of the work and
// is whatever has arrived while the work waits for the seq, so a slow
// seq's items are taken up as soon as a goroutine is free. A seq faster
// than the work runs ahead of it by at most about 4 MB of items (or the
// memory budget, WithMemory, if less), counted at unsafe.Sizeof of each
// and at most 262,144 of them (then it waits: memory stays bounded). So:
//
//   - seq is never called concurrently: it needs no locking of its own.
//     It runs on another goroutine than the caller's, which it may not
//     assume is its own (a runtime.Goexit or a panic in seq is passed on
//     to the caller);
//   - an item's index is its position in seq: Collect, Reduce and
//     FindFirst keep seq's order;
//   - once the result is decided (Any, Find, FindFirst, an error in
//     TryForEach), a panic in a callback, or the context is done, seq's
//     next yield returns false; the items it had pulled ahead are dropped
//     (a decision at item m leaves O(m + workers) items pulled, and at most
//     the 4 MB above past the items taken), and every goroutine of the
//     operation has returned when the operation does. A Try form whose
//     context is done tells from them whether the context left an item out
//     (Iter.WithContext);
//   - with Blocking(limit), each of the limit goroutines takes the next
//     item as soon as its last call returns, so a slow call holds back only
//     its own goroutine. The others run ahead of the oldest call still
//     running by at most max(1024, 64*limit) items (then they wait for it),
//     which bounds memory;
//   - Fold and Reduce make an accumulator per run of contiguous chunks that
//     one goroutine takes, in order; with Unordered, one per goroutine for
//     the whole seq, as a hand-written fan-out keeps one per worker.
//     MapInit and ForEachInit make their states once per goroutine for the
//     whole seq either way;
//   - Sum on floats is reproducible as over a slice: the same bits
//     whatever the chunks, the workers and the run, those of the same
//     pipeline over a Slice of the same items (see Nums.Sum).
//
// Every adapter and terminal operation works as on other iterators, except
// Len, which returns -1 (the length is not known before the items are
// pulled). A panic in seq propagates to the caller as it is. A seq that
// calls yield again after yield returned false gets a panic from that call
// that says what the seq did wrong, and the operation passes it on (unless
// the panic of a callback is already on its way).
//
// An item is used after yield returns, on another goroutine. A seq that
// reuses its buffer between items therefore hands the callbacks values
// that change under them: bufio.Scanner.Bytes returns a slice that the
// next Scan overwrites. Yield a copy, or a string (Scanner.Text, string(b),
// bytes.Clone(b)):
//
//	lines := func(yield func(string) bool) {
//		for sc.Scan() {
//			if !yield(sc.Text()) { // not sc.Bytes(): its array is reused
//				return
//			}
//		}
//	}
//	n := par.FromSeq(lines).Filter(matches).Count()
//
// Each terminal operation iterates seq once more, so the iterator can be
// reused only if seq can. One iterator runs one terminal operation at a
// time: starting a second while one runs (from another goroutine, or from
// inside one of its callbacks) panics, whatever the state of its context.
// A nil seq is an empty sequence.
func FromSeq[T any](seq goiter.Seq[T]) Iter[T] {
	return Iter[T]{pipe.FromSeq(seq)}
}

// FromChan returns an iterator over the values received from ch until it
// is closed: the workers of a hand-written fan-out that drain a channel
// fed by a producer goroutine.
//
//	paths := make(chan string, 64)
//	go func() { defer close(paths); list(paths) }()
//	err := par.FromChan(paths).Blocking(16).TryForEach(upload)
//
// It works as FromSeq over a range loop on ch, with one difference: an
// operation that ends before ch is closed (a search decided, an error, a
// panic, a done context, a break out of Values) stops receiving at once,
// even while it waits for a value, and returns. The values still in ch,
// and those sent later, are left there: a producer that may outlive the
// operation should watch a context that the caller cancels when the
// operation returns, as it would with hand-written workers:
//
//	ctx, cancel := context.WithCancel(ctx)
//	defer cancel()      // ends the producer once the operation has returned
//	go produce(ctx, ch) // each send in a select with <-ctx.Done()
//
// A Try form whose context is done before ch is closed returns the
// context's cause: it cannot tell whether more values would have come.
// Each terminal operation receives from ch anew, so a second one gets
// only what the first left. ch must not be nil (a nil channel never
// delivers a value nor closes): FromChan(nil) panics.
func FromChan[T any](ch <-chan T) Iter[T] {
	if ch == nil {
		panic("gopar: par.FromChan(nil): a nil channel would never deliver a value nor be closed")
	}
	return Iter[T]{pipe.FromChan(ch)}
}

// Pair is a key and a value: the item of FromSeq2.
type Pair[K, V any] struct {
	Key   K
	Value V
}

// FromSeq2 returns an iterator over the pairs of seq, such as the entries
// of a map (maps.All) or the index and value of slices.All, as Pairs in
// seq's order. It is FromSeq of the pairs, with the same guarantees. (For
// an iter.Seq2[T, error], whose errors end the items, use FromSeqErr.)
//
//	n := par.FromSeq2(maps.All(m)).Filter(func(p par.Pair[string, int]) bool { return p.Value > 0 }).Count()
func FromSeq2[K, V any](seq goiter.Seq2[K, V]) Iter[Pair[K, V]] {
	if seq == nil {
		return FromSeq[Pair[K, V]](nil)
	}
	return FromSeq(func(yield func(Pair[K, V]) bool) {
		for k, v := range seq {
			if !yield(Pair[K, V]{k, v}) {
				return
			}
		}
	})
}
