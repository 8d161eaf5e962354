package runtime

import (
	goruntime "runtime"
	"slices"
	"testing"
)

// TestStealsGrowWithSpanNotWork checks the work-stealing bound on steals,
// O(P * T_inf): for fib(n) the span T_inf grows linearly with n while the
// work grows as 1.618^n. Over n = 18..28 the work grows 120-fold; the
// median number of steals must grow far less (linear growth would be about
// 1.6-fold; the test allows 20).
func TestStealsGrowWithSpanNotWork(t *testing.T) {
	if raceScale > 1 || testing.Short() {
		t.Skip("timing-sensitive; skipped under -race and -short")
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
	p := newPool(t, 4)
	steals := func(n int) uint64 {
		var runs []uint64
		for range 5 {
			before := p.Stats().Steals
			p.Do(func(w *Worker) { fib(w, n) })
			runs = append(runs, p.Stats().Steals-before)
		}
		slices.Sort(runs)
		return runs[len(runs)/2]
	}
	small, large := steals(18), steals(28)
	t.Logf("median steals: fib(18) %d, fib(28) %d (work ratio %.0f)", small, large, float64(seqFib(28))/float64(seqFib(18)))
	if small == 0 {
		small = 1
	}
	if ratio := float64(large) / float64(small); ratio > 20 {
		t.Fatalf("steals grew %.1f-fold from fib(18) to fib(28): closer to the work than to the span", ratio)
	}
}
