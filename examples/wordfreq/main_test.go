package main

import (
	"maps"
	"testing"
)

// TestFoldMatchesLoop counts a small generated text the three ways.
func TestFoldMatchesLoop(t *testing.T) {
	lines := text(1 << 20)
	seq, fanOut, parallel := countLoop(lines), countFanOut(lines), countFold(lines)
	if len(seq) < 1000 || !maps.Equal(seq, parallel) || !maps.Equal(seq, fanOut) {
		t.Fatalf("%d words by the loop, %d by the fan-out, %d by Fold; Fold equal %v, fan-out equal %v",
			len(seq), len(fanOut), len(parallel), maps.Equal(seq, parallel), maps.Equal(seq, fanOut))
	}
	if n := countLine(map[string]int{}, []byte("  ba  ca ba ")); n["ba"] != 2 || n["ca"] != 1 || len(n) != 2 {
		t.Errorf("countLine split %q into %v", "  ba  ca ba ", n)
	}
	if w := top(seq, 1); len(w) != 1 || w[0] != word(0) {
		t.Errorf("the most frequent word is %v, want %q", w, word(0))
	}
}
