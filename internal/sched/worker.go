package sched

import (
	"context"
	goruntime "runtime"
	"runtime/trace"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/steal"
)

// job is a unit of work in a deque or the injector.
//
// Ownership: the goroutine that pushes a job writes fn before the push (an
// atomic store of the deque slot publishes it). The goroutine that pops or
// steals it writes panicked before setting done. After done is set, only the
// waiter touches the job again (to read panicked and to recycle it); the
// runner touches nothing but done's atomic fields.
type job struct {
	// fr is the job's node in the fork tree; its parent is the frame that
	// forked it (see frame.go).
	fr frame
	fn func(*Worker)
	// task is a Scope task's, which runs in place of fn; fr.scope is its
	// scope (see Worker.newTask).
	task     Task
	done     Latch
	panicked *Panic
	offered  bool // shared by JoinLazy: counted in idleState.offered until it starts
	helper   bool // offered by Spread: dropped if still in the deque when the region ends
	// labels are the pprof labels of the goroutine that made the job,
	// which the goroutine that runs it wears meanwhile (see execute).
	labels labels.Set
}

// Worker is the record of one participant of a pool: a worker goroutine, or
// a goroutine that entered the pool with Pool.Do. It is handed to every task
// the pool runs; tasks use it to fork more work. A Worker must only be used
// by the goroutine it was handed to, for as long as the task runs.
//
// A nil *Worker is valid: it stands for "no pool", and Join on it runs its
// functions one after the other on the calling goroutine.
type Worker struct {
	pool  *Pool
	index int
	// deque: only the goroutine currently acting as this worker pushes and
	// pops; anyone steals.
	deque steal.Deque[job]
	// wake carries wake-up tokens. Capacity one: a token sent before the
	// worker parks is kept, so the wake-up is not lost.
	wake chan struct{}
	// sleep is sleepy between a participant's announcement that it is
	// about to park and the moment it, or a waker, takes the announcement
	// back; retired while a pool worker has no goroutine (sleep.go).
	sleep atomic.Int32
	// leased marks a guest slot in use (guest workers only).
	leased atomic.Bool
	// owner is the goroutine acting as this worker (its curG), 0 while
	// none is: a pool worker's goroutine sets it when it starts and clears
	// it before it ends, lease sets it and release clears it. Scope.Spawn
	// reads it to learn whether its caller owns the deque. Cleared before
	// the goroutine ends, so that a new goroutine given the same g cannot
	// pass for the owner; by a CAS from the goroutine's own g, since a
	// retired worker's next goroutine may have set it first (see run).
	owner  atomic.Uintptr
	isPool bool

	// Owner-only state.
	// at is the frame running on this worker: the job it executes, or the
	// Scope, Frame or lease whose code runs. Jobs forked now are its
	// children. nil only in a pool worker's main loop.
	at *frame
	// lease is a guest's frame while it is leased: the root of the work
	// forked under Pool.Do. leaseShared records that a job nobody waits
	// for (Offer) or a region (Scope, Spread) was made under it: work
	// under it may then outlive the lease, and the next guest gets a new
	// frame (release), so that its waits do not run that work.
	lease       *frame
	leaseShared bool
	// boardAt and boardBelow are w's identities as a publisher on the
	// promotion board (boardID, boardSlot.pub).
	boardAt, boardBelow boardID
	// spare is set while a spare goroutine runs as this guest slot (see
	// spare.go).
	spare *spare
	rng   uint64
	free  []*job
	// forks is the JoinFunc stack used last, checked first; forkStacks
	// holds one per type of JoinFunc used on this worker.
	forks      any
	forkStacks []sharer
	// floors holds the JoinFunc stacks' floors saved by seal, one group
	// per region w has entered and not left.
	floors []int

	// idle is a pool worker's retire timer (sleep.go, block), made by its
	// first goroutine.
	idle *time.Timer

	stats counters
	// sinceLook counts the jobs w's main loop ran since it last looked at
	// GOMAXPROCS (noticeProcs).
	sinceLook int
}

