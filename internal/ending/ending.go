// Package ending tells tests how a function ended: it returned, panicked, or
// called runtime.Goexit (t.Fatal in a callback). The tests of runtime and par
// use it to check that gopar hands a Goexit back as the sequential program
// would, and never hangs.
package ending

import (
	"fmt"
	"testing"
	"time"
)

// HangLimit is how long Of waits before it calls a function hung.
const HangLimit = 30 * time.Second

// An Ending is how a function ended on a goroutine of its own.
type Ending struct {
	Goexited bool
	Panicked any
}

func (e Ending) String() string {
	switch {
	case e.Panicked != nil:
		return fmt.Sprintf("panicked with %v", e.Panicked)
	case e.Goexited:
		return "called runtime.Goexit"
	}
	return "returned"
}

// Of runs f on a goroutine of its own and reports how it ended; a function
// that has not ended after HangLimit fails the test.
func Of(t testing.TB, f func()) Ending {
	t.Helper()
	ch := make(chan Ending, 1)
	go func() {
		returned := false
		defer func() {
			v := recover()
			ch <- Ending{Goexited: v == nil && !returned, Panicked: v}
		}()
		f()
		returned = true
	}()
	select {
	case e := <-ch:
		return e
	case <-time.After(HangLimit):
		t.Fatalf("still running after %v: hung", HangLimit)
		return Ending{}
	}
}
