package pipe

import (
	"reflect"
	"sync"
)

// Accumulators apart. An accumulator that is a map or a pointer lives in a
// small heap object that its participant writes at every item: a map's
// header is written twice by every assignment (the flag that catches
// concurrent writes), a pointer to a struct of counters at every count.
// Two such objects made one after the other on the same P are neighbours in
// memory, and small ones then share a cache line: the two participants
// that fold into them, on two cores, take the line from each other at
// every item. The loop still gives the right answer, only two to three
// times slower, for the whole operation, as often as the allocator happens
// to put the two side by side (a word count into a map per participant:
// one run in three). A hand-written fan-out with a map per goroutine meets
// the same trap, less often, because its goroutines start further apart.
//
// Apart avoids it: it remembers where the accumulators it handed out live,
// and when a new one would share a cache line with one of them, it makes
// another, which the allocator puts past the first, and drops the first.

const (
	// cacheLine is the unit in which cores take memory from each other.
	cacheLine = 64
	// apartKeep is how many accumulators' addresses Apart remembers: the
	// ones handed out last, a few per participant.
	apartKeep = 32
	// apartSmall is the largest object whose neighbours Apart looks at:
	// an object larger than a few lines shares at most its ends, which its
	// participant writes no more often than the rest.
	apartSmall = 4 * cacheLine
	// mapHeader is the size Apart assumes for a map's header: a small
	// object, at most a line.
	mapHeader = cacheLine
)

// Apart returns init, or where init's values are maps or pointers to small
// objects, a func that calls init and makes sure that no two of the values
// it returns share a cache line (see above). Each call of Apart starts a
// new set: call it once per operation.
func Apart[A any](init func() A) func() A {
	size := pointee(reflect.TypeFor[A]())
	if init == nil || size == 0 {
		return init
	}
	set := &apartSet{size: size}
	tries := apartTries(size)
	return func() A {
		v := init()
		for try := 1; !set.claim(addr(v), try == tries); try++ {
			v = init()
		}
		return v
	}
}

// apartTries bounds the values Apart makes for one request, for objects of
// size bytes: enough for the allocator, which puts them one after the
// other, to move past the line or two that another accumulator holds.
func apartTries(size uintptr) int { return 2 + int(cacheLine/size) }

// pointee returns the size of the small object that a value of type t
// points to, or 0 if t is not a map or a pointer to a small object.
func pointee(t reflect.Type) uintptr {
	switch t.Kind() {
	case reflect.Map:
		return mapHeader
	case reflect.Pointer:
		if s := t.Elem().Size(); s > 0 && s <= apartSmall {
			return s
		}
	}
	return 0
}

// addr returns where v, a map or a pointer, points (0 for nil).
func addr[A any](v A) uintptr { return reflect.ValueOf(any(v)).Pointer() }

// apartSet is the addresses of the accumulators one Apart handed out last.
type apartSet struct {
	size uintptr // of the objects they point to
	mu   sync.Mutex
	at   [apartKeep]uintptr
	n    int // addresses recorded; the last apartKeep are in at
}

// claim records p and reports true if the object at p shares no cache
// line with one recorded, or if last says it is the last try; otherwise it
// records nothing and reports false. A nil p (an accumulator made on first
// use) claims nothing.
func (s *apartSet) claim(p uintptr, last bool) bool {
	if p == 0 {
		return true
	}
	lo, hi := p/cacheLine, (p+s.size-1)/cacheLine
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.at[:min(s.n, apartKeep)] {
		if !last && q/cacheLine <= hi && lo <= (q+s.size-1)/cacheLine {
			return false
		}
	}
	s.at[s.n%apartKeep] = p
	s.n++
	return true
}
