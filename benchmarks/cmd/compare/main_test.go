package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
)

func TestParseProcs(t *testing.T) {
	for in, want := range map[string][]int{"": nil, "4": {4}, "1, 2,16": {1, 2, 16}} {
		if got := parseProcs(in); !slices.Equal(got, want) {
			t.Errorf("parseProcs(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestSweepReport builds the sweep's table and charts from made-up medians:
// the speedups must be seq's time over each implementation's, per P.
func TestSweepReport(t *testing.T) {
	w := benchmarks.Lookup("W1")
	res := func(seq, static time.Duration) result {
		m := map[string]time.Duration{}
		for _, im := range w.Impls {
			m[im.Name] = seq
		}
		m["seq"], m["static"] = seq, static
		return result{w: w, median: m, probe: map[string]time.Duration{}}
	}
	runs := []run{{1, []result{res(100, 100)}}, {4, []result{res(100, 25)}}}
	rows := scalingRows(runs)
	var static []string
	for _, r := range rows {
		if r[1] == "static" {
			static = r
		}
	}
	if want := []string{"", "static", "1.00", "4.00"}; !slices.Equal(static, want) {
		t.Fatalf("static's row %q, want %q", static, want)
	}
	out := filepath.Join(t.TempDir(), "benchmarks.md")
	md := chartSection(out, runs)
	for _, name := range []string{"benchmarks-speedup.svg", "benchmarks-scaling.svg"} {
		if !strings.Contains(md, "("+name+")") {
			t.Errorf("the chart section does not show %s:\n%s", name, md)
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(out), name))
		if err != nil || !strings.Contains(string(data), "<svg") {
			t.Errorf("%s: %v, not an SVG", name, err)
		}
	}
}

// TestSelectWorkloads: -w matches ids whatever their case, so that an id
// with lower-case letters (P4i, probe) can be chosen: upper-casing the list
// would find no "P4I" or "PROBE".
func TestSelectWorkloads(t *testing.T) {
	p4i := &benchmarks.Workload{ID: "P4i"}
	p4I := &benchmarks.Workload{ID: "P4I"}
	saved := benchmarks.Toolkit
	benchmarks.Toolkit = append(slices.Clip(saved), p4i, p4I)
	defer func() { benchmarks.Toolkit = saved }()
	for _, c := range []struct {
		ids  string
		want []*benchmarks.Workload
	}{
		{"", benchmarks.All},
		{"w3, W1", []*benchmarks.Workload{benchmarks.W3, benchmarks.W1}},
		{"probe,PROBE", []*benchmarks.Workload{benchmarks.Probe, benchmarks.Probe}},
		{"P4i,P4I,p4i", []*benchmarks.Workload{p4i, p4I, p4i}}, // the exact id wins
		{"w10", []*benchmarks.Workload{benchmarks.W10x2, benchmarks.W10x4, benchmarks.W10xP, benchmarks.W10x2P}},
		{"keyed", []*benchmarks.Workload{benchmarks.K1, benchmarks.K2, benchmarks.K3}},
		{"k2", []*benchmarks.Workload{benchmarks.K2}},
		{"recursion", []*benchmarks.Workload{benchmarks.R1, benchmarks.R2}},
		{"streams", []*benchmarks.Workload{benchmarks.S1, benchmarks.S2, benchmarks.S3, benchmarks.S4, benchmarks.S5, benchmarks.S6, benchmarks.S7}},
		{"all", slices.Concat(benchmarks.All, benchmarks.Toolkit, []*benchmarks.Workload{benchmarks.S1, benchmarks.S2, benchmarks.S3, benchmarks.S4, benchmarks.S5, benchmarks.S6, benchmarks.S7}, benchmarks.Keyed, benchmarks.Recursion)},
	} {
		got, err := selectWorkloads(c.ids)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("-w %q: %v (%v), want %v", c.ids, idsOf(got), err, idsOf(c.want))
		}
	}
	if _, err := selectWorkloads("W1,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("-w W1,nope: error %v, want one naming \"nope\"", err)
	}
}

func idsOf(ws []*benchmarks.Workload) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.ID)
	}
	return out
}

// TestCommandLine: the page names the command that wrote it with -w first
// and -out last, and a row's command repeats only the flags that change a
// measurement.
func TestCommandLine(t *testing.T) {
	saved := flag.CommandLine
	defer func() { flag.CommandLine = saved }()
	flag.CommandLine = flag.NewFlagSet("compare", flag.ContinueOnError)
	flag.String("w", "", "")
	flag.String("out", "", "")
	flag.Bool("quick", false, "")
	flag.Int("rounds", 5, "")
	flag.String("skip", "", "")
	flag.String("json", "", "")
	if err := flag.CommandLine.Parse([]string{"-out", "../docs/b.md", "-quick", "-skip", "a b", "-json", "/tmp/x", "-w", "W1,W4"}); err != nil {
		t.Fatal(err)
	}
	if got, want := commandLine(), "go run ./cmd/compare -w W1,W4 -quick -skip 'a b' -out ../docs/b.md"; got != want {
		t.Errorf("commandLine() = %q, want %q", got, want)
	}
	if got, want := rowFlags(), []string{"-quick", "-skip 'a b'"}; !slices.Equal(got, want) {
		t.Errorf("rowFlags() = %q, want %q", got, want)
	}
}
