package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/race"
)

// failAfter bounds how long a test waits for something that must happen:
// it fails rather than hangs when it does not.
const failAfter = 10 * time.Second

// eventually yields until cond holds, and fails the test if it does not
// within failAfter. It polls for an outcome; it orders nothing.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", failAfter, what)
		}
		goruntime.Gosched()
	}
}

// TestSpareKeepsParallelism: on a pool of 2 workers, worker A waits in a
// Join for its b, which worker B took and which blocks; nothing descends
// from b, so A parks. Independent work queued meanwhile must run: on the
// spare that takes A's slot. Without spares, both workers are held (A by
// the waiting rule, B by b) and the work waits for b. Each round's spare
// retires once A's wait ends: the goroutine count comes back to the pool's
// own.
func TestSpareKeepsParallelism(t *testing.T) {
	base := goruntime.NumGoroutine()
	p := newPool(t, 2)
	rounds := 20 / race.Scale * 2
	for round := range rounds {
		bStarted := make(chan struct{})
		release := make(chan struct{})
		// On a failure, b is released before the pool's Close waits for it
		// (cleanups run last registered first), so the test fails instead
		// of hanging.
		var releaseOnce sync.Once
		free := func() { releaseOnce.Do(func() { close(release) }) }
		t.Cleanup(free)
		done := make(chan struct{})
		// Read before A can park: A may park before the test has seen b
		// start.
		parks := p.Stats().Parks
		p.Go(func(w *Worker) {
			w.Join(func(*Worker) {
				// Hold a until b runs elsewhere, so that A waits for a
				// thief (a test harness: B is idle and steals b).
				<-bStarted
			}, func(*Worker) {
				close(bStarted)
				<-release
			})
			close(done)
		})
		// Queue the work once A has parked (B, in b, parks nowhere).
		<-bStarted
		eventually(t, "the waiter did not park", func() bool { return p.Stats().Parks > parks })
		if !queuedRuns(p) {
			free()
			t.Fatalf("round %d: work queued while a worker waited and the other was blocked did not run within %v: no spare took the parked waiter's slot (stats %+v)", round, failAfter, p.Stats())
		}
		free()
		<-done
		eventually(t, "the spare did not retire after its lender's wait ended", func() bool { return p.spares.Load() == 0 })
		// The pool's two workers, and no spare left behind.
		eventually(t, "goroutines left over after the spare retired", func() bool { return goruntime.NumGoroutine() <= base+2 })
	}
	if s := p.Stats(); s.Spares == 0 {
		t.Errorf("no spare was started: %+v", s)
	}
	p.Close()
	eventually(t, "goroutines left over after Close", func() bool { return goruntime.NumGoroutine() <= base })
}

// TestSpareBound: a pool runs at most Workers() spares; a waiter that finds
// the bound reached parks without one. Recalled spares exit.
func TestSpareBound(t *testing.T) {
	base := goruntime.NumGoroutine()
	p := newPool(t, 2)
	w := p.members[0]
	var lent []*spare
	for range p.Workers() {
		s := w.lend()
		if s == nil {
			t.Fatalf("lend returned no spare below the bound (%d running)", p.spares.Load())
		}
		lent = append(lent, s)
	}
	if s := w.lend(); s != nil {
		t.Fatalf("lend started spare %d on a pool of %d workers", p.spares.Load(), p.Workers())
	}
	if n := p.spares.Load(); int(n) != p.Workers() {
		t.Fatalf("%d spares running, want %d", n, p.Workers())
	}
	// The spares are idle, parked in their main loops: a recall must wake
	// them (a lost wake-up would leave them running).
	eventually(t, "spares did not park", func() bool { return p.idle.sleepers.Load() >= int32(p.Workers()) })
	for _, s := range lent {
		s.recall()
	}
	eventually(t, "recalled spares did not retire", func() bool { return p.spares.Load() == 0 })
	eventually(t, "goroutines left over after the spares retired", func() bool { return goruntime.NumGoroutine() <= base+2 })
	// A slot is free again: lending works after retiring.
	s := w.lend()
	if s == nil {
		t.Fatal("lend found no room after every spare retired")
	}
	s.recall()
	eventually(t, "the last spare did not retire", func() bool { return p.spares.Load() == 0 })
}