func newWorker(p *Pool, i int, isPool bool) *Worker {
	w := &Worker{
		pool:   p,
		index:  i,
		wake:   make(chan struct{}, 1),
		isPool: isPool,
		rng:    uint64(i)*0x9E3779B97F4A7C15 + 1,
	}
	w.lease = &frame{region: true}
	w.boardAt.w, w.boardBelow.w = w, w
	return w
}

// Pool returns the pool w belongs to (nil for a nil Worker).
func (w *Worker) Pool() *Pool {
	if w == nil {
		return nil
	}
	return w.pool
}

// Index returns w's position in its pool: 0 to Workers()-1 for the pool's
// own workers, above that for goroutines that entered with Pool.Do. A nil
// Worker has index -1.
func (w *Worker) Index() int {
	if w == nil {
		return -1
	}
	return w.index
}

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

// waitUnder is the loop of a wait (Join, JoinFunc, Scope, Spread, Wait), as
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
func (w *Worker) waitUnder(l *Latch, f *frame) {
	w.waitFor(l, func(j *job) bool { return j.fr.under(f) }, false)
}

// waitFor is waitUnder with the test of which jobs the wait may run, mine.
// With deep, a wait whose own deque's bottom job is not one digs below it
// (popDeep): Wait inside a Join's a has that Join's b on top of the
// work a offered before the Join.
func (w *Worker) waitFor(l *Latch, mine func(*job) bool, deep bool) {
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

// execute runs a job found in a deque or the injector and signals its
// waiter.
func (w *Worker) execute(j *job) {
	w.stats.executed.Add(1)
	w.started(j)
	// The job's code runs in the job's frame: what it forks descends from
	// it, and the JoinFunc calls pending below are sealed (see seal).
	// Deferred, so that a Goexit unwinding through the frames below finds
	// their frame again.
	r := region{w.at, w.seal()}
	w.at = &j.fr
	defer w.leave(r)
	// The job runs under its maker's pprof labels, as a goroutine started
	// with go would; the runner's own come back when it ends, however it
	// ends.
	if prev, changed := labels.Wear(j.labels); changed {
		defer labels.Apply(prev)
	}
	if trace.IsEnabled() {
		w.executeTraced(j)
		return
	}
	w.executeJob(j)
}

// executeTraced runs j inside a runtime/trace region named after the
// worker, so that go tool trace shows which worker ran what.
func (w *Worker) executeTraced(j *job) {
	kind := "gopar.worker"
	if !w.isPool {
		kind = "gopar.guest"
	}
	trace.WithRegion(context.Background(), kind+"#"+strconv.Itoa(w.index), func() { w.executeJob(j) })
}

func (w *Worker) executeJob(j *job) {
	if j.fr.detached {
		// Nobody waits for a detached job, so a panic has nowhere to go
		// but up: it crashes the program, as in a go statement.
		if st := j.fr.scope; st != nil {
			st.run(w, j.task)
		} else {
			j.fn(w)
		}
		// Dropped even if j is kept for its children: they need only
		// its frame.
		j.fn, j.fr.scope, j.task = nil, nil, nil
		w.recycle(j)
		return
	}
	// The waiter must learn how j ended, even if it ended the goroutine
	// with runtime.Goexit: then the deferred function records it.
	returned := false
	defer func() {
		if !returned {
			j.panicked = Unwinding(recover())
			j.done.Set()
		}
	}()
	j.fn(w)
	returned = true
	j.done.Set()
}

// started is called once for every job, by whoever runs it, before it runs:
// a job that JoinLazy offered no longer counts in idleState.offered.
func (w *Worker) started(j *job) {
	if j.offered {
		w.pool.idle.offerTaken()
	}
}

// call runs f as this worker and returns what it panicked with, if anything.
// A runtime.Goexit in f does not return here: the caller's frame keeps its
// obligations in a deferred function of its own (see goexit.go).
func (w *Worker) call(f func(*Worker)) (p *Panic) {
	returned := false
	defer func() {
		if !returned {
			p = Unwinding(recover())
		}
	}()
	f(w)
	returned = true
	return nil
}

// Offer pushes fn onto w's deque, where idle workers can steal it, and wakes
// a sleeping worker if there is one. Nobody waits for fn: if no other worker
// takes it, w runs it the next time it looks for work in its own deque (in
// Join, Wait or, for pool workers, its main loop). fn must not panic; a
// panic escaping it crashes the program, as in a go statement.
//
// On a nil Worker, Offer runs fn at once on the calling goroutine. A nil fn
// panics.
func Offer(w *Worker, fn func(*Worker)) {
	if fn == nil {
		refuse("Offer", nilFunc)
	}
	if w == nil {
		fn(nil)
		return
	}
	offer(w, w.newJob(fn))
}

// offer is Offer of the job j made for it.
func offer(w *Worker, j *job) {
	j.fr.detached = true
	if w.at == w.lease {
		w.leaseShared = true
	}
	w.push(j)
}

// push publishes j on w's deque, then wakes a sleeper if any: the order
// matters, see sleep.go.
func (w *Worker) push(j *job) {
	w.deque.Push(j)
	w.pool.notify()
}

// newJob takes a job from w's free list, or allocates one.
func (w *Worker) newJob(fn func(*Worker)) *job {
	j := w.freeJob()
	j.fn = fn
	j.labels = labels.Current()
	w.at.fork()
	j.fr.setParent(w.at)
	return j
}

// newTask is newJob for t, a task of the scope st. Spawned by the scope's
// body or by another of its tasks, running in its own frame (own), its
// parent is the scope's frame, not the spawner's (WAITING.md, "Scope
// tasks"): so a task that spawns tasks has no children, and its job is
// recycled. Spawned from anywhere else (a Join's b, a loop's body, a nested
// Scope), it is a child of the frame running, as any fork is.
func (w *Worker) newTask(st *scopeState, t Task, own bool) *job {
	j := w.freeJob()
	j.task = t
	j.fr.scope = st
	j.labels = labels.Current()
	parent := &st.fr
	if !own {
		parent = w.at
		parent.fork()
	}
	j.fr.setParent(parent)
	return j
}

// freeJob takes a job from w's free list, or allocates one.
func (w *Worker) freeJob() *job {
	if n := len(w.free); n > 0 {
		j := w.free[n-1]
		w.free = w.free[:n-1]
		return j
	}
	return new(job)
}

// maxFree bounds a worker's free list; deeper recursion allocates.
const maxFree = 256

// recycle returns a finished job to w's free list. The job must not be
// reachable by any other goroutine except as a stale pointer that a failed
// steal discards.
func (w *Worker) recycle(j *job) {
	// A job that jobs were forked under stays theirs: the garbage collector
	// frees it once none of them needs it (see frame).
	if len(w.free) >= maxFree || j.fr.forked {
		return
	}
	// Field by field: a runner that has just set done may still be reading
	// done's waiter, atomically. A job that was never stolen has an untouched
	// latch, and the common case skips the two stores.
	j.fn, j.fr.scope, j.task, j.panicked = nil, nil, nil, nil
	j.fr.detached, j.offered, j.helper, j.labels = false, false, false, labels.Set{}
	if j.done.IsSet() {
		j.done.reset()
	}
	w.free = append(w.free, j)
}

// random returns a pseudo-random number (xorshift64; owner only).
func (w *Worker) random() uint64 {
	x := w.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	w.rng = x
	return x
}

// yield lets other goroutines run: during the spin phase, and after offers
// that woke a parked worker (Spread, join).
func yield() { goruntime.Gosched() }
