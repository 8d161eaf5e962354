package runtime

import (
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/steal"
)

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
	// Scope, loop's region or lease whose code runs. Jobs forked now are its
	// children. nil only in a pool worker's main loop.
	at *frame
	// lease is a guest's frame while it is leased: the root of the work
	// forked under Pool.Do. leaseShared records that a job nobody waits
	// for (Offer) or a region (Scope, a loop's) was made under it: work
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
	// bound is the value the layer above bound to w in the scope whose
	// tasks w ran last (bound, scope.go).
	bound scopeBinding

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

// offer pushes fn onto w's deque, where idle workers can steal it, and wakes
// a sleeping worker if there is one. Nobody waits for fn: if no other worker
// takes it, w runs it the next time it looks for work in its own deque (in
// Join, Wait or, for pool workers, its main loop). fn must not panic; a
// panic escaping it crashes the program, as in a go statement.
//
// On a nil Worker, offer runs fn at once on the calling goroutine. A nil fn
// panics.
func offer(w *Worker, fn func(*Worker)) {
	if fn == nil {
		refuse("Offer", nilFunc)
	}
	if w == nil {
		fn(nil)
		return
	}
	offerJob(w, w.newJob(fn))
}

// offerJob is Offer of the job j made for it.
func offerJob(w *Worker, j *job) {
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
// that woke a parked worker (open, join).
func yield() { goruntime.Gosched() }
