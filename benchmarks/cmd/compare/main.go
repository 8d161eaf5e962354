// Command compare times the implementations of the workloads side by side
// (benchmarks/README.md defines them) and checks the ratios set as their
// targets.
//
// For each workload it runs every implementation once to warm up and to compare
// checksums (a mismatch stops the command with exit status 1), then runs them in
// turn, A B C A B C ..., for -rounds rounds. A measurement repeats the workload
// until -min has passed and keeps the time of one run; the command reports the
// median over the rounds. It prints one Markdown table: per workload and
// implementation the median time, the speedup over seq, and, on the gopar rows,
// each target's ratio with PASS or MISS.
//
// The shared machines this runs on sometimes lose a core for a second or more.
// So the command also reports, from the same run, the static fan-out's speedup
// over seq for each workload, and marks the run UNTRUSTED where it is below 1.7.
// Where static cannot scale by design (uneven or tiny work, or nothing to split),
// a balanced probe (benchmarks.Probe) runs in the same rotation and stands in.
//
// With -procs set to a list, the command runs the whole rotation once per
// GOMAXPROCS value, each in a child process of its own (gopar's default pool is
// sized once per process), and reports how each implementation's speedup over
// seq grows with the workers. With -out it also writes SVG charts beside the
// report (see chart.go): the speedup of every implementation per workload,
// and, for a sweep, speedup against workers.
//
// Usage, from the benchmarks folder:
//
//	go run ./cmd/compare                       # all workloads, 5 rounds
//	go run ./cmd/compare -w W1,W3 -rounds 9
//	go run ./cmd/compare -w toolkit -rounds 3    # T1..T7, issue 9's figures
//	go run ./cmd/compare -w keyed                # K1..K3, the keyed operations
//	go run ./cmd/compare -out ../docs/benchmarks.md
//	go run ./cmd/compare -procs 1,2,4,8,16 -quick -out ../docs/benchmarks.md
//	go run ./cmd/compare -redraw ../docs/benchmarks.md   # the chart only, from the table
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
)

// trustSpeedup is the least speedup of static over seq on a balanced workload
// that shows the run had all its cores: 1.7 at GOMAXPROCS=2 (benchmarks/README.md),
// the same 85% of the ideal at any other value.
func trustSpeedup() float64 { return 0.85 * float64(runtime.GOMAXPROCS(0)) }

func main() {
	ids := flag.String("w", "", "comma-separated workloads to run, such as W1,W3 or T2; W10 names its four counts (W10-2, W10-4, W10-P, W10-2P); toolkit names T1..T7, streams S1..S5, keyed K1..K3 (default: W0..W11)")
	rounds := flag.Int("rounds", 5, "rounds of alternated runs; the median is reported")
	out := flag.String("out", "", "also write the Markdown report to this file")
	procList := flag.String("procs", "", "GOMAXPROCS value, or a comma-separated list such as 1,2,4 for a sweep (default: leave it)")
	minTime := flag.Duration("min", 150*time.Millisecond, "least time of one measurement; short workloads repeat until it has passed")
	quick := flag.Bool("quick", false, "no warm-up round, and 2 rounds of at least 50ms each unless -rounds or -min say otherwise: for sweeps")
	skip := flag.String("skip", "", "comma-separated implementations to leave out, such as goroutine,errgroup")
	jsonOut := flag.String("json", "", "write the medians as JSON to this file (how a sweep's child processes report)")
	redrawFrom := flag.String("redraw", "", "run nothing: draw the speedup chart again from this report's table, beside it")
	flag.Parse()
	if *redrawFrom != "" {
		redraw(*redrawFrom)
		return
	}
	if *quick {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["rounds"] {
			*rounds = 2
		}
		if !set["min"] {
			*minTime = 50 * time.Millisecond
		}
	}
	if *rounds < 1 {
		fatalf("-rounds must be at least 1")
	}
	procs := parseProcs(*procList)
	if len(procs) > 1 {
		sweep(procs, *out)
		return
	}
	if len(procs) == 1 {
		runtime.GOMAXPROCS(procs[0])
	}

	workloads, err := selectWorkloads(*ids)
	if err != nil {
		fatalf("%v", err)
	}

	skipped := strings.Split(*skip, ",")
	var results []result
	for _, w := range workloads {
		w = without(w, skipped)
		fmt.Fprintf(os.Stderr, "%s %s: %d implementations, %d rounds\n", w.ID, w.Name, len(w.Impls), *rounds)
		results = append(results, measure(w, *rounds, *minTime, !*quick))
	}
	if *jsonOut != "" {
		writeJSON(*jsonOut, results)
	}

	report := render(results, *rounds, *minTime)
	if *out != "" {
		report += chartSection(*out, []run{{runtime.GOMAXPROCS(0), results}})
	}
	fmt.Print(report)
	if *out != "" {
		writeReport(*out, report)
	}
}

