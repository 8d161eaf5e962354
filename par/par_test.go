package par_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

func mixInt(i int) uint64 { return mix(uint64(i)) }

func seqSum(lo, hi int) uint64 {
	var s uint64
	for i := lo; i < hi; i++ {
		s += mixInt(i)
	}
	return s
}

// sizes are the input lengths of the tests that run over many: 1<<20 only
// in the long runs (GOPAR_TEST_LONG=1), where 100_000 already runs in parallel.
var sizes = long.Pick([]int{0, 1, 2, 3, 7, 100, 1000, 4096, 100_000, 1 << 20}, []int{0, 1, 2, 3, 7, 100, 1000, 4096, 100_000})

func TestSumMatchesLoop(t *testing.T) {
	for _, n := range sizes {
		if got, want := par.Sum(par.Map(par.Range(0, n), mixInt)), seqSum(0, n); got != want {
			t.Errorf("n=%d: par.Sum = %d, loop = %d", n, got, want)
		}
		want := 0
		for i := -5; i < n-5; i++ {
			want += i * 3
		}
		if got := par.Range(-5, n-5).Map(func(i int) int { return i * 3 }).Sum(); got != want {
			t.Errorf("n=%d: Range.Map.Sum = %d, want %d", n, got, want)
		}
	}
}

func TestForEachExactlyOnce(t *testing.T) {
	for _, n := range sizes {
		seen := make([]atomic.Int32, n)
		par.Range(0, n).ForEach(func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: item %d ran %d times", n, i, c)
			}
		}
	}
}

func TestReduceKeepsOrder(t *testing.T) {
	for _, n := range []int{0, 1, 10, 5000, 20_000} {
		xs := make([]string, n)
		for i := range xs {
			xs[i] = strconv.Itoa(i % 10)
		}
		got := par.Slice(xs).Reduce(func() string { return "" }, func(a, b string) string { return a + b })
		if want := strings.Join(xs, ""); got != want {
			t.Fatalf("n=%d: Reduce concatenation out of order (len %d vs %d)", n, len(got), len(want))
		}
	}
}

func TestCollectAndFilter(t *testing.T) {
	for _, n := range sizes {
		got := par.Map(par.Range(0, n), func(i int) int { return 2 * i }).Collect()
		var doubled, want []int
		for i := 0; i < n; i++ {
			doubled = append(doubled, 2*i)
			if i%3 == 1 {
				want = append(want, i)
			}
		}
		if diff := cmp.Diff(doubled, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("n=%d: Map.Collect (-want +got):\n%s", n, diff)
		}
		odd := par.Range(0, n).Filter(func(i int) bool { return i%3 == 1 }).Collect()
		if diff := cmp.Diff(want, odd, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("n=%d: Filter.Collect (-want +got):\n%s", n, diff)
		}
		if c := par.Range(0, n).Filter(func(i int) bool { return i%3 == 1 }).Count(); c != len(want) {
			t.Fatalf("n=%d: Count = %d, want %d", n, c, len(want))
		}
	}
}

func TestPanicReachesCaller(t *testing.T) {
	boom := errors.New("boom")
	for _, n := range []int{10, 1 << 20} {
		func() {
			defer func() {
				r := recover()
				p, ok := r.(*runtime.Panic)
				if !ok {
					t.Fatalf("n=%d: recovered %T %v, want *runtime.Panic", n, r, r)
				}
				if !errors.Is(p, boom) || len(p.Stack) == 0 {
					t.Fatalf("n=%d: panic lost its value or stack: %v", n, p.Value)
				}
			}()
			par.Range(0, n).ForEach(func(i int) {
				if i == n-1 {
					panic(boom)
				}
			})
		}()
	}
	// The pool still works.
	if got := par.Range(0, 1<<20).Sum(); got != (1<<20)*((1<<20)-1)/2 {
		t.Fatalf("sum after panic = %d", got)
	}
}

func TestNestedOneWorker(t *testing.T) {
	p, err := runtime.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var total atomic.Uint64
	par.Range(0, 64).WithPool(p).ForEach(func(i int) {
		total.Add(par.Sum(par.Map(par.Range(0, 1<<14), mixInt).WithPool(p)))
	})
	if want := 64 * seqSum(0, 1<<14); total.Load() != want {
		t.Fatalf("nested total %d, want %d", total.Load(), want)
	}
}

