package pipe

import (
	"sync"
	"sync/atomic"
)

// quitter is a channel that one side of an operation closes to tell the
// other to stop (pull no more, produce no more, wait no more): the closer
// may close it more than once, and the channel is closed the first time.
// Its holder opens it (open) as it makes its own state, so a quitter costs
// one allocation, its channel, where its holder is made.
type quitter struct {
	c      chan struct{} // closed once by close
	once   sync.Once     // closes c
	closed atomic.Bool   // set just before c is closed: a check at every item costs one load
}

// open makes the channel; the quitter is not closed yet.
func (q *quitter) open() { q.c = make(chan struct{}) }

// close closes the channel if it is not closed yet. It returns once the
// channel is closed, whoever closed it.
func (q *quitter) close() {
	q.once.Do(func() {
		q.closed.Store(true)
		close(q.c)
	})
}

// done returns the channel, to wait on (select) until it is closed.
func (q *quitter) done() <-chan struct{} { return q.c }

// isClosed reports whether close was called.
func (q *quitter) isClosed() bool { return q.closed.Load() }
