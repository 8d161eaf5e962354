package runtime

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/steal"
)

// ErrClosed is the panic value of Pool methods called after Close.
var ErrClosed = errors.New("gopar: pool is closed; create a new one (par.NewPool, or runtime.New below par) or use the default pool")

// Bad input at an exported entry point (a nil function, a nil *Pool, a nil
// *Latch) panics at the call with a message that names the entry point and
// says what to do, rather than failing later on another goroutine, or
// hanging (TestBadInputRefused). The checks are a comparison each, kept out
// of line.

const (
	nilFunc = "was given a nil function; pass the function to run"
	nilPool = "was called on a nil *Pool; use runtime.Default(), or a pool made by runtime.New"
)

// refuse panics for bad input given to the entry point name.
//
//go:noinline
func refuse(name, what string) { panic("gopar: " + name + " " + what) }

// refuseDo refuses a call of name on a nil pool or with a nil function.
//
//go:noinline
func (p *Pool) refuseDo(name string, nilF bool) {
	if p == nil {
		refuse(name, nilPool)
	}
	if nilF {
		refuse(name, nilFunc)
	}
}

// Pool is a set of worker goroutines that run tasks from per-worker deques.
// Create one with New, or use Default. All methods are safe for concurrent
// use; a method called on a closed pool panics with ErrClosed.
type Pool struct {
	// members holds the pool's workers first, then its guest slots. Thieves
	// pick victims among members[:nWorkers+guestsInUse].
	members  []*Worker
	nWorkers int
	// guestsInUse is a high-water mark: one past the highest guest slot ever
	// leased. It only grows, so a thief never misses a leased slot.
	guestsInUse atomic.Int32

	injector steal.Injector[job]

	// idle is who is idle: the counters every participant writes as it
	// goes idle or busy and every publisher reads (sleep.go, its one
	// home).
	idle idleState

	// spares counts the spare goroutines running in parked waiters' slots
	// and not yet recalled (spare.go, which alone uses it); at most
	// nWorkers.
	spares atomic.Int32

	// board holds the funcs published with Promote (board.go).
	board board

	closed atomic.Bool
	// follows marks a default pool sized by GOMAXPROCS (no GOPAR_WORKERS),
	// and stale one whose size GOMAXPROCS no longer is: a worker that runs
	// out of work sets it (noticeProcs), and Default then makes a new
	// default pool. Read by Default at every operation's start, written
	// once: a load of a line that stays shared.
	follows bool
	stale   atomic.Bool
	// live counts the pool's goroutines, workers and spares; allExited
	// carries a token when it falls to zero (sleep.go, waitExited).
	live      atomic.Int32
	allExited chan struct{}
	// retireAfter is idleRetire, but in tests.
	retireAfter time.Duration
	// testHookRetired, set by tests before the pool's first goroutine
	// starts, is called by a retired worker's goroutine once a waker may
	// have claimed the worker, before the goroutine gives it up.
	testHookRetired func(w *Worker)
	// testHookBeat, set by tests before the heartbeat first runs, is
	// called at every tick of the heartbeat's goroutine (beat).
	testHookBeat func()
	// inline marks a pool made inside a testing/synctest bubble
	// (inlinePool).
	inline  bool
	isDflt  bool
	closeMu sync.Mutex
}

// MaxWorkers is the largest pool New makes. A pool's size is the
// parallelism of CPU work, about the number of cores; an idle worker looks
// for work in every member's deque, so a pool of tens of thousands of
// workers spends its time searching. To have many calls that block in
// flight, use the Blocking mode of the par iterators instead.
const MaxWorkers = 4096

// New makes a pool of the given number of workers. A count below one or
// above MaxWorkers is an error.
//
// A worker's goroutine starts when work is published for it, and ends once
// the worker has been idle for a while (its goroutine retires; the next
// work starts a new one): a pool that is not used has no goroutine.
//
// Called inside a testing/synctest bubble, New makes a pool that runs every
// operation on the calling goroutine, inside the bubble or outside it, and
// has no goroutine, channel or timer: the pool may outlive the bubble, and
// a goroutine outside may not use the bubble's channels. Make a pool that
// is to do parallel work outside any bubble.
func New(workers int) (*Pool, error) {
	if workers < 1 {
		return nil, fmt.Errorf("gopar: a pool needs at least one worker, got %d", workers)
	}
	if workers > MaxWorkers {
		return nil, fmt.Errorf("gopar: a pool of %d workers is more than MaxWorkers (%d): size a pool by the cores (GOMAXPROCS), and use Blocking(limit) for many calls that block", workers, MaxWorkers)
	}
	if inBubble() {
		return inlinePool(workers), nil
	}
	return makePool(workers), nil
}