// notesMarker starts the hand-written part of a report file: writeReport keeps
// it, and everything after it, when it replaces the generated part.
const notesMarker = "<!-- notes: written by hand, kept by cmd/compare -->"

// writeReport writes the Markdown report to path, followed by the notes of
// the file it replaces, if it has any.
func writeReport(path, report string) {
	if old, err := os.ReadFile(path); err == nil {
		if _, notes, ok := strings.Cut(string(old), notesMarker); ok {
			report += "\n" + notesMarker + notes
		}
	}
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", path)
}

// without returns w without the named implementations (seq always stays).
func without(w *benchmarks.Workload, names []string) *benchmarks.Workload {
	c := *w
	c.Impls = slices.DeleteFunc(slices.Clone(w.Impls), func(im benchmarks.Impl) bool {
		return im.Name != "seq" && slices.Contains(names, im.Name)
	})
	return &c
}

// A result is what one workload's run measured.
type result struct {
	w      *benchmarks.Workload
	median map[string]time.Duration // by implementation name
	// probe holds the medians of the probe's seq and static, where the
	// workload is not balanced and the probe ran beside it.
	probe map[string]time.Duration
	// allocs holds the allocations per item of each implementation, where
	// the workload counts its items (Workload.Items).
	allocs map[string]float64
}

// measure runs the implementations of w (and the probe's, where w is not
// balanced) alternated for the given rounds and returns their medians. Without
// a warm-up round, the first timed round checks the checksums.
func measure(w *benchmarks.Workload, rounds int, minTime time.Duration, warmUp bool) result {
	type entry struct {
		name  string // as shown in progress and errors
		impl  benchmarks.Impl
		probe bool
		times []time.Duration
	}
	var entries []*entry
	for _, im := range w.Impls {
		entries = append(entries, &entry{name: im.Name, impl: im})
	}
	if !w.Balanced {
		for _, im := range benchmarks.Probe.Impls {
			entries = append(entries, &entry{name: "probe-" + im.Name, impl: im, probe: true})
		}
	}

	// Warm up, and check that the implementations agree.
	want := map[bool]uint64{}
	for _, e := range entries {
		if !warmUp {
			break
		}
		got := e.impl.Run()
		if e.impl.Name == "seq" {
			want[e.probe] = got
		}
		if got != want[e.probe] {
			fatalf("CHECKSUM MISMATCH in %s: %s returned %#x, seq %#x", w.ID, e.name, got, want[e.probe])
		}
	}

	for r := 0; r < rounds; r++ {
		for _, e := range entries {
			d, got := timeOne(e.impl.Run, minTime)
			if !warmUp && r == 0 && e.impl.Name == "seq" {
				want[e.probe] = got
			}
			if got != want[e.probe] {
				fatalf("CHECKSUM MISMATCH in %s round %d: %s returned %#x, seq %#x", w.ID, r+1, e.name, got, want[e.probe])
			}
			e.times = append(e.times, d)
		}
	}

	res := result{w: w, median: map[string]time.Duration{}, probe: map[string]time.Duration{}}
	if w.Items > 0 {
		res.allocs = map[string]float64{}
		for _, e := range entries {
			if !e.probe {
				res.allocs[e.impl.Name] = allocsPerItem(e.impl.Run, w.Items)
			}
		}
	}
	for _, e := range entries {
		m := median(e.times)
		if e.probe {
			res.probe[e.impl.Name] = m
		} else {
			res.median[e.impl.Name] = m
		}
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", e.name, formatDuration(m))
	}
	return res
}

// timeOne runs f until at least minTime has passed, at least once, and returns
// the time of one run and f's result. It collects garbage first so that one
// implementation's garbage is not collected on the next one's time.
func timeOne(f func() uint64, minTime time.Duration) (time.Duration, uint64) {
	runtime.GC()
	var sum uint64
	runs := 0
	start := time.Now()
	for {
		sum = f()
		runs++
		if el := time.Since(start); el >= minTime {
			return el / time.Duration(runs), sum
		}
	}
}

