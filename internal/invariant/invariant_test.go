package invariant

import (
	"strings"
	"testing"
)

func TestFailfPanicsWithTheMessage(t *testing.T) {
	defer func() {
		r := recover()
		s, _ := r.(string)
		if !strings.Contains(s, "invariant broken") || !strings.Contains(s, "top 3 > bottom 2") {
			t.Fatalf("Failf panicked with %v", r)
		}
	}()
	Failf("top %d > bottom %d", 3, 2)
}
