package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// scratch is a per-goroutine state whose field is written without
// synchronisation: two goroutines using one at once is a race the detector
// reports.
type scratch struct {
	uses int
	buf  []int
}

// initCounter makes scratch values and counts them.
type initCounter struct{ made atomic.Int64 }

func (c *initCounter) init() *scratch {
	c.made.Add(1)
	return &scratch{buf: make([]int, 0, 16)}
}

// use is a call of f that works on the state: the result depends on x
// only, the state being scratch space.
func use(s *scratch, x int) int {
	s.uses++
	s.buf = append(s.buf[:0], x, x)
	return s.buf[0] + s.buf[1]
}

// TestMapInitCalls: init is called at most once per participant, whatever
// the number of items, blocks, batches and operations, where Rayon's
// map_init calls it per split (its issue 718: about 2,000 times for 4,000
// items). Without the free list (init per block) this fails at once.
func TestMapInitCalls(t *testing.T) {
	n := 1 << 20
	if race.Enabled {
		n = 1 << 16
	}
	for _, workers := range []int{1, 2, 4, 8} {
		pool := newPool(t, workers)
		for _, items := range []int{4000, n} {
			c := &initCounter{}
			it := par.MapInit(par.Range(0, items).WithPool(pool), c.init, use)
			want := items * (items - 1) // the sum of 2x
			for range 3 {
				if got := par.Sum(it); got != want {
					t.Fatalf("Sum %d, want %d", got, want)
				}
			}
			// The caller and the workers: while the caller runs its first
			// block, a worker may take the rest and start the others.
			if m := c.made.Load(); m < 1 || m > int64(workers+1) {
				t.Fatalf("%d workers, %d items: init called %d times", workers, items, m)
			}
		}
		// Over FromSeq: a loop per batch, the values reused by all.
		c := &initCounter{}
		it := par.MapInit(par.FromSeq((&counted{n: n}).seq).WithPool(pool), c.init, use)
		if got := par.Sum(it); got != n*(n-1) {
			t.Fatalf("FromSeq Sum %d", got)
		}
		if m := c.made.Load(); m > int64(workers+1) {
			t.Fatalf("%d workers, FromSeq: init called %d times", workers, m)
		}
	}
	// Blocking: at most the limit.
	c := &initCounter{}
	par.ForEachInit(par.Range(0, 2000).Blocking(8), c.init, func(s *scratch, x int) { use(s, x) })
	if m := c.made.Load(); m < 1 || m > 8 {
		t.Fatalf("Blocking(8): init called %d times", m)
	}
}

