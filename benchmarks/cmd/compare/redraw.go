package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/benchmarks"
)

// redraw draws the speedup chart again from the table of a report that this
// command wrote for one GOMAXPROCS value, without running anything: it reads
// the medians back from the table. The chart goes beside the report.
func redraw(path string) {
	f, err := os.Open(path)
	if err != nil {
		fatalf("%v", err)
	}
	defer f.Close()
	r, err := parseReport(bufio.NewScanner(f))
	if err != nil {
		fatalf("%s: %v", path, err)
	}
	chartSection(path, []run{r})
}

// parseReport reads the GOMAXPROCS line and the results table of a report.
func parseReport(sc *bufio.Scanner) (run, error) {
	var r run
	var cur *result
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") && len(r.results) > 0 {
			break // the trust check's table, and anything after it
		}
		if v, ok := strings.CutPrefix(line, "- GOMAXPROCS: "); ok {
			r.procs, _ = strconv.Atoi(strings.TrimSpace(v))
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 6 || strings.HasPrefix(strings.TrimSpace(cells[1]), "workload") {
			continue
		}
		label, name := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if id, _, ok := strings.Cut(label, " "); ok {
			w := benchmarks.Lookup(id)
			if w == nil {
				continue
			}
			r.results = append(r.results, result{w: &benchmarks.Workload{ID: w.ID, Name: w.Name, Balanced: w.Balanced},
				median: map[string]time.Duration{}, probe: map[string]time.Duration{}})
			cur = &r.results[len(r.results)-1]
		}
		if cur == nil || name == "" {
			continue
		}
		d, err := time.ParseDuration(strings.ReplaceAll(strings.TrimSpace(cells[3]), " ", ""))
		if err != nil {
			continue // "-": did not run
		}
		cur.median[name] = d
		cur.w.Impls = append(cur.w.Impls, benchmarks.Impl{Name: name})
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if r.procs == 0 || len(r.results) == 0 {
		return r, errorf("no GOMAXPROCS line or no results table: not a report of one GOMAXPROCS value")
	}
	return r, nil
}
