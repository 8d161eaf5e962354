package pipe

import "sync"

// credit bounds what a restream's pump holds ahead of its driver: the
// positions of the batches it has pulled or run (over the Spec before the
// adapter) whose items the driver may still use, at most limit, the
// operation's buffer (Config.Buffer, or as many items as
// defaultBufferBytes holds: bufferLimit). A batch's positions are held
// from reserve until the driver has released the last item the pump
// handed over after the batch ran: a batch that gave no item stays held
// until the next one that does is released, or the driver has released
// every item handed over. A batch may always start when none is held.
type credit struct {
	limit int
	quit  <-chan struct{} // the pump's: stop waiting
	room  chan struct{}   // a release happened (capacity 1)

	mu       sync.Mutex // guards what follows
	held     int        // positions reserved and not given back
	loose    int        // of held, those of batches reserved since the last handing over
	out      int        // the items handed over to the driver
	released int        // the driver uses no item below released
	spans    []heldSpan // the held batches handed over, in order
}

// heldSpan is n positions held until the driver releases the items below
// end.
type heldSpan struct{ end, n int }

// reserve waits until a batch of n positions fits in the limit, and holds
// them; false if the pump is stopped.
func (c *credit) reserve(n int) bool {
	for {
		c.mu.Lock()
		c.settle()
		if c.held == 0 || c.held+n <= c.limit {
			c.held += n
			c.loose += n
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		select {
		case <-c.room:
		case <-c.quit:
			return false
		}
	}
}

// handed says that the pump hands the driver n more items: the batches
// reserved since the last handing over are held until the driver
// releases them.
func (c *credit) handed(n int) {
	c.mu.Lock()
	c.out += n
	if c.loose > 0 {
		c.spans = append(c.spans, heldSpan{end: c.out, n: c.loose})
		c.loose = 0
	}
	c.mu.Unlock()
}

// release says that the driver uses no item below low.
func (c *credit) release(low int) {
	c.mu.Lock()
	c.released = max(c.released, low)
	c.mu.Unlock()
	signal(c.room)
}

// settle gives back the positions whose items the driver has released.
// The batches run one at a time, so the loose positions at a reserve are
// those of batches that ran and gave no item. c.mu is held.
func (c *credit) settle() {
	k := 0
	for ; k < len(c.spans) && c.spans[k].end <= c.released; k++ {
		c.held -= c.spans[k].n
	}
	c.spans = append(c.spans[:0], c.spans[k:]...)
	if c.released >= c.out {
		c.held -= c.loose
		c.loose = 0
	}
}
