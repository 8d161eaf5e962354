package runtime

import (
	"errors"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
)

// busyWorkers occupies every worker of p with a task that blocks until the
// returned release is called with the task's index (-1: all of them), and
// returns once all of them run, so that nobody is idle.
func busyWorkers(t testing.TB, p *Pool) (release func(i int)) {
	t.Helper()
	n := p.Workers()
	gates := make([]chan struct{}, n)
	var running sync.WaitGroup
	running.Add(n)
	for i := range gates {
		gates[i] = make(chan struct{})
		p.Go(func(*Worker) {
			running.Done()
			<-gates[i]
		})
	}
	running.Wait()
	for hungry(p) {
		goruntime.Gosched() // the last worker leaves its idle count
	}
	once := make([]sync.Once, n)
	release = func(i int) {
		if i < 0 {
			for i := range gates {
				once[i].Do(func() { close(gates[i]) })
			}
			return
		}
		once[i].Do(func() { close(gates[i]) })
	}
	t.Cleanup(func() { release(-1) })
	return release
}

// TestJoinPromotedWhenAWorkerFreesUp: at the call every worker is busy, so
// JoinLazy cannot share b; a then frees a worker and waits for b to start.
// b must be promoted to that worker while a still runs. A JoinLazy that
// decided once, at the call, would never start b while a waited.
func TestJoinPromotedWhenAWorkerFreesUp(t *testing.T) {
	for _, workers := range []int{2, 4} {
		p := newPool(t, workers)
		release := busyWorkers(t, p)
		started := make(chan struct{})
		ran := false
		p.JoinLazy(func() {
			release(0)
			select {
			case <-started:
				ran = true
			case <-time.After(10 * time.Second):
			}
		}, func() { close(started) })
		if !ran {
			t.Fatalf("workers=%d: b did not start within 10 s while a waited for it and a worker was free", workers)
		}
		if s := p.Stats(); s.Promoted == 0 {
			t.Fatalf("workers=%d: b started but no promotion was counted: %+v", workers, s)
		}
	}
}

// TestJoinPromotedPanics: a promoted b that panics, or calls Goexit, on the
// worker that took it; and a that panics while b runs there.
func TestJoinPromotedPanics(t *testing.T) {
	p := newPool(t, 2)
	// promotedJoin runs JoinLazy with every worker busy, with a that frees
	// one and waits for b to start, and returns what escaped.
	promotedJoin := func(a func(), b func()) (p2 *Panic, goexit bool) {
		release := busyWorkers(t, p)
		defer release(-1)
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			returned := false
			defer func() {
				v := recover()
				if v != nil {
					p2, _ = v.(*Panic)
				} else if !returned {
					goexit = true
				}
			}()
			p.JoinLazy(func() {
				release(0)
				select {
				case <-started:
				case <-time.After(10 * time.Second):
					t.Error("b was not promoted")
				}
				a()
			}, func() { close(started); b() })
			returned = true
		}()
		<-done
		return p2, goexit
	}
	errB := errors.New("b")
	if pn, _ := promotedJoin(func() {}, func() { panic(errB) }); pn == nil || !errors.Is(pn, errB) {
		t.Fatalf("b's panic on the worker: got %v, want a *Panic wrapping %v", pn, errB)
	}
	if pn, g := promotedJoin(func() {}, goruntime.Goexit); pn != nil || !g {
		t.Fatalf("b's Goexit on the worker: got panic %v, goexit %v; want the caller to Goexit", pn, g)
	}
	errA := errors.New("a")
	bDone := false
	if pn, _ := promotedJoin(func() { panic(errA) }, func() { time.Sleep(time.Millisecond); bDone = true }); pn == nil || !errors.Is(pn, errA) || !bDone {
		t.Fatalf("a's panic while b ran on the worker: got %v, b done %v; want a's panic after b", pn, bDone)
	}
	if pn, _ := promotedJoin(func() { panic(errA) }, func() { panic(errB) }); pn == nil || !errors.Is(pn, errA) {
		t.Fatalf("both panicked: got %v, want a's", pn)
	}
	if pn, _ := promotedJoin(goruntime.Goexit, func() { panic(errB) }); pn == nil || !errors.Is(pn, errB) {
		t.Fatalf("a's Goexit, b's panic: got %v, want b's panic", pn)
	}
	// The pool is whole: a worker replaced after the Goexit.
	var n atomic.Int32
	lazyTree(p, 0, 64, func(int) { n.Add(1) })
	if n.Load() != 64 {
		t.Fatalf("after the failures, a tree ran %d of 64 leaves", n.Load())
	}
}

