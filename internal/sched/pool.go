package sched

import (
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopar-dev/gopar/internal/invariant"
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

// minGuests is the least number of guest slots a pool keeps for goroutines
// that enter it with Do; 64 covers a few dozen concurrent callers, each
// with some nesting. A caller that finds every slot taken runs its work
// sequentially, which is correct, only slower.
const minGuests = 64

// Pool is a set of worker goroutines that run tasks from per-worker deques.
// Create one with New, or use Default. All methods are safe for concurrent
// use.
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

// MaxWorkers is the largest pool New makes (runtime.MaxWorkers says why).
const MaxWorkers = 4096

// New makes a pool of the given number of workers; runtime.New documents
// it for the pool's users. Inside a testing/synctest bubble it makes an
// inline pool (bubble.go).
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

// Do runs f on the calling goroutine as a participant of the pool, and
// returns when f returns. f receives the worker record through which it
// forks work (Join, Scope, Offer): work forked there is visible to the
// pool's workers, and while f waits for it (Join, Scope, Wait), the calling
// goroutine runs it, and what it forks, itself. Work offered with Offer that f
// does not wait for may still be pending when Do returns; it stays in the
// guest slot's deque, where the pool's workers find it.
//
// Called from a goroutine that already acts as a member of the pool (a task
// of the pool, a func a worker took from the board, or f of an enclosing
// Do), Do leases nothing: f receives that member, and runs in the frame the
// goroutine runs in, as a fork there would (rayon's in_worker). Its forks
// go on the member's deque, and its waits run what that frame's waits may
// run, and lend a pool worker's slot to a spare (WAITING.md, "Spares").
//
// If every guest slot is taken (many goroutines inside Do at once), or the
// calling goroutine belongs to a testing/synctest bubble (bubble.go), f runs
// with a nil *Worker, on which Join runs its two functions one after the
// other. A panic in f propagates to the caller unchanged.
func (p *Pool) Do(f func(w *Worker)) {
	if p == nil || f == nil {
		p.refuseDo("Pool.Do", f == nil)
	}
	if p.closed.Load() {
		panic(ErrClosed)
	}
	if p.inline || inBubble() {
		// The pool's workers are outside the bubble (bubble.go).
		f(nil)
		return
	}
	if p.nWorkers == 1 && p.follows {
		// A pool of one worker, where operations give it nothing to do
		// (par's run inline), has nobody else to look (noticeProcs).
		p.noticeProcs()
	}
	if w := p.self(); w != nil {
		// A task of p (or f of an enclosing Do) calls Do: it forks on
		// the member it already runs as, in the frame it runs in, as
		// rayon's in_worker does.
		f(w)
		return
	}
	w := p.lease(curG())
	if w == nil {
		f(nil)
		return
	}
	defer p.release(w)
	f(w)
}

// Join runs a and b, possibly in parallel, and returns when both are done.
// It is Do followed by Worker.Join; see Worker.Join.
func (p *Pool) Join(a, b func(*Worker)) {
	if p == nil || a == nil || b == nil {
		p.refuseDo("Pool.Join", a == nil || b == nil)
	}
	p.Do(func(w *Worker) { w.Join(a, b) })
}

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

// self returns the member of p that the calling goroutine acts as: the pool
// worker whose goroutine it is (running a task, or a func taken from the
// board), the guest slot it leased with Do, or the slot a spare runs as;
// nil if it is none of them, or where curG does not tell goroutines apart
// (curgcheck.go). It is the one answer to "who is running": Do and
// JoinLazy fork on the member it returns, Scope.Spawn pushes onto a
// worker's deque only if it is that worker, Close refuses to run inside
// the pool, a waiter with no *Worker at hand lends its slot (slotHolder),
// and the board tells which entries a waiter may run (promote.go).
//
// A goroutine acts as at most one member of p: Do and JoinLazy lease a
// guest slot only for a goroutine that is none. The scan reads the owner
// words of the members thieves look at; each member's owner is written by
// the goroutine it names, or cleared (by it, or by release) once it is no
// longer that goroutine's, so the one entry equal to the caller's g was
// written by the caller itself.
func (p *Pool) self() *Worker {
	if !useCurG.Load() || p.inline { // an inline pool has no member (bubble.go)
		return nil
	}
	g := curG()
	for _, w := range p.victims() {
		if w.owner.Load() == g {
			return w
		}
	}
	return nil
}

// isSelf reports whether w is the member of its pool that the calling
// goroutine runs as: p.self() == w, answered for a member already in hand
// with one load instead of self's scan of every member (Scope.Spawn asks it
// at every spawn).
func (w *Worker) isSelf() bool {
	return useCurG.Load() && !w.pool.inline && w.owner.Load() == curG()
}

// Hungry reports whether some participant of the pool is looking for work
// right now (a worker or guest spinning or parked for want of it) that work
// already shared by JoinLazy will not feed. Forking pays only then; while it
// reports false, every participant is busy, and work offered for stealing
// would only be taken back. JoinLazy consults it at every call.
//
// It is two atomic loads, a snapshot that may be stale by the time the
// caller acts on it: use it to decide whether to offer work, never for
// correctness.
func Hungry(p *Pool) bool {
	if p == nil {
		refuse("Hungry", nilPool)
	}
	return p.idle.hungry()
}

// JoinLazy runs a and b, possibly in parallel, and returns when both are
// done. It is the fork for code that holds no *Worker (par.Join is built on
// it):
//
//   - While the pool is not Hungry, the calling goroutine runs a while b is
//     on the promotion board (Promote), where a worker that frees up takes
//     it once it has waited a heartbeat tick; then it takes b back and runs
//     it, or waits for that worker. A slot in use, or a one-worker pool,
//     leaves b unpublished. The cost is a few nanoseconds over the two
//     calls, and no allocation.
//   - Otherwise it enters the pool as Do does and forks as Worker.Join does:
//     b is offered for stealing while the caller runs a. If that woke a
//     parked worker, the caller first yields its processor once, so that
//     the worker starts b at once (SLEEP.md, "Waking from a goroutine that
//     goes on running").
//
// What it offers is the b of the call that saw an idle participant, which in
// a recursion is most often a small piece near the leaves; JoinFunc, which
// has the worker, shares the largest pending piece instead.
//
// Panics behave as in Join: a panic in a does not skip b; JoinLazy
// re-panics with a *Panic once both are done, a's if both panicked. On a
// closed pool, where nobody is idle, it runs both calls inline. A nil a or
// b panics at once.
func JoinLazy(p *Pool, a, b func()) {
	if p == nil || a == nil || b == nil {
		p.refuseDo("JoinLazy", a == nil || b == nil)
	}
	if !Hungry(p) {
		if pr := Promote(p, b); pr.Published() {
			joinPromoted(pr, a, b)
			return
		}
		joinCalls(a, b)
		return
	}
	p.joinShared(a, b)
}

// joinPromoted is JoinLazy's path while nobody is idle: b is on the
// promotion board while a runs (promote.go), and a worker that frees up may
// take it once it has waited a heartbeat tick. After a, the caller takes b
// back and runs it, or waits for the worker that took it. As in joinCalls,
// one deferred function covers both calls. It is joinCalls with a
// Promotion, kept apart so that the unpublished paths (joinCalls) pay
// nothing for a Promotion: joinCalls given the zero Promotion (whose
// Reclaim is true) would do the same, at a cost on every join that par's
// BenchmarkJoin shows, alone and beside a busy worker.
func joinPromoted(pr Promotion, a, b func()) {
	if invariant.Enabled {
		defer pr.CheckEnded("JoinLazy")
	}
	phase := inA
	defer func() {
		if phase == finished {
			return
		}
		p := Unwinding(recover())
		if phase == inA {
			// b still runs, here or on its taker; a's panic is the one
			// passed on.
			if pr.Reclaim() {
				p = CallAfter(p, b)
			} else {
				p = Stronger(p, pr.Wait())
			}
		}
		if isPanic(p) {
			panic(p)
		}
	}()
	a()
	phase = inB
	if !pr.Reclaim() {
		pb := pr.Wait()
		phase = finished
		Raise(pb) // b's panic, or its Goexit on the worker
		return
	}
	b()
	phase = finished
}

// joinShared is JoinLazy's path when a participant is idle, out of line so
// that the closures it builds are allocated on this path only.
func (p *Pool) joinShared(a, b func()) {
	if p.closed.Load() {
		panic(ErrClosed)
	}
	if p.inline || inBubble() { // the pool's workers are outside the bubble (bubble.go)
		joinCalls(a, b)
		return
	}
	if w := p.self(); w != nil {
		w.join(func(*Worker) { a() }, func(*Worker) { b() }, true)
		return
	}
	w := p.lease(curG())
	if w == nil {
		joinCalls(a, b)
		return
	}
	defer p.release(w)
	w.join(func(*Worker) { a() }, func(*Worker) { b() }, true)
}

// joinCalls calls a, then b even if a panicked or called runtime.Goexit,
// then re-panics as Join does (a Goexit goes on, unless b panicked). As in
// JoinFunc, one deferred function covers both calls and does nothing unless
// one of them fails: cheaper than a recover around each call (par's
// BenchmarkJoin, alone on one worker).
func joinCalls(a, b func()) {
	phase := inA
	defer func() {
		if phase == finished {
			return
		}
		p := Unwinding(recover())
		if phase == inA {
			// b still runs; a's panic is the one passed on.
			p = CallAfter(p, b)
		}
		if isPanic(p) {
			panic(p)
		}
	}()
	a()
	phase = inB
	b()
	phase = finished
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

// Inject runs fn on one of p's workers, asynchronously, as Go does, for a
// goroutine that is no member of the pool (a loop's feeder) and offers a
// loop's participant: it reports false, and fn never runs, where Go would
// panic or start a goroutine of its own: on a closed pool, an inline one,
// or inside a testing/synctest bubble. A fn injected as Close runs may
// never run; a caller counts on neither.
func Inject(p *Pool, fn func(*Worker)) bool {
	if p == nil || fn == nil {
		p.refuseDo("Inject", fn == nil)
	}
	if p.closed.Load() || p.inline || inBubble() {
		return false
	}
	p.inject(fn)
	return true
}

// lease claims a free guest slot for the goroutine owner (a curG): the
// calling goroutine for Do, or 0 for a spare, whose own goroutine makes
// itself the owner as it starts (runSpare).
func (p *Pool) lease(owner uintptr) *Worker {
	guests := p.members[p.nWorkers:]
	for i, g := range guests {
		// Is the slot free? Then try to claim it.
		if !g.leased.Load() && g.leased.CompareAndSwap(false, true) {
			// The lease is the root of what the guest forks.
			g.at = g.lease
			if owner != 0 {
				g.owner.Store(owner)
			}
			// Raise the high-water mark so that thieves look at this slot.
			for {
				n := p.guestsInUse.Load()
				if int(n) > i || p.guestsInUse.CompareAndSwap(n, int32(i+1)) {
					break
				}
			}
			return g
		}
	}
	return nil
}

// release gives a guest slot back. Work the guest offered and nobody ran
// stays in its deque, where thieves (and a spare that takes the slot) find
// it. Its chain leads to this lease's frame, which the next guest must not
// wait in: a wait there would run work that does not descend from what it
// waits for (WAITING.md), so a frame that such work may hang from is left
// to it, and the next guest gets a new one.
func (p *Pool) release(g *Worker) {
	g.at = nil
	if g.leaseShared {
		g.lease = &frame{region: true}
		g.leaseShared = false
	}
	// The next guest may be another goroutine: make sure no wake-up token
	// meant for this one makes the next one's first sleep return early.
	// Before the slot is free, not after: the next guest may lease it at
	// once, and a token meant for it must not be drained here (a lost
	// wake-up; spare.pml's BUG_DRAIN_AFTER_RELEASE). A token that arrives
	// after the drain was meant for this guest, and is a spare one for the
	// next.
	select {
	case <-g.wake:
	default:
	}
	g.owner.Store(0)
	g.leased.Store(false)
}

// victims returns the workers a thief may steal from right now.
func (p *Pool) victims() []*Worker {
	return p.members[:p.nWorkers+int(p.guestsInUse.Load())]
}

var (
	// defaultMu orders the making of default pools; defaultPool is the
	// current one.
	defaultMu   sync.Mutex
	defaultPool atomic.Pointer[Pool]
	// inlineDefault is what Default returns inside a testing/synctest
	// bubble until the default pool has been made outside any bubble.
	inlineDefault atomic.Pointer[Pool]
)

// WorkersEnv is the environment variable that sizes the default pool.
const WorkersEnv = "GOPAR_WORKERS"

// Default returns the shared pool, starting it on first use; runtime.Default
// documents it for the pool's users: its size (WorkersEnv, or GOMAXPROCS,
// which it follows), and what it does inside a testing/synctest bubble
// (bubble.go). Following GOMAXPROCS costs Default one load of a flag (stale)
// that only changes then; the workers read GOMAXPROCS as they run out of
// work, where a read costs nobody anything.
func Default() *Pool {
	if p := defaultPool.Load(); p != nil && !p.stale.Load() {
		return p
	}
	return makeDefault()
}

// makeDefault is Default's first call, any call inside a bubble before it,
// and a call after GOMAXPROCS changed (the current pool is stale).
func makeDefault() *Pool {
	if inBubble() {
		if p := defaultPool.Load(); p != nil {
			return p
		}
		if p := inlineDefault.Load(); p != nil {
			return p
		}
		n, _ := workersFromEnv(os.Getenv(WorkersEnv))
		p := inlinePool(n)
		p.isDflt = true
		inlineDefault.CompareAndSwap(nil, p)
		return inlineDefault.Load()
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	old := defaultPool.Load()
	if old != nil && !old.stale.Load() {
		return old // made or replaced by another caller meanwhile
	}
	env := os.Getenv(WorkersEnv)
	n, err := workersFromEnv(env)
	if err != nil && old == nil {
		fmt.Fprintf(os.Stderr, "gopar: %v; using GOMAXPROCS=%d workers\n", err, n)
	}
	p := makePool(n)
	p.isDflt = true
	p.follows = env == "" || err != nil
	defaultPool.Store(p)
	return p
}

// lookEvery is how many jobs a worker's main loop runs between its looks
// at GOMAXPROCS while it finds work every time (a pool kept busy by many
// callers): a look takes the Go scheduler's lock.
const lookEvery = 64

// noticeProcs is a pool worker's look at GOMAXPROCS, as it runs out of
// work, and every lookEvery jobs: a default pool that follows GOMAXPROCS
// and no longer has its size is marked stale, and Default replaces it.
func (w *Worker) noticeProcs() {
	w.sinceLook = 0
	w.pool.noticeProcs()
}

// noticeProcs is Worker.noticeProcs's look.
func (p *Pool) noticeProcs() {
	if !p.follows || p.stale.Load() {
		return
	}
	if min(goruntime.GOMAXPROCS(0), MaxWorkers) != p.nWorkers {
		p.stale.Store(true)
	}
}

// workersFromEnv parses GOPAR_WORKERS; on error it returns GOMAXPROCS (at
// most MaxWorkers).
func workersFromEnv(v string) (int, error) {
	procs := min(goruntime.GOMAXPROCS(0), MaxWorkers)
	if v == "" {
		return procs, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxWorkers {
		return procs, fmt.Errorf("%s=%q is not an integer from 1 to %d", WorkersEnv, v, MaxWorkers)
	}
	return n, nil
}
