package benchmarks

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// The request scenario (cmd/requests) and the GOMAXPROCS steps
// (cmd/procs): the sum of mix(i) over [0, n), as a server's request
// handler and a batch job run it at once, on one pool or one Go scheduler.

// A SumForm is one way to compute the sum of mixInt(i) over [0, n): each
// call is one operation, made from whichever goroutine needs it.
type SumForm struct {
	Name string
	Sum  func(n int) uint64
}

// SumForms are gopar and the fan-outs a Go server writes by hand for one
// operation: a goroutine per core and a WaitGroup (static), and errgroup
// and conc given the same P chunks. Every form calls the item through a
// func value, as gopar's per-item form does.
var SumForms = []SumForm{
	{"gopar", func(n int) uint64 { return GoparSum(n, nil) }},
	{"static", func(n int) uint64 { return staticFn(n, mixInt) }},
	{"errgroup", func(n int) uint64 { return withErrgroup(n, perCore(n), mixItemBlock) }},
	{"conc", func(n int) uint64 { return withConc(n, perCore(n), mixItemBlock) }},
}

// GoparSum is SumForms' gopar form, recording its schedule into t where t
// is not nil (cmd/requests -timeline).
func GoparSum(n int, t *par.Timeline) uint64 {
	return par.Sum(par.Map(par.Range(0, n).WithTimeline(t), mixInt))
}

// SeqSum is the plain loop over the same items, the trust check's floor.
func SeqSum(n int) uint64 { return seqFn(n, mixInt) }

// perCore is the chunk that splits n items in GOMAXPROCS chunks.
func perCore(n int) int {
	p := runtime.GOMAXPROCS(0)
	return (n + p - 1) / p
}

// mixItemBlock is itemBlock over mixInt, the item through a func value.
func mixItemBlock(lo, hi int) uint64 { return itemBlockFn(mixInt, lo, hi) }

// itemBlockFn is itemBlock kept out of line, so that the compiler cannot
// see which function item is: inlined into mixItemBlock, the call of mixInt
// would become a direct one and be inlined, a faster loop than every other
// form's.
//
//go:noinline
func itemBlockFn(item func(int) uint64, lo, hi int) uint64 { return itemBlock(item, lo, hi) }

// RequestSizes is the scenario's shape: one goroutine runs operations of
// Large items back to back while Callers goroutines each run one of Small
// items, sleep Pause, and repeat.
type RequestSizes struct {
	Large, Small, Callers int
	Pause                 time.Duration
}

// DefaultRequests is the scenario of issue 48: 2^24 items back to back, and
// 4 callers of 2^15 items with a 1 ms pause.
var DefaultRequests = RequestSizes{Large: 1 << 24, Small: 1 << 15, Callers: 4, Pause: time.Millisecond}

// RequestRun is what one run of the scenario measured.
type RequestRun struct {
	// Latency holds every small operation's time, sorted.
	Latency []time.Duration
	// Large counts the large operations that ended within the run.
	Large int
}

// Small is the number of small operations that ended within the run.
func (r RequestRun) Small() int { return len(r.Latency) }

// Pct is the p-th percentile (0 to 100) of the small operations' times.
func (r RequestRun) Pct(p float64) time.Duration {
	if len(r.Latency) == 0 {
		return 0
	}
	i := min(int(p/100*float64(len(r.Latency))), len(r.Latency)-1)
	return r.Latency[i]
}

// RunRequests runs the scenario with f for d and returns what it measured.
// Every operation's sum is checked against the plain loop's, and a wrong
// one panics. It returns once every goroutine of the run has ended.
func RunRequests(f SumForm, s RequestSizes, d time.Duration) RequestRun {
	wantLarge, wantSmall := SeqSum(s.Large), SeqSum(s.Small)
	check := func(n int, got, want uint64) {
		if got != want {
			panic(fmt.Sprintf("%s: sum over %d items = %d, want %d", f.Name, n, got, want))
		}
	}
	end := time.Now().Add(d)
	var run RequestRun
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Go(func() {
		for time.Now().Before(end) {
			check(s.Large, f.Sum(s.Large), wantLarge)
			if time.Now().Before(end) {
				run.Large++
			}
		}
	})
	for range s.Callers {
		wg.Go(func() {
			var lat []time.Duration
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				check(s.Small, f.Sum(s.Small), wantSmall)
				if t1 := time.Now(); t1.Before(end) {
					lat = append(lat, t1.Sub(t0))
				}
				time.Sleep(s.Pause)
			}
			mu.Lock()
			run.Latency = append(run.Latency, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(run.Latency)
	return run
}
