//go:build gopar_debug

package partition

import (
	"strings"
	"testing"
)

func mustPanicWith(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		s, _ := recover().(string)
		if !strings.Contains(s, want) {
			t.Fatalf("panicked with %q, want a message containing %q", s, want)
		}
	}()
	f()
}

// With gopar_debug, a Loop notices an item handed out twice and a loop
// that ends with an item never handed out.
func TestDebugCatchesDoubleAndMissingClaims(t *testing.T) {
	l := NewLoop(10, 20, 2)
	l.markClaimed(10, 12)
	mustPanicWith(t, "item 11 claimed twice", func() { l.markClaimed(11, 13) })
	mustPanicWith(t, "item 12 was never claimed", func() { l.checkAllClaimed() })
}
