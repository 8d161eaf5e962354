// Command neighbour measures how gopar's slow streams treat an unrelated
// operation in the same process: one goroutine runs
// par.Range(0, 1<<25).Map(f).Sum() alone, then beside two slow streams,
// written with gopar or by hand, and reports the sum's median time in each
// case (issue 64's scenario):
//
//   - a range loop over par.Map(par.FromSeq(strings.Lines(text)), strings.ToUpper).Values()
//     whose body sleeps 50 us per line (a network write), and
//   - par.FromChan(ch).ForEach(g) over a channel that a producer feeds every
//     100 us;
//
// by hand: the same range loop over the lines mapped on the consumer's
// goroutine, and one goroutine draining the channel. The streams use almost
// no CPU, so a good neighbour leaves the sum its time.
//
// The cases alternate (alone, hand, gopar, alone, ...), and a balanced probe,
// a static fan-out of GOMAXPROCS goroutines against a plain loop over the
// same items, runs alone in each round: its speedup says whether the machine
// had its cores (trusted at >= 1.7x on 2 cores).
//
//	go run ./cmd/neighbour               # 5 rounds, the default pool
//	go run ./cmd/neighbour -rounds 9
package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

const n = 1 << 25

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

func f(i int) int { return int(mix(uint64(i)) & 0xffff) }

// sum is the operation under test.
func sum() int { return par.Sum(par.Map(par.Range(0, n), f)) }

// loop is the sum on one goroutine, which checks the others' results.
func loop() int {
	s := 0
	for i := range n {
		s += f(i)
	}
	return s
}

// The probe: probeItems items of a chain of 32 mixes each, by a plain
// loop and by a static fan-out of one goroutine per GOMAXPROCS
// (benchmarks.LoopSum, benchmarks.StaticSum).
const probeItems = 1 << 19

func probeItem(i int) uint64 {
	x := uint64(i)
	for range 32 {
		x = mix(x)
	}
	return x
}

func probeLoop() int { return int(benchmarks.LoopSum(probeItems, probeItem)) }

func probeStatic() int { return int(benchmarks.StaticSum(probeItems, probeItem)) }

// streams starts the two slow streams, with gopar or by hand, and returns
// a function that stops them and waits until they have.
func streams(gopar bool) (stop func()) {
	text := strings.Repeat("a line of a log file, sent on over the network\n", 1<<20)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // the lines, mapped, each written out for 50 us
		defer wg.Done()
		write := func(string) bool {
			time.Sleep(50 * time.Microsecond)
			select {
			case <-quit:
				return false
			default:
				return true
			}
		}
		if gopar {
			for l := range par.Map(par.FromSeq(strings.Lines(text)), strings.ToUpper).Values() {
				if !write(l) {
					return
				}
			}
			return
		}
		for l := range strings.Lines(text) {
			if !write(strings.ToUpper(l)) {
				return
			}
		}
	}()
	ch := make(chan int)
	go func() { // the channel's producer: an item every 100 us
		defer wg.Done()
		defer close(ch)
		for i := 0; ; i++ {
			time.Sleep(100 * time.Microsecond)
			select {
			case ch <- i:
			case <-quit:
				return
			}
		}
	}()
	var got int
	g := func(v int) { got += v & 1 }
	go func() {
		defer wg.Done()
		if gopar {
			var mu sync.Mutex
			par.FromChan(ch).ForEach(func(v int) { mu.Lock(); g(v); mu.Unlock() })
			return
		}
		for v := range ch {
			g(v)
		}
	}()
	return func() { close(quit); wg.Wait() }
}

func timed(run func() int) (time.Duration, int) {
	t0 := time.Now()
	v := run()
	return time.Since(t0), v
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds of each case")
	flag.Parse()
	want := loop()
	cases := []string{"alone", "hand", "gopar"}
	times := map[string][]time.Duration{}
	var probes []float64
	for range *rounds {
		tl, _ := timed(probeLoop)
		ts, _ := timed(probeStatic)
		probes = append(probes, float64(tl)/float64(ts))
		for _, c := range cases {
			var stop func()
			if c != "alone" {
				stop = streams(c == "gopar")
				time.Sleep(20 * time.Millisecond) // the streams under way
			}
			d, v := timed(sum)
			if v != want {
				panic(fmt.Sprintf("%s: sum %d, want %d", c, v, want))
			}
			times[c] = append(times[c], d)
			if stop != nil {
				stop()
			}
		}
	}
	fmt.Printf("GOMAXPROCS %d, %d rounds; probe (static over loop): %.2fx median\n",
		runtime.GOMAXPROCS(0), *rounds, probeMedian(probes))
	alone := median(times["alone"])
	for _, c := range cases {
		m := median(times[c])
		fmt.Printf("sum %-6s median %8.1f ms  %.2fx alone  (runs %v)\n", c, ms(m), float64(m)/float64(alone), fmtAll(times[c]))
	}
	fmt.Printf("gopar beside / hand beside: %.2fx\n", float64(median(times["gopar"]))/float64(median(times["hand"])))
}

func probeMedian(p []float64) float64 { s := slices.Clone(p); slices.Sort(s); return s[len(s)/2] }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func fmtAll(d []time.Duration) string {
	var b strings.Builder
	for i, x := range d {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%.0f", ms(x))
	}
	return b.String()
}
