package par_test

import (
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// goroutineID returns the calling goroutine's number, as its stack trace
// shows it (numbers are never reused).
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:goruntime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// TestNestedRangeRunsOnItsWorker: a par.Range inside a task of the pool runs
// on the worker the task runs on, and its wait lends that worker's slot.
// The task T's loop has two items: T's own waits for the other one, which
// the pool's other worker runs, and which waits for a task X in the pool's
// injector. Once T's item is done, T waits in the loop; only a spare that T
// lends its slot to can run X. A loop that entered the pool as a guest
// would hold no slot, and X would never run (the 10 s timeout).
func TestNestedRangeRunsOnItsWorker(t *testing.T) {
	if !identityKnown {
		t.Skip("the pool cannot tell which member runs a goroutine here (runtime's curg.go)")
	}
	p, err := par.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	other := make(chan struct{}) // the other item has started
	xRan := make(chan struct{})
	var once sync.Once
	runX := func() { once.Do(func() { close(xRan) }) }
	done := make(chan struct{})
	p.Go(func(*runtime.Worker) {
		defer close(done)
		task := goroutineID()
		par.Range(0, 2).WithPool(p).ForEach(func(int) {
			if goroutineID() == task {
				<-other
				return
			}
			close(other)
			p.Go(func(*runtime.Worker) { runX() })
			<-xRan
		})
	})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		runX() // let the loop end, so that the pool can close
		<-done
		t.Fatal("the task's nested loop lent no spare while it waited: the injected task waited for the worker parked in it")
	}
	if s := p.Stats(); s.Spares == 0 {
		t.Errorf("Stats().Spares = 0 after a nested loop waited on a worker: %+v", s)
	}
}