// TestSpareClose: Close returns while spares are parked for want of work,
// and none is left running.
func TestSpareClose(t *testing.T) {
	base := goruntime.NumGoroutine()
	p, err := New(2)
	if err != nil {
		t.Fatal(err)
	}
	w := p.members[0]
	for range p.Workers() {
		if w.lend() == nil {
			t.Fatal("lend returned no spare below the bound")
		}
	}
	eventually(t, "spares did not park", func() bool { return p.idle.sleepers.Load() >= int32(p.Workers()) })
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(failAfter):
		t.Fatalf("Close did not return within %v with parked spares", failAfter)
	}
	if n := p.spares.Load(); n != 0 {
		t.Fatalf("%d spares running after Close", n)
	}
	if w.lend() != nil {
		t.Fatal("lend started a spare on a closed pool")
	}
	eventually(t, "goroutines left over after Close", func() bool { return goruntime.NumGoroutine() <= base })
}

// occupied fills the only worker of p with a job that waits for hold, so
// that nobody but the caller can run what the caller forks.
func occupied(t *testing.T, p *Pool, hold chan struct{}) {
	t.Helper()
	started := make(chan struct{})
	p.Go(func(*Worker) { close(started); <-hold })
	<-started
}

// TestWaitInJoinA: a raw Wait in a Join's a does not run that
// Join's b (b runs after a sequentially: a lock a holds across the Wait, and
// b takes, would deadlock the goroutine on itself), and it still runs work
// offered before the Join, which lies below b in the deque. On the rule
// before, the Wait ran b at once (bEarly), and without digging past b it
// parked forever on work it could not reach.
func TestWaitInJoinA(t *testing.T) {
	for round := range 20 / race.Scale {
		p, err := New(1)
		if err != nil {
			t.Fatal(err)
		}
		hold := make(chan struct{})
		occupied(t, p, hold)
		var l latch.Latch
		var waited, bEarly atomic.Bool
		done := make(chan struct{})
		go p.Do(func(w *Worker) {
			defer close(done)
			// Sequentially the offered job runs at once and sets l, so
			// the Wait returns at once, and b runs after it.
			offer(w, func(*Worker) { l.Set() })
			w.Join(func(w *Worker) {
				waitLatch(w, &l)
				waited.Store(true)
			}, func(*Worker) {
				if !waited.Load() {
					bEarly.Store(true)
				}
			})
		})
		select {
		case <-done:
		case <-time.After(failAfter):
			close(hold)
			t.Fatalf("round %d: Wait in a Join's a did not reach the job offered before the Join within %v", round, failAfter)
		}
		close(hold)
		p.Close()
		if bEarly.Load() {
			t.Fatalf("round %d: Wait in a Join's a ran that Join's b", round)
		}
	}
}

// TestWaitInJoinALock: the lock form. a holds mu across a raw Wait for a
// latch that the pool's worker sets once it is free; b takes mu. The
// sequential program (a, then b) does not deadlock, so gopar must not: the
// Wait parks instead of running b.
func TestWaitInJoinALock(t *testing.T) {
	for round := range 20 / race.Scale {
		p, err := New(1)
		if err != nil {
			t.Fatal(err)
		}
		hold := make(chan struct{})
		var l latch.Latch
		started := make(chan struct{})
		p.Go(func(*Worker) { close(started); <-hold; l.Set() })
		<-started
		var mu sync.Mutex
		inWait := make(chan struct{})
		done := make(chan struct{})
		go p.Do(func(w *Worker) {
			defer close(done)
			w.Join(func(w *Worker) {
				mu.Lock()
				close(inWait)
				waitLatch(w, &l)
				mu.Unlock()
			}, func(*Worker) {
				mu.Lock()
				mu.Unlock()
			})
		})
		<-inWait
		close(hold)
		select {
		case <-done:
		case <-time.After(failAfter):
			t.Fatalf("round %d: a Join whose a holds a lock across Wait, and whose b takes it, deadlocked (%v)", round, failAfter)
		}
		p.Close()
	}
}

