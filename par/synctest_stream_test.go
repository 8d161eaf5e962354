//go:build go1.25

package par_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// TestStreamSourcesInSynctest: the stream sources, whose feeder runs on a
// goroutine of its own and whose participants wait for it, work inside a
// testing/synctest bubble: a lister's waits advance fake time by exactly
// what the lister waits, its error ends a Try form at the time it comes, an
// early stop ends an endless walk, and every goroutine has ended when the
// bubble does.
func TestStreamSourcesInSynctest(t *testing.T) {
	const pages, perPage = 5, 1000
	lister := func(failAt int) func(yield func(int) error) error {
		return func(yield func(int) error) error {
			for p := range pages {
				time.Sleep(time.Second) // the page request
				if p == failAt {
					return errWalk
				}
				for i := range perPage {
					if err := yield(p*perPage + i); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	const want = pages * perPage * (pages*perPage - 1) / 2
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		got := par.Fold(par.FromWalk(lister(-1)), func() int { return 0 }, func(a, i int) int { return a + i }, sum)
		if got != want || time.Since(start) != pages*time.Second {
			t.Errorf("ordered Fold over a lister = %d after %v, want %d after %v", got, time.Since(start), want, pages*time.Second)
		}

		start = time.Now()
		err := par.FromWalk(lister(3)).Blocking(4).TryForEach(func(int) error { return nil })
		if !errors.Is(err, errWalk) || time.Since(start) != 4*time.Second {
			t.Errorf("Blocking(4).TryForEach over a lister failing at page 3 = %v after %v, want its error after 4s", err, time.Since(start))
		}

		endless := func(yield func(int) error) error {
			for i := 0; ; i++ {
				if i%perPage == 0 {
					time.Sleep(time.Second)
				}
				if err := yield(i); err != nil {
					return err
				}
			}
		}
		if first := par.FromWalk(endless).Take(10).Collect(); len(first) != 10 || first[9] != 9 {
			t.Errorf("Take(10) of an endless walk = %v, want 0..9", first)
		}
		counts := par.CountBy(par.FlatMap(par.FromSeqErr(func(yield func(int, error) bool) {
			for i := range pages * perPage {
				if i%perPage == 0 {
					time.Sleep(time.Second)
				}
				if !yield(i, nil) {
					return
				}
			}
		}), func(i int) []int { return []int{i % 3} }), func(k int) int { return k })
		if counts[0]+counts[1]+counts[2] != pages*perPage {
			t.Errorf("CountBy(FlatMap(FromSeqErr)) counted %v, want %d items", counts, pages*perPage)
		}
	})
}