// TestMapInitEveryOperation: every operation of par gives after a MapInit
// stage what it gives after the same Map, in the pool and the Blocking
// drivers, with each state used by one goroutine at a time (run with
// -race). An operation that runs its blocks without checking out the
// stage's state hits the stage's placeholder, which panics ("ran without
// its state"): Fold, Partition and ForEachIndex did, before 4430534. The
// table must have a row for every exported method of Iter and every
// exported function that takes an Iterator (mapInitAPI lists them from the
// source), so a new operation fails here until it has one.
func TestMapInitEveryOperation(t *testing.T) {
	n := 200_000
	if race.Enabled {
		n = 20_000
	}
	odd := func(x int) bool { return x%4 == 2 }
	sumOf := func(xs []int) string {
		s := 0
		for _, x := range xs {
			s += x
		}
		return fmt.Sprint(len(xs), s)
	}
	collect := func(it par.Iter[int]) string { return sumOf(it.Collect()) }
	ops := map[string]func(it par.Iter[int]) string{
		// Iter's methods: the terminal operations.
		"Iter.ForEach": func(it par.Iter[int]) string {
			var sum atomic.Int64
			it.ForEach(func(x int) { sum.Add(int64(x)) })
			return fmt.Sprint(sum.Load())
		},
		"Iter.ForEachIndex": func(it par.Iter[int]) string {
			var sum atomic.Int64
			it.ForEachIndex(func(i, x int) { sum.Add(int64(i ^ x)) })
			return fmt.Sprint(sum.Load())
		},
		"Iter.Reduce": func(it par.Iter[int]) string {
			return fmt.Sprint(it.Reduce(func() int { return 0 }, func(a, b int) int { return a + b }))
		},
		"Iter.TryReduce": func(it par.Iter[int]) string {
			v, err := it.TryReduce(func() int { return 0 }, func(a, b int) (int, error) { return a + b, nil })
			return fmt.Sprint(v, err)
		},
		"Iter.Count":   func(it par.Iter[int]) string { return fmt.Sprint(it.Filter(odd).Count()) },
		"Iter.Collect": collect,
		"Iter.Len":     func(it par.Iter[int]) string { return fmt.Sprint(it.Len()) },
		"Iter.Any":     func(it par.Iter[int]) string { return fmt.Sprint(it.Any(func(x int) bool { return x == n })) },
		"Iter.Every":   func(it par.Iter[int]) string { return fmt.Sprint(it.Every(func(x int) bool { return x%2 == 0 })) },
		"Iter.Find": func(it par.Iter[int]) string {
			v, ok := it.Find(func(x int) bool { return x == 2*(n/3) })
			return fmt.Sprint(v, ok)
		},
		"Iter.FindFirst": func(it par.Iter[int]) string {
			v, ok := it.FindFirst(func(x int) bool { return x > n })
			return fmt.Sprint(v, ok)
		},
		"Iter.TryForEach": func(it par.Iter[int]) string {
			var sum atomic.Int64
			err := it.TryForEach(func(x int) error { sum.Add(int64(x)); return nil })
			return fmt.Sprint(sum.Load(), err)
		},
		"Iter.TryForEachContext": func(it par.Iter[int]) string {
			var sum atomic.Int64
			err := it.TryForEachContext(func(_ context.Context, x int) error { sum.Add(int64(x)); return nil })
			return fmt.Sprint(sum.Load(), err)
		},
		"Iter.Partition": func(it par.Iter[int]) string {
			yes, no := it.Partition(odd)
			return sumOf(yes) + " " + sumOf(no)
		},
		"Iter.Values": func(it par.Iter[int]) string { return sumOf(slices.Collect(it.Values())) },
		"Iter.All": func(it par.Iter[int]) string {
			s := 0
			for i, x := range it.All() {
				s += i ^ x
			}
			return fmt.Sprint(s)
		},
		// Iter's adapters and settings: each composes with the stage.
		"Iter.Map":           func(it par.Iter[int]) string { return collect(it.Map(func(x int) int { return x + 1 })) },
		"Iter.Filter":        func(it par.Iter[int]) string { return collect(it.Filter(odd)) },
		"Iter.WithPool":      func(it par.Iter[int]) string { return collect(it.WithPool(par.DefaultPool())) },
		"Iter.WithContext":   func(it par.Iter[int]) string { return collect(it.WithContext(context.Background())) },
		"Iter.Blocking":      func(it par.Iter[int]) string { return collect(it.Blocking(3)) },
		"Iter.WithBlockSize": func(it par.Iter[int]) string { return collect(it.WithBlockSize(1, 64)) },
		"Iter.WithBuffer":    func(it par.Iter[int]) string { return sumOf(slices.Collect(it.WithBuffer(7).Values())) },
		"Iter.WithMemory": func(it par.Iter[int]) string {
			return sortedDigest(par.CountBySorted(it.WithMemory(1), func(x int) int { return x % 1000 }))
		},
		"Iter.WithTempDir": func(it par.Iter[int]) string {
			return sortedDigest(par.CountBySorted(it.WithMemory(1).WithTempDir(os.TempDir(), 0), func(x int) int { return x % 1000 }))
		},
		"Iter.Unordered": func(it par.Iter[int]) string {
			return fmt.Sprint(par.Fold(it.Unordered(), func() int { return 0 }, func(a, x int) int { return a + x }, func(a, b int) int { return a + b }))
		},
		"Iter.WithProgress": func(it par.Iter[int]) string {
			var last atomic.Int64
			out := collect(it.WithProgress(func(done, total int) { last.Store(int64(done)) }))
			return fmt.Sprint(out, last.Load())
		},
		"Iter.WithTimeline": func(it par.Iter[int]) string {
			var tl par.Timeline
			return collect(it.WithTimeline(&tl))
		},
		"Iter.WithStats": func(it par.Iter[int]) string {
			var st par.Stats
			return collect(it.WithStats(&st))
		},
		"Iter.WithSlow": func(it par.Iter[int]) string {
			return collect(it.WithSlow(time.Nanosecond, func() {}))
		},
		// The functions that take an Iterator.
		"Sum": func(it par.Iter[int]) string { return fmt.Sprint(par.Sum(it)) },
		"Fold": func(it par.Iter[int]) string {
			return fmt.Sprint(par.Fold(it, func() int { return 0 }, func(a, x int) int { return a ^ x }, func(a, b int) int { return a ^ b }))
		},
		"Min":     func(it par.Iter[int]) string { v, ok := par.Min(it); return fmt.Sprint(v, ok) },
		"Max":     func(it par.Iter[int]) string { v, ok := par.Max(it); return fmt.Sprint(v, ok) },
		"MinFunc": func(it par.Iter[int]) string { v, ok := par.MinFunc(it, cmp.Compare[int]); return fmt.Sprint(v, ok) },
		"MaxFunc": func(it par.Iter[int]) string { v, ok := par.MaxFunc(it, cmp.Compare[int]); return fmt.Sprint(v, ok) },
		"TryMap": func(it par.Iter[int]) string {
			out, err := par.TryMap(it, func(x int) (int, error) { return x / 2, nil })
			return fmt.Sprint(sumOf(out), err)
		},
		"TryMapContext": func(it par.Iter[int]) string {
			out, err := par.TryMapContext(it, func(_ context.Context, x int) (int, error) { return x / 2, nil })
			return fmt.Sprint(sumOf(out), err)
		},
		"Map": func(it par.Iter[int]) string { return collect(par.Map(it, func(x int) int { return x - 1 })) },
		"FilterMap": func(it par.Iter[int]) string {
			return collect(par.FilterMap(it, func(x int) (int, bool) { return x, odd(x) }))
		},
		"FlatMap": func(it par.Iter[int]) string {
			return collect(par.FlatMap(it, func(x int) []int { return []int{x, 1} }))
		},
		"MapInit": func(it par.Iter[int]) string {
			c2 := &initCounter{}
			return fmt.Sprint(par.Sum(par.MapInit(it, c2.init, use)))
		},
		// The index adapters (adapters.go), on both sides where they take two.
		"Iter.Take":  func(it par.Iter[int]) string { return collect(it.Take(n / 3)) },
		"Iter.Skip":  func(it par.Iter[int]) string { return collect(it.Skip(n / 3)) },
		"Iter.Chain": func(it par.Iter[int]) string { return collect(it.Take(n / 2).Chain(it.Skip(n / 2))) },
		"Chain":      func(it par.Iter[int]) string { return collect(par.Chain(it.Filter(odd), it)) },
		"Enumerate": func(it par.Iter[int]) string {
			return collect(par.Map(par.Enumerate(it), func(p par.Pair[int, int]) int { return p.Key ^ p.Value }))
		},
		"Zip": func(it par.Iter[int]) string {
			return collect(par.Map(par.Zip(it.Skip(1), par.Range(0, n)), func(p par.Pair[int, int]) int { return p.Key - p.Value }))
		},
		"ZipWith": func(it par.Iter[int]) string {
			return collect(par.ZipWith(par.Range(0, n).Filter(odd), it, func(x, y int) int { return x ^ y }))
		},
		"Iter.ZipWith": func(it par.Iter[int]) string { // the method of Go 1.27 (chain_index.go) is this function
			return collect(par.ZipWith(it.Take(n/2), par.Range(0, n), func(x, y int) int { return x + y }))
		},
		"ForEachInit": func(it par.Iter[int]) string {
			var sum atomic.Int64
			par.ForEachInit(it, func() *scratch { return &scratch{} }, func(s *scratch, x int) { sum.Add(int64(use(s, x))) })
			return fmt.Sprint(sum.Load())
		},
		"Iter.ForEachErr": func(it par.Iter[int]) string {
			var sum atomic.Int64
			err := it.ForEachErr(func(x int) error {
				sum.Add(int64(x))
				if x%1000 == 2 {
					return errors.New("odd")
				}
				return nil
			})
			return fmt.Sprint(sum.Load(), len(err.(interface{ Unwrap() []error }).Unwrap()))
		},
		"MapErr": func(it par.Iter[int]) string {
			out, err := par.MapErr(it, func(x int) (int, error) { return x / 2, nil })
			return fmt.Sprint(sumOf(out), err)
		},
		"TryFold": func(it par.Iter[int]) string {
			v, err := par.TryFold(it, func() int { return 0 }, func(a, x int) (int, error) { return a ^ x, nil }, func(a, b int) int { return a ^ b })
			return fmt.Sprint(v, err)
		},
		"TryFoldMerge": func(it par.Iter[int]) string {
			v, err := par.TryFoldMerge(it, func() int { return 0 }, func(a, x int) (int, error) { return a ^ x, nil },
				func(a, b int) (int, error) { return a ^ b, nil })
			return fmt.Sprint(v, err)
		},
		"TryMapInit": func(it par.Iter[int]) string {
			out, err := par.TryMapInit(it, func() *scratch { return &scratch{} }, func(s *scratch, x int) (int, error) { return use(s, x), nil })
			return fmt.Sprint(sumOf(out), err)
		},
		// The keyed operations (keyed_test.go's digest keeps order).
		"GroupBy": func(it par.Iter[int]) string { return keyedDigest(par.GroupBy(it, func(x int) int { return x % 7 })) },
		"GroupByKey": func(it par.Iter[int]) string {
			return keyedDigest(par.GroupByKey(it, func(x int) (int, int) { return x % 7, x / 3 }))
		},
		"ReduceByKey": func(it par.Iter[int]) string {
			return fmt.Sprint(par.ReduceByKey(it, func(x int) (int, affine) { return x % 7, affineOf(x) }, compose))
		},
		"CountBy": func(it par.Iter[int]) string { return fmt.Sprint(par.CountBy(it, func(x int) int { return x % 7 })) },
		"CollectMap": func(it par.Iter[int]) string {
			return fmt.Sprint(par.CollectMap(it, func(x int) (int, int) { return x % 7, x }))
		},
		"Distinct": func(it par.Iter[int]) string {
			return keyedDigest(map[int][]int{0: par.Distinct(par.Map(it, func(x int) int { return x % 1000 }))})
		},
		"Counts": func(it par.Iter[int]) string {
			return fmt.Sprint(par.Counts(par.Map(it, func(x int) int { return x % 7 })))
		},
		"CountBySorted": func(it par.Iter[int]) string {
			return sortedDigest(par.CountBySorted(it.WithMemory(1), func(x int) int { return x % 7 }))
		},
		"ReduceByKeySorted": func(it par.Iter[int]) string {
			return sortedDigest(par.ReduceByKeySorted(it.WithMemory(1), func(x int) (int, int) { return x % 7, x }, func(a, b int) int { return a + b }))
		},
		"GroupBySorted": func(it par.Iter[int]) string {
			// The groups, sorted: their items come in no particular order.
			g := par.GroupBySorted(it.WithMemory(1), func(x int) int { return x % 7 })
			var b strings.Builder
			for k, xs := range g.All() {
				fmt.Fprintf(&b, "%d:%v ", k, slices.Sorted(slices.Values(xs)))
			}
			if err := g.Err(); err != nil {
				return err.Error()
			}
			return b.String()
		},
		"DistinctSorted": func(it par.Iter[int]) string {
			d := par.DistinctSorted(par.Map(it.WithMemory(1), func(x int) int { return x % 1000 }))
			return fmt.Sprint(slices.Collect(d.Keys()), d.Err())
		},
		"Results": func(it par.Iter[int]) string {
			sum := 0
			for x, err := range par.Results(it, func(x int) (int, error) { return x / 2, nil }) {
				sum += x
				if err != nil {
					return err.Error()
				}
			}
			return fmt.Sprint(sum)
		},
		"Iter.Err": func(it par.Iter[int]) string { return fmt.Sprint(it.Count(), it.Err()) },
		"TryForEachInit": func(it par.Iter[int]) string {
			var sum atomic.Int64
			err := par.TryForEachInit(it, func() *scratch { return &scratch{} }, func(s *scratch, x int) error {
				sum.Add(int64(use(s, x)))
				return nil
			})
			return fmt.Sprint(sum.Load(), err)
		},
	}
	for _, name := range mapInitAPI(t) {
		if ops[name] == nil {
			t.Errorf("%s has no row in TestMapInitEveryOperation's table: add one that runs it after MapInit", name)
		}
	}
	// run calls op, turning a panic (the placeholder's) into its result.
	run := func(op func(par.Iter[int]) string, it par.Iter[int]) (out string) {
		defer func() {
			if r := recover(); r != nil {
				msg, _, _ := strings.Cut(fmt.Sprint(r), "\n")
				out = "panic: " + msg
			}
		}()
		return op(it)
	}
	for _, mode := range []struct {
		name  string
		items int // the ops read n
		set   func(par.Iter[int]) par.Iter[int]
	}{
		{"pool", n, func(it par.Iter[int]) par.Iter[int] { return it }},
		{"blocking", n / 10, func(it par.Iter[int]) par.Iter[int] { return it.Blocking(4) }},
	} {
		n = mode.items
		c := &initCounter{}
		plain := mode.set(par.Map(par.Range(0, n), func(x int) int { return 2 * x }))
		withInit := mode.set(par.MapInit(par.Range(0, n), c.init, use))
		for name, op := range ops {
			if got, want := run(op, withInit), run(op, plain); got != want {
				t.Errorf("%s, %s: %s with MapInit, %s with Map", mode.name, name, got, want)
			}
		}
		if m, most := c.made.Load(), int64(max(par.DefaultPool().Workers(), 4)+3); m > most {
			t.Errorf("%s: init called %d times over %d operations", mode.name, m, len(ops))
		}
	}
}

