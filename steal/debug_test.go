//go:build gopar_debug

package steal

import (
	"strings"
	"testing"
)

// With gopar_debug, a second goroutine in an owner operation is caught. The
// test plays the first goroutine by holding the owner count itself.
func TestDebugCatchesASecondOwner(t *testing.T) {
	var d Deque[int]
	d.owners.Add(1)
	defer func() {
		s, _ := recover().(string)
		if !strings.Contains(s, "owner-only operations were called concurrently") {
			t.Fatalf("Push beside another owner panicked with %q", s)
		}
	}()
	d.Push(new(int))
}

// A sweep above top would erase live items; the check refuses it.
func TestDebugCatchesASweepAboveTop(t *testing.T) {
	var d Deque[int]
	d.Push(new(int))
	defer func() {
		s, _ := recover().(string)
		if !strings.Contains(s, "above top") {
			t.Fatalf("sweep above top panicked with %q", s)
		}
	}()
	d.clearStolen(d.buf.Load(), 1)
}
