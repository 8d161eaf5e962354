//go:build go1.25

package runtime

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestInBubble: inBubble tells a goroutine of a testing/synctest bubble
// from one outside, on both sides, also for goroutines the bubble starts.
func TestInBubble(t *testing.T) {
	if inBubble() {
		t.Fatal("inBubble is true outside any bubble")
	}
	synctest.Test(t, func(t *testing.T) {
		if !inBubble() {
			t.Error("inBubble is false in the bubble's root goroutine")
		}
		done := make(chan bool)
		go func() { done <- inBubble() }()
		if !<-done {
			t.Error("inBubble is false in a goroutine the bubble started")
		}
	})
}

// TestPoolMadeInABubble: a pool made inside a bubble runs its operations
// on the calling goroutine, inside the bubble and outside it once the
// bubble has ended: it has no worker goroutine, channel or timer that
// could tie it to the bubble.
func TestPoolMadeInABubble(t *testing.T) {
	var p *Pool
	synctest.Test(t, func(t *testing.T) {
		var err error
		if p, err = New(2); err != nil {
			t.Fatal(err)
		}
		var got int
		p.Do(func(w *Worker) { got = fib(w, 15) })
		start := time.Now()
		p.JoinLazy(func() { time.Sleep(time.Second) }, func() { time.Sleep(time.Second) })
		if got != 610 || time.Since(start) != 2*time.Second {
			t.Errorf("fib(15) = %d; Join of two sleeps of 1s took %v of fake time, want 2s", got, time.Since(start))
		}
		ran := make(chan int)
		p.Go(func(w *Worker) { ran <- fib(w, 10) })
		if v := <-ran; v != 55 {
			t.Errorf("Go: fib(10) = %d", v)
		}
	})
	var got int
	p.Do(func(w *Worker) { got = fib(w, 20) })
	p.Scope(func(s Scope) { s.Spawn(func(s Scope) { got++ }) })
	if got != 6766 {
		t.Fatalf("fib(20)+1 = %d after the bubble", got)
	}
	if s := p.Stats(); s.Executed != 0 {
		t.Fatalf("%d jobs ran on workers of a pool made in a bubble", s.Executed)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHeartbeatAfterABubble: a goroutine of a bubble that publishes on a
// pool made outside does not wake its heartbeat, whose timer it would arm,
// and whose tick it would time, by the bubble's fake clock: the heartbeat
// would then never tick again, and nothing published afterwards would
// ripen for a parked or retired worker.
func TestHeartbeatAfterABubble(t *testing.T) {
	p := newPool(t, 2)
	waitHeartbeatAsleep(t, p)
	synctest.Test(t, func(t *testing.T) {
		f := func() {}
		for range 100 {
			if pr := promote(p, f); !pr.Reclaim() {
				pr.Wait()
			}
		}
	})
	ran := make(chan struct{})
	pr := promote(p, func() { close(ran) })
	if !pr.Published() {
		t.Fatal("not published")
	}
	select {
	case <-ran:
	case <-time.After(failAfter):
		t.Fatalf("a promoted func did not ripen for the pool's idle workers within %v", failAfter)
	}
	if pr.Reclaim() {
		t.Fatal("Reclaim took back a func that ran")
	}
	pr.Wait()
}

// TestScopeWaitInABubble: a Scope inside a bubble runs on the calling
// goroutine (a nil Worker) and waits for a task that another goroutine
// spawned and that sleeps: the wait blocks, so that fake time advances, and
// the task ends. A wait that yielded in a loop would keep fake time from
// advancing, and the scope from ending.
func TestScopeWaitInABubble(t *testing.T) {
	p := newPool(t, 2)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ran := false
		p.Scope(func(s Scope) {
			entered := make(chan struct{})
			go s.Spawn(func(Scope) {
				close(entered)
				time.Sleep(time.Second)
				ran = true
			})
			<-entered
		})
		if !ran || time.Since(start) != time.Second {
			t.Errorf("the task ran: %v; fake time advanced %v, want 1s", ran, time.Since(start))
		}
	})
}
