package main

import (
	"maps"
	"testing"
)

// TestFoldMatchesLoop counts a small generated text both ways.
func TestFoldMatchesLoop(t *testing.T) {
	lines := text(1 << 20)
	seq, parallel := countLoop(lines), countFold(lines)
	if len(seq) < 1000 || !maps.Equal(seq, parallel) {
		t.Fatalf("%d words by the loop, %d by Fold, equal %v", len(seq), len(parallel), maps.Equal(seq, parallel))
	}
	if w := top(seq, 1); len(w) != 1 || w[0] != word(0) {
		t.Errorf("the most frequent word is %v, want %q", w, word(0))
	}
}
