package pipe

import "sync"

// Per-goroutine state (MapInitSpec). Go cannot ask which goroutine runs a
// block, so state is not kept per goroutine but per block: each block that
// runs the stage checks a value out of the stage's free list for the
// block's items and puts it back when the block is done, and init makes a
// value only when the list is empty. A value is thus used by one goroutine
// at a time, and init runs at most as many times as blocks of the stage
// ever ran at once: at most the participants of the operations that use the
// pipeline, whatever the number of items, blocks and steals (Rayon's
// map_init calls init per split, about n/2 times for n items of its issue
// 718). The check-out costs two uncontended mutex sections and a few small
// allocations per block, nothing per item.
//
// The values outlive an operation: they stay in the list for the next block
// of any operation on the pipeline (a FromSeq batch, a second Sum), and are
// freed with the pipeline. A value whose block panicked is dropped.

// MapInitSpec applies f to every item with a state made by init; see the
// comment above.
func MapInitSpec[T, S, U any](s Spec[T], init func() S, f func(S, T) U) Spec[U] {
	states := &stateList[S]{init: init}
	// The shape of the pipeline: these item functions never run.
	out := mapSpec(s, func(T) U { panic("pipe: a MapInit stage ran without its state") })
	out.bind = func() (Spec[U], func()) {
		t, release := s, func() {}
		if s.bind != nil {
			t, release = s.bind()
		}
		st := states.get()
		return mapSpec(t, func(v T) U { return f(st, v) }), func() {
			states.put(st)
			release()
		}
	}
	return out
}

// stateList is the idle values of one MapInit stage.
type stateList[S any] struct {
	init func() S
	mu   sync.Mutex
	idle []S
}

// get checks out an idle value, or makes one.
func (l *stateList[S]) get() S {
	l.mu.Lock()
	if n := len(l.idle); n > 0 {
		v := l.idle[n-1]
		var zero S
		l.idle[n-1] = zero
		l.idle = l.idle[:n-1]
		l.mu.Unlock()
		return v
	}
	l.mu.Unlock()
	return l.init()
}

// put gives back a value that get returned.
func (l *stateList[S]) put(v S) {
	l.mu.Lock()
	l.idle = append(l.idle, v)
	l.mu.Unlock()
}
