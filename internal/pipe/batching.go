package pipe

import "time"

// batching sizes the batches of the stream driver and of a restream's
// producer (runBatches): a batch holds at least least items (but the last)
// and at most most, and size, the items in the next batch, doubles while
// batches take under batchTarget/2 and halves while they take over twice
// it.
type batching struct {
	doubling
	// reserve, if not nil, is called before a batch of up to size items is
	// pulled or started: the stream driver waits there for room in its
	// window. False stops the loop.
	reserve func(size int) bool
	start   time.Time // when the current batch started
}

// newBatching returns the batching of the stream driver and of a
// restream's producer for cfg: in blocking mode a batch holds at least blockingBatches times the
// limit, so that the limit is reached (a batch sized by time alone would
// hold one item that waits a millisecond, and run it alone). A positive
// bound bounds every batch, least included; 0 lets batches grow to
// maxBatch, or least if that is more.
func newBatching(cfg Config, bound int) *batching {
	least := 1
	if cfg.Blocking > 0 {
		least = blockingBatches * cfg.Blocking
	}
	most := max(maxBatch, least)
	if bound > 0 {
		least, most = min(least, bound), bound
	}
	return &batching{doubling: doubling{size: least, least: least, most: most, target: batchTarget}}
}

// ready waits, if it must, until the next batch may start, and starts its
// clock; false stops the loop.
func (b *batching) ready() bool {
	if b.reserve != nil && !b.reserve(b.size) {
		return false
	}
	b.start = time.Now()
	return true
}

// adapt sizes the next batch after one has ended.
func (b *batching) adapt() { b.next(true, time.Since(b.start)) }
