package pipe

import "testing"

// TestCreditHoldsBatches: a restream pump's credit holds a batch's
// positions until the driver releases the last item handed over after it:
// a batch that gave no item stays held with the next one that does, or
// until the driver has released every item handed over. A batch waits
// while it does not fit beside those held, may start when none is held,
// however large, and a stopped pump stops waiting.
func TestCreditHoldsBatches(t *testing.T) {
	quit := make(chan struct{})
	c := &credit{limit: 20, quit: quit, room: make(chan struct{}, 1)}
	// held settles as a reserve does, between batches.
	held := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.settle()
		return c.held
	}
	step := func(n int) {
		t.Helper()
		if !c.reserve(n) {
			t.Fatalf("reserve(%d) refused", n)
		}
	}
	check := func(want int) {
		t.Helper()
		if got := held(); got != want {
			t.Fatalf("%d positions held, want %d", got, want)
		}
	}
	step(4)
	c.handed(3) // items [0, 3) hold 4 positions
	step(4)     // gives no item: held with the next batch that does
	step(2)
	c.handed(5) // items [3, 8) hold 4 + 2
	check(10)
	c.release(3)
	check(6)
	c.release(7)
	check(6)
	c.release(8)
	check(0)
	step(3) // gives no item, and every item handed over is released
	step(5)
	c.handed(1) // item 8 holds 5
	check(5)
	close(quit)
	if c.reserve(16) {
		t.Fatal("a batch of 16 started beside 5 held of 20")
	}
	if !c.reserve(15) {
		t.Fatal("a batch of 15 did not start beside 5 held of 20")
	}
	c.handed(1)
	c.release(10)
	if !c.reserve(100) {
		t.Fatal("a batch larger than the limit did not start with none held")
	}
}
