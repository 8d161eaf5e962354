package iter

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
)

// The feeder: how the sequence driver overlaps a seq with the work. A
// goroutine of the operation's own pulls the seq, one item at a time and
// never concurrently, into chunks that it hands to the driver through a
// buffered channel, while the pool runs the items that came before. The
// driver takes, for each batch, all the items that wait (up to a bound):
// when the seq is faster than the work, batches grow to the bound and the
// pool runs few loops; when it is slower, each batch is what arrived while
// the last one ran, and no item waits for a batch to fill.
//
// Backpressure: the feeder runs ahead of the driver by at most as many
// items as the driver has taken so far (at least least, at most most), so
// memory stays bounded however long the seq, and an operation decided early
// (a search that matches at item m) has had O(m) items pulled, not a bound's
// worth. A chunk is handed over when it is full, when the feeder reaches
// that bound, or at once when the driver waits for items (hungry), so that
// a slow seq's items do not wait for a chunk to fill.
//
// Stopping: the driver closes quit; the feeder's next yield returns false,
// and a feeder that waits for room returns. The driver then drains the
// channel until the feeder closes it, so no goroutine is left behind. A
// panic or runtime.Goexit of the seq ends the feeder, which records it
// before closing the channel; the driver re-raises it on its goroutine
// once it has taken every item that came before.

// feedChunk is the number of items the feeder hands over at a time when
// the driver is not waiting: one channel operation per chunk, not per item.
const feedChunk = 256

// feed is the state that the feeder and the driver share.
type feed[T any] struct {
	chunks chan []T      // the items, in order; closed when the feeder ends
	quit   chan struct{} // closed by the driver: pull no more
	once   sync.Once     // closes quit
	// hungry: the driver waits for items, so a chunk goes at once.
	hungry atomic.Bool
	// quitting mirrors quit for the feeder's check at every item (an
	// atomic load, where a select would cost a channel operation).
	quitting atomic.Bool
	// taken counts the items the driver has taken; room wakes a feeder
	// that waits to be fewer items ahead (capacity 1).
	taken       atomic.Int64
	room        chan struct{}
	least, most int

	// Written by the feeder before it closes chunks.
	pulled int  // items the seq yielded
	ended  bool // the seq returned by itself, not after a false yield
	fail   any  // what the seq panicked with
	exit   bool // the seq called runtime.Goexit
}

// startFeed starts a feeder that pulls the seq of w ahead of the driver by
// as many items as the driver has taken, at least least and at most most.
func startFeed[T any](w *window[T], least, most int) *feed[T] {
	f := &feed[T]{
		chunks: make(chan []T, max(1, most/feedChunk)+1),
		quit:   make(chan struct{}),
		room:   make(chan struct{}, 1),
		least:  max(least, 1),
		most:   max(most, 1),
	}
	go f.run(w)
	return f
}

// ahead reports whether the feeder is as far ahead of the driver as it may
// be.
func (f *feed[T]) ahead() bool {
	taken := int(f.taken.Load())
	return f.pulled-taken >= min(max(taken, f.least), f.most)
}

// run is the feeder's goroutine.
func (f *feed[T]) run(w *window[T]) {
	var cut bool // a channel's seq returned at quit, perhaps before its end
	normal := false
	defer func() {
		if !normal {
			if v := recover(); v != nil {
				f.fail = v
			} else {
				f.exit = true // only runtime.Goexit ends a function without a panic or a return
			}
		}
		close(f.chunks)
	}()
	var pending []T
	stopped := false
	// send hands pending over, waiting for room; false if the driver quit.
	send := func() bool {
		select {
		case f.chunks <- pending:
			pending = make([]T, 0, feedChunk)
			return true
		case <-f.quit:
			return false
		}
	}
	// A channel's seq hands over what it pulled before it waits on an
	// empty channel: the driver may wait for those items.
	idle := func() bool {
		if len(pending) > 0 && !send() {
			stopped = true
		}
		return !stopped
	}
	w.source(f.quit, &cut, idle)(func(v T) bool {
		if stopped {
			panic("gopar: par.FromSeq: the sequence called yield again after yield returned false")
		}
		if f.quitting.Load() {
			stopped = true
			return false
		}
		f.pulled++
		pending = append(pending, v)
		full := f.ahead()
		if (len(pending) >= feedChunk || full || f.hungry.Load()) && !send() {
			stopped = true
			return false
		}
		// Is the feeder far enough ahead? Then it waits for the driver
		// to take items before it pulls the next one.
		for full {
			select {
			case <-f.room:
			case <-f.quit:
				stopped = true
				return false
			}
			full = f.ahead()
		}
		return true
	})
	if !stopped && len(pending) > 0 {
		send() // the driver may have quit: then these items are left out
	}
	f.ended = !stopped && !cut
	normal = true
}

// take appends to batch the items that wait, up to about most, waiting
// until it holds least (or the feeder has ended, or done is closed). False:
// the feeder has ended and every item was taken, or done was closed while
// batch was empty.
func (f *feed[T]) take(batch []T, least, most int, done <-chan struct{}) ([]T, bool) {
	n := len(batch)
	defer func() {
		// The feeder may run further ahead now.
		f.taken.Add(int64(len(batch) - n))
		select {
		case f.room <- struct{}{}:
		default: // a wake-up is already pending
		}
	}()
	for len(batch) < most {
		select {
		case c, ok := <-f.chunks:
			if !ok {
				return batch, len(batch) > 0
			}
			batch = append(batch, c...)
			continue
		default:
		}
		if len(batch) >= max(least, 1) {
			return batch, true
		}
		// Nothing waits: ask the feeder for its items as they come.
		f.hungry.Store(true)
		var c []T
		ok := false
		select {
		case c, ok = <-f.chunks:
		case <-done:
		}
		f.hungry.Store(false)
		if !ok {
			return batch, len(batch) > 0
		}
		batch = append(batch, c...)
	}
	return batch, true
}

// stop ends the feeder, if it still runs, and waits until it has. It is
// idempotent.
func (f *feed[T]) stop() {
	f.once.Do(func() {
		f.quitting.Store(true)
		close(f.quit)
	})
	for range f.chunks {
		// Dropped: items the operation does not run.
	}
}

// raise passes on, in the driver's goroutine, a panic or runtime.Goexit of
// the seq. The feeder has ended.
func (f *feed[T]) raise() {
	switch {
	case f.fail != nil:
		panic(f.fail)
	case f.exit:
		goruntime.Goexit()
	}
}
