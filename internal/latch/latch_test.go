package latch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
)

// TestModel: a latch is unset until Set, set until Reset, and Park on a set
// latch does not block.
func TestModel(t *testing.T) {
	var l Latch
	if l.IsSet() {
		t.Fatal("the zero Latch is set")
	}
	l.Set()
	l.Set()
	if !l.IsSet() {
		t.Fatal("Set did not set the latch")
	}
	l.Reset()
	if l.IsSet() {
		t.Fatal("Reset left the latch set")
	}
	wake := make(chan struct{}, 1)
	l.Watch(&wake)
	l.Set()
	if len(wake) != 1 {
		t.Fatal("Set sent no token to the watching participant")
	}
	l.Set()
	l.Unwatch()
	<-wake
	l.Set()
	if len(wake) != 0 {
		t.Fatal("Set sent a token after Unwatch")
	}
}

// TestNoLostWakeup: a waiter that parks while another goroutine sets the
// latch always wakes, whichever comes first; every round ends, or the test
// times out. The setter's write before Set is seen after Park (under -race).
func TestNoLostWakeup(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rounds := 100000
	if long.Enabled() {
		rounds = 200000
	}
	wake := make(chan struct{}, 1)
	for range rounds {
		var l Latch
		var data int
		var start atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			data = 1
			for !start.Load() {
			}
			l.Set()
		}()
		start.Store(true) // the two meet at once: Set races the park
		for !l.IsSet() {
			park(&l, wake)
		}
		if data != 1 {
			t.Fatal("the setter's write is not seen after the latch is set")
		}
		wg.Wait()
		select {
		case <-wake: // a token the round's Set left after its wait had seen set
		default:
		}
	}
}

// park is how runtime's participants park on a latch (Watch).
func park(l *Latch, wake chan struct{}) {
	l.Watch(&wake)
	if !l.IsSet() {
		<-wake
	}
	l.Unwatch()
}

// FuzzLatch runs a sequence of Set, Reset, Watch, Unwatch and IsSet
// against the model: whether the latch is set, and whether a token waits on
// the watching participant's channel.
func FuzzLatch(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var l Latch
		set, watched, token := false, false, false
		wake := make(chan struct{}, 1)
		for _, op := range ops {
			switch op % 5 {
			case 0:
				l.Set()
				set, token = true, token || watched
			case 1:
				l.Reset()
				set, watched = false, false
			case 2:
				l.Watch(&wake)
				watched = true
			case 3:
				l.Unwatch()
				watched = false
			case 4:
				if l.IsSet() != set {
					t.Fatalf("IsSet = %v, want %v", l.IsSet(), set)
				}
			}
			if got := len(wake) == 1; got != token {
				t.Fatalf("after op %d: a token waits = %v, want %v", op%5, got, token)
			}
		}
	})
}
