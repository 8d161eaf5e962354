package runtime

import (
	goruntime "runtime"
	"slices"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
)

// TestStealsGrowWithSpanNotWork checks the work-stealing bound on steals,
// O(P * T_inf): for fib(n) the span T_inf grows linearly with n while the
// work grows as 1.618^n (fib(28) has 120 times the joins of fib(18)). The
// median number of steals for each n in 18..28 must stay under a line in
// P * n; steals that followed the work would cross it by n = 28.
func TestStealsGrowWithSpanNotWork(t *testing.T) {
	if race.Scale > 1 || testing.Short() {
		t.Skip("timing-sensitive; skipped under -race and -short")
	}
	const workers = 4
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(workers))
	for _, form := range fibForms {
		p := newPool(t, workers)
		steals := func(n int) uint64 {
			var runs []uint64
			for range 5 {
				before := p.Stats().Steals
				p.Do(func(w *Worker) { form.fib(w, n) })
				runs = append(runs, p.Stats().Steals-before)
			}
			slices.Sort(runs)
			return runs[len(runs)/2]
		}
		var series []uint64
		for n := 18; n <= 28; n += 2 {
			s := steals(n)
			series = append(series, s)
			joins := seqFib(n+1) - 1
			if bound := uint64(16 * workers * n); s > bound {
				t.Errorf("%s fib(%d): %d steals for %d joins, above the span bound 16*P*n = %d", form.name, n, s, joins, bound)
			}
		}
		t.Logf("%s: median steals for fib(18), fib(20), ..., fib(28) on %d workers: %v", form.name, workers, series)
	}
}
