package runtime

import (
	"sync"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/latch"
)

// TestNestedCallsRunOnTheirWorker: Do, Join and Scope called from a task of
// the pool, or from inside Do, run on the member the calling goroutine acts
// as (self), in the frame it runs in, as rayon's in_worker does, and lease
// no guest slot.
func TestNestedCallsRunOnTheirWorker(t *testing.T) {
	p := newPool(t, 2)
	if !useCurG.Load() {
		t.Skip("curG is not implemented here: no goroutine can be told apart (curg.go)")
	}
	nested := map[string]func(p *Pool, got chan<- *Worker){
		"Do":   func(p *Pool, got chan<- *Worker) { p.Do(func(w *Worker) { got <- w }) },
		"Join": func(p *Pool, got chan<- *Worker) { p.Join(func(w *Worker) { got <- w }, func(*Worker) {}) },
		"Scope": func(p *Pool, got chan<- *Worker) {
			p.Do(func(w *Worker) { w.Scope(func(s Scope) { got <- s.Worker() }) })
		},
		"JoinShared": func(p *Pool, got chan<- *Worker) {
			// JoinLazy's path once a participant is idle.
			p.joinShared(func() { got <- p.self() }, func() {})
		},
	}
	for name, call := range nested {
		t.Run(name+"/task", func(t *testing.T) {
			got := make(chan *Worker, 1)
			on := make(chan *Worker, 1)
			p.Go(func(w *Worker) { on <- w; call(p, got) })
			if w, g := <-on, <-got; g != w {
				t.Fatalf("a nested %s in a task on worker %d ran as member %d", name, w.Index(), g.Index())
			}
		})
		t.Run(name+"/do", func(t *testing.T) {
			got := make(chan *Worker, 1)
			var guest *Worker
			p.Do(func(w *Worker) { guest = w; call(p, got) })
			if g := <-got; g != guest {
				t.Fatalf("a %s nested in Do on guest slot %d ran as member %d", name, guest.Index(), g.Index())
			}
		})
	}
	if n := p.guestsInUse.Load(); n > 1 {
		t.Errorf("%d guest slots were leased; only the outer Do's one is needed", n)
	}
}

// TestNestedWaitLendsItsSlot: a task on the pool's only worker waits inside a
// nested Do for work that only another goroutine of the pool can run (a job
// in the injector). Its wait parks the pool's one slot of parallelism, and
// lends it to a spare, which runs that job. A wait that entered as a guest
// would hold no slot to lend, and nothing would run the job.
func TestNestedWaitLendsItsSlot(t *testing.T) {
	p := newPool(t, 1)
	if !useCurG.Load() {
		t.Skip("curG is not implemented here: no goroutine can be told apart (curg.go)")
	}
	var l latch.Latch
	var once sync.Once
	set := func() { once.Do(l.Set) }
	done := make(chan struct{})
	p.Go(func(*Worker) {
		p.Do(func(w *Worker) {
			p.Go(func(*Worker) { set() })
			waitLatch(w, &l)
		})
		close(done)
	})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		set() // let the wait return, so that the pool can close
		<-done
		t.Fatal("the nested wait lent no spare: the injected job waited for the worker parked in it")
	}
	if s := p.Stats().Spares; s == 0 {
		t.Errorf("Stats().Spares = 0 after a wait in a nested Do on the only worker")
	}
}
