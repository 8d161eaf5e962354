package main

import (
	"path/filepath"
	"strings"
)

// mediansPath is the file beside a report that holds its run's medians:
// benchmarks-medians.json beside benchmarks.md.
func mediansPath(report string) string {
	base := strings.TrimSuffix(filepath.Base(report), filepath.Ext(report))
	return filepath.Join(filepath.Dir(report), base+"-medians.json")
}

// redraw draws the speedup chart beside a report of one GOMAXPROCS value
// again, without running anything: from the medians that the run wrote
// beside the report.
func redraw(report string) error {
	r, err := readJSON(mediansPath(report))
	if err != nil {
		return err
	}
	chartSection(report, []run{r})
	return nil
}
