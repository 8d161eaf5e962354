// Command requests measures the request scenario of issue 48: one
// goroutine runs the sum of mix over 2^24 items back to back (a batch job)
// while 4 request goroutines each run the sum over 2^15 items, sleep 1 ms,
// and repeat, for a fixed time. It reports the small operations' p50, p90
// and p99 latency and both throughputs (operations completed in the run),
// for gopar (par.Sum(par.Map(par.Range(0, n), mix))) and for the
// hand-written fan-outs a server writes for each operation: a goroutine
// per core and a WaitGroup (static), errgroup and conc given the same
// chunks. The forms alternate round by round (gopar static errgroup conc
// gopar ...), and a balanced probe before each round, a plain loop against
// the static fan-out over 2^22 items, says whether the machine had its
// cores (trusted at >= 1.7x, at GOMAXPROCS=2).
//
//	go run ./cmd/requests                     # 2 rounds of 3 s, GOMAXPROCS=2
//	go run ./cmd/requests -d 1s -rounds 3
//	go run ./cmd/requests -timeline ../docs/requests-timeline.svg
//
// With -timeline, it runs gopar's form alone for 200 ms and draws the
// schedule of the last 20 ms of it (every operation's blocks, on the lanes
// of the goroutines that ran them) as an SVG picture, instead of measuring.
//
// The bars (issue 48): gopar's p99 within 1.5x static's, and gopar's
// small and large operations completed at least 0.9x static's, in the
// same run; the report prints each with PASS or MISS, and the same ratios
// against errgroup and conc.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
)

func main() {
	var (
		d       = flag.Duration("d", 3*time.Second, "length of one form's run")
		rounds  = flag.Int("rounds", 2, "rounds of every form")
		procs   = flag.Int("procs", 2, "GOMAXPROCS of the runs")
		callers = flag.Int("callers", benchmarks.DefaultRequests.Callers, "request goroutines")
		forms   = flag.String("forms", "gopar,static,errgroup,conc", "forms to run, in order")
		svg     = flag.String("timeline", "", "draw gopar's schedule of the scenario into this SVG file, and measure nothing")
	)
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	sizes := benchmarks.DefaultRequests
	sizes.Callers = *callers
	if *svg != "" {
		const warm, window = 180 * time.Millisecond, 20 * time.Millisecond
		if err := drawTimeline(*svg, sizes, warm, window); err != nil {
			fmt.Fprintln(os.Stderr, "requests:", err)
			os.Exit(1)
		}
		return
	}
	var run []benchmarks.SumForm
	for _, name := range strings.Split(*forms, ",") {
		i := slices.IndexFunc(benchmarks.SumForms, func(f benchmarks.SumForm) bool { return f.Name == name })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "requests: no form %q\n", name)
			os.Exit(2)
		}
		run = append(run, benchmarks.SumForms[i])
	}
	fmt.Printf("GOMAXPROCS=%d, %d callers of %d items (pause %v) beside one loop of %d items, %v per run\n",
		*procs, sizes.Callers, sizes.Small, sizes.Pause, sizes.Large, *d)
	got := map[string][]benchmarks.RequestRun{}
	var probes []float64
	for r := range *rounds {
		probes = append(probes, probe())
		for _, f := range run {
			res := benchmarks.RunRequests(f, sizes, *d)
			got[f.Name] = append(got[f.Name], res)
			fmt.Printf("round %d %-9s p50 %9v  p90 %9v  p99 %9v  small %6d  large %5d\n",
				r+1, f.Name, round(res.Pct(50)), round(res.Pct(90)), round(res.Pct(99)), res.Small(), res.Large)
		}
	}
	report(run, got, probes)
}

// probe is the balanced probe's speedup: the plain loop's time over the
// static fan-out's, best of three each, alternated.
func probe() float64 {
	const n = 1 << 22
	var seq, static time.Duration
	for range 3 {
		t0 := time.Now()
		benchmarks.SeqSum(n)
		t1 := time.Now()
		benchmarks.SumForms[1].Sum(n)
		t2 := time.Now()
		if s := t1.Sub(t0); seq == 0 || s < seq {
			seq = s
		}
		if s := t2.Sub(t1); static == 0 || s < static {
			static = s
		}
	}
	return float64(seq) / float64(static)
}

// report prints, per form, the median over the rounds of each figure, and
// gopar's bars against every hand-written form.
func report(run []benchmarks.SumForm, got map[string][]benchmarks.RequestRun, probes []float64) {
	type fig struct{ p50, p90, p99, small, large float64 }
	med := map[string]fig{}
	fmt.Printf("\nmedian over the rounds:\n%-9s %10s %10s %10s %8s %7s\n", "form", "p50", "p90", "p99", "small", "large")
	for _, f := range run {
		rs := got[f.Name]
		m := fig{
			p50:   median(rs, func(r benchmarks.RequestRun) float64 { return float64(r.Pct(50)) }),
			p90:   median(rs, func(r benchmarks.RequestRun) float64 { return float64(r.Pct(90)) }),
			p99:   median(rs, func(r benchmarks.RequestRun) float64 { return float64(r.Pct(99)) }),
			small: median(rs, func(r benchmarks.RequestRun) float64 { return float64(r.Small()) }),
			large: median(rs, func(r benchmarks.RequestRun) float64 { return float64(r.Large) }),
		}
		med[f.Name] = m
		fmt.Printf("%-9s %10v %10v %10v %8.0f %7.0f\n", f.Name, round(time.Duration(m.p50)), round(time.Duration(m.p90)), round(time.Duration(m.p99)), m.small, m.large)
	}
	trust := "trusted"
	if slices.Min(probes) < 1.7 {
		trust = "UNTRUSTED (the static fan-out got under 1.7x over the loop in a round: the machine lacked a core)"
	}
	fmt.Printf("probe: static over seq %.2fx..%.2fx: %s\n", slices.Min(probes), slices.Max(probes), trust)
	g, ok := med["gopar"]
	if !ok {
		return
	}
	for _, f := range run {
		if f.Name == "gopar" {
			continue
		}
		b := med[f.Name]
		bar("p99 %s / %s <= 1.5", f.Name, g.p99/b.p99, g.p99/b.p99 <= 1.5)
		bar("small ops %s / %s >= 0.9", f.Name, g.small/b.small, g.small/b.small >= 0.9)
		bar("large ops %s / %s >= 0.9", f.Name, g.large/b.large, g.large/b.large >= 0.9)
	}
}

func bar(format, against string, ratio float64, pass bool) {
	verdict := "MISS"
	if pass {
		verdict = "PASS"
	}
	fmt.Printf("  %-34s %6.2f  %s\n", fmt.Sprintf(format, "gopar", against), ratio, verdict)
}

func median(rs []benchmarks.RequestRun, v func(benchmarks.RequestRun) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = v(r)
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func round(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