// TestNestedWithOneDefaultWorker runs the nested case in a child process
// with GOPAR_WORKERS=1, since the default pool is sized once per process.
func TestNestedWithOneDefaultWorker(t *testing.T) {
	if os.Getenv("GOPAR_TEST_CHILD") == "nested" {
		if w := runtime.Default().Workers(); w != 1 {
			t.Fatalf("GOPAR_WORKERS=1 gave %d workers", w)
		}
		var total atomic.Uint64
		par.Range(0, 16).ForEach(func(i int) {
			par.Range(0, 4).ForEach(func(j int) {
				total.Add(par.Sum(par.Map(par.Range(0, 1<<14), mixInt)))
			})
		})
		if want := 64 * seqSum(0, 1<<14); total.Load() != want {
			t.Fatalf("nested total %d, want %d", total.Load(), want)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNestedWithOneDefaultWorker$", "-test.v")
	cmd.Env = append(os.Environ(), "GOPAR_TEST_CHILD=nested", "GOPAR_WORKERS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child with GOPAR_WORKERS=1 failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("child did not pass:\n%s", out)
	}
}

// TestAllocationsDoNotGrowWithN: a terminal operation allocates O(workers +
// steals), never O(items). The 1e3 loop runs inline with a fixed number of
// allocations; the larger ones add the parallel phase's (loop state, one
// job per worker, one range per successful steal, one slice of runs per
// participant), which depend on how the run went and on the workers but
// not on n: an allocation per item would be a million.
func TestAllocationsDoNotGrowWithN(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	defer settleForAllocs(t)()
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			sink = par.Range(0, n).Map(func(i int) int { return i ^ 0x55 }).Sum()
		})
	}
	// The inline path's count is the least of three: on a loaded machine
	// the caller may be descheduled mid-loop, and a worker then takes the
	// rest of it (a parallel run, with its allocations), which says nothing
	// of the inline path; an allocation of the inline path's own shows in
	// every run.
	small := min(allocs(1e3), allocs(1e3), allocs(1e3))
	large, huge := allocs(1e6), allocs(1e7)
	t.Logf("allocations per Range(0, n).Map(f).Sum(): n=1e3: %.1f, n=1e6: %.1f, n=1e7: %.1f", small, large, huge)
	// Inline, the call allocates nothing; the test allocates once: the int
	// stored in sink, an any. The Reducer's closures escape into the
	// parallel phase's state, so none may be made per call: Combine comes
	// from a table and Fold from a pool (internal/pipe's sumCombine and sumAtLoop),
	// and Identity is left nil (the zero value). Neither may the
	// pipeline's Spec or an Iterator holding it move to the heap: that was
	// two more, 370 bytes, at every call.
	if small > 1 {
		t.Errorf("the inline path allocates %.1f times per call, want 1 (the test's sink)", small)
	}
	// The function form boxes its pipelines in Iterator arguments: two
	// boxes of some 200 bytes, which must stay in the caller's frame (par's
	// specOf), so it allocates what the method form does: nothing. Over
	// 100 runs, so that a rare one that goes parallel (a worker takes the
	// rest of the loop) is not counted as one per call.
	var total int
	fn := testing.AllocsPerRun(100, func() {
		total += par.Sum(par.Map(par.Range(0, 1000), func(i int) int { return i ^ 0x55 }))
	})
	if fn != 0 {
		t.Errorf("par.Sum(par.Map(par.Range(0, 1e3), f)) allocates %.1f times per call, want 0", fn)
	}
	want := 0
	for i := range 1000 {
		want += i ^ 0x55
	}
	if want *= 101; total != want { // AllocsPerRun's warm-up run and its 100
		t.Errorf("the sums add up to %d, want %d", total, want)
	}
	// The steals, and so their ranges, grow with the workers, most of
	// all where they outnumber the cores (GOPAR_WORKERS=8 on 2 cores
	// makes 230-330), never with n.
	most := 100 + 50*float64(runtime.Default().Workers())
	for n, a := range map[string]float64{"1e6": large, "1e7": huge} {
		if a > most {
			t.Errorf("n=%s allocates %.1f times per call, over %.0f on %d workers: something grows with n", n, a, most, runtime.Default().Workers())
		}
	}
}

