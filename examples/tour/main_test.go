package main

import (
	"bytes"
	"fmt"
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
	// The columns line up: every row's gopar time ends where the header's
	// "gopar" does (counted in runes: "µs" is one column less than its bytes).
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	end := strings.Index(lines[0], "gopar") + len("gopar")
	for _, line := range lines[1:] {
		if r := []rune(line); len(r) <= end || r[end-1] != 's' || r[end] != ' ' {
			t.Errorf("row out of line with the header (its gopar time must end at column %d):\n%s\n%s", end, lines[0], line)
		}
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

// TestBusyNote: the tour warns when the cores were busy (a fan-out got
// less than 85% of the ideal speedup), and says nothing on a quiet machine
// or with one core.
func TestBusyNote(t *testing.T) {
	for _, c := range []struct {
		speedup float64
		cores   int
		busy    bool
	}{
		{1.95, 2, false}, {1.70, 2, false}, {1.2, 2, true}, {0.9, 2, true},
		{7, 8, false}, {6.5, 8, true}, {0.5, 1, false},
	} {
		note := busyNote(c.speedup, c.cores)
		if got := note != ""; got != c.busy {
			t.Errorf("busyNote(%.2f, %d) = %q, want a note: %v", c.speedup, c.cores, note, c.busy)
		}
		if c.busy && !strings.Contains(note, fmt.Sprintf("%.2fx", c.speedup)) {
			t.Errorf("busyNote(%.2f, %d) = %q, which does not give the speedup", c.speedup, c.cores, note)
		}
	}
}
