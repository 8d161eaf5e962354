// Command tour runs a few gopar pipelines and prints each result beside a
// plain loop's, with both times.
//
//	go run ./examples/tour
//
// The per-item rows call their function through a func value. A build with
// a CPU profile (profile-guided optimization) can turn that into a direct,
// inlined call; to see the tour both ways:
//
//	go run ./examples/tour -cpuprofile /tmp/tour.pgo
//	go run -pgo=/tmp/tour.pgo ./examples/tour
//
// The first line of the output says which build ran.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/bits"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// mix is the splitmix64 finalizer: a cheap, well-mixed function of i.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

func mixInt(i int) uint64 { return mix(uint64(i)) }

// skewed costs i/16 rounds of mix: the last items are the expensive ones, so
// an even split of the range would leave one core with most of the work.
func skewed(i int) uint64 {
	h := uint64(i)
	for range i / 16 {
		h = mix(h)
	}
	return h
}

// mixBlock is the hand-written loop a fan-out would run over [lo, hi).
func mixBlock(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		s += mix(uint64(i))
	}
	return s
}

// digest is the first 8 hex digits of a line's SHA-256.
func digest(line string) string {
	sum := sha256.Sum256([]byte(line))
	return hex.EncodeToString(sum[:4])
}

func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return true
}

// best runs f a few times and returns its fastest time and its result.
func best[T any](f func() T) (time.Duration, T) {
	var r T
	fastest := time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		r = f()
		fastest = min(fastest, time.Since(start))
	}
	return fastest, r
}

// roughly rounds a duration to three significant digits or so.
func roughly(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d > 10*time.Microsecond:
		return d.Round(100 * time.Nanosecond)
	}
	return d.Round(10 * time.Nanosecond)
}

// nameWidth is the width of the table's first column: the longest row name
// (the block API's) fits.
const nameWidth = 53

// A table is the tour's output: one row per pipeline, and the number of rows
// whose gopar result differed from the plain loop's.
type table struct {
	w      io.Writer
	differ int
}

func row[T comparable](t *table, name string, loop, pipeline func() T) {
	tl, rl := best(loop)
	tp, rp := best(pipeline)
	same := "same result"
	if rl != rp {
		same = fmt.Sprintf("DIFFERENT: %v vs %v", rl, rp)
		t.differ++
	}
	fmt.Fprintf(t.w, "%-*s %12v %12v %6.2fx  %s\n", nameWidth, name, roughly(tl), roughly(tp), float64(tl)/float64(tp), same)
}

// fanOutSpeedup measures how much of the machine the tour gets: the speedup
// of a hand-written fan-out (one goroutine per core over equal chunks, and
// a WaitGroup) over the plain loop, on the same cheap sum.
func fanOutSpeedup(cores int) float64 {
	const n = 1 << 22
	tl, _ := best(func() uint64 { return mixBlock(0, n) })
	tf, _ := best(func() uint64 {
		sums := make([]uint64, cores)
		var wg sync.WaitGroup
		for c := range cores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[c] = mixBlock(c*n/cores, (c+1)*n/cores)
			}()
		}
		wg.Wait()
		var s uint64
		for _, x := range sums {
			s += x
		}
		return s
	})
	return float64(tl) / float64(tf)
}

// busyNote is what the tour says when a hand-written fan-out over cores
// cores got less than 85% of the ideal speedup over the plain loop: other
// programs had the cores, and gopar's speedups in the table are low with
// it. It is "" on a quiet machine, and with one core.
func busyNote(speedup float64, cores int) string {
	if cores < 2 || speedup >= 0.85*float64(cores) {
		return ""
	}
	return fmt.Sprintf("The cores were busy: a hand-written fan-out over %d cores ran only %.2fx as fast as\n"+
		"the plain loop (the most there is: %dx), so gopar's speedups above are low too. Run the tour\n"+
		"again on a quiet machine for its real figures.", cores, speedup, cores)
}

