// Command mixed measures gopar beside plain goroutines in one process
// (issue 65's scenario): an HTTP handler, served by httptest to clients
// concurrent clients for a while, scores 20,000 candidates of about 5 us
// each per request and returns the top 10, while a background goroutine
// runs a parallel sum over 2^26 items back to back. Each side is written
// with gopar (par.Fold over par.Range; par.Sum of par.Map over par.Range)
// or by hand (a goroutine per GOMAXPROCS over equal parts and a
// sync.WaitGroup), and the mixes alternate:
//
//	hand/hand  gopar/gopar  gopar/hand  hand/gopar  gopar/none
//
// (handler/batch). For each it reports the requests served, their p50 and
// p99 latency, the batch sums done, and the cores in use (the process's
// CPU time over the wall time), medians over the rounds. A balanced probe,
// a static fan-out against a plain loop, runs in each round: its speedup
// says whether the machine had its cores (trusted at >= 1.7x on 2 cores).
//
//	go run ./cmd/mixed                          # 5 rounds of 5 s per mix
//	go run ./cmd/mixed -rounds 3 -for 2s
//	go run ./cmd/mixed -mix gopar/hand -trace mixed.trace
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

const (
	candidates = 20_000
	top        = 10
	batchItems = 1 << 26
)

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// scoreRounds of mix take about 5 us here (calibrate sets it).
var scoreRounds = 2000

// score is candidate i's score, about 5 us of CPU.
func score(i int) uint64 {
	x := uint64(i)
	for range scoreRounds {
		x = mix(x)
	}
	return x
}

// calibrate sets scoreRounds so that a score takes about 5 us.
func calibrate() {
	const n = 2000
	var sink uint64
	t0 := time.Now()
	for i := range n {
		sink += score(i)
	}
	per := time.Since(t0) / n
	if sink == 1 {
		fmt.Println() // keeps the scores computed
	}
	scoreRounds = max(1, int(int64(scoreRounds)*int64(5*time.Microsecond)/int64(per)))
}

// best is the top scores seen, highest first.
type best struct {
	n      int
	scores [top]uint64
}

func (b best) add(s uint64) best {
	if b.n == top && s <= b.scores[top-1] {
		return b
	}
	i := min(b.n, top-1)
	for i > 0 && b.scores[i-1] < s {
		b.scores[i] = b.scores[i-1]
		i--
	}
	b.scores[i] = s
	b.n = min(b.n+1, top)
	return b
}

func (b best) merge(o best) best {
	for _, s := range o.scores[:o.n] {
		b = b.add(s)
	}
	return b
}

// rank is the handler's work, with gopar or by hand.
func rank(gopar bool) best {
	if gopar {
		return par.Fold(par.Range(0, candidates),
			func() best { return best{} },
			func(b best, i int) best { return b.add(score(i)) },
			best.merge)
	}
	p := runtime.GOMAXPROCS(0)
	parts := make([]best, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b best
			for i := k * candidates / p; i < (k+1)*candidates/p; i++ {
				b = b.add(score(i))
			}
			parts[k] = b
		}()
	}
	wg.Wait()
	var b best
	for _, o := range parts {
		b = b.merge(o)
	}
	return b
}

func batchItem(i int) int { return int(mix(uint64(i)) & 0xffff) }

// batch is the background sum, with gopar or by hand.
func batch(gopar bool) int {
	if gopar {
		return par.Sum(par.Map(par.Range(0, batchItems), batchItem))
	}
	return int(benchmarks.StaticSum(batchItems, func(i int) uint64 { return uint64(batchItem(i)) }))
}

// result is one mix's figures in one round.
type result struct {
	requests int
	p50, p99 time.Duration
	batches  int
	cores    float64
}

// run runs one mix for d: the handler written as handler says, the batch
// as batchBy says ("none": no batch).
func run(handler, batchBy string, clients int, d time.Duration) result {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		b := rank(handler == "gopar")
		fmt.Fprintln(w, b.scores[0])
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var batches atomic.Int64
	var wg sync.WaitGroup
	if batchBy != "none" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				batch(batchBy == "gopar")
				batches.Add(1)
			}
		}()
	}
	var mu sync.Mutex
	var lat []time.Duration
	cpu0, t0 := cpuTime(), time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				start := time.Now()
				resp, err := http.Get(srv.URL)
				if err != nil {
					panic(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if ctx.Err() == nil {
					mu.Lock()
					lat = append(lat, time.Since(start))
					mu.Unlock()
				}
			}
		}()
	}
	<-ctx.Done()
	cores := float64(cpuTime()-cpu0) / float64(time.Since(t0))
	wg.Wait()
	slices.Sort(lat)
	r := result{requests: len(lat), batches: int(batches.Load()), cores: cores}
	if len(lat) > 0 {
		r.p50, r.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return r
}

// cpuTime is the process's CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// The probe: a chain of 32 mixes per item, by a plain loop and by a
// static fan-out (benchmarks.LoopSum, benchmarks.StaticSum).
func probeItem(i int) uint64 {
	x := uint64(i)
	for range 32 {
		x = mix(x)
	}
	return x
}

func probe() float64 {
	const n = 1 << 19
	t0 := time.Now()
	l := benchmarks.LoopSum(n, probeItem)
	tl := time.Since(t0)
	t0 = time.Now()
	if benchmarks.StaticSum(n, probeItem) != l {
		panic("mixed: the probe's sums differ")
	}
	return float64(tl) / float64(time.Since(t0))
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds of each mix")
	d := flag.Duration("for", 5*time.Second, "how long each mix runs")
	clients := flag.Int("clients", 8, "concurrent HTTP clients")
	only := flag.String("mix", "", "run only this mix (handler/batch), once, as for -trace")
	traceTo := flag.String("trace", "", "write a runtime/trace of the -mix run to this file")
	flag.Parse()
	calibrate()
	mixes := []string{"hand/hand", "gopar/gopar", "gopar/hand", "hand/gopar", "gopar/none"}
	if *only != "" {
		mixes, *rounds = []string{*only}, 1
	}
	if *traceTo != "" {
		if *only == "" {
			panic("mixed: -trace needs -mix")
		}
		f, err := os.Create(*traceTo)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			panic(err)
		}
		defer trace.Stop()
	}
	results := map[string][]result{}
	var probes []float64
	for range *rounds {
		probes = append(probes, probe())
		for _, m := range mixes {
			h, b, _ := strings.Cut(m, "/")
			results[m] = append(results[m], run(h, b, *clients, *d))
		}
	}
	fmt.Printf("GOMAXPROCS %d, %d rounds of %v, %d clients, a score %d mixes; probe (static over loop) %.2fx median\n",
		runtime.GOMAXPROCS(0), *rounds, *d, *clients, scoreRounds, medianOf(probes, func(p float64) float64 { return p }))
	fmt.Println("| handler / batch | requests | p50 | p99 | batch sums | cores in use |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, m := range mixes {
		rs := results[m]
		fmt.Printf("| %s | %.0f | %.2f s | %.2f s | %.0f | %.2f |\n", m,
			medianOf(rs, func(r result) float64 { return float64(r.requests) }),
			medianOf(rs, func(r result) float64 { return r.p50.Seconds() }),
			medianOf(rs, func(r result) float64 { return r.p99.Seconds() }),
			medianOf(rs, func(r result) float64 { return float64(r.batches) }),
			medianOf(rs, func(r result) float64 { return r.cores }))
	}
}

// medianOf is the median of f over xs.
func medianOf[X any](xs []X, f func(X) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}
