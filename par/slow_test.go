package par_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/labels"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// TestWithSlowCallsWhileItRuns: an operation held until its hook has been
// called calls it once, while it runs, under its caller's pprof labels,
// for a loop on the pool, a Blocking one, a FromSeq one and a stream whose
// consumer is the one held.
func TestWithSlowCallsWhileItRuns(t *testing.T) {
	forms := map[string]func(hook, held func()){
		"Range.ForEach": func(hook, held func()) {
			par.Range(0, 64).WithSlow(time.Millisecond, hook).ForEach(func(i int) {
				if i == 0 {
					held()
				}
			})
		},
		"Blocking": func(hook, held func()) {
			par.Range(0, 64).WithSlow(time.Millisecond, hook).Blocking(4).ForEach(func(i int) {
				if i == 0 {
					held()
				}
			})
		},
		"FromSeq.ForEach": func(hook, held func()) {
			par.FromSeq(slices.Values(make([]int, 64))).WithSlow(time.Millisecond, hook).ForEach(func(i int) {
				if i == 0 {
					held()
				}
			})
		},
		"Values": func(hook, held func()) {
			for i := range par.Range(0, 64).WithSlow(time.Millisecond, hook).Values() {
				if i == 0 {
					held()
				}
			}
		},
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			called := make(chan struct{})
			var set, in labels.Set
			hook := func() {
				in = labels.Current()
				if calls.Add(1) == 1 {
					close(called)
				}
			}
			pprof.Do(context.Background(), pprof.Labels("req", name), func(context.Context) {
				set = labels.Current()
				form(hook, func() { <-called })
			})
			if n := calls.Load(); n != 1 {
				t.Fatalf("the hook ran %d times, want once", n)
			}
			if labels.Carried && in != set {
				t.Errorf("the hook ran without its caller's labels")
			}
		})
	}
}

// TestWithSlowNotCalledWhenQuick: an operation that returns before the
// time never calls its hook, and a nil hook is none.
func TestWithSlowNotCalledWhenQuick(t *testing.T) {
	var calls atomic.Int32
	for range 100 {
		par.Range(0, 1000).WithSlow(time.Hour, func() { calls.Add(1) }).Map(func(i int) int { return i }).Sum()
		par.Range(0, 10).WithSlow(time.Nanosecond, nil).ForEach(func(int) {})
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the hook ran %d times", n)
	}
}

// TestWithSlowWaitsForTheHook: the operation returns only once the hook
// has returned (what it wrote is there, with no other synchronisation:
// the race detector sees the order), and passes on its panic, or its
// runtime.Goexit.
func TestWithSlowWaitsForTheHook(t *testing.T) {
	started := make(chan struct{})
	wrote := 0
	par.Range(0, 8).WithSlow(time.Millisecond, func() {
		close(started)
		for i := range 1000 {
			wrote += i % 2 // a while after the loop has let go
		}
	}).ForEach(func(i int) {
		if i == 0 {
			<-started
		}
	})
	if wrote != 500 {
		t.Errorf("after the operation, the hook had written %d of 500", wrote)
	}

	t.Run("panic", func(t *testing.T) {
		var p *runtime.Panic
		v := hookPanics(false)
		if err, ok := v.(error); !ok || !errors.As(err, &p) || p.Value != "slow hook" {
			t.Errorf("recovered %v, want a *runtime.Panic of the hook's", v)
		}
	})
	t.Run("Goexit", func(t *testing.T) {
		done, returned := make(chan struct{}), false
		go func() {
			defer close(done)
			started := make(chan struct{})
			for range par.Range(0, 8).WithSlow(time.Millisecond, func() {
				close(started)
				goruntime.Goexit()
			}).Values() {
				<-started
			}
			returned = true
		}()
		<-done
		if returned {
			t.Errorf("the range returned after the hook called runtime.Goexit")
		}
	})
	t.Run("after the operation's panic", func(t *testing.T) {
		if v := fmt.Sprint(hookPanics(true)); !strings.Contains(v, "the loop's") {
			t.Errorf("recovered %v, want the loop's panic", v)
		}
	})
}

// hookPanics runs a loop whose slow hook panics once the loop is past its
// budget, and returns what the loop panicked with; with loopToo, the loop
// panics too, once the hook has started.
func hookPanics(loopToo bool) (v any) {
	defer func() { v = recover() }()
	started := make(chan struct{})
	par.Range(0, 8).WithSlow(time.Millisecond, func() {
		close(started)
		panic("slow hook")
	}).ForEach(func(i int) {
		if i == 0 {
			<-started
			if loopToo {
				panic("the loop's")
			}
		}
	})
	return "the operation returned"
}

// TestWithSlowRefusesABadDuration: a duration that is not positive panics
// with a message that names it.
func TestWithSlowRefusesABadDuration(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		func() {
			defer func() {
				if v := fmt.Sprint(recover()); !strings.Contains(v, "WithSlow") || !strings.Contains(v, d.String()) {
					t.Errorf("WithSlow(%v): recovered %q", d, v)
				}
			}()
			par.Range(0, 1).WithSlow(d, func() {})
		}()
	}
}

// ExampleIter_WithSlow logs an operation that runs past its budget, while
// it runs: the hook is the place to snapshot a runtime/trace.FlightRecorder
// (see examples/observe).
func ExampleIter_WithSlow() {
	slow := make(chan struct{})
	total := par.Range(0, 100).WithSlow(10*time.Millisecond, func() {
		fmt.Println("the sum runs past 10ms")
		close(slow)
	}).Map(func(i int) int {
		if i == 0 {
			<-slow // an item that waits, as one stuck on I/O would
		}
		return i
	}).Sum()
	fmt.Println(total)
	// Output:
	// the sum runs past 10ms
	// 4950
}