// mapInitAPI lists, from par's source, the operations that can follow a
// MapInit stage: "Iter.Name" for each exported method of Iter, and the
// name of each exported function that takes an Iterator.
func mapInitAPI(t *testing.T) []string {
	t.Helper()
	var names []string
	typ := reflect.TypeFor[par.Iter[int]]()
	for i := range typ.NumMethod() {
		names = append(names, "Iter."+typ.Method(i).Name)
	}
	for _, fn := range exportedFuncs(t) {
		if fn.Recv != nil {
			continue
		}
		for _, p := range fn.Type.Params.List {
			if strings.HasPrefix(types.ExprString(p.Type), "Iterator[") {
				names = append(names, fn.Name.Name)
				break
			}
		}
	}
	if len(names) < 30 {
		t.Fatalf("found only %d operations (%v): is the source where the test runs?", len(names), names)
	}
	return names
}

// exportedFuncs returns the exported functions, and the exported methods
// of exported types, declared in par's non-test source, read from the
// folder the test runs in. (An unexported type's methods, such as those
// that implement an interface of package internal/pipe, are no API.)
func exportedFuncs(t *testing.T) []*ast.FuncDecl {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var fns []*ast.FuncDecl
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || !inBuild(path) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.IsExported() && (fn.Recv == nil || recvExported(fn)) {
				fns = append(fns, fn)
			}
		}
	}
	return fns
}