// allocsPerItem runs f once and returns the heap allocations it made per
// item (the whole program's, so a quiet moment's: nothing else runs here).
func allocsPerItem(f func() uint64, items int) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(items)
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// render returns the Markdown report: header, results table, trust check.
func render(results []result, rounds int, minTime time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# gopar benchmarks\n\n")
	fmt.Fprintf(&b, "Generated by `go run ./cmd/compare` in `benchmarks/`; workloads, baselines and targets are defined in benchmarks/README.md.\n\n")
	fmt.Fprintf(&b, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- CPU: %s (%d logical CPUs)\n", cpuModel(), runtime.NumCPU())
	fmt.Fprintf(&b, "- Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- GOMAXPROCS: %d\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "- method: the implementations of a workload run alternated (A B C A B C ...) for %d rounds "+
		"(after one warm-up round, unless -quick); a measurement repeats a run until %v has passed; each cell is the median over the rounds. "+
		"All implementations of a workload returned the same checksum.\n", rounds, minTime)
	fmt.Fprintf(&b, "- trust: a parallel figure counts only if, in the same run, the static fan-out gets >= %.2fx over seq "+
		"(on the workload itself where it is balanced, otherwise on a balanced probe run in the same rotation).\n", trustSpeedup())
	if runtime.NumCPU() <= 2 {
		fmt.Fprintf(&b, "- machine: a shared 2-core VM whose second core sometimes vanishes for a second or more; "+
			"absolute times drift between runs, ratios within one run hold.\n")
	}
	fmt.Fprintf(&b, "- reading the gopar rows: gopar-item calls the item through a func value (floor: static-fn); "+
		"gopar-block runs the same inlined loop as seq, static, dynamic and the peers (floor: static; dynamic on the uneven loops, where gopar-item's is dynamic-fn). "+
		"On cheap items a func call per item costs 1-3 ns here, so a per-item form cannot reach 1.9x over an inlined seq; "+
		"the targets that compare with inlined baselines are checked on gopar-block. "+
		"gopar-join forks with par.Join (inline while no participant is idle), gopar-worker passes the worker down (runtime.Worker.Join), "+
		"gopar-joinfunc forks with runtime.JoinFunc, which shares a fork only while a worker is idle; gopar-parjoinfunc with par.JoinFunc, which needs no worker and runs inline while none is idle. "+
		"seq-fn is the plain loop calling the item through a func value: an honest static-fn takes at most its time divided by the workers. "+
		"conc-map-item and conc-foreach-item are conc's per-item forms (iter.Map, iter.ForEachIdx), which need a result slice of one word per item (left out of W2). "+
		"rayon-split is not a gopar API: Rayon's recursive halving with thief splitting, rebuilt on gopar's pool for comparison (docs/steal-fraction.md).\n\n")

	trust, untrusted := trustTable(results)
	if len(untrusted) > 0 {
		fmt.Fprintf(&b, "**UNTRUSTED run**: static got less than %.2fx over seq on %s; rerun before reading the parallel figures.\n\n",
			trustSpeedup(), strings.Join(untrusted, ", "))
	} else {
		fmt.Fprintf(&b, "Trusted run: static got >= %.2fx over seq on every workload.\n\n", trustSpeedup())
	}

	rows := [][]string{{"workload", "implementation", "median", "speedup vs seq", "targets"}}
	pass, miss := 0, 0
	for _, r := range results {
		seq := r.median["seq"]
		first := true
		for _, name := range rowNames(r.w) {
			label := ""
			if first {
				label = r.w.ID + " " + r.w.Name
				first = false
			}
			d, ok := r.median[name]
			if !ok {
				why := "missing"
				if name == "goroutine" {
					why = "infeasible at this size"
				}
				rows = append(rows, []string{label, name, "-", "-", why})
				continue
			}
			var checks []string
			for _, t := range r.w.Targets {
				if t.Impl != name {
					continue
				}
				text, ok := check(r, t)
				if ok {
					pass++
				} else {
					miss++
				}
				checks = append(checks, text)
			}
			if a, ok := r.allocs[name]; ok {
				checks = append(checks, fmt.Sprintf("%.2f allocs/item", a))
			}
			rows = append(rows, []string{label, name, formatDuration(d),
				fmt.Sprintf("%.2f", float64(seq)/float64(d)), strings.Join(checks, "; ")})
		}
	}
	writeTable(&b, rows, 2, 3)
	fmt.Fprintf(&b, "\nTargets: %d PASS, %d MISS.\n\n", pass, miss)

	fmt.Fprintf(&b, "## Trust check: static fan-out vs seq, same run\n\n")
	writeTable(&b, trust, 1, 3)
	return b.String()
}

// rowNames returns the rows to show for w: its implementations, with a row for
// one goroutine per item where that is infeasible, and one for each
// implementation a target names that the workload lacks.
func rowNames(w *benchmarks.Workload) []string {
	var names []string
	for _, im := range w.Impls {
		names = append(names, im.Name)
	}
	if _, ok := w.Impl("goroutine"); !ok {
		// Show it after dynamic, where the other workloads have it.
		at := slices.Index(names, "dynamic") + 1
		if at > 0 {
			names = slices.Insert(names, at, "goroutine")
		}
	}
	for _, t := range w.Targets {
		if !slices.Contains(names, t.Impl) {
			names = append(names, t.Impl)
		}
	}
	return names
}

// check evaluates target t on r and returns its text and whether it passed. A
// target whose implementation did not run counts as a miss.
func check(r result, t benchmarks.Target) (string, bool) {
	against, base := t.Against, time.Duration(0)
	if t.Against == benchmarks.BestPeer {
		for _, p := range benchmarks.Peers {
			if d, ok := r.median[p]; ok && (base == 0 || d < base) {
				against, base = p, d
			}
		}
		against = "best peer (" + against + ")"
	} else {
		base = r.median[t.Against]
	}
	d := r.median[t.Impl]
	if d == 0 || base == 0 {
		return fmt.Sprintf("vs %s: n/a MISS", against), false
	}
	if t.Speedup {
		s := float64(base) / float64(d)
		ok := s >= t.Limit
		return fmt.Sprintf("speedup vs %s %.2f (>= %.2f) %s", against, s, t.Limit, verdict(ok)), ok
	}
	q := float64(d) / float64(base)
	ok := q <= t.Limit
	if t.Against == benchmarks.BestPeer {
		ok = q < t.Limit
		return fmt.Sprintf("vs %s %.3fx (< %.2fx) %s", against, q, t.Limit, verdict(ok)), ok
	}
	return fmt.Sprintf("vs %s %.2fx (<= %.2fx) %s", against, q, t.Limit, verdict(ok)), ok
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// trustTable returns the trust check's rows and the workloads that failed it.
func trustTable(results []result) ([][]string, []string) {
	rows := [][]string{{"workload", "static speedup", "checked on", "check speedup", "verdict"}}
	var untrusted []string
	for _, r := range results {
		own := "-"
		if s, ok := r.median["static"]; ok {
			own = fmt.Sprintf("%.2f", float64(r.median["seq"])/float64(s))
		}
		var on string
		var sp float64
		if r.w.Balanced {
			on = "the workload"
			sp = float64(r.median["seq"]) / float64(r.median["static"])
		} else {
			on = "probe (" + benchmarks.Probe.What + ")"
			sp = float64(r.probe["seq"]) / float64(r.probe["static"])
		}
		v := "ok"
		if sp < trustSpeedup() {
			v = "UNTRUSTED"
			untrusted = append(untrusted, fmt.Sprintf("%s (%.2f)", r.w.ID, sp))
		}
		rows = append(rows, []string{r.w.ID + " " + r.w.Name, own, on, fmt.Sprintf("%.2f", sp), v})
	}
	return rows, untrusted
}

// writeTable writes rows as a Markdown table, the first row the header, with
// the columns padded so that it also reads well as plain text. The columns
// numbered in right (from 0) hold numbers and align right.
func writeTable(b *strings.Builder, rows [][]string, right ...int) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			width[c] = max(width[c], len(cell))
		}
	}
	line := func(row []string) {
		b.WriteString("|")
		for c, cell := range row {
			if slices.Contains(right, c) {
				fmt.Fprintf(b, " %*s |", width[c], cell)
			} else {
				fmt.Fprintf(b, " %-*s |", width[c], cell)
			}
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|")
	for c := range width {
		if slices.Contains(right, c) {
			b.WriteString(strings.Repeat("-", width[c]+1) + ":|")
		} else {
			b.WriteString(strings.Repeat("-", width[c]+2) + "|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows[1:] {
		line(row)
	}
}

// formatDuration prints d with three significant digits, or more above 100.
func formatDuration(d time.Duration) string {
	v, unit := float64(d)/1e3, "us"
	switch {
	case d >= time.Second:
		v, unit = d.Seconds(), "s"
	case d >= time.Millisecond:
		v, unit = float64(d)/1e6, "ms"
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		return fmt.Sprintf("%.2f %s", v, unit)
	}
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "compare: "+format+"\n", args...)
	os.Exit(1)
}

// selectWorkloads reads -w: comma-separated workload ids, matched without
// regard to case ("w3", "probe", "P4i"), plus the names toolkit, streams,
// keyed and W10. An
// empty list selects benchmarks.All.
func selectWorkloads(ids string) ([]*benchmarks.Workload, error) {
	if ids == "" {
		return benchmarks.All, nil
	}
	var workloads []*benchmarks.Workload
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		switch {
		case strings.EqualFold(id, "toolkit"):
			workloads = append(workloads, benchmarks.Toolkit...)
		case strings.EqualFold(id, "streams"):
			workloads = append(workloads, benchmarks.Streams...)
		case strings.EqualFold(id, "keyed"):
			workloads = append(workloads, benchmarks.Keyed...)
		case strings.EqualFold(id, "W10"):
			// W10 is one workload at four counts of items.
			workloads = append(workloads, benchmarks.W10x2, benchmarks.W10x4, benchmarks.W10xP, benchmarks.W10x2P)
		default:
			w := benchmarks.Lookup(id)
			if w == nil {
				return nil, fmt.Errorf("no workload %q", id)
			}
			workloads = append(workloads, w)
		}
	}
	return workloads, nil
}
