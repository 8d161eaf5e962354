// Command keys measures a count over many distinct keys, the time and the
// peak resident memory of each way to write it: mix(i) % 10,000,000 over
// i in [0, 40,000,000), about 9.8M distinct keys, counted
//
//   - loop: by a plain loop into one map[uint64]int;
//   - static: by a hand-written fan-out, a map per goroutine (GOMAXPROCS of
//     them) over equal parts of the range, merged into the largest;
//   - gopar-W: by par.CountBy(par.Range(0, n), key), on a pool of W
//     workers (GOPAR_WORKERS=W), for W in -workers;
//   - sorted-M: by par.CountBySorted(par.Range(0, n).WithMemory(M MB), key),
//     read whole in key order, for M in -sorted (0: no budget), spilling
//     to os.TempDir().
//
// Each run is a child process of its own, which reports its own peak RSS
// (VmHWM in /proc/self/status) as it ends, and the runs alternate round by
// round. A balanced probe (64 rounds of mix on each of 2^21 items, by a loop and by
// a static fan-out) runs in the same rotation: its speedup says whether
// the machine had its cores (trusted at >= 1.7x on 2).
//
//	go run ./cmd/keys                   # 3 rounds, GOMAXPROCS=2
//	go run ./cmd/keys -keys 100000      # a count that stays in per-worker maps
//	go run ./cmd/keys -workers 2 -sorted 0,64  # the count in key order, within 64 MB
//	go run ./cmd/keys -op reduce -unordered    # ReduceByKey under Unordered
//
// With -op, the loop, the fan-out and gopar's runs do another keyed
// operation over the same keys: reduce (ReduceByKey of a 1 per item by +),
// collect (CollectMap of a 1 per item) or group (GroupBy of the items);
// with -unordered, gopar's iterator is Unordered.
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
		n         = flag.Int("n", 40_000_000, "items counted")
		keys      = flag.Uint64("keys", 10_000_000, "the key is mix(i) modulo this (0: mix(i), every key distinct)")
		rounds    = flag.Int("rounds", 3, "rounds of every implementation")
		procs     = flag.Int("procs", 2, "GOMAXPROCS of the runs")
		workers   = flag.String("workers", "2,4,8", "pool sizes of gopar's runs")
		sorted    = flag.String("sorted", "", "memory budgets in MB of CountBySorted's runs (0: none)")
		only      = flag.String("only", "", "run only these implementations, comma-separated (and the probe)")
		verify    = flag.Bool("verify", false, "check each sorted run's entries against a count by sorting the keys, after it is timed")
		op        = flag.String("op", "count", "the keyed operation: count, reduce, collect or group")
		unordered = flag.Bool("unordered", false, "gopar's runs are Unordered")
		child     = flag.String("child", "", "run one implementation and print its checksum, time and peak RSS (used by the parent)")
	)
	flag.Parse()
	if *child != "" {
		runChild(*child, *n, *keys, *verify, *op, *unordered)
		return
	}
	ims := []string{"loop", "static"}
	for _, w := range strings.Split(*workers, ",") {
		ims = append(ims, "gopar-"+w)
	}
	if *sorted != "" {
		for _, mb := range strings.Split(*sorted, ",") {
			ims = append(ims, "sorted-"+mb)
		}
	}
	if *only != "" {
		ims = strings.Split(*only, ",")
	}
	ims = append(ims, "probe-loop", "probe-static")
	took := map[string][]time.Duration{}
	rss := map[string][]int64{}
	sums := map[string]string{}
	for range *rounds {
		for _, im := range ims {
			sum, t, kb, err := runOnce(im, *n, *keys, *procs, *verify, *op, *unordered)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if !strings.HasPrefix(im, "probe") {
				if want, ok := sums[ims[0]]; ok && sum != want {
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
	keyed := fmt.Sprintf("keys mix(i) %% %d", *keys)
	if *keys == 0 {
		keyed = "keys mix(i), all distinct"
	}
	if *unordered {
		*op += ", Unordered"
	}
	fmt.Printf("GOMAXPROCS %d, %d items, %s, %s, %d rounds; probe (static over loop) %.2fx\n\n",
		*procs, *n, keyed, *op, *rounds, probe)
	fmt.Printf("| implementation | time | against %s | peak RSS | against %s |\n", ims[0], ims[0])
	fmt.Println("|---|---|---|---|---|")
	lt, lr := median(took[ims[0]]), median(rss[ims[0]])
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
func runOnce(im string, n int, keys uint64, procs int, verify bool, op string, unordered bool) (sum string, took time.Duration, kb int64, err error) {
	cmd := exec.Command(os.Args[0], "-child", im, "-n", strconv.Itoa(n), "-keys", strconv.FormatUint(keys, 10),
		"-verify="+strconv.FormatBool(verify), "-op", op, "-unordered="+strconv.FormatBool(unordered))
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

func runChild(im string, n int, keys uint64, verify bool, op string, unordered bool) {
	key := func(i int) uint64 { return benchmarks.Mix(uint64(i)) % keys }
	if keys == 0 { // every key distinct
		key = func(i int) uint64 { return benchmarks.Mix(uint64(i)) }
	}
	start := time.Now()
	var sum uint64
	var m map[uint64]int
	var groups map[uint64][]int
	switch {
	case op != "count" && (im == "loop" || im == "static" || strings.HasPrefix(im, "gopar-")):
		m, groups = runOp(im, op, n, key, unordered)
	case im == "loop":
		m = map[uint64]int{}
		for i := range n {
			m[key(i)]++
		}
	case im == "static":
		m = static(n, key)
	case strings.HasPrefix(im, "gopar-"):
		it := par.Range(0, n)
		if unordered {
			it = it.Unordered()
		}
		m = par.CountBy(it, key)
	case strings.HasPrefix(im, "sorted-"):
		mb, err := strconv.ParseInt(strings.TrimPrefix(im, "sorted-"), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad budget", im)
			os.Exit(2)
		}
		it := par.Range(0, n)
		if mb > 0 {
			it = it.WithMemory(mb << 20)
		}
		var st par.Stats
		counts := par.CountBySorted(it.WithStats(&st), key)
		var entries, ordered uint64
		for k, c := range counts.All() {
			sum += benchmarks.Mix(k) * uint64(c)
			entries, ordered = entries+1, ordered*31+benchmarks.Mix(k^uint64(c))
		}
		if err := counts.Err(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		took, rss := time.Since(start), benchmarks.PeakRSS()
		fmt.Fprintf(os.Stderr, "%s: %d entries, %d MB on disk in %d runs\n", im, entries, st.Spilled>>20, st.SpillRuns)
		if verify {
			// The same entries in the same order, counted by sorting the keys.
			all := make([]uint64, n)
			for i := range all {
				all[i] = key(i)
			}
			slices.Sort(all)
			var want, wantOrdered uint64
			for i := 0; i < len(all); {
				j := i + 1
				for j < len(all) && all[j] == all[i] {
					j++
				}
				want, wantOrdered = want+1, wantOrdered*31+benchmarks.Mix(all[i]^uint64(j-i))
				i = j
			}
			if want != entries || wantOrdered != ordered {
				fmt.Fprintf(os.Stderr, "%s: %d entries differ from the %d of a count by sorting\n", im, entries, want)
				os.Exit(1)
			}
			fmt.Fprintf(os.Stderr, "%s: the same %d entries, in the same order, as a count by sorting\n", im, want)
		}
		fmt.Println(sum, took.Nanoseconds(), rss)
		return
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
	for k, items := range groups {
		sum += benchmarks.Mix(k) * uint64(len(items))
	}
	fmt.Println(sum, took.Nanoseconds(), benchmarks.PeakRSS())
}

// runOp runs implementation im of keyed operation op (see the package doc)
// and returns its map, or its groups.
func runOp(im, op string, n int, key func(int) uint64, unordered bool) (map[uint64]int, map[uint64][]int) {
	one := func(i int) (uint64, int) { return key(i), 1 }
	add := func(a, b int) int { return a + b }
	var m map[uint64]int
	var g map[uint64][]int
	switch im {
	case "loop":
		if op == "group" {
			g = map[uint64][]int{}
		} else {
			m = map[uint64]int{}
		}
		for i := range n {
			switch k := key(i); op {
			case "reduce":
				m[k] += 1
			case "collect":
				m[k] = 1
			case "group":
				g[k] = append(g[k], i)
			}
		}
	case "static":
		m, g = staticOp(op, n, key)
	default:
		it := par.Range(0, n)
		if unordered {
			it = it.Unordered()
		}
		switch op {
		case "reduce":
			m = par.ReduceByKey(it, one, add)
		case "collect":
			m = par.CollectMap(it, one)
		case "group":
			g = par.GroupBy(it, key)
		}
	}
	return m, g
}

// staticOp is the hand-written fan-out of a keyed operation: a map per
// goroutine over equal parts of [0, n), merged into the largest.
func staticOp(op string, n int, key func(int) uint64) (map[uint64]int, map[uint64][]int) {
	if op != "group" {
		m := static(n, key)
		if op == "collect" {
			for k := range m {
				m[k] = 1
			}
		}
		return m, nil
	}
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[uint64][]int, p)
	var wg sync.WaitGroup
	for w := range p {
		wg.Go(func() {
			m := map[uint64][]int{}
			for i := w * n / p; i < (w+1)*n/p; i++ {
				k := key(i)
				m[k] = append(m[k], i)
			}
			maps[w] = m
		})
	}
	wg.Wait()
	for _, o := range maps[1:] {
		for k, items := range o {
			maps[0][k] = append(maps[0][k], items...)
		}
	}
	return nil, maps[0]
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