// TestSpareWhileWaitingForAPromotedB: worker A runs a task whose JoinLazy
// publishes b on the board (every worker is busy at the call); worker B,
// freed by a, takes b, which blocks. A then waits for b (Promotion.Wait),
// with nothing of b's to run: it lends its slot to a spare, as any waiter
// that holds a slot does, so that work queued meanwhile runs. Without the
// spare, both workers are held and the work waits for b.
func TestSpareWhileWaitingForAPromotedB(t *testing.T) {
	if !curGWorks() {
		t.Skip("a wait for a promoted b finds its worker through curG")
	}
	p := newPool(t, 2)
	gateB := make(chan struct{})
	holdB := make(chan struct{})
	var freeOnce sync.Once
	free := func() { freeOnce.Do(func() { close(holdB) }) }
	t.Cleanup(free)
	var started sync.WaitGroup
	started.Add(2)
	p.Go(func(*Worker) { started.Done(); <-gateB })
	bStarted := make(chan struct{})
	done := make(chan struct{})
	p.Go(func(*Worker) {
		started.Done()
		for hungry(p) {
			goruntime.Gosched() // B leaves its idle count
		}
		p.JoinLazy(func() {
			close(gateB) // B frees up, and takes b once it has ripened
			select {
			case <-bStarted:
			case <-time.After(failAfter):
			}
		}, func() {
			close(bStarted)
			<-holdB
		})
		close(done)
	})
	started.Wait()
	select {
	case <-bStarted:
	case <-time.After(failAfter):
		t.Fatalf("b was not promoted to the worker that freed up within %v", failAfter)
	}
	eventually(t, "A did not wait for its promoted b", func() bool { return p.board.helpers.Load() == 1 })
	if !queuedRuns(p) {
		free()
		t.Fatalf("work queued while a worker waited for its promoted b, and the other ran b, did not run within %v: no spare took the waiter's slot (stats %+v)", failAfter, p.Stats())
	}
	free()
	<-done
	eventually(t, "the spare did not retire after its lender's wait ended", func() bool { return p.spares.Load() == 0 })
}

// TestBlockLendsItsSlot: a task of a one-worker pool that blocks in Block
// (on a channel no job feeds) lends its slot: work queued meanwhile runs,
// on a spare, which retires once the wait is over. A goroutine outside the
// pool that calls Block starts no spare. A plain wait there would leave
// the queued work waiting (the test fails after failAfter).
func TestBlockLendsItsSlot(t *testing.T) {
	if !curGWorks() {
		t.Skip("Block finds the slot it lends only where curG is implemented")
	}
	p := newPool(t, 1)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	blocked, done := make(chan struct{}), make(chan struct{})
	p.Go(func(*Worker) {
		block(p, func() { close(blocked); <-release })
		close(done)
	})
	<-blocked
	if !queuedRuns(p) {
		free()
		t.Fatalf("work queued while the pool's one worker blocked in Block did not run within %v (stats %+v)", failAfter, p.Stats())
	}
	free()
	<-done
	eventually(t, "the spare did not retire after the wait", func() bool { return p.spares.Load() == 0 })
	spares := p.Stats().Spares
	block(p, func() {})
	block(nil, func() {})
	if s := p.Stats().Spares; s != spares {
		t.Fatalf("a goroutine outside the pool started %d spares in Block", s-spares)
	}
}

// TestBlockLendsAgainAtOnce: a waiter that blocks again right after its
// last wait lends its slot again, even while the spare it recalled still
// runs its last job: a recalled spare no longer counts in the bound. On a
// one-worker pool, the first wait's spare runs a job that holds it past
// the wait; work queued during the second wait runs on a new spare. Were
// the recalled spare counted, the second wait would lend nothing and the
// work would wait for the held job (the test fails after failAfter).
func TestBlockLendsAgainAtOnce(t *testing.T) {
	if !curGWorks() {
		t.Skip("Block finds the slot it lends only where curG is implemented")
	}
	p := newPool(t, 1)
	hold, held := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(free)
	first, second := make(chan struct{}), make(chan struct{})
	inFirst, inSecond, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	p.Go(func(*Worker) {
		block(p, func() { close(inFirst); <-first })
		block(p, func() { close(inSecond); <-second })
		close(done)
	})
	<-inFirst
	p.Go(func(*Worker) { close(held); <-hold }) // the first wait's spare takes it
	<-held
	close(first)
	<-inSecond
	if !queuedRuns(p) {
		free()
		close(second)
		t.Fatalf("work queued during a second wait did not run within %v while the first wait's spare was held (stats %+v)", failAfter, p.Stats())
	}
	close(second)
	<-done
	free()
	if s := p.Stats().Spares; s != 2 {
		t.Fatalf("%d spares started, want 2", s)
	}
}

// queuedRuns queues a job on p and reports whether it ran within
// failAfter; on false, the caller frees what it holds and fails.
func queuedRuns(p *Pool) bool {
	ran := make(chan struct{})
	p.Go(func(*Worker) { close(ran) })
	select {
	case <-ran:
		return true
	case <-time.After(failAfter):
		return false
	}
}
