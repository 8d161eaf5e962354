package pipe

import (
	"testing"
	"time"
)

// TestRunFor: a participant whose yields keep it waiting as long as a
// goroutine that never yields holds a processor runs as long as it waited
// before it yields again; waits as short as gopar's own operations make
// leave it at yieldQuantum. A wait of a whole time slice switches it at
// once; a wait of a few milliseconds among short ones does not, and short
// ones switch it back.
func TestRunFor(t *testing.T) {
	var h poolHand
	if got := h.runFor(); got != yieldQuantum {
		t.Fatalf("no yield yet: runs %v between yields, want %v", got, yieldQuantum)
	}
	avg := func(waits ...time.Duration) time.Duration {
		var q time.Duration
		for _, w := range waits {
			q = (3*q + w) / 4
		}
		return q
	}
	for _, c := range []struct {
		waits []time.Duration
		want  time.Duration
	}{
		{[]time.Duration{100 * time.Microsecond, 300 * time.Microsecond}, yieldQuantum},
		{[]time.Duration{100 * time.Microsecond, 3 * time.Millisecond}, yieldQuantum},
		{[]time.Duration{100 * time.Microsecond, 10 * time.Millisecond}, 2 * avg(100*time.Microsecond, 10*time.Millisecond)},
		{[]time.Duration{10 * time.Millisecond, 100 * time.Microsecond, 100 * time.Microsecond, 100 * time.Microsecond}, yieldQuantum},
		{[]time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}, 2 * avg(10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond)},
	} {
		h.quantum = avg(c.waits...)
		if got := h.runFor(); got != c.want {
			t.Errorf("waits %v: runs %v between yields, want %v", c.waits, got, c.want)
		}
	}
	// yield keeps the average, and leaves it for the next participant.
	h.quantum = 0
	h.start = time.Now()
	h.yield(time.Since(h.start))
	if h.quantum < 0 || time.Duration(yieldWait.Load()) != h.quantum {
		t.Errorf("after a yield: average wait %v, yieldWait %v", h.quantum, time.Duration(yieldWait.Load()))
	}
}
