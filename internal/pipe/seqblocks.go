package pipe

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/plumb"
	"github.com/gopar-dev/gopar/runtime"
)

// seqBlocks hands the participants of a loop over a seq their chunks of
// it: the positions the feeder has written into the ring (seqTaker).
//
// On the pool, a participant reserves positions and takes its chunks from
// its reservation, in order, so that its chunks stay contiguous and one
// accumulator serves them all (one run, for a result in source order):
//
//   - The first participant reserves the whole seq, [0, ∞): it holds the
//     tail, the reservation that reaches past the items that have arrived.
//   - A participant with nothing left in its own reservation steals half of
//     another's: of the items that have arrived in it and that the victim
//     has not taken yet, it takes the upper half and everything past them,
//     so that the thief of the tail becomes its holder. The victim's run
//     ends where the thief's starts.
//   - A chunk is what has arrived in a reservation, up to the participant's
//     chunk size. A helper that finds nothing to take or to steal leaves
//     the loop (its worker goes back to the pool), freeing the tail if it
//     holds it and nothing has arrived in it; its other reserved positions
//     stay in its slot, for whoever steals them or comes into the slot.
//     The caller waits: for the feeder, or for a chunk to end.
//
// So a fast seq runs as a few long runs, each taken over by a steal only
// when a participant runs dry, and a slow one item by item as the items
// come, by whichever participant is free. Off the pool (Blocking), every
// participant takes its next chunk from the front, in the seq's order, as
// the goroutines of an errgroup take their calls.
//
// Reach: a chunk ends at most max(oldest, reach, take) positions past the
// oldest position in use (running, or reserved and not yet taken), and
// within the ring. The pool driver's reach is its number of participants,
// so that while the positions are small the items taken (and so those
// pulled) stay within a few times the oldest in use: a decision at item m
// leaves O(m + participants) items pulled.
type seqBlocks struct {
	src     seqTaker
	ring    int
	reach   int
	reserve bool              // participants take from reservations (the pool), not the front
	stopped func(at int) bool // the loop needs no item at or past at
	// idle, on the pool, is the helper tokens not out with a job
	// (poolSeq): a take that leaves something for another participant
	// reports it while a token is idle. Nil off the pool.
	idle *atomic.Int32
	// pool, on the pool, is the one whose slot the caller's waits lend
	// (plumb.Block), where the caller is a worker of it: a loop over a
	// seq called from a callback. Nil off the pool.
	pool *runtime.Pool

	quit quitter // closed when a wait on the seq is not needed

	mu     sync.Mutex // guards what follows
	cond   sync.Cond  // a chunk has finished, the seq was waited on, or the loop is decided
	parts  []seqPart  // by participant
	front  int        // the first position no participant has reserved or taken
	tail   int        // the participant holding [front, ∞) (reserve), or -1: front is free
	waiter bool       // a participant waits on the seq, outside mu
	floor  int        // a stream's: positions from it on are not consumed yet (math.MaxInt: no stream)
}

// seqPart is a participant's state in seqBlocks.
type seqPart struct {
	pos, hi int // its reservation: the positions [pos, hi) are its to take (the tail's hi: math.MaxInt)
	run     int // the first position of the chunk it runs, or -1
}

func newSeqBlocks(src seqTaker, ring, reach, participants int, reserve bool, stopped func(at int) bool) *seqBlocks {
	s := &seqBlocks{src: src, ring: ring, reach: reach, reserve: reserve, stopped: stopped,
		parts: make([]seqPart, participants), tail: -1, floor: math.MaxInt}
	s.quit.open()
	for k := range s.parts {
		s.parts[k].run = -1
	}
	s.cond.L = &s.mu
	return s
}

// want is what a participant that found no chunk waits for.
type want int

const (
	again    want = iota // the state changed: look again
	nothing              // no item will come that the loop needs: leave
	chunkEnd             // a chunk that another participant runs to end (reach)
	arrival              // the feeder's next item
)

