package runtime

import (
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/ending"
)

// hangLimit is how long a test waits before it calls an operation hung.
const hangLimit = ending.HangLimit

// endOf runs f on a goroutine of its own and reports how it ended.
func endOf(t *testing.T, f func()) ending.Ending { return ending.Of(t, f) }

// mustGoexit checks that f ends its goroutine with runtime.Goexit.
func mustGoexit(t *testing.T, what string, f func()) {
	t.Helper()
	if e := endOf(t, f); !e.Goexited {
		t.Errorf("%s: %v, want runtime.Goexit", what, e)
	}
}

// mustPanicValue checks that f panics with a *Panic of value want.
func mustPanicValue(t *testing.T, what string, want any, f func()) {
	t.Helper()
	e := endOf(t, f)
	p, ok := e.Panicked.(*Panic)
	if !ok || p.Value != want {
		t.Errorf("%s: %v, want a *Panic of %v", what, e, want)
	}
}

// checkWhole checks that every worker of p is running: one task per
// worker, each waiting until all have started, must all start.
func checkWhole(t *testing.T, p *Pool) {
	t.Helper()
	n := p.Workers()
	var started atomic.Int32
	all := make(chan struct{})
	done := make(chan struct{}, n)
	for range n {
		p.Go(func(*Worker) {
			if started.Add(1) == int32(n) {
				close(all)
			}
			select {
			case <-all:
			case <-time.After(hangLimit):
			}
			done <- struct{}{}
		})
	}
	select {
	case <-all:
	case <-time.After(hangLimit):
		t.Fatalf("only %d of %d workers ran at once: the pool lost workers", started.Load(), n)
	}
	for range n {
		<-done
	}
}

func TestGoexitOnWorkerIsReplaced(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		p, _ := New(workers)
		for range workers {
			ran := make(chan struct{})
			p.Go(func(*Worker) {
				close(ran)
				goruntime.Goexit()
			})
			<-ran
		}
		checkWhole(t, p)
		p.Close() // waits for the replacements
		if got := p.Stats().Replaced; got != uint64(workers) {
			t.Errorf("%d workers: Stats().Replaced = %d, want %d", workers, got, workers)
		}
	}
}

// TestGoexitInJoin: Goexit in a or in b, on the caller or on a thief, ends
// the joining goroutine with Goexit once both calls are done; b runs even
// when a called Goexit; a panic in the other call wins.
func TestGoexitInJoin(t *testing.T) {
	p, _ := New(2)
	defer p.Close()
	forms := map[string]func(a, b func()){
		"Worker.Join": func(a, b func()) {
			p.Do(func(w *Worker) { w.Join(func(*Worker) { a() }, func(*Worker) { b() }) })
		},
		"nil Worker.Join": func(a, b func()) {
			var w *Worker
			w.Join(func(*Worker) { a() }, func(*Worker) { b() })
		},
		"JoinLazy": func(a, b func()) { p.JoinLazy(a, b) },
		"JoinFunc": func(a, b func()) {
			p.Do(func(w *Worker) {
				JoinFunc(w, func(_ *Worker, f func()) int { f(); return 0 }, a, b)
			})
		},
		"nil JoinFunc": func(a, b func()) {
			JoinFunc(nil, func(_ *Worker, f func()) int { f(); return 0 }, a, b)
		},
		"Scope": func(a, b func()) {
			p.Scope(func(s Scope) {
				s.Spawn(func(Scope) { b() })
				a()
			})
		},
	}
	for name, join := range forms {
		for round := range 50 {
			// a gives a thief time to take b (up to a millisecond), so
			// that b runs on another goroutine in many rounds.
			var bStarted atomic.Bool
			mustGoexit(t, name+": Goexit in a stolen b", func() {
				join(func() { waitFor(&bStarted, time.Millisecond) }, func() {
					bStarted.Store(true)
					goruntime.Goexit()
				})
			})
			bStarted.Store(false)
			mustPanicValue(t, name+": panic in a beats Goexit in a stolen b", "a", func() {
				join(func() { waitFor(&bStarted, time.Millisecond); panic("a") }, func() {
					bStarted.Store(true)
					goruntime.Goexit()
				})
			})
			var bRan atomic.Bool
			mustGoexit(t, name+": Goexit in a", func() {
				join(func() { goruntime.Goexit() }, func() { bRan.Store(true) })
			})
			if !bRan.Load() {
				t.Errorf("%s round %d: b did not run after a's Goexit", name, round)
			}
			mustGoexit(t, name+": Goexit in b", func() {
				join(func() {}, func() { goruntime.Goexit() })
			})
			mustPanicValue(t, name+": panic in b beats Goexit in a", "b", func() {
				join(func() { goruntime.Goexit() }, func() { panic("b") })
			})
			mustPanicValue(t, name+": panic in a beats Goexit in b", "a", func() {
				join(func() { panic("a") }, func() { goruntime.Goexit() })
			})
		}
	}
	checkWhole(t, p)
}