// TestPromoteExactlyOnce races owners reclaiming against workers taking,
// with entries that ripen at random moments: every func runs exactly once,
// here or on a worker.
func TestPromoteExactlyOnce(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	p := newPool(t, 4)
	const callers = 8
	per := 2000 / race.Scale
	counts := make([]atomic.Int32, callers*per)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c * per; i < (c+1)*per; i++ {
				f := func() { counts[i].Add(1) }
				pr := promote(p, f)
				// Sometimes long enough to ripen.
				if i%50 == 0 {
					time.Sleep(200 * time.Microsecond)
				}
				if pr.Reclaim() {
					f()
				} else if pn := pr.Wait(); pn != nil {
					t.Error(pn)
				}
			}
		}()
	}
	wg.Wait()
	if diff := onceDiff(counts); diff != "" {
		t.Fatalf("funcs not run exactly once (-want +got):\n%s", diff)
	}
}

// tickNow runs one tick of p's heartbeat, as the timer's beat does.
func tickNow(p *Pool) {
	p.board.mu.Lock()
	p.board.tick(p)
	p.board.mu.Unlock()
}

// TestMarkedEntryTakenBack: an entry that ticks marked, seen or ripe, is
// still its owner's until a worker takes it: Reclaim takes it back, marks
// and all, and frees the slot. Without Reclaim's second CAS
// (reclaimMarked) it reports a marked f as taken, and its owner would wait
// for ever.
func TestMarkedEntryTakenBack(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	for ticks, marks := range []uint64{0, seenMark, seenMark | ripeMark, seenMark | ripeMark} {
		pr := promote(p, func() {})
		if !pr.Published() {
			t.Fatal("f was not published")
		}
		for range ticks {
			tickNow(p)
		}
		if got, want := pr.s.state.Load(), pr.gen|kindPub|marks; got != want {
			t.Fatalf("after %d ticks the slot's word is %#x, want %#x", ticks, got, want)
		}
		if !pr.Reclaim() {
			t.Fatalf("after %d ticks Reclaim reported f taken, though every worker was busy", ticks)
		}
		if e := pr.s.state.Load(); e != pr.gen|kindFree || pr.Pending() {
			t.Fatalf("after Reclaim the slot's word is %#x, want %#x", e, pr.gen|kindFree)
		}
	}
}

// TestRepublishedFuncIsFresh: the same func value published again in the
// same slot (as a loop's cached rest is) is a new publication, of a new
// generation, unmarked, however ripe the last one was: a worker that loaded
// the ripe word of the last one cannot take the new one with it, and
// takePromoted finds nothing ripe (PROMOTION.md, "Ripe").
func TestRepublishedFuncIsFresh(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	f := func() {}
	pr := promote(p, f)
	tickNow(p)
	tickNow(p)
	if !ripeIn(pr) {
		t.Fatal("f did not ripen in two ticks")
	}
	old := pr.s.state.Load()
	if !pr.Reclaim() {
		t.Fatal("a worker took f, though every worker was busy")
	}
	aimAt(t, p, pr.s)
	pr2 := promote(p, f)
	if !pr2.Published() || pr2.s != pr.s {
		t.Fatalf("f was not published again in its slot (published %v)", pr2.Published())
	}
	if got, want := pr2.s.state.Load(), pr.gen+genOne|kindPub; pr2.gen != pr.gen+genOne || got != want {
		t.Fatalf("f published again is %#x (generation %#x), want %#x (the next generation, unmarked)", got, pr2.gen, want)
	}
	if pr2.s.state.CompareAndSwap(old, genOf(old)|kindTaken) {
		t.Fatal("a CAS from the last publication's ripe word took the new one")
	}
	if j := p.members[0].takePromoted(); j != nil {
		t.Fatal("takePromoted took a publication no tick saw")
	}
	tickNow(p)
	if ripeIn(pr2) {
		t.Fatal("f published again was ripe after one tick")
	}
	if !pr2.Reclaim() {
		t.Fatal("a worker took f, though every worker was busy")
	}
}

