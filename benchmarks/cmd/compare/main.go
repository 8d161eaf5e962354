// Command compare times the implementations of the workloads side by side
// (benchmarks/README.md defines them) and checks the ratios set as their
// targets.
//
// For each workload it runs every implementation once to warm up and to compare
// checksums (a mismatch stops the command with exit status 1), then runs them in
// turn, A B C A B C ..., for -rounds rounds. A measurement repeats the workload
// until -min has passed and keeps the time of one run; the command reports the
// median over the rounds. It prints a results table with a row per target:
// gopar's figure as a ratio to the baseline's median, the bar, PASS or MISS,
// the workload's trust check, and the command that measures it again.
//
// The shared machines this runs on sometimes lose a core for a second or more.
// So the command also takes, from the same run, the static fan-out's speedup
// over seq for each workload, and marks the workload UNTRUSTED where it is
// below 85% of the ideal (1.7 at GOMAXPROCS=2). Where static cannot scale by
// design (uneven or tiny work, or nothing to split), a balanced probe
// (benchmarks.Probe) runs in the same rotation and stands in.
//
// With -out the report goes to a file too, docs/benchmarks.md for one: the
// file keeps its hand-written head, up to the line headMarker (report.go), and
// the command replaces the rest. Beside the file it writes SVG charts (see
// chart.go), the speedup of every implementation per workload, and the
// medians of every implementation as JSON, from which -redraw draws the
// charts again without running anything.
//
// With -procs set to a list, the command runs the whole rotation once per
// GOMAXPROCS value, each in a child process of its own (gopar's default pool is
// sized once per process), and reports how each implementation's speedup over
// seq grows with the workers, with a chart of speedup against workers.
//
// Usage, from the benchmarks folder:
//
//	go run ./cmd/compare                         # W0..W11, 5 rounds
//	go run ./cmd/compare -w W1,W3 -rounds 9
//	go run ./cmd/compare -w toolkit -rounds 3    # T1..T7 and P3..P7
//	go run ./cmd/compare -w keyed                # K1..K3, the keyed operations
//	go run ./cmd/compare -w all -out ../docs/benchmarks.md   # the results page
//	go run ./cmd/compare -procs 1,2,4,8,16 -quick -out ../docs/benchmarks-16core.md
//	go run ./cmd/compare -redraw ../docs/benchmarks.md   # the chart only, from the medians
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
	ids := flag.String("w", "", "comma-separated workloads to run, such as W1,W3 or T2; W10 names its four counts (W10-2, W10-4, W10-P, W10-2P); toolkit names T1..T7 and P3..P7, streams S1..S7, keyed K1..K3, all every workload (default: W0..W11)")
	rounds := flag.Int("rounds", 5, "rounds of alternated runs; the median is reported")
	out := flag.String("out", "", "also write the report to this Markdown file, after its hand-written head")
	procList := flag.String("procs", "", "GOMAXPROCS value, or a comma-separated list such as 1,2,4 for a sweep (default: leave it)")
	minTime := flag.Duration("min", 150*time.Millisecond, "least time of one measurement; short workloads repeat until it has passed")
	quick := flag.Bool("quick", false, "no warm-up round, and 2 rounds of at least 50ms each unless -rounds or -min say otherwise: for sweeps")
	skip := flag.String("skip", "", "comma-separated implementations to leave out, such as goroutine,errgroup")
	jsonOut := flag.String("json", "", "write the medians as JSON to this file (how a sweep's child processes report)")
	redrawFrom := flag.String("redraw", "", "run nothing: draw the speedup chart beside this report again, from the medians written beside it")
	flag.Parse()
	if *redrawFrom != "" {
		if err := redraw(*redrawFrom); err != nil {
			fatalf("%v", err)
		}
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
	if *out != "" {
		if err := checkOut(*out); err != nil {
			fatalf("%v", err)
		}
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
	r := run{runtime.GOMAXPROCS(0), results}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, r); err != nil {
			fatalf("%v", err)
		}
	}

	report := render(results, thisRun(*rounds, *minTime, !*quick, commandLine(), rowFlags()))
	if *out != "" {
		if report, err = withFiles(report, *out, r); err != nil {
			fatalf("%v", err)
		}
	}
	fmt.Print("# " + pageTitle + "\n\n" + report)
	if *out != "" {
		if err := writeReport(*out, pageTitle, report); err != nil {
			fatalf("%v", err)
		}
	}
}