// block takes participant k's next chunk, of at most take items. more
// reports, on the pool, that the chunk left something that another
// participant could take, while a helper token is idle (poolSeq).
//
// On the pool, a helper (k > 0) that finds nothing to take returns false
// instead of waiting: it leaves the loop. The caller (k == 0), and every
// participant off the pool, waits. A wait on the seq (a channel with no
// value yet) may outlast the loop's decision (a search found its item, a
// callback panicked): finished then interrupts it, so that the
// participants leave without waiting for the seq to yield again.
//
// ps, if not nil, counts the participant's waits as idle time.
func (s *seqBlocks) block(k, take int, ps *partStats) (lo, hi int, ok, more bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		n := s.src.arrived()
		o := s.oldest()
		limit := o + min(s.ring, max(o, s.reach, take))
		lo, hi, w := s.next(k, take, n, limit)
		switch {
		case hi > lo:
			s.parts[k].run = lo
			s.src.handed(hi)
			more = s.idle != nil && s.idle.Load() > 0 && s.spare(n, limit)
			return lo, hi, true, more
		case w == again:
		case w == nothing:
			return 0, 0, false, false
		case s.reserve && k > 0:
			// A helper does not wait: it leaves, and is offered again
			// when there is something to take.
			if k == s.tail && s.parts[k].pos >= n {
				s.drop(k)
			}
			return 0, 0, false, false
		case w == chunkEnd && !s.running():
			// Nothing runs that would make room: the oldest positions
			// in use are reserved in the slot of a helper that left.
			if lo, hi = s.borrow(take, n, limit); hi > lo {
				s.parts[k].run = lo
				s.src.handed(hi)
				return lo, hi, true, false
			}
			t := ps.waiting()
			plumb.Block(s.pool, s.cond.Wait)
			ps.waited(t)
		case w == chunkEnd || s.waiter:
			t := ps.waiting()
			plumb.Block(s.pool, s.cond.Wait)
			ps.waited(t)
		default: // arrival, and no participant waits for it yet
			s.waiter = true
			s.mu.Unlock()
			t := ps.waiting()
			plumb.Block(s.pool, func() { s.src.wait(n, s.quit.done()) })
			ps.waited(t)
			s.mu.Lock()
			s.waiter = false
			s.cond.Broadcast()
		}
	}
}

// running reports whether a participant runs a chunk, whose end makes
// room. s.mu is held.
func (s *seqBlocks) running() bool {
	for _, q := range s.parts {
		if q.run >= 0 {
			return true
		}
	}
	return false
}

// borrow takes a chunk of at most take items at the oldest position in
// use, from the reservation that holds it (a helper's that left), for a
// participant whose own items are out of reach while nothing runs. s.mu
// is held.
func (s *seqBlocks) borrow(take, n, limit int) (lo, hi int) {
	o := s.oldest()
	for j := range s.parts {
		q := &s.parts[j]
		if q.pos == o && q.pos < min(q.hi, n, limit) && !s.stopped(q.pos) {
			lo, hi = q.pos, min(q.pos+take, q.hi, n, limit)
			q.pos = hi
			return lo, hi
		}
	}
	return 0, 0
}

// wanted reports whether a helper that came now would find a chunk that no
// participant present is about to take: something to take, and nobody
// waiting for the seq (a waiter takes what arrives).
func (s *seqBlocks) wanted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiter {
		return false
	}
	n := s.src.arrived()
	o := s.oldest()
	return s.spare(n, o+min(s.ring, max(o, s.reach)))
}

// spare reports whether a participant that came now would find a chunk
// among the first n positions, below limit: arrived positions that a
// reservation holds and nobody has taken, or a free front. s.mu is held.
func (s *seqBlocks) spare(n, limit int) bool {
	if s.tail < 0 && s.front < min(n, limit) && !s.stopped(s.front) {
		return true
	}
	for _, q := range s.parts {
		if q.pos < min(q.hi, n, limit) && !s.stopped(q.pos) {
			return true
		}
	}
	return false
}

