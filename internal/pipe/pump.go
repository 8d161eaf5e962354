package pipe

import "context"

// pump is the state that a restream's producer goroutine and the driver
// share.
type pump[T any] struct {
	chunks chan []T // the items, in order; closed when the producer ends
	quit   quitter  // closed by the driver: hand over no more
	cancel context.CancelFunc

	// Written by the producer before it closes chunks.
	ended  bool   // produce handed out every item
	ending ending // a panic or runtime.Goexit of produce

	dropped bool    // stop dropped items (the driver's)
	credit  *credit // bounds the batches ahead of the driver
}

// run is the producer's goroutine.
func (p *pump[T]) run(produce func() bool) {
	defer close(p.chunks)
	p.ending.run(func() { p.ended = produce() })
}

// emit hands a chunk to the driver; false once the driver has stopped.
func (p *pump[T]) emit(c []T) bool {
	p.credit.handed(len(c))
	select {
	case p.chunks <- c:
		return true
	case <-p.quit.done():
		return false
	}
}

// next waits for the next chunk; false if the producer has ended and every
// chunk was taken, or done was closed.
func (p *pump[T]) next(done <-chan struct{}) ([]T, bool) {
	select {
	case c, ok := <-p.chunks:
		return c, ok
	case <-done:
		return nil, false
	}
}

// stop ends the producer, if it still runs, and waits until it has. It is
// idempotent.
func (p *pump[T]) stop() {
	p.quit.close()
	p.cancel()
	for c := range p.chunks {
		if len(c) > 0 {
			p.dropped = true
		}
	}
}
