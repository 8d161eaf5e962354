// Command keys measures a count over many distinct keys, the time and the
// peak resident memory of each way to write it: mix(i) % 10,000,000 over
// i in [0, 40,000,000), about 9.8M distinct keys, counted
//
//   - loop: by a plain loop into one map[uint64]int;
//   - static: by a hand-written fan-out, a map per goroutine (GOMAXPROCS of
//     them) over equal parts of the range, merged into the largest;
//   - gopar-W: by par.CountBy(par.Range(0, n), key), on a pool of W
//     workers (GOPAR_WORKERS=W), for W in -workers.
//
// Each run is a child process of its own, which reports its own peak RSS
// (VmHWM in /proc/self/status) as it ends, and the runs alternate round by
// round. A balanced probe (64 rounds of mix on each of 2^21 items, by a loop and by
// a static fan-out) runs in the same rotation: its speedup says whether
// the machine had its cores (trusted at >= 1.7x on 2).
//
//	go run ./cmd/keys                   # 3 rounds, GOMAXPROCS=2
//	go run ./cmd/keys -keys 100000      # a count that stays in per-worker maps
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
	"github.com/gopar-dev/gopar/par"
)

func main() {
	var (
		n       = flag.Int("n", 40_000_000, "items counted")
		keys    = flag.Uint64("keys", 10_000_000, "the key is mix(i) modulo this")
		rounds  = flag.Int("rounds", 3, "rounds of every implementation")
		procs   = flag.Int("procs", 2, "GOMAXPROCS of the runs")
		workers = flag.String("workers", "2,4,8", "pool sizes of gopar's runs")
		child   = flag.String("child", "", "run one implementation and print its checksum, time and peak RSS (used by the parent)")
	)
	flag.Parse()
	if *child != "" {
		runChild(*child, *n, *keys)
		return
	}
	ims := []string{"loop", "static"}
	for _, w := range strings.Split(*workers, ",") {
		ims = append(ims, "gopar-"+w)
	}
	ims = append(ims, "probe-loop", "probe-static")
	took := map[string][]time.Duration{}
	rss := map[string][]int64{}
	sums := map[string]string{}
	for range *rounds {
		for _, im := range ims {
			sum, t, kb, err := runOnce(im, *n, *keys, *procs)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if !strings.HasPrefix(im, "probe") {
				if want, ok := sums["loop"]; ok && sum != want {
					fmt.Fprintf(os.Stderr, "%s counted %s, the loop %s\n", im, sum, want)
					os.Exit(1)
				}
				sums[im] = sum
			}
			took[im] = append(took[im], t)
			rss[im] = append(rss[im], kb)
		}
	}
	probe := float64(median(took["probe-loop"])) / float64(median(took["probe-static"]))
	fmt.Printf("GOMAXPROCS %d, %d items, keys mix(i) %% %d, %d rounds; probe (static over loop) %.2fx\n\n",
		*procs, *n, *keys, *rounds, probe)
	fmt.Println("| implementation | time | against the loop | peak RSS | against the loop |")
	fmt.Println("|---|---|---|---|---|")
	lt, lr := median(took["loop"]), median(rss["loop"])
	for _, im := range ims {
		if strings.HasPrefix(im, "probe") {
			continue
		}
		t, r := median(took[im]), median(rss[im])
		fmt.Printf("| %s | %.2f s | %.2fx | %d MB | %.2fx |\n", im, t.Seconds(), float64(t)/float64(lt), r>>10, float64(r)/float64(lr))
	}
}

// runOnce runs one implementation in a child process and returns its
// checksum, time and peak RSS in kilobytes.
func runOnce(im string, n int, keys uint64, procs int) (sum string, took time.Duration, kb int64, err error) {
	cmd := exec.Command(os.Args[0], "-child", im, "-n", strconv.Itoa(n), "-keys", strconv.FormatUint(keys, 10))
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	if w, ok := strings.CutPrefix(im, "gopar-"); ok {
		cmd.Env = append(cmd.Env, "GOPAR_WORKERS="+w)
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", 0, 0, fmt.Errorf("%s: %v", im, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return "", 0, 0, fmt.Errorf("%s printed %q", im, out)
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return "", 0, 0, err
	}
	kb, err = strconv.ParseInt(f[2], 10, 64)
	return f[0], time.Duration(ns), kb, err
}

func runChild(im string, n int, keys uint64) {
	key := func(i int) uint64 { return benchmarks.Mix(uint64(i)) % keys }
	start := time.Now()
	var sum uint64
	var m map[uint64]int
	switch {
	case im == "loop":
		m = map[uint64]int{}
		for i := range n {
			m[key(i)]++
		}
	case im == "static":
		m = static(n, key)
	case strings.HasPrefix(im, "gopar-"):
		m = par.CountBy(par.Range(0, n), key)
	case im == "probe-loop":
		sum = benchmarks.LoopSum(probeItems, probeItem)
	case im == "probe-static":
		sum = benchmarks.StaticSum(probeItems, probeItem)
	default:
		fmt.Fprintln(os.Stderr, "no implementation", im)
		os.Exit(2)
	}
	took := time.Since(start)
	for k, c := range m {
		sum += benchmarks.Mix(k) * uint64(c)
	}
	fmt.Println(sum, took.Nanoseconds(), benchmarks.PeakRSS())
}

// static is the hand-written fan-out: a map per goroutine over equal parts
// of [0, n), merged into the largest.
func static(n int, key func(int) uint64) map[uint64]int {
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[uint64]int, p)
	var wg sync.WaitGroup
	for w := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := map[uint64]int{}
			for i := w * n / p; i < (w+1)*n/p; i++ {
				m[key(i)]++
			}
			maps[w] = m
		}()
	}
	wg.Wait()
	slices.SortFunc(maps, func(a, b map[uint64]int) int { return len(b) - len(a) })
	for _, o := range maps[1:] {
		for k, c := range o {
			maps[0][k] += c
		}
	}
	return maps[0]
}

// median returns the median of xs.
func median[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// probeItems items of work make the balanced probe (about 0.5 s on one
// core).
const probeItems = 1 << 21

// probeItem is an item of the probe: 64 rounds of mix, out of line, so
// that the loop and the fan-out both call it through a func value.
//
//go:noinline
func probeItem(i int) uint64 {
	x := uint64(i)
	for range 64 {
		x = benchmarks.Mix(x)
	}
	return x
}