// next finds participant k a chunk of at most take items among the first n
// positions, ending at or below limit, or says what it has to wait for.
func (s *seqBlocks) next(k, take, n, limit int) (lo, hi int, w want) {
	if !s.reserve {
		return s.fromFront(take, n, limit)
	}
	p := &s.parts[k]
	if p.pos < p.hi && s.stopped(p.pos) {
		s.drop(k) // past the cut: not needed
	}
	switch {
	case p.pos < min(p.hi, n):
		if hi = min(p.pos+take, p.hi, n, limit); hi <= p.pos {
			return 0, 0, chunkEnd
		}
		lo, p.pos = p.pos, hi
		return lo, hi, again
	case s.tail < 0 && s.front < n && !s.stopped(s.front):
		*p = seqPart{pos: s.front, hi: math.MaxInt, run: p.run}
		s.tail = k
		return 0, 0, again
	}
	if v, mid := s.victim(k, n, limit); v >= 0 {
		if k == s.tail {
			s.drop(k) // the tail goes free: its arrivals are whoever's comes first
		}
		q := &s.parts[v]
		*p = seqPart{pos: mid, hi: q.hi, run: p.run}
		q.hi = mid
		if v == s.tail {
			s.tail = k
		}
		return 0, 0, again
	}
	return 0, 0, s.dry(n, limit)
}

// fromFront is next off the pool: every chunk comes from the front.
func (s *seqBlocks) fromFront(take, n, limit int) (lo, hi int, w want) {
	if s.front < n && !s.stopped(s.front) {
		if hi = min(s.front+take, n, limit); hi <= s.front {
			return 0, 0, chunkEnd
		}
		lo, s.front = s.front, hi
		return lo, hi, again
	}
	return 0, 0, s.dry(n, limit)
}

// dry says what a participant with nothing to take waits for: a chunk
// that ends (an item is there, out of reach), the feeder, or nothing.
func (s *seqBlocks) dry(n, limit int) want {
	for _, q := range s.parts {
		if q.pos < min(q.hi, n) && !s.stopped(q.pos) {
			return chunkEnd
		}
	}
	if s.stopped(n) || s.src.over(n) {
		return nothing
	}
	return arrival
}

// drop ends participant k's reservation where it stands; the tail's
// positions from there go free.
func (s *seqBlocks) drop(k int) {
	p := &s.parts[k]
	if k == s.tail {
		s.tail, s.front = -1, p.pos
	}
	p.hi = p.pos
}

// victim returns the participant to steal from, other than k, and where to
// split its reservation: the one with the most arrived items that it has
// not taken, the loop needs and that are within limit. v < 0: none.
func (s *seqBlocks) victim(k, n, limit int) (v, mid int) {
	v, most := -1, 0
	for j, q := range s.parts {
		if a := min(q.hi, n, limit) - q.pos; j != k && a > most && !s.stopped(q.pos) {
			v, most = j, a
		}
	}
	if v < 0 {
		return -1, 0
	}
	return v, s.parts[v].pos + most/2
}

// interrupt ends a wait on the seq, and every later one.
func (s *seqBlocks) interrupt() { s.quit.close() }

// oldest returns the oldest position in use: in a chunk that runs, reserved
// and not yet taken, or, if the front is free, the front.
func (s *seqBlocks) oldest() int {
	o := math.MaxInt
	if s.tail < 0 {
		o = s.front
	}
	for _, q := range s.parts {
		if q.run >= 0 {
			o = min(o, q.run)
		}
		if q.pos < q.hi {
			o = min(o, q.pos)
		}
	}
	return o
}

// finished says that participant k's chunk has returned (or k runs none).
func (s *seqBlocks) finished(k int) {
	s.mu.Lock()
	s.parts[k].run = -1
	s.release()
	s.cond.Broadcast()
	if s.waiter && s.stopped(s.src.arrived()) {
		s.interrupt() // the loop was decided: the items waited for are not needed
	}
	s.mu.Unlock()
}

// release tells the seq the oldest position in use: running, reserved and
// not taken, or, in a stream, not consumed yet. s.mu is held.
func (s *seqBlocks) release() {
	if o := min(s.oldest(), s.floor); o < math.MaxInt {
		s.src.release(o)
	}
}

// consumed says that a stream's consumer has handed out the items of the
// positions below hi (Stream), which the loop over the seq ran: the feeder
// may pull past them.
func (s *seqBlocks) consumed(hi int) {
	s.mu.Lock()
	s.floor = max(s.floor, hi)
	s.release()
	s.mu.Unlock()
}
