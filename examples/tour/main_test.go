package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSmoke runs every row of the tour on inputs 2^6 times smaller than the
// tour's own (still past the point where loops go parallel) and checks that
// each pipeline gives the plain loop's result.
func TestSmoke(t *testing.T) {
	var out bytes.Buffer
	tab := &table{w: &out}
	rows(tab, 6)
	if tab.differ != 0 {
		t.Fatalf("%d rows differ from the plain loop:\n%s", tab.differ, out.String())
	}
	if got := strings.Count(out.String(), "same result"); got < 7 {
		t.Fatalf("%d rows ran, want 7:\n%s", got, out.String())
	}
}

// TestRowCountsDifferences checks that a pipeline whose result differs from
// the loop's is counted, so that TestSmoke cannot pass by counting nothing.
func TestRowCountsDifferences(t *testing.T) {
	var out bytes.Buffer
	tab := &table{w: &out}
	row(tab, "wrong on purpose", func() int { return 1 }, func() int { return 2 })
	if tab.differ != 1 || !strings.Contains(out.String(), "DIFFERENT") {
		t.Fatalf("a differing row was not counted: differ=%d, output %q", tab.differ, out.String())
	}
}
