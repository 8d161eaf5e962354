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
// another, which the allocator puts past the first. The first is kept as a
// spare, which the loop combines into its result on the right once it has
// run: init's values add nothing to the result, and each of them reaches
// combine, as without Apart.

// Apart's model of memory; how many accumulators it remembers and how large
// an object it looks at are in tuning.go (apartKeep, apartSmall).
const (
	// cacheLine is the unit in which cores take memory from each other.
	cacheLine = 64
	// mapHeader is the size Apart assumes for a map's header: a small
	// object, at most a line.
	mapHeader = cacheLine
)

// Apart makes a loop's accumulators with init, kept apart in memory (see
// above) where they are maps or pointers to small objects.
type Apart[A any] struct {
	init  func() A
	size  uintptr // of the objects the values point to; 0: not kept apart
	tries int     // values made for one Make at most

	mu     sync.Mutex // guards what follows
	at     [apartKeep]uintptr
	n      int // addresses recorded; the last apartKeep are in at
	spares []A // made and not handed out
}

// NewApart returns an Apart for one loop's accumulators, made by init.
func NewApart[A any](init func() A) *Apart[A] {
	a := &Apart[A]{init: init}
	if init != nil {
		a.size = pointee(reflect.TypeFor[A]())
	}
	if a.size > 0 {
		a.tries = apartTries(a.size)
	}
	return a
}

// Make returns a new accumulator: init's value, or where it would share
// a cache line with one Make returned before, another (a few tries at
// most), the ones passed over kept as spares.
func (a *Apart[A]) Make() A {
	v := a.init()
	if a.size == 0 {
		return v
	}
	for try := 1; !a.claim(v, try == a.tries); try++ {
		v = a.init()
	}
	return v
}

// The spares are held until the loop ends: at most apartTries(size)-1 =
// 1+cacheLine/size per value Make returns, under size+cacheLine bytes of
// the small objects they point to (two map headers at most).
//
// Spares returns the values that init made and Make passed over, once the
// loop is done: combine them into its result (on the right: they add
// nothing), so that every value init made reaches combine.
func (a *Apart[A]) Spares() []A {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spares
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

// claim records where v points and reports true if the object there
// shares no cache line with one recorded, or if last says it is the last
// try; otherwise it keeps v as a spare and reports false. A nil v (an
// accumulator made on first use) claims nothing.
func (a *Apart[A]) claim(v A, last bool) bool {
	p := addr(v)
	if p == 0 {
		return true
	}
	lo, hi := p/cacheLine, (p+a.size-1)/cacheLine
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, q := range a.at[:min(a.n, apartKeep)] {
		if !last && q/cacheLine <= hi && lo <= (q+a.size-1)/cacheLine {
			a.spares = append(a.spares, v)
			return false
		}
	}
	a.at[a.n%apartKeep] = p
	a.n++
	return true
}