// TestRepublishedBetweenTicksStartsUnmarked: the owner takes its entry back
// and publishes again in the same slot between a tick's load of the slot's
// word and its CAS (the test hook runs there). The tick's CAS, from the old
// publication's word, must fail: the new publication starts unmarked, and
// ripens only at the second tick that sees it. Were the generation not
// bumped, the tick would mark the new publication seen with the old one's
// word, and the next tick would ripen a publication that only one tick saw.
func TestRepublishedBetweenTicksStartsUnmarked(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	b := &p.board
	b.state.Store(hbClosed) // the test is the heartbeat: no poke arms it
	defer b.state.Store(hbAsleep)
	f := func() {}
	for before := range 2 { // ticks that saw the first publication
		pr := promote(p, f)
		if !pr.Published() {
			t.Fatal("f was not published")
		}
		for range before {
			tickNow(p)
		}
		var pr2 promotion
		b.testHookTickLoaded = func(s *boardSlot) {
			if s != pr.s || pr2.Published() {
				return
			}
			if !pr.Reclaim() {
				t.Fatal("a worker took f, though every worker was busy")
			}
			aimAt(t, p, pr.s)
			pr2 = promote(p, f)
		}
		tickNow(p)
		b.testHookTickLoaded = nil
		if !pr2.Published() || pr2.s != pr.s {
			t.Fatalf("%d ticks before: f was not published again in its slot", before)
		}
		if got, want := pr2.s.state.Load(), pr2.gen|kindPub; got != want {
			t.Fatalf("%d ticks before: the publication made during a tick is %#x, want %#x (unmarked)", before, got, want)
		}
		tickNow(p)
		if ripeIn(pr2) {
			t.Fatalf("%d ticks before: the new publication is ripe after one tick that saw it", before)
		}
		tickNow(p)
		if !ripeIn(pr2) {
			t.Fatalf("%d ticks before: the new publication is not ripe after two ticks that saw it", before)
		}
		if !pr2.Reclaim() {
			t.Fatal("a worker took f, though every worker was busy")
		}
	}
}

// TestPromotedFuncOnTheHeap: a func that a worker takes runs against its
// owner's variables while the owner's stack grows and moves, and the GC
// runs: b adds to a variable it captures by reference, and the owner must
// read b's sum. The board holds b in a typed func field, so b is on the
// heap and the GC sees it while it is published, whoever holds it.
func TestPromotedFuncOnTheHeap(t *testing.T) {
	p := newPool(t, 2)
	stopGC := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stopGC:
				return
			default:
				goruntime.GC()
			}
		}
	}()
	defer func() { close(stopGC); <-gcDone }()
	before := p.Stats().Promoted
	for i := range 100 / race.Scale {
		done := make(chan int)
		go func() {
			sum := 0
			data := make([]int, 64)
			for k := range data {
				data[k] = k + i
			}
			var started atomic.Bool
			b := func() {
				started.Store(true)
				for _, v := range data {
					sum += v
				}
			}
			pr := promote(p, b)
			if !pr.Published() {
				b()
				done <- sum
				return
			}
			grow(2000)
			for deadline := time.Now().Add(10 * time.Second); !started.Load() && time.Now().Before(deadline); {
				goruntime.Gosched()
			}
			if pr.Reclaim() {
				b()
			} else if pn := pr.Wait(); pn != nil {
				t.Error(pn)
			}
			done <- sum
		}()
		if got, want := <-done, 64*63/2+64*i; got != want {
			t.Fatalf("round %d: b's sum is %d, want %d", i, got, want)
		}
	}
	if p.Stats().Promoted == before {
		t.Fatal("no b was taken by a worker: the test tested nothing")
	}
}