// TestGoexitWhileWaiting: a Goexit in a job that a joining goroutine runs
// while it waits for its stolen b still leaves the join waiting for b.
func TestGoexitInNestedJoins(t *testing.T) {
	p, _ := New(4)
	defer p.Close()
	var fib func(w *Worker, n int) int
	var left atomic.Int32
	fib = func(w *Worker, n int) int {
		if n < 2 {
			if left.Add(-1) == 0 {
				goruntime.Goexit()
			}
			return n
		}
		x, y := JoinFunc(w, fib, n-1, n-2)
		return x + y
	}
	for k := range int32(60) {
		left.Store(1 + k*7)
		var running atomic.Int32
		mustGoexit(t, "JoinFunc tree", func() {
			p.Do(func(w *Worker) {
				running.Add(1)
				defer running.Add(-1)
				fib(w, 16)
			})
		})
		if running.Load() != 0 {
			t.Fatalf("Do returned with work running")
		}
	}
	checkWhole(t, p)
}

// waitFor returns once flag is set, or after limit.
func waitFor(flag *atomic.Bool, limit time.Duration) {
	for start := time.Now(); !flag.Load() && time.Since(start) < limit; {
		goruntime.Gosched()
	}
}

// TestPanicNilIsAPanicUnderPanicnil: under GODEBUG=panicnil=1, recover
// returns nil for panic(nil), as for runtime.Goexit. A task's panic(nil)
// must still reach the caller as a panic (a *Panic whose Value is nil), not
// end the caller's goroutine as a Goexit, and Catch must not report it as a
// normal return.
func TestPanicNilIsAPanicUnderPanicnil(t *testing.T) {
	t.Setenv("GODEBUG", "panicnil=1")
	p := newPool(t, 2)
	panicNil := func(*Worker) { panic(nil) }
	cases := map[string]func(){
		"Join's a":    func() { p.Join(panicNil, func(*Worker) {}) },
		"Join's b":    func() { p.Join(func(*Worker) {}, panicNil) },
		"Join on nil": func() { (*Worker)(nil).Join(panicNil, func(*Worker) {}) },
		"JoinFunc":    func() { p.Do(func(w *Worker) { JoinFunc(w, func(w *Worker, x int) int { panic(nil) }, 1, 2) }) },
		"Scope":       func() { p.Do(func(w *Worker) { w.Scope(func(s Scope) { s.Spawn(func(Scope) { panic(nil) }) }) }) },
		"JoinLazy":    func() { p.JoinLazy(func() { panic(nil) }, func() {}) },
		"Catch":       func() { raise(catch(func() { panic(nil) })) },
	}
	for name, call := range cases {
		got := make(chan any, 1)
		go func() {
			returned := false
			defer func() {
				if !returned {
					got <- recover() // nil under Goexit
				}
			}()
			call()
			returned = true
			got <- "returned"
		}()
		switch v := (<-got).(type) {
		case *Panic:
			if v.Value != nil || v.IsGoexit() {
				t.Errorf("%s: panic(nil) reached the caller as %v, want a *Panic of nil", name, v.Value)
			}
		case nil:
			t.Errorf("%s: panic(nil) ended the caller's goroutine as runtime.Goexit", name)
		default:
			t.Errorf("%s: panic(nil) reached the caller as %v, want a *Panic of nil", name, v)
		}
	}
}