// buildProfile names the profile this binary was built with ("" if none),
// as the go command records it.
func buildProfile() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			return s.Value
		}
	}
	return ""
}

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this `file`, to build with -pgo=file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("\nCPU profile written to %s: build with go run -pgo=%s ./examples/tour\n", *cpuprofile, *cpuprofile)
		}()
	}

	workers := par.DefaultPool().Workers()
	fmt.Printf("gopar tour: %d workers (GOMAXPROCS=%d, set GOPAR_WORKERS to change)\n", workers, goruntime.GOMAXPROCS(0))
	if p := buildProfile(); p != "" {
		fmt.Printf("built with the CPU profile %s (profile-guided optimization)\n\n", p)
	} else {
		fmt.Printf("built without a CPU profile (see the package comment for a build with one)\n\n")
	}
	cores := min(workers, goruntime.NumCPU())
	before := fanOutSpeedup(cores)
	t := &table{w: os.Stdout}
	rows(t, 0)
	if note := busyNote(min(before, fanOutSpeedup(cores)), cores); note != "" {
		fmt.Printf("\n%s\n", note)
	}
	fmt.Println()
	fmt.Println("A per-item pipeline calls f through a func value, 1-3 ns a call here, which a plain")
	fmt.Println("loop may inline away: for items that cheap, the block API runs your own loop instead.")
	fmt.Println()
	const n = 1 << 24
	var a, b uint64
	par.Join(func() { a = par.Sum(par.Map(par.Range(0, n/2), mixInt)) },
		func() { b = par.Sum(par.Map(par.Range(n/2, n), mixInt)) })
	fmt.Printf("par.Join of two halves gives the same sum: %v\n", a+b == par.Sum(par.Map(par.Range(0, n), mixInt)))
	s := par.DefaultPool().Stats()
	fmt.Printf("pool stats: %d jobs run, %d steals, %d parks, %d wake-ups\n", s.Executed, s.Steals, s.Parks, s.Wakeups)
	if t.differ > 0 {
		log.Fatalf("%d pipelines gave a result other than the plain loop's", t.differ)
	}
}

// rows prints the tour's rows to t, on inputs 2^shift times smaller than
// the tour's own (shift 0): the smoke test runs them small.
func rows(t *table, shift int) {
	fmt.Fprintf(t.w, "%-*s %12s %12s %7s\n", nameWidth, "pipeline", "plain loop", "gopar", "speedup")
	n := 1 << (24 - shift)

	row(t, "par.Range(0, n).Map(f).Sum()",
		func() int {
			s := 0
			for i := 0; i < n; i++ {
				s += bits.OnesCount64(mix(uint64(i)))
			}
			return s
		},
		func() int {
			return par.Range(0, n).Map(func(i int) int { return bits.OnesCount64(mix(uint64(i))) }).Sum()
		})

	row(t, "par.Sum(par.Map(par.Range(0, n), mix))",
		func() uint64 {
			var s uint64
			for i := 0; i < n; i++ {
				s += mixInt(i)
			}
			return s
		},
		func() uint64 { return par.Sum(par.Map(par.Range(0, n), mixInt)) })

	row(t, "block API: par.ReduceBlocks(par.Range(0, n), loop, +)",
		func() uint64 { return mixBlock(0, n) },
		func() uint64 {
			return par.ReduceBlocks(par.Range(0, n), mixBlock, func(a, b uint64) uint64 { return a + b })
		})

	m := 1 << (14 - shift)
	row(t, "uneven items: par.Map(Range, skewed).Sum",
		func() uint64 {
			var s uint64
			for i := 0; i < m; i++ {
				s += skewed(i)
			}
			return s
		},
		func() uint64 { return par.Sum(par.Map(par.Range(0, m), skewed)) })

	p := 1 << (21 - shift)
	row(t, "primes below 2^21: Filter(isPrime).Count()",
		func() int {
			c := 0
			for i := 0; i < p; i++ {
				if isPrime(i) {
					c++
				}
			}
			return c
		},
		func() int { return par.Range(0, p).Filter(isPrime).Count() })

	lines := make([]string, 1<<(15-shift))
	for i := range lines {
		lines[i] = strings.Repeat(fmt.Sprint(i), 40)
	}
	row(t, "ordered: par.Map(Slice(lines), sha256).Collect",
		func() string {
			digests := make([]string, len(lines))
			for i, l := range lines {
				digests[i] = digest(l)
			}
			return strings.Join(digests, "")
		},
		func() string {
			return strings.Join(par.Map(par.Slice(lines), digest).Collect(), "")
		})

	row(t, "small input: 1,000 items (runs inline)",
		func() uint64 {
			var s uint64
			for i := 0; i < 1000; i++ {
				s += mixInt(i)
			}
			return s
		},
		func() uint64 { return par.Sum(par.Map(par.Range(0, 1000), mixInt)) })
}
