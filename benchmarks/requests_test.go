package benchmarks

import (
	"runtime"
	"testing"
	"time"
)

// TestSumForms: every form of the request scenario and of cmd/procs
// returns the plain loop's sum, at one GOMAXPROCS and another, and on
// sizes that do not split evenly.
func TestSumForms(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, p := range []int{1, 3} {
		runtime.GOMAXPROCS(p)
		for _, n := range []int{1, 7, 1000, 1<<15 + 3} {
			want := SeqSum(n)
			for _, f := range SumForms {
				if got := f.Sum(n); got != want {
					t.Errorf("GOMAXPROCS %d, %s over %d items: %#x, want %#x", p, f.Name, n, got, want)
				}
			}
		}
	}
}

// TestRequestRunPct: the percentiles of a run's sorted latencies.
func TestRequestRunPct(t *testing.T) {
	var r RequestRun
	if r.Pct(99) != 0 || r.Small() != 0 {
		t.Fatal("an empty run has a percentile or operations")
	}
	for i := range 100 {
		r.Latency = append(r.Latency, time.Duration(i+1))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0, 1}, {50, 51}, {90, 91}, {99, 100}, {100, 100}} {
		if got := r.Pct(c.p); got != c.want {
			t.Errorf("Pct(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}
