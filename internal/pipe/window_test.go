package pipe

import "testing"

// TestWindowsFollowTheBudget: a memory budget below the default windows
// (a stream's buffer, a pool loop's ring over a seq) shrinks them to what
// it holds at the items' size, never below an item per worker; a budget
// above them, or none, leaves them as they are, and an explicit buffer
// wins.
func TestWindowsFollowTheBudget(t *testing.T) {
	budget := func(b int64) *Budget { return &Budget{Memory: b} }
	for _, c := range []struct {
		cfg  Config
		size uintptr
		want int
	}{
		{Config{}, 2048, defaultBufferBytes / 2048},
		{Config{Budget: &Budget{}}, 2048, defaultBufferBytes / 2048},
		{Config{Budget: budget(64 << 10)}, 2048, 32},
		{Config{Budget: budget(1 << 40)}, 2048, defaultBufferBytes / 2048},
		{Config{Budget: budget(1)}, 2048, leastBuffer(Config{})},
		{Config{Budget: budget(64 << 10), Buffer: 500}, 2048, 500},
		{Config{Budget: budget(64 << 10), Blocking: 7}, 1 << 20, 7},
		{Config{Budget: budget(64 << 10)}, 8, 8192},
	} {
		if got := bufferLimit(c.cfg, c.size); got != c.want {
			t.Errorf("bufferLimit(budget %v, buffer %d, %d-byte items) = %d, want %d", c.cfg.Budget, c.cfg.Buffer, c.size, got, c.want)
		}
	}
	for _, c := range []struct {
		budget  int64
		size    uintptr
		workers int
		want    int
	}{
		{0, 1024, 2, seqRingBytes / 1024},
		{64 << 10, 1024, 2, 64},
		{64 << 10, 1024, 16, 4 * 16},
		{1 << 40, 1024, 2, seqRingBytes / 1024},
	} {
		cfg := Config{}
		if c.budget > 0 {
			cfg.Budget = budget(c.budget)
		}
		if ring, _ := poolRing(cfg, c.size, c.workers); ring != c.want {
			t.Errorf("poolRing(budget %d, %d-byte items, %d workers) = %d slots, want %d", c.budget, c.size, c.workers, ring, c.want)
		}
	}
}