// recvExported reports whether the receiver type of method fn is exported.
func recvExported(fn *ast.FuncDecl) bool {
	typ := fn.Recv.List[0].Type
	for {
		switch t := typ.(type) {
		case *ast.StarExpr:
			typ = t.X
		case *ast.IndexExpr:
			typ = t.X
		case *ast.IndexListExpr:
			typ = t.X
		case *ast.Ident:
			return t.IsExported()
		default:
			return true
		}
	}
}

// TestMapInitBadInput: nil functions are refused where the pipeline is
// built; an empty input never calls init; a panic in init or f reaches the
// caller as a *par.Panic, and the pipeline still works afterwards.
func TestMapInitBadInput(t *testing.T) {
	for name, build := range map[string]func(){
		"MapInit (init)":     func() { par.MapInit(par.Range(0, 1), nil, use) },
		"MapInit":            func() { par.MapInit[int, *scratch, int](par.Range(0, 1), (&initCounter{}).init, nil) },
		"ForEachInit (init)": func() { par.ForEachInit[int, *scratch](par.Range(0, 1), nil, func(*scratch, int) {}) },
		"ForEachInit":        func() { par.ForEachInit[int, *scratch](par.Range(0, 1), (&initCounter{}).init, nil) },
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, "par."+name+" was given a nil function") {
					t.Errorf("%s: panic %q", name, msg)
				}
			}()
			build()
		}()
	}

	c := &initCounter{}
	par.ForEachInit(par.Range(0, 0), c.init, func(*scratch, int) { t.Error("an item of an empty range") })
	par.ForEachInit(par.Range(3, -3), c.init, func(*scratch, int) { t.Error("an item of a reversed range") })
	if m := c.made.Load(); m != 0 {
		t.Errorf("init called %d times on empty input", m)
	}

	errInit, errF := errors.New("init failed"), errors.New("f failed")
	for name, it := range map[string]par.Iter[int]{
		"init": par.MapInit(par.Range(0, 1000), func() *scratch { panic(errInit) }, use),
		"f": par.MapInit(par.Range(0, 100_000), (&initCounter{}).init, func(s *scratch, x int) int {
			if x == 77_777 {
				panic(errF)
			}
			return use(s, x)
		}),
	} {
		func() {
			defer func() {
				v := recover()
				var p *par.Panic
				if e, ok := v.(error); !ok || !errors.As(e, &p) || !(errors.Is(e, errInit) || errors.Is(e, errF)) {
					t.Errorf("%s panicked: recovered %v", name, v)
				}
			}()
			par.Sum(it)
		}()
	}
	c = &initCounter{}
	it := par.MapInit(par.Range(0, 100), c.init, use)
	if par.Sum(it) != 9900 || par.Sum(it) != 9900 {
		t.Error("wrong sum")
	}
}

// TestForEachInitGoexit: runtime.Goexit in f (t.Fatal) on the caller's
// goroutine, with a one-worker pool that runs every item there, ends the
// caller's goroutine.
func TestForEachInitGoexit(t *testing.T) {
	pool := newPool(t, 1)
	after := false
	if !goexitOf(func() {
		par.ForEachInit(par.Range(0, 100).WithPool(pool), (&initCounter{}).init, func(s *scratch, x int) {
			if x == 50 {
				goruntime.Goexit()
			}
		})
		after = true
	}) || after {
		t.Fatal("Goexit in f did not end the caller's goroutine")
	}
}

// sortedDigest is the entries of s in the order All gives them, or its
// error.
func sortedDigest(s *par.Sorted[int, int]) string {
	var b strings.Builder
	for k, n := range s.All() {
		fmt.Fprintf(&b, "%d:%d ", k, n)
	}
	if err := s.Err(); err != nil {
		return err.Error()
	}
	return b.String()
}