// grow uses about n*300 bytes of stack.
func grow(n int) int {
	var buf [256]byte
	buf[n%256] = byte(n)
	if n == 0 {
		return int(buf[0])
	}
	return grow(n-1) + int(buf[(n*7)%256])
}

// waitHeartbeatAsleep waits until p's heartbeat has gone to sleep, which it
// does a linger after the board last held an entry.
func waitHeartbeatAsleep(t testing.TB, p *Pool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.board.state.Load() != hbAsleep {
		if time.Now().After(deadline) {
			t.Fatalf("the heartbeat still runs 10 s after the board emptied (state %d)", p.board.state.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPokeTicks: the poke that wakes the heartbeat ticks, so that what a
// publisher put on the board is marked at once and ripens at the timer's
// first tick, which on an idle pool comes about a millisecond late
// (PROMOTION.md, "The heartbeat"). Without the poke's tick the entry stays
// unmarked until that first tick.
func TestPokeTicks(t *testing.T) {
	p := newPool(t, 2)
	b := &p.board
	for range 20 {
		waitParked(t, p)
		waitHeartbeatAsleep(t, p)
		for b.now()-b.lastTick.Load() < int64(heartbeatTick) {
			goruntime.Gosched() // the poke ticks only a tick after the last tick
		}
		ran := false
		pr := promote(p, func() { ran = true })
		if !pr.Published() {
			t.Fatal("nothing was published on an idle pool's board")
		}
		e := pr.s.state.Load()
		if e&kindBits == kindPub && e&markBits == 0 {
			t.Fatalf("the publisher's poke woke the heartbeat (state %d), but its entry is unmarked (%#x)", b.state.Load(), e)
		}
		if pr.Reclaim() {
			ran = true
		} else if pn := pr.Wait(); pn != nil {
			t.Fatal(pn)
		}
		if !ran {
			t.Fatal("the promoted func did not run")
		}
	}
}

// TestHeartbeatStops: once nothing is published, the heartbeat arms no
// more ticks, and after Close nothing arms it again.
func TestHeartbeatStops(t *testing.T) {
	p, err := New(2)
	if err != nil {
		t.Fatal(err)
	}
	release := busyWorkers(t, p)
	started := make(chan struct{})
	p.JoinLazy(func() {
		release(0)
		<-started
	}, func() { close(started) })
	waitHeartbeatAsleep(t, p)
	release(1)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if st := p.board.state.Load(); st != hbClosed {
		t.Fatalf("the heartbeat's state after Close is %d, want %d (closed)", st, hbClosed)
	}
	p.pokeHeartbeat() // arms nothing on a closed pool
	if st := p.board.state.Load(); st != hbClosed {
		t.Fatalf("a poke after Close changed the heartbeat's state to %d", st)
	}
}

// TestOverdueTickRunByWorker: the heartbeat's timer does not fire (as when
// it sits on a P whose goroutine never yields), and a worker that is idle
// with an entry on the board runs the overdue tick itself, so b is still
// promoted. a keeps the timer stopped; were only the timer to tick, b would
// not start.
func TestOverdueTickRunByWorker(t *testing.T) {
	p := newPool(t, 2)
	release := busyWorkers(t, p)
	started := make(chan struct{})
	ran := false
	p.JoinLazy(func() {
		release(0)
		deadline := time.Now().Add(10 * time.Second)
		for !ran && time.Now().Before(deadline) {
			p.board.timer.Stop()
			select {
			case <-started:
				ran = true
			default:
				goruntime.Gosched()
			}
		}
	}, func() { close(started) })
	if !ran {
		t.Fatal("b did not start within 10 s while the heartbeat's timer did not fire and a worker was idle")
	}
}

// TestBeatSkipsATickWithinATick: a timer tick that comes within a tick of
// the last tick (a hunting worker's) ticks nothing, so that two ticks are a
// tick apart and an entry they both saw has waited a tick; a timer tick
// later than that ticks. Every worker is busy, so each beat goes asleep
// after its tick, and the test drives the beats.
func TestBeatSkipsATickWithinATick(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	b := &p.board
	pr := promote(p, func() {})
	if !pr.Published() {
		t.Fatal("f was not published")
	}
	defer func() {
		if !pr.Reclaim() {
			t.Error("a worker took f, though every worker was busy")
		}
	}()
	beatAt := func(last int64) {
		t.Helper()
		if !b.state.CompareAndSwap(hbAsleep, hbRunning) {
			t.Fatalf("the heartbeat's state is %d, want asleep", b.state.Load())
		}
		b.lastTick.Store(last) // under mu only in the code; no tick runs here
		p.beat()
	}
	// A tick ran just now (the far future, as the clock goes): both beats
	// are within a tick of it.
	beatAt(b.now() + int64(time.Hour))
	beatAt(b.now() + int64(time.Hour))
	if ripeIn(pr) {
		t.Fatal("two beats within a tick of the last tick ripened f: they ticked")
	}
	beatAt(b.now() - int64(time.Hour))
	beatAt(b.now() - int64(time.Hour))
	if !ripeIn(pr) {
		t.Fatal("two beats a tick after the last did not ripen f")
	}
}

// TestIdleAfterPromotionUsesNoCPU: a pool whose board was in use, with the
// heartbeat ticking, uses (almost) no CPU over 200 ms once it is idle: the
// heartbeat stops after its linger.
func TestIdleAfterPromotionUsesNoCPU(t *testing.T) {
	if race.Scale > 1 {
		t.Skip("the race detector's own threads use CPU")
	}
	p := newPool(t, 4)
	release := busyWorkers(t, p)
	started := make(chan struct{})
	p.JoinLazy(func() {
		release(0)
		<-started
	}, func() { close(started) })
	release(-1)
	if p.Stats().Promoted == 0 {
		t.Fatal("b was not promoted")
	}
	waitParked(t, p)
	used := idleCPU()
	t.Logf("CPU used by an idle 4-worker pool over 200 ms, after a promotion: %v", used)
	if used > 2*time.Millisecond {
		t.Fatalf("idle pool used %v of CPU over 200 ms after a promotion (the least of %d windows), want < 2ms", used, idleWindows)
	}
	if st := p.board.state.Load(); st != hbAsleep {
		t.Fatalf("the heartbeat still runs on an idle pool (state %d)", st)
	}
}

// saltApart sets p's board's salt so that the publishers whose
// identities are ids (curG) have slots of their own: the first and second
// slots of all of them are pairwise distinct.
func saltApart(t *testing.T, p *Pool, ids ...uintptr) {
	t.Helper()
	b := &p.board
	for salt := uint64(1); salt < 1<<16; salt++ {
		b.salt.Store(salt)
		used := map[int]bool{}
		ok := true
		for _, id := range ids {
			i, j := b.slotsFor(b.hashOf(uint64(id)))
			ok = ok && !used[i] && !used[j]
			used[i], used[j] = true, true
		}
		if ok {
			return
		}
	}
	t.Fatalf("no salt places %d publishers apart on %d slots", len(ids), len(b.slots))
}

// aimAt sets p's board's salt so that the calling goroutine's next Promote
// tries slot s first.
func aimAt(t *testing.T, p *Pool, s *boardSlot) {
	t.Helper()
	b := &p.board
	for salt := uint64(1); salt < 1<<16; salt++ {
		b.salt.Store(salt)
		if i, _ := nextSlots(b); &b.slots[i] == s {
			return
		}
	}
	t.Fatal("no salt aims the next publication at the slot")
}

// workerIDs returns the identities (curG) of p's pool workers.
func workerIDs(p *Pool) []uintptr {
	var ids []uintptr
	for _, w := range p.members {
		if g := w.owner.Load(); w.isPool && g != 0 {
			ids = append(ids, g)
		}
	}
	return ids
}

// TestWaiterRunsWhatBPublishes: the owner of a b that a worker took runs,
// while it waits, what b publishes (leapfrogging). Every worker is busy but
// the one that takes b, and b's own Join waits for its b, c, to start: only
// the owner is free to run c. An owner that only blocked on the slot's
// channel would never start c (the test's 10 s timeout).
func TestWaiterRunsWhatBPublishes(t *testing.T) {
	if !curGWorks() {
		t.Skip("waiters help only where curG is implemented")
	}
	for _, workers := range []int{2, 4} {
		p := newPool(t, workers)
		release := busyWorkers(t, p)
		bStarted := make(chan struct{})
		cRan := false
		p.JoinLazy(func() {
			release(0)
			<-bStarted
		}, func() {
			close(bStarted)
			cStarted := make(chan struct{})
			c := func() { close(cStarted) }
			p.JoinLazy(func() {
				select {
				case <-cStarted:
					cRan = true
				case <-time.After(10 * time.Second):
				}
			}, c)
		})
		if !cRan {
			t.Fatalf("workers=%d: c, published by the b a worker took, did not start within 10 s, while b's owner waited and nobody else was free", workers)
		}
		if s := p.Stats(); s.Helped == 0 {
			t.Fatalf("workers=%d: c ran but no help was counted: %+v", workers, s)
		}
	}
}

// TestWaiterRunsOnlyDescendants: while the owner of a taken b waits, a
// ripe entry of another goroutine's is on the board, and nobody else is
// free to take it. The owner must leave it: it is not under b, and it could
// take a lock the owner holds (WAITING.md).
func TestWaiterRunsOnlyDescendants(t *testing.T) {
	if !curGWorks() {
		t.Skip("waiters help only where curG is implemented")
	}
	p := newPool(t, 2)
	release := busyWorkers(t, p)
	owner := curG()
	var ranOnOwner atomic.Bool
	releaseF := make(chan struct{})
	fDone := make(chan struct{})
	bStarted := make(chan struct{})
	p.JoinLazy(func() {
		release(0)
		<-bStarted
	}, func() {
		close(bStarted)
		// Another goroutine publishes f, and holds it there until the
		// owner's Join has returned.
		f := func() { ranOnOwner.Store(curG() == owner) }
		published := make(chan struct{})
		go func() {
			defer close(fDone)
			p.JoinLazy(func() { close(published); <-releaseF }, f)
		}()
		<-published
		deadline := time.Now().Add(10 * time.Second)
		for !anyRipe(p) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Microsecond)
		}
		if !anyRipe(p) {
			t.Error("the other goroutine's entry did not ripen within 10 s")
		}
		// Some ticks, for the owner to find it if it would.
		time.Sleep(20 * heartbeatTick)
	})
	close(releaseF)
	<-fDone
	if ranOnOwner.Load() {
		t.Fatal("the owner of b ran another goroutine's promoted func while it waited for b")
	}
}

// TestWaiterSkipsEntriesBelowItsFunc: a goroutine X that helps while it
// waits runs a func c that the goroutine W running X's b published. W then
// waits for c, and may take what X publishes while it runs c, but not X's
// entry e, published before X started c: sequentially e runs after the
// code that holds W's locks. X marks e when it starts c (markBelow); with
// the mark left out, W took e. X is a guest of the pool (inside Do), so
// that a waiter for what it runs may help at all.
func TestWaiterSkipsEntriesBelowItsFunc(t *testing.T) {
	if !curGWorks() {
		t.Skip("waiters help only where curG is implemented")
	}
	p := newPool(t, 2)
	p.Do(func(*Worker) { testWaiterSkipsEntriesBelowItsFunc(t, p) })
}

func testWaiterSkipsEntriesBelowItsFunc(t *testing.T, p *Pool) {
	release := busyWorkers(t, p)
	// X (this goroutine) holds two slots, b's and e's, while the worker
	// running b publishes c: X's and the workers' slots apart.
	saltApart(t, p, append(workerIDs(p), curG())...)
	var bG, eG atomic.Uintptr
	var ePr atomic.Pointer[promotion]
	var cBody func(chan struct{})
	bStarted := make(chan struct{})
	var inB, eInB atomic.Bool
	b := func() {
		bG.Store(curG())
		inB.Store(true)
		defer inB.Store(false)
		close(bStarted)
		cStarted := make(chan struct{})
		c := func() { cBody(cStarted) }
		p.JoinLazy(func() {
			select {
			case <-cStarted:
			case <-time.After(10 * time.Second):
				t.Error("c did not start within 10 s while X waited")
			}
		}, c)
	}
	cBody = func(cStarted chan struct{}) {
		close(cStarted)
		// Stay until e is ripe, and W has had some ticks to take
		// it, if it would. (The spare that W lends its slot to as it
		// waits may take e first: it runs e from its main loop.)
		for ePr.Load() == nil {
			goruntime.Gosched() // X publishes e once b has started
		}
		pe := *ePr.Load()
		ripe := func() bool { return ripeIn(pe) || pe.s.state.Load() == pe.gen|kindTaken }
		for deadline := time.Now().Add(10 * time.Second); !ripe() && time.Now().Before(deadline); {
			time.Sleep(50 * time.Microsecond)
		}
		if !ripe() {
			t.Error("e did not ripen within 10 s")
		}
		time.Sleep(20 * heartbeatTick)
	}
	prB := promote(p, b)
	if !prB.Published() {
		t.Fatal("b was not published")
	}
	// e: X's, on the board while X waits for b.
	e := func() {
		eG.Store(curG())
		eInB.Store(inB.Load())
	}
	release(0)
	<-bStarted
	prE := promote(p, e)
	if !prE.Published() {
		t.Fatal("e was not published")
	}
	ePr.Store(&prE)
	if prB.Reclaim() {
		t.Fatal("b was taken back, though a worker ran it")
	}
	if pn := prB.Wait(); pn != nil {
		t.Fatalf("b: %v", pn)
	}
	if prE.Reclaim() {
		e()
	} else if pn := prE.Wait(); pn != nil {
		t.Fatalf("e: %v", pn)
	}
	if eInB.Load() && eG.Load() == bG.Load() {
		t.Fatal("the goroutine running b took X's entry e, published before X started running c, while it waited for c")
	}
	if s := p.Stats(); s.Helped == 0 {
		t.Fatalf("X did not run c while it waited: %+v", s)
	}
}

// TestPublisherRecordedOnlyUnderATakenFunc: Promote records the publisher
// (pub), which only a waiter for a func the publisher runs reads, only
// while some taken func runs (Pool.running); otherwise it saves the two
// locked stores. It fails where pub is recorded at every publication.
func TestPublisherRecordedOnlyUnderATakenFunc(t *testing.T) {
	if !curGWorks() {
		t.Skip("pub is recorded only where curG is implemented")
	}
	p := newPool(t, 2)
	// No worker idle, so that none takes an entry that ripens between its
	// publication and its Reclaim (a slow machine, qemu, ticks in between).
	defer busyWorkers(t, p)(-1)
	publish := func() (pub *boardID) {
		pr := promote(p, func() {})
		if !pr.Published() {
			t.Fatal("a func whose slot is free was not published")
		}
		pub = pr.s.pub.Load()
		if !pr.Reclaim() {
			t.Fatal("an entry not yet ripe was taken")
		}
		if pr.s.pub.Load() != nil {
			t.Fatal("Reclaim left pub set")
		}
		return pub
	}
	if pub := publish(); pub != nil {
		t.Fatalf("published while no taken func ran: pub = %p, want nil", pub)
	}
	// A func run as a taken one (runTaken, as a worker or a waiter runs
	// it) in a slot of its own, by a member of the pool (a guest of Do).
	s := &p.board.slots[len(p.board.slots)-1]
	var pub *boardID
	var me *Worker
	p.Do(func(w *Worker) { p.runTaken(s, func() { me, pub = w, publish() }) })
	<-s.done
	if me == nil || pub != &me.boardAt {
		t.Fatalf("published inside a taken func: pub = %p, want the publisher's identity", pub)
	}
	if n := p.board.running.Load(); n != 0 {
		t.Fatalf("running = %d after the taken func returned", n)
	}
}

// ripeIn reports whether pr's publication is on the board and ripe.
func ripeIn(pr promotion) bool { return pr.s.state.Load() == pr.gen|kindPub|markBits }

// anyRipe reports whether some entry on p's board is ripe.
func anyRipe(p *Pool) bool {
	for i := range p.board.slots {
		if isRipe(p.board.slots[i].state.Load()) {
			return true
		}
	}
	return false
}

// goroutineID returns the calling goroutine's number, as its stack trace
// shows it (numbers are never reused).
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:goruntime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// TestHeartbeatIsOneGoroutine: while the heartbeat ticks, its ticks run on
// one goroutine, which ends when the heartbeat goes asleep, rather than on a
// new goroutine per tick (up to 20,000 a second). A round is one stretch of
// ticks: b is promoted to the worker that a frees, and the heartbeat ticks
// for its linger while that worker hunts; a round with fewer than 3 ticks
// (a slow timer) says nothing, and the next one is tried.
func TestHeartbeatIsOneGoroutine(t *testing.T) {
	p, err := New(2)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	p.testHookBeat = func() {
		id := goroutineID()
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
	}
	defer p.Close()
	for round := 0; ; round++ {
		if round == 20 {
			t.Skip("no stretch of 3 heartbeat ticks in 20 rounds: the timer is too slow here")
		}
		release := busyWorkers(t, p)
		mu.Lock()
		ids = ids[:0]
		mu.Unlock()
		started := make(chan struct{})
		p.JoinLazy(func() {
			release(0)
			<-started
		}, func() { close(started) })
		release(-1)
		eventually(t, "the heartbeat to go asleep", func() bool { return p.board.state.Load() == hbAsleep })
		mu.Lock()
		beats := len(ids)
		seen := map[string]bool{}
		for _, id := range ids {
			seen[id] = true
		}
		mu.Unlock()
		if beats < 3 {
			continue
		}
		if len(seen) == beats {
			t.Fatalf("%d heartbeat ticks ran on %d goroutines, one each", beats, len(seen))
		}
		return
	}
}

// BenchmarkPromote: a publication and its take-back on a pool whose every
// worker is busy (nobody takes it), as JoinLazy's and a loop's inline paths
// do; and, in skip, a Promote whose slots are in use, as the calls inside
// the pending calls of a recursion find them.
func BenchmarkPromote(b *testing.B) {
	p := newPool(b, 2)
	busyWorkers(b, p)
	f := func() {}
	b.Run("publish", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if pr := promote(p, f); !pr.Reclaim() {
				raise(pr.Wait())
			}
		}
	})
	b.Run("skip", func(b *testing.B) {
		b.ReportAllocs()
		outer1, outer2 := promote(p, f), promote(p, func() {})
		for range b.N {
			if pr := promote(p, f); !pr.Reclaim() {
				raise(pr.Wait())
			}
		}
		for _, o := range []promotion{outer2, outer1} {
			if !o.Reclaim() {
				raise(o.Wait())
			}
		}
	})
}

// TestReclaimedFuncNotKeptAlive: a func taken back by Reclaim, unmarked or
// marked by ticks, is no longer on the board: its slot is free and holds
// no func, so that the board keeps neither it nor the data it reaches
// alive after its operation.
func TestReclaimedFuncNotKeptAlive(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	for _, ticks := range []int{0, 1, 2} {
		big := make([]byte, 1<<20)
		pr := promote(p, func() { big[0]++ })
		if !pr.Published() {
			t.Fatal("the func was not published")
		}
		for range ticks {
			tickNow(p)
		}
		if !pr.Reclaim() {
			t.Fatal("a worker took the func, though every worker was busy")
		}
		if pr.s.fn != nil {
			t.Errorf("after %d ticks and Reclaim, the slot still holds the func", ticks)
		}
		if e := pr.s.state.Load(); e != pr.gen|kindFree {
			t.Errorf("after %d ticks and Reclaim, the slot's word is %#x, want %#x (free)", ticks, e, pr.gen|kindFree)
		}
	}
}
