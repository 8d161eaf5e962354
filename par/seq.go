package par

import (
	goiter "iter"

	"github.com/gopar-dev/gopar/iter"
)

// FromSeq returns an iterator over the items of seq, such as the keys of a
// map (maps.Keys), the lines of a file or a generator: Rayon's par_bridge.
//
// A terminal operation pulls items from seq on the calling goroutine, in
// batches whose size adapts to the cost of the work (they start at one item
// and grow while batches finish quickly), and processes each batch in
// parallel on the pool before pulling the next. So:
//
//   - seq is never called concurrently, and it runs on the caller's
//     goroutine: it needs no locking of its own;
//   - an item's index is its position in seq: Collect, Reduce and
//     FindFirst keep seq's order;
//   - once the result is decided (Any, Find, FindFirst, an error in
//     TryForEach), a panic in a callback, or the context is done, seq's
//     yield returns false and no more items are pulled; except that the
//     Try forms, which must tell whether a done context left an item out
//     (Iter.WithContext), let seq go on to its next item, and return false
//     there without running it;
//   - with Blocking(limit), a batch holds at least 4*limit items, so that
//     limit calls run at once; the next batch is pulled when every call of
//     the last one has returned;
//   - Sum on floats is reproducible as over a slice: the same bits
//     whatever the batches, the workers and the run, those of the same
//     pipeline over a Slice of the same items (see Nums.Sum).
//
// Every adapter and terminal operation works as on other iterators, except
// Len, which returns -1 (the length is not known before the items are
// pulled). A panic in seq propagates to the caller as it is. A seq that
// calls yield again after yield returned false gets a panic from that call:
// the panic of the callback that stopped it, if one did, and otherwise one
// that says what the seq did wrong.
//
// An item is used after yield returns: the batch holding it runs only
// once it is full. A seq that reuses its buffer between items therefore
// hands the callbacks values that change under them: bufio.Scanner.Bytes
// returns a slice that the next Scan overwrites. Yield a copy, or a string
// (Scanner.Text, string(b), bytes.Clone(b)):
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
	return Iter[T]{iter.FromSeq(seq)}
}