// pageTitle is the title of a report, and of a new report file.
const pageTitle = "gopar benchmarks"

// commandLine returns the command as run: "go run ./cmd/compare" and the
// flags that were set, -w first and -out last.
func commandLine() string {
	order := []string{"w", "procs", "rounds", "min", "quick", "skip", "out"}
	var set []*flag.Flag
	flag.Visit(func(f *flag.Flag) {
		if f.Name != "json" {
			set = append(set, f)
		}
	})
	slices.SortStableFunc(set, func(a, b *flag.Flag) int {
		rank := func(f *flag.Flag) int {
			if i := slices.Index(order, f.Name); i >= 0 {
				return i
			}
			return len(order) - 1 // any other flag before -out
		}
		return rank(a) - rank(b)
	})
	parts := []string{"go run ./cmd/compare"}
	for _, f := range set {
		parts = append(parts, flagText(f))
	}
	return strings.Join(parts, " ")
}

// rowFlags returns the flags that a row's command repeats: those that
// change how a workload is measured.
func rowFlags() []string {
	var fs []string
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "quick", "rounds", "min", "procs", "skip":
			fs = append(fs, flagText(f))
		}
	})
	return fs
}

// flagText prints a flag as a command line gives it: -quick, -rounds 3,
// -skip 'a b' (quoted for a shell where it has to be).
func flagText(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.Value.String() == "true" {
		return "-" + f.Name
	}
	v := f.Value.String()
	if v == "" || strings.ContainsAny(v, " \t'\"$`\\|&;<>()*?[]{}!#~") {
		v = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return "-" + f.Name + " " + v
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

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "compare: "+format+"\n", args...)
	os.Exit(1)
}

// selectWorkloads reads -w: comma-separated workload ids, matched without
// regard to case ("w3", "probe", "P4i"), plus the names toolkit, streams,
// keyed, recursion, W10 and all. An empty list selects benchmarks.All (W0..W11).
func selectWorkloads(ids string) ([]*benchmarks.Workload, error) {
	if ids == "" {
		return benchmarks.All, nil
	}
	var workloads []*benchmarks.Workload
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		switch {
		case strings.EqualFold(id, "all"):
			workloads = append(workloads, allWorkloads()...)
		case strings.EqualFold(id, "toolkit"):
			workloads = append(workloads, benchmarks.Toolkit...)
		case strings.EqualFold(id, "streams"):
			workloads = append(workloads, streams()...)
		case strings.EqualFold(id, "keyed"):
			workloads = append(workloads, benchmarks.Keyed...)
		case strings.EqualFold(id, "recursion"):
			workloads = append(workloads, benchmarks.Recursion...)
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

// allWorkloads is every workload: W0..W11, the toolkit's T1..T7 and
// P3..P7, the streams S1..S7, the keyed K1..K3 and the trees R1, R2.
func allWorkloads() []*benchmarks.Workload {
	return slices.Concat(benchmarks.All, benchmarks.Toolkit, streams(), benchmarks.Keyed, benchmarks.Recursion)
}

// streams is S1..S7 in the order of their ids (the files that define them
// add them in another).
func streams() []*benchmarks.Workload {
	return slices.SortedStableFunc(slices.Values(benchmarks.Streams), func(a, b *benchmarks.Workload) int {
		return strings.Compare(a.ID, b.ID)
	})
}