// TestPanicInIdentityOnHelper: every callback, Reduce's identity included,
// runs under recover in the parallel phase, on helpers too, so its panic
// reaches the caller instead of crashing a worker. Identity panics on every
// call after the inline phase's, so whichever participant starts a run in
// the parallel phase (the caller, or a helper on a worker) panics.
func TestPanicInIdentityOnHelper(t *testing.T) {
	p, err := runtime.New(4)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var calls atomic.Int64
	r := func() (r any) {
		defer func() { r = recover() }()
		par.Range(0, 1<<22).WithPool(p).Reduce(func() int {
			if calls.Add(1) > 1 {
				panic("identity failed")
			}
			return 0
		}, func(a, b int) int { return a + b })
		return nil
	}()
	if pe, ok := r.(*runtime.Panic); !ok || pe.Value != "identity failed" {
		t.Fatalf("recovered %v, want *runtime.Panic(identity failed)", r)
	}
}

func TestWithBlockSize(t *testing.T) {
	var calls atomic.Int64
	got := par.Range(0, 10_000).WithBlockSize(0, 1).Map(func(i int) int { calls.Add(1); return i }).Sum()
	if got != 10_000*9_999/2 || calls.Load() != 10_000 {
		t.Fatalf("WithBlockSize(0, 1): sum %d after %d calls", got, calls.Load())
	}
	for _, b := range [][2]int{{-1, 0}, {0, -1}, {5, 4}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "WithBlockSize") {
					t.Errorf("WithBlockSize(%d, %d) did not panic clearly: %v", b[0], b[1], r)
				}
			}()
			par.Range(0, 1).WithBlockSize(b[0], b[1])
		}()
	}
}

// TestEmptyAndReversedRanges: hi <= lo is an empty range for every terminal
// operation, and no callback runs.
func TestEmptyAndReversedRanges(t *testing.T) {
	for _, r := range [][2]int{{0, 0}, {10, 3}, {5, -5}, {-1, -2}} {
		it := par.Range(r[0], r[1])
		called := false
		it.ForEach(func(int) { called = true })
		if called || it.Sum() != 0 || it.Count() != 0 || len(it.Collect()) != 0 || it.Len() != 0 {
			t.Fatalf("Range(%d, %d) is not empty", r[0], r[1])
		}
		if it.Any(func(int) bool { return true }) || !it.Every(func(int) bool { return false }) {
			t.Fatalf("Range(%d, %d): Any/Every see items", r[0], r[1])
		}
		if got := it.Reduce(func() int { return 7 }, func(a, b int) int { return a + b }); got != 7 {
			t.Fatalf("Range(%d, %d).Reduce = %d, want the identity 7", r[0], r[1], got)
		}
	}
	if xs := par.Slice([]string(nil)).Collect(); xs == nil || len(xs) != 0 {
		t.Fatalf("Slice(nil).Collect() = %#v, want an empty non-nil slice", xs)
	}
}

// TestNilFunctionsPanicClearly: a nil callback is caught where the pipeline
// is built, with a message that names the method.
func TestNilFunctionsPanicClearly(t *testing.T) {
	cases := map[string]func(){
		"Map":         func() { par.Range(0, 1).Map((func(int) int)(nil)) }, // typed: Go 1.27's Map infers its result type from f
		"Filter":      func() { par.Range(0, 1).Filter(nil) },
		"ForEach":     func() { par.Range(0, 1).ForEach(nil) },
		"Reduce":      func() { par.Range(0, 1).Reduce(nil, nil) },
		"TryForEach":  func() { par.Range(0, 1).TryForEach(nil) },
		"Join":        func() { par.Join(nil, func() {}) },
		"JoinFunc":    func() { par.JoinFunc[int, int](nil, 1, 2) },
		"par.Map":     func() { par.Map[int, int](par.Range(0, 1), nil) },
		"FindFirst":   func() { par.Range(0, 1).FindFirst(nil) },
		"Ints.Blocks": func() { par.Range(0, 1).Blocks(nil) },
		"ReduceBlock": func() { par.ReduceBlocks[int](par.Range(0, 1), nil, nil) },
		"ReduceOp":    func() { par.ReduceBlocks(par.Range(0, 1), func(lo, hi int) int { return 0 }, nil) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), "nil function") {
					t.Errorf("%s(nil): recovered %v, want a message about a nil function", name, r)
				}
			}()
			f()
		}()
	}
}

func joinFib(n int) int {
	if n < 2 {
		return n
	}
	var x, y int
	par.Join(func() { x = joinFib(n - 1) }, func() { y = joinFib(n - 2) })
	return x + y
}

