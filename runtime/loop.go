package runtime

import (
	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/steal"
)

// run is the loop of a pool worker goroutine. It exits once the pool is
// closed and no work is left for it to find, or once it has retired (see
// park).
//
// A worker is counted idle, hunting and sleeping (retired) from the start
// (New counts it before any goroutine runs it), and so is a retired one:
// the goroutine that a waker starts for it (Pool.start) finds it counted
// idle and hunting. A Join made before the goroutine first runs still
// offers b, which the worker finds in its first search.
//
// A task that calls runtime.Goexit ends the goroutine instead (see
// goexit.go): every frame above has kept its obligations by then, and a new
// goroutine takes over w, counted idle as a new worker is, so the pool
// keeps its size. It does not count as exited: Close waits for the new one.
func (w *Worker) run() {
	me := curG()
	w.owner.Store(me)
	// A worker wears no labels of its own: the goroutine that started it
	// may have had some (see execute).
	labels.Clear()
	retired, returned := false, false
	defer func() {
		if retired && w.pool.testHookRetired != nil {
			w.pool.testHookRetired(w)
		}
		// Give w up, unless a waker has already started a new goroutine
		// for it (a retired worker is claimed before this runs), which
		// has made itself the owner: a store would take w from it.
		w.owner.CompareAndSwap(me, 0)
		if returned {
			w.pool.exit()
			return
		}
		// Ended by Goexit (or crashing with a panic from a detached job,
		// where the new goroutine does no harm).
		w.stats.replaced.Add(1)
		w.pool.idle.startLooking(true)
		go w.run()
	}()
	w.at = nil // the main loop is the root (a replaced goroutine's frame is gone)
	if w.loop(true) {
		retired = true
		w.stats.retired.Add(1)
	}
	returned = true
}

// loop is the main loop of a pool worker or a spare, as rayon's
// wait_until for a worker's main loop: it runs any job until the pool is
// closed and w finds no work left (or, for a spare, until it is recalled).
// When there is none, it spins briefly, then parks until new work appears.
// A wait for a latch is waitUnder's loop instead. counted says whether w is
// already counted looking and hunting in idleState (a new pool worker is).
// It reports whether w retired (park): its counts then stay, for the
// goroutine that a waker starts for it.
func (w *Worker) loop(counted bool) (retired bool) {
	idle := spinner{idle: counted, root: true}
	defer w.setIdle(&idle, false)
	for {
		if w.retiring() {
			return false
		}
		if j := w.findWork(); j != nil {
			w.setIdle(&idle, false)
			if w.sinceLook++; w.sinceLook == lookEvery {
				w.noticeProcs() // a pool kept busy follows too
			}
			w.execute(j)
			idle.reset()
			continue
		}
		w.setIdle(&idle, true)
		if w.pool.closed.Load() {
			return false
		}
		if idle.rounds == 0 {
			// Out of work after a job, or a start or wake-up.
			w.noticeProcs()
		}
		// Promoted work ripens only while the heartbeat ticks.
		w.pool.watchBoard()
		if idle.spin() {
			continue
		}
		if w.park() {
			idle.idle = false // the counts pass to the retired worker
			return true
		}
		idle.reset()
	}
}

// waitUnder is the loop of a wait (Join, JoinFunc, Scope, a region's close, Wait), as
// rayon's wait_until for a latch: it runs jobs under f, the frame whose work
// it waits for (see frame.go), from its own deque first, then from the top
// of the others' deques, until l is set.
// When there are none, it spins, then parks until l is set. It does not
// announce itself as sleepy: a publisher's wake-up goes to a participant
// that may run any job.
//
// A waiter that holds a slot of the pool's parallelism (a pool worker, or a
// spare) lends it to a spare goroutine when it parks, and recalls the spare
// once l is set (see spare.go).
func (w *Worker) waitUnder(l *latch.Latch, f *frame) {
	w.waitFor(l, func(j *job) bool { return j.fr.under(f) }, false)
}

// waitFor is waitUnder with the test of which jobs the wait may run, mine.
// With deep, a wait whose own deque's bottom job is not one digs below it
// (popDeep): Wait inside a Join's a has that Join's b on top of the
// work a offered before the Join.
func (w *Worker) waitFor(l *latch.Latch, mine func(*job) bool, deep bool) {
	var idle spinner
	var lent *spare
	defer func() {
		w.setIdle(&idle, false)
		if lent != nil {
			lent.recall()
		}
	}()
	for !l.IsSet() {
		var j *job
		if deep {
			j = w.popDeep(mine)
		} else {
			j = w.deque.PopIf(mine)
		}
		if j == nil {
			j = w.stealIf(mine)
		}
		if j != nil {
			w.setIdle(&idle, false)
			w.execute(j)
			idle.reset()
			continue
		}
		w.setIdle(&idle, true)
		if idle.spin() {
			continue
		}
		// A parked waiter takes no work: it is no longer idle.
		w.setIdle(&idle, false)
		if lent == nil && w.holdsSlot() {
			lent = w.lend()
		}
		w.parkOn(l)
		idle.reset()
	}
}

// popDeep pops w's own deque down to the newest job mine accepts, and
// pushes the jobs above it back, in their order; it returns nil, with the
// deque as it was, if there is none. Pushed back with w.push, which
// notifies: a participant that looked while they were out must not sleep
// through them.
func (w *Worker) popDeep(mine func(*job) bool) *job {
	var buf [8]*job
	above := buf[:0]
	var found *job
	for {
		j := w.deque.Pop()
		if j == nil {
			break
		}
		if mine(j) {
			found = j
			break
		}
		above = append(above, j)
	}
	for i := len(above) - 1; i >= 0; i-- {
		w.push(above[i])
	}
	return found
}

// stealIf scans the other participants' deques once from a random start, and
// again while a scan lost a race, for a job at the top that mine accepts (any
// job, for a nil mine: a worker's main loop). An empty scan means there was
// nothing to steal, a lost race means there may be.
func (w *Worker) stealIf(mine func(*job) bool) *job {
	for {
		victims := w.pool.victims()
		n := len(victims)
		start := int(w.random() % uint64(n))
		retry := false
		for i := 0; i < n; i++ {
			v := victims[(start+i)%n]
			if v == w {
				continue
			}
			var j *job
			var s steal.Status
			if mine == nil {
				j, s = v.deque.Steal()
			} else {
				j, s = v.deque.StealIf(mine)
			}
			switch s {
			case steal.Success:
				w.stats.steals.Add(1)
				return j
			case steal.Retry:
				w.stats.stealRetries.Add(1)
				retry = true
			}
		}
		if !retry {
			w.stats.stealEmpties.Add(1)
			return nil
		}
	}
}

// findWork looks for a job: own deque, then the injector, then other
// participants' deques, starting at a random victim, then ripe promoted
// work (promote.go).
func (w *Worker) findWork() *job {
	// Newest local work first: it is hot in the cache.
	if j := w.deque.Pop(); j != nil {
		return j
	}
	p := w.pool
	// Work submitted from outside the pool.
	for !p.injector.IsEmpty() {
		j, s := p.injector.Steal()
		if s == steal.Success {
			w.stats.injected.Add(1)
			return j
		}
		if s == steal.Empty {
			break
		}
	}
	if j := w.stealIf(nil); j != nil {
		return j
	}
	return w.takePromoted()
}
