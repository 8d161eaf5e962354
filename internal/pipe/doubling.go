package pipe

import "time"

// doubling is a size that follows the clock by powers of two: it doubles
// while a full chunk or batch of size items takes under half the target,
// and halves while one takes over twice the target, within [least, most].
// The pool sequence driver's participants size their chunks with it
// (inOrderHand, seqpool.go), and the stream driver and a restream's
// producer their batches (batching).
//
// The pool and inline drivers size their blocks with a sizer (sizer.go)
// instead: it grows a window in proportion to how far under its target it
// came, and estimates a take's fixed cost so that a take lasts a multiple
// of it. A doubling needs neither: a chunk or a batch is long enough
// (seqChunkTarget, batchTarget) that a take's fixed cost does not count.
type doubling struct {
	size, least, most int
	target            time.Duration
}

// next sizes the next chunk or batch after one took took, and returns the
// size. full says that it held size items: one that held fewer (those that
// had arrived) does not show that a larger one would take under the target.
func (d *doubling) next(full bool, took time.Duration) int {
	switch {
	case full && took < d.target/2 && d.size < d.most:
		d.size = min(2*d.size, d.most)
	case took > 2*d.target && d.size > d.least:
		d.size = max(d.size/2, d.least)
	}
	return d.size
}