func makePool(workers int) *Pool {
	guests := max(minGuests, 4*workers)
	p := &Pool{
		nWorkers:    workers,
		members:     make([]*Worker, workers+guests),
		allExited:   make(chan struct{}, 1),
		retireAfter: idleRetire,
	}
	checkCurG() // before any goroutine of the pool's runs
	for i := range p.members {
		p.members[i] = newWorker(p, i, i < workers)
	}
	p.startRetired()
	p.board.init(p, workers)
	return p
}

// Workers returns the number of worker goroutines of the pool.
//
// It is not a cap on the callbacks running at once, since every goroutine
// that waits on the pool runs pool work meanwhile: docs/guide.md, "Size is
// not a cap", says how many may run and how to bound them.
func (p *Pool) Workers() int {
	if p == nil {
		refuse("Pool.Workers", nilPool)
	}
	return p.nWorkers
}

// Closed reports whether Close has been called on the pool.
func (p *Pool) Closed() bool {
	if p == nil {
		refuse("Pool.Closed", nilPool)
	}
	return p.closed.Load()
}

// Close stops the pool's workers once they have run the work already queued,
// and waits for them to exit. Using the pool after Close panics with
// ErrClosed. Close must not be called from inside a task of the same pool,
// nor from inside Do: it would wait for itself, and panics instead (where
// the calling goroutine can be told apart, see curg.go). Closing the default
// pool is an error, as other packages share it.
func (p *Pool) Close() error {
	if p == nil {
		refuse("Pool.Close", nilPool)
	}
	if p.isDflt {
		return errors.New("gopar: the default pool is shared and cannot be closed")
	}
	if p.self() != nil {
		refuse("Pool.Close", "was called from inside a task of the same pool, which it would wait for; close the pool once its operations have returned")
	}
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed.Swap(true) || p.inline {
		return nil
	}
	// Every worker gets a token, so one that is parked or about to park sees
	// closed on its next look; so does every guest slot in use, where a
	// spare may be parked (a guest of Do takes the token as a spare one). A
	// retired worker has no goroutine, and none starts once closed is set
	// (Pool.start).
	for _, w := range p.victims() {
		w.wakeup()
	}
	p.waitExited()
	p.forgetRetired()
	p.closeBoard()
	return nil
}

// Go runs fn on one of the pool's workers, asynchronously: it is put in the
// pool's injector, and a sleeping worker is woken for it. Nobody waits for
// fn; use a Latch or Scope to learn when it is done. A panic escaping fn
// crashes the program, as in a go statement. Called inside a
// testing/synctest bubble, Go runs fn(nil) on a new goroutine in the bubble
// (bubble.go).
func (p *Pool) Go(fn func(w *Worker)) {
	if p == nil || fn == nil {
		p.refuseDo("Pool.Go", fn == nil)
	}
	if p.closed.Load() {
		panic(ErrClosed)
	}
	if p.inline || inBubble() {
		go fn(nil)
		return
	}
	p.inject(fn)
}

// inject puts fn in p's injector, a job nobody waits for, and wakes a
// sleeping worker for it.
func (p *Pool) inject(fn func(*Worker)) {
	j := &job{fn: fn, labels: labels.Current()}
	j.fr.detached = true
	p.injector.Push(j)
	p.notify()
}

// inject runs fn on one of p's workers, asynchronously, as Go does, for a
// goroutine that is no member of the pool (a loop's feeder) and offers a
// loop's participant: it reports false, and fn never runs, where Go would
// panic or start a goroutine of its own: on a closed pool, an inline one,
// or inside a testing/synctest bubble. A fn injected as Close runs may
// never run; a caller counts on neither.
func inject(p *Pool, fn func(*Worker)) bool {
	if p == nil || fn == nil {
		p.refuseDo("Inject", fn == nil)
	}
	if p.closed.Load() || p.inline || inBubble() {
		return false
	}
	p.inject(fn)
	return true
}

// victims returns the workers a thief may steal from right now.
func (p *Pool) victims() []*Worker {
	return p.members[:p.nWorkers+int(p.guestsInUse.Load())]
}
