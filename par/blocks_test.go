package par_test

import (
	"context"
	"math"
	"math/bits"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// Blocks tiles the range exactly once on a pool of its own, within the
// block bounds it was given.
func TestIntsBlocksSettingsApply(t *testing.T) {
	pool, err := par.NewPool(4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	n := 1 << 18
	if race.Enabled {
		n = 1 << 14
	}
	const maxB = 100
	hits := make([]atomic.Int32, n)
	var tooLong atomic.Int32
	par.Range(0, n).WithPool(pool).WithBlockSize(0, maxB).Blocks(func(lo, hi int) {
		if hi-lo > maxB {
			tooLong.Add(1)
		}
		for i := lo; i < hi; i++ {
			hits[i].Add(1)
		}
	})
	for i := range hits {
		if c := hits[i].Load(); c != 1 {
			t.Fatalf("index %d covered %d times, want 1", i, c)
		}
	}
	if c := tooLong.Load(); c != 0 {
		t.Fatalf("%d blocks were longer than WithBlockSize's max %d", c, maxB)
	}
	sum := par.ReduceBlocksIn(par.Range(0, n).WithPool(pool).WithBlockSize(0, maxB), func(lo, hi int) int {
		if hi-lo > maxB {
			tooLong.Add(1)
		}
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		return s
	}, func(a, b int) int { return a + b })
	if want := n * (n - 1) / 2; sum != want || tooLong.Load() != 0 {
		t.Fatalf("ReduceBlocksIn: sum %d (want %d), %d blocks over max", sum, want, tooLong.Load())
	}
}

// A context reaches the block forms: once it is done, blocks not yet
// started are skipped, and a done context runs nothing.
func TestIntsBlocksContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	par.Range(0, 1000).WithContext(ctx).Blocks(func(lo, hi int) { calls.Add(1) })
	par.ReduceBlocksIn(par.Range(0, 1000).WithContext(ctx), func(lo, hi int) int { calls.Add(1); return 0 },
		func(a, b int) int { return a + b })
	if c := calls.Load(); c != 0 {
		t.Fatalf("a done context ran %d blocks, want 0", c)
	}

	const n = 1 << 22
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var items atomic.Int64
	par.Range(0, n).WithContext(ctx).Blocks(func(lo, hi int) {
		if items.Add(int64(hi-lo)) >= n/16 {
			cancel()
		}
	})
	if c := items.Load(); c >= n {
		t.Fatalf("a cancel after %d items still ran all %d", n/16, c)
	}
}

// Chunks are fixed-size, aligned, in order, with capacity cut at their end.
func TestChunks(t *testing.T) {
	for _, tc := range []struct{ n, size int }{{0, 3}, {1, 3}, {7, 3}, {9, 3}, {10, 1}, {5, 10}, {1000, 7}, {5, math.MaxInt}, {5, math.MaxInt - 1}, {0, math.MaxInt}} {
		xs := make([]int, tc.n)
		for i := range xs {
			xs[i] = i
		}
		chunks := par.Chunks(xs, tc.size).Collect()
		want := tc.n / tc.size // rounded up below; (n+size-1)/size overflows
		if tc.n%tc.size != 0 {
			want++
		}
		if len(chunks) != want {
			t.Fatalf("n=%d size=%d: %d chunks, want %d", tc.n, tc.size, len(chunks), want)
		}
		next := 0
		for i, c := range chunks {
			if len(c) != min(tc.size, tc.n-i*tc.size) || cap(c) != len(c) {
				t.Fatalf("n=%d size=%d: chunk %d has len %d cap %d", tc.n, tc.size, i, len(c), cap(c))
			}
			for _, x := range c {
				if x != next {
					t.Fatalf("n=%d size=%d: chunk %d holds %d, want %d", tc.n, tc.size, i, x, next)
				}
				next++
			}
		}
		if next != tc.n {
			t.Fatalf("n=%d size=%d: chunks cover %d elements", tc.n, tc.size, next)
		}
	}
	for _, size := range []int{0, -1} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "par.Chunks") {
					t.Errorf("Chunks(xs, %d): recovered %v, want a panic naming par.Chunks", size, r)
				}
			}()
			par.Chunks([]int{1}, size)
		}()
	}
}

// TestReduceBlocksCostlyBody: a word count that builds a map per block and
// merges them (the pattern that made ReduceBlocks call body for about one
// word in two, 14 times slower than a Fold) calls body O(workers x log n)
// times: the bound below is 8 x workers x log2(n), against the 300,000
// calls of one per item. Blocks obeys the same bound.
//
// Every steal splits a range, so a worker the OS deschedules while it owns
// one invites more steals and more blocks: on a loaded 2-core machine, 4
// workers made 166-489 calls (bound 608) and once 747. So each count is the
// best of a few attempts, as in TestWorkAfterTheDecision: a partitioner that
// splits too finely exceeds the bound in every attempt.
func TestReduceBlocksCostlyBody(t *testing.T) {
	const attempts = 5
	ws := words(300_000, 5000)
	want := wordCounts(ws)
	for _, workers := range []int{1, 2, 4} {
		pool := newPool(t, workers)
		bound := int64(8 * workers * bits.Len(uint(len(ws))))
		// bestOf runs the loop until it calls body at most bound times,
		// and returns the fewest calls seen.
		bestOf := func(run func(calls *atomic.Int64)) int64 {
			best := int64(math.MaxInt64)
			for range attempts {
				var calls atomic.Int64
				run(&calls)
				if best = min(best, calls.Load()); best <= bound {
					break
				}
			}
			return best
		}
		n := bestOf(func(calls *atomic.Int64) {
			got := par.ReduceBlocksIn(par.Range(0, len(ws)).WithPool(pool), func(lo, hi int) map[string]int {
				calls.Add(1)
				return wordCounts(ws[lo:hi])
			}, mergeCounts)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%d workers: counts differ (-want +got):\n%s", workers, diff)
			}
		})
		if n > bound {
			t.Errorf("%d workers: ReduceBlocks called body %d times for %d words (bound %d; best of %d attempts)", workers, n, len(ws), bound, attempts)
		}
		n = bestOf(func(calls *atomic.Int64) {
			par.Range(0, len(ws)).WithPool(pool).Blocks(func(lo, hi int) { calls.Add(1) })
		})
		if n > bound {
			t.Errorf("%d workers: Blocks called body %d times for %d items (bound %d; best of %d attempts)", workers, n, len(ws), bound, attempts)
		}
	}
}
