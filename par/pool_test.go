package par_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// TestCloseWhileRunning races Close against operations in flight on the
// pool: each operation either returns its full result or panics with
// ErrClosed (or a *Panic wrapping it, when a helper met the closed pool),
// and none hangs.
func TestCloseWhileRunning(t *testing.T) {
	const n = 1 << 16
	want := 0
	for i := range n {
		want += i % 7
	}
	rounds := 40 / race.Scale
	for range max(rounds, 4) {
		pool, err := par.NewPool(2)
		if err != nil {
			t.Fatal(err)
		}
		started := make(chan struct{}, 1)
		var wg sync.WaitGroup
		var finished, refused atomic.Int64
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					func() {
						defer func() {
							if r := recover(); r != nil {
								if err, _ := r.(error); !errors.Is(err, par.ErrClosed) {
									t.Errorf("an operation racing Close panicked with %v, want par.ErrClosed", r)
								}
								refused.Add(1)
							}
						}()
						got := par.Range(0, n).WithPool(pool).Map(func(i int) int {
							if i == 100 {
								select {
								case started <- struct{}{}:
								default:
								}
							}
							return i % 7
						}).Sum()
						if got != want {
							t.Errorf("an operation racing Close returned %d, want %d", got, want)
						}
						finished.Add(1)
					}()
				}
			}()
		}
		<-started
		if err := pool.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if finished.Load()+refused.Load() != 60 {
			t.Fatalf("%d finished and %d refused of 60", finished.Load(), refused.Load())
		}
	}
}
