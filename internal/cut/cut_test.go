package cut

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestModel checks Line against a plain minimum over random lowers,
// extremes included.
func TestModel(t *testing.T) {
	var l Line
	want := math.MaxInt
	if got := l.At(); got != want {
		t.Fatalf("zero Line: At() = %d, want %d", got, want)
	}
	picks := []int{math.MaxInt, math.MaxInt - 1, 0, -1, 1, math.MinInt + 1, math.MinInt}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		c := int(rng.Uint64())
		if rng.IntN(4) == 0 {
			c = picks[rng.IntN(len(picks))]
		}
		l.Lower(c)
		want = min(want, c)
		if got := l.At(); got != want {
			t.Fatalf("after Lower(%d): At() = %d, want %d", c, got, want)
		}
	}
}

// TestConcurrentLowers lowers one Line from many goroutines at once, each
// through a falling sequence of its own (goroutine g lowers to
// (each-1-k)*goroutines + g at its k-th step), so that the goroutines keep
// racing to lower it until the end: the cut ends at 0, the least value
// lowered, and no read along the way is above a value its reader lowered
// to or above an earlier read.
func TestConcurrentLowers(t *testing.T) {
	const goroutines, each = 16, 5_000
	var l Line
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := math.MaxInt
			for k := range each {
				c := (each-1-k)*goroutines + g
				l.Lower(c)
				at := l.At()
				if at > last || at > c {
					t.Errorf("At() = %d after a read of %d and a Lower(%d)", at, last, c)
					return
				}
				last = at
			}
		}()
	}
	wg.Wait()
	if l.At() != 0 {
		t.Fatalf("At() = %d, want the least lowered value 0", l.At())
	}
}

// FuzzLower checks Lower and At against min for any two values.
func FuzzLower(f *testing.F) {
	f.Add(int64(0), int64(-1))
	f.Add(int64(math.MaxInt64), int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, a, b int64) {
		var l Line
		l.Lower(int(a))
		l.Lower(int(b))
		if want := min(int(a), int(b)); l.At() != want {
			t.Fatalf("Lower(%d), Lower(%d): At() = %d, want %d", a, b, l.At(), want)
		}
	})
}