func joinFuncFib(n int) int {
	if n < 2 {
		return n
	}
	x, y := par.JoinFunc(joinFuncFib, n-1, n-2)
	return x + y
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// TestJoinForms runs fib through both of par's fork-joins, from several
// goroutines at once, so that joins run inline, shared and stolen.
func TestJoinForms(t *testing.T) {
	n := 22
	if race.Enabled {
		n = 16
	}
	for name, fib := range map[string]func(int) int{"Join": joinFib, "JoinFunc": joinFuncFib} {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got, want := fib(n), fibSeq(n); got != want {
					t.Errorf("%s: fib(%d) = %d, want %d", name, n, got, want)
				}
			}()
		}
		wg.Wait()
	}
}

// TestJoinFuncPanics: a panic in f(a) does not skip f(b), and a's panic
// wins, on the inline and the shared path alike.
func TestJoinFuncPanics(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	for _, c := range []struct {
		name         string
		failA, failB bool
		want         error
	}{{"a", true, false, errA}, {"b", false, true, errB}, {"both", true, true, errA}} {
		var ranB atomic.Bool
		// tree forks [lo, hi) down to single leaves; leaf 20 stands for
		// a's failure, leaf 40 for b's.
		var tree func(s [2]int) int
		tree = func(s [2]int) int {
			if s[1]-s[0] == 1 {
				switch {
				case s[0] == 20 && c.failA:
					panic(errA)
				case s[0] == 40:
					ranB.Store(true)
					if c.failB {
						panic(errB)
					}
				}
				return 1
			}
			mid := (s[0] + s[1]) / 2
			l, r := par.JoinFunc(tree, [2]int{s[0], mid}, [2]int{mid, s[1]})
			return l + r
		}
		pv := func() (r any) {
			defer func() { r = recover() }()
			tree([2]int{0, 64})
			return nil
		}()
		pe, ok := pv.(*runtime.Panic)
		if !ok {
			t.Fatalf("%s: recovered %T %v, want *runtime.Panic", c.name, pv, pv)
		}
		if !errors.Is(pe, c.want) || !strings.Contains(string(pe.Stack), "TestJoinFuncPanics") {
			t.Fatalf("%s: panic %v, want %v with the stack where it happened", c.name, pe.Value, c.want)
		}
		if !ranB.Load() {
			t.Fatalf("%s: the half after the panic did not run", c.name)
		}
	}
}

// labelled embeds an Iter after a field of its own, as a user's type may:
// it is an Iterator through the promoted method, with the Iter not at the
// start of its memory.
type labelled struct {
	name string
	par.Iter[int]
}

// TestEveryIteratorForm: the functions that take an Iterator read its
// pipeline through the method (specOf), whatever holds it: Iter, Nums and
// Ints values, pointers to them, and a user's type that embeds one at an
// offset.
func TestEveryIteratorForm(t *testing.T) {
	const n = 1000
	want := uint64(0)
	for i := range n {
		want += mixInt(i)
	}
	it := par.Map(par.Range(0, n), func(i int) int { return i })
	nums := par.Range(0, n)
	forms := map[string]par.Iterator[int]{
		"Iter":      it,
		"*Iter":     &it,
		"Nums":      nums.Nums,
		"*Nums":     &nums.Nums,
		"Ints":      nums,
		"*Ints":     &nums,
		"embedded":  labelled{"x", it},
		"*embedded": &labelled{"x", it},
	}
	for name, f := range forms {
		if got := par.Sum(par.Map(f, mixInt)); got != want {
			t.Errorf("%s: par.Sum(par.Map(it, mix)) = %d, want %d", name, got, want)
		}
		if got := par.Sum(f); got != n*(n-1)/2 {
			t.Errorf("%s: par.Sum(it) = %d, want %d", name, got, n*(n-1)/2)
		}
		if got, ok := par.Max(f); !ok || got != n-1 {
			t.Errorf("%s: par.Max(it) = %d, %v", name, got, ok)
		}
	}
	// What the box points to must still move to the heap with the
	// pipeline: FromSeq's store lives on in the result of par.Map and is
	// used again by every terminal operation. (With specOf hiding that
	// flow too, the store stayed in this frame, and the second Collect
	// indexed out of range.)
	seq := par.Map(par.FromSeq((&counted{n: n}).seq), func(i int) int { return i * i })
	for k := range 3 {
		if got := seq.Collect(); len(got) != n || got[n-1] != (n-1)*(n-1) {
			t.Fatalf("par.Map over FromSeq, Collect %d: %d items", k, len(got))
		}
	}
}
