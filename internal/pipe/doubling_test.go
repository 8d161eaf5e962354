package pipe

import (
	"testing"
	"time"
)

// TestDoubling: a size doubles after a fast full chunk, not after a fast
// short one, halves after a slow one, and stays within [least, most]; a
// size below least (a restream's batch cut to what is needed) is not
// raised by a slow batch.
func TestDoubling(t *testing.T) {
	const target = time.Millisecond
	fast, slow, even := target/4, 4*target, target
	cases := []struct {
		size int
		full bool
		took time.Duration
		want int
	}{
		{4, true, fast, 8},
		{4, false, fast, 4},
		{12, true, fast, 16},
		{16, true, fast, 16},
		{8, true, slow, 4},
		{8, false, slow, 4},
		{3, true, slow, 2},
		{2, true, slow, 2},
		{1, true, slow, 1},
		{8, true, even, 8},
	}
	for _, c := range cases {
		d := doubling{size: c.size, least: 2, most: 16, target: target}
		if got := d.next(c.full, c.took); got != c.want || d.size != c.want {
			t.Errorf("size %d, full %v, took %v: next = %d (size %d), want %d", c.size, c.full, c.took, got, d.size, c.want)
		}
	}
}
