package par_test

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	sum := par.ReduceBlocks(par.Range(0, n).WithPool(pool).WithBlockSize(0, maxB), func(lo, hi int) int {
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
		t.Fatalf("ReduceBlocks: sum %d (want %d), %d blocks over max", sum, want, tooLong.Load())
	}
}

// A context reaches the block forms: once it is done, blocks not yet
// started are skipped, and a done context runs nothing.
func TestIntsBlocksContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	par.Range(0, 1000).WithContext(ctx).Blocks(func(lo, hi int) { calls.Add(1) })
	par.ReduceBlocks(par.Range(0, 1000).WithContext(ctx), func(lo, hi int) int { calls.Add(1); return 0 },
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
			got := par.ReduceBlocks(par.Range(0, len(ws)).WithPool(pool), func(lo, hi int) map[string]int {
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

// Every setting of a range keeps it an Ints, so that the block API stays
// reachable after it; only Map, Filter and Chain, whose results are no
// longer a range, give a Nums[int].
func TestIntsSettingsKeepInts(t *testing.T) {
	pool := newPool(t, 2)
	ctx := context.Background()
	// Compiles only while each setting returns an Ints.
	var r par.Ints = par.Range(0, 10).WithPool(pool).WithContext(ctx).WithBlockSize(1, 0).
		WithProgress(nil).WithTimeline(nil).Unordered().WithBuffer(8).Blocking(2)
	var got atomic.Int64
	r.Blocks(func(lo, hi int) { got.Add(int64(hi - lo)) })
	if got.Load() != 10 {
		t.Errorf("Blocks after every setting covered %d indexes, want 10", got.Load())
	}

	ints := reflect.TypeFor[par.Ints]()
	for _, name := range []string{"WithPool", "WithContext", "WithBlockSize", "WithProgress", "WithTimeline", "Unordered", "WithBuffer", "Blocking"} {
		m, ok := ints.MethodByName(name)
		if !ok {
			t.Errorf("Ints has no method %s", name)
		} else if m.Type.NumOut() != 1 || m.Type.Out(0) != ints {
			t.Errorf("Ints.%s is %v: it must return Ints", name, m.Type)
		}
	}
	// A setting added to Iter or Nums without its Ints form would return
	// one of these through the embedded Nums.
	narrower := map[reflect.Type]bool{reflect.TypeFor[par.Nums[int]](): true, reflect.TypeFor[par.Iter[int]](): true}
	for i := range ints.NumMethod() {
		m := ints.Method(i)
		if m.Type.NumOut() == 1 && narrower[m.Type.Out(0)] && m.Name != "Map" && m.Name != "Filter" && m.Name != "Chain" {
			t.Errorf("Ints.%s returns %v, which loses the block API: give Ints its own %s", m.Name, m.Type.Out(0), m.Name)
		}
	}
}

// bodyGate holds the first limit block bodies, each blocked on a channel,
// until limit of them are in flight at once, and records the most in
// flight and where the first ones start. A driver that runs fewer at once
// never opens it: its bodies go on when the shared deadline passes, all
// at once, and the test fails on the count.
type bodyGate struct {
	limit     int64
	now, most atomic.Int64
	full      chan struct{}
	once      sync.Once
	deadline  <-chan struct{}
	mu        sync.Mutex
	first     []int
}

func newBodyGate(deadline context.Context, limit int) *bodyGate {
	return &bodyGate{limit: int64(limit), full: make(chan struct{}), deadline: deadline.Done()}
}

func (g *bodyGate) enter(lo int) {
	// Record the start before counting the body in flight: a body counted
	// but not yet recorded would let bodies started after the gate opens
	// into first ahead of it.
	g.mu.Lock()
	if len(g.first) < int(g.limit) {
		g.first = append(g.first, lo)
	}
	g.mu.Unlock()
	n := g.now.Add(1)
	defer g.now.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	if n == g.limit {
		g.once.Do(func() { close(g.full) })
	}
	select {
	case <-g.full:
	case <-g.deadline:
	}
}

// In blocking mode Blocks runs at most limit bodies at once, on goroutines
// of its own: with a limit above the pool's workers, the first limit
// bodies block on a channel until all of them are in flight, which they
// could not be on the pool. Each index runs exactly once, one per body
// (WithBlockSize's min per body, if set), the first indexes first.
func TestIntsBlockingBlocks(t *testing.T) {
	pool := newPool(t, 2)
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const n = 200
	for _, tc := range []struct{ limit, min int }{{1, 0}, {3, 0}, {16, 0}, {4, 3}} {
		g := newBodyGate(deadline, tc.limit)
		hits := make([]atomic.Int32, n)
		var badLen atomic.Int32
		r := par.Range(0, n).WithPool(pool).Blocking(tc.limit)
		if tc.min > 0 {
			r = r.WithBlockSize(tc.min, 0)
		}
		r.Blocks(func(lo, hi int) {
			if want := max(tc.min, 1); hi-lo != want && hi != n {
				badLen.Add(1)
			}
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
			g.enter(lo)
		})
		if m := g.most.Load(); m != int64(tc.limit) {
			t.Errorf("limit %d: %d bodies in flight at most, want %d", tc.limit, m, tc.limit)
		}
		for i := range hits {
			if c := hits[i].Load(); c != 1 {
				t.Fatalf("limit %d: index %d covered %d times, want 1", tc.limit, i, c)
			}
		}
		if c := badLen.Load(); c != 0 {
			t.Errorf("limit %d, min %d: %d bodies had another length", tc.limit, tc.min, c)
		}
		slices.Sort(g.first)
		for k, lo := range g.first {
			if lo != k*max(tc.min, 1) {
				t.Errorf("limit %d: the first bodies started at %v, want the first %d blocks", tc.limit, g.first, tc.limit)
				break
			}
		}
	}
}

// ReduceBlocks in blocking mode: at most limit bodies at once, results
// combined in index order (the op, concatenation, is not commutative), and
// a done context runs no body and gives the zero value.
func TestReduceBlocksBlocking(t *testing.T) {
	const n, limit = 300, 4
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := newBodyGate(deadline, limit)
	got := par.ReduceBlocks(par.Range(0, n).Blocking(limit), func(lo, hi int) string {
		g.enter(lo)
		var b strings.Builder
		for i := lo; i < hi; i++ {
			b.WriteString(strconv.Itoa(i) + ",")
		}
		return b.String()
	}, func(a, b string) string { return a + b })
	var want strings.Builder
	for i := range n {
		want.WriteString(strconv.Itoa(i) + ",")
	}
	if got != want.String() {
		t.Errorf("ReduceBlocks over Blocking(%d) = %.40q..., want the indexes in order", limit, got)
	}
	if m := g.most.Load(); m != limit {
		t.Errorf("%d bodies in flight at most, want %d", m, limit)
	}

	ctx, cancelCtx := context.WithCancel(context.Background())
	cancelCtx()
	var calls atomic.Int32
	zero := par.ReduceBlocks(par.Range(0, n).Blocking(limit).WithContext(ctx), func(lo, hi int) int {
		calls.Add(1)
		return 1
	}, func(a, b int) int { return a + b })
	if zero != 0 || calls.Load() != 0 {
		t.Errorf("a done context: ReduceBlocks = %d after %d bodies, want 0 after 0", zero, calls.Load())
	}
}

// A loop body that waits, such as an upload of a batch, runs at most 2 at
// once on goroutines of its own, each on WithBlockSize's min of 3 indexes.
func ExampleInts_Blocking() {
	ids := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	upload := func(batch []int) string { return fmt.Sprint(batch) } // a call that waits on I/O
	sent := make([]string, 4)
	par.Range(0, len(ids)).Blocking(2).WithBlockSize(3, 0).Blocks(func(lo, hi int) {
		sent[lo/3] = upload(ids[lo:hi])
	})
	fmt.Println(sent)
	// Output: [[10 11 12] [13 14 15] [16 17 18] [19]]
}
