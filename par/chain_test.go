//go:build go1.27

package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// The Go 1.27 methods of chain.go: each chains, compiles where the same-type
// code of older toolchains did, and gives what the function of the same
// name gives. The rest of the suite runs unchanged on both toolchains (CI
// runs it with Go 1.26 and with Go 1.27), so the old forms are checked too.

// TestChainEveryStep: one pipeline per type-changing step, written as a
// chain, against the same pipeline written with the functions.
func TestChainEveryStep(t *testing.T) {
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = fmt.Sprintf("%d x%d %d", i, i%7, i*3)
	}
	parse := func(s string) (int, error) {
		f, _, _ := strings.Cut(s, " ")
		return strconv.Atoi(f)
	}
	ok := func(n int) bool { return n%3 != 0 }
	src := par.Slice(lines)
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the chained form differs from the function's", name)
		}
	}

	// The shape: Map to a new type, Filter, then a type-changing
	// terminal step.
	atoi := func(s string) int { n, _ := parse(s); return n }
	check("Map.Filter.Fold",
		src.Map(atoi).Filter(ok).Fold(func() int { return 0 }, func(a, n int) int { return a + n }, func(a, b int) int { return a + b }),
		par.Fold(par.Slice(lines).Map(atoi).Filter(ok), func() int { return 0 }, func(a, n int) int { return a + n }, func(a, b int) int { return a + b }))
	check("Map", src.Map(atoi).Collect(), par.Map(src, atoi).Collect())
	check("FilterMap", src.FilterMap(func(s string) (int, bool) { n, err := parse(s); return n, err == nil && ok(n) }).Collect(),
		par.FilterMap(src, func(s string) (int, bool) { n, err := parse(s); return n, err == nil && ok(n) }).Collect())
	check("FlatMap", src.FlatMap(strings.Fields).Collect(), par.FlatMap(src, strings.Fields).Collect())
	newBuf := func() *strings.Builder { return new(strings.Builder) }
	upper := func(b *strings.Builder, s string) string {
		b.Reset()
		b.WriteString(strings.ToUpper(s))
		return b.String()
	}
	check("MapInit", src.MapInit(newBuf, upper).Collect(), par.MapInit(src, newBuf, upper).Collect())
	var n1, n2 atomic.Int64
	src.ForEachInit(newBuf, func(b *strings.Builder, s string) { n1.Add(int64(len(upper(b, s)))) })
	par.ForEachInit(src, newBuf, func(b *strings.Builder, s string) { n2.Add(int64(len(upper(b, s)))) })
	check("ForEachInit", n1.Load(), n2.Load())

	r1, e1 := src.TryMap(parse)
	r2, e2 := par.TryMap(src, parse)
	check("TryMap", [2]any{r1, e1}, [2]any{r2, e2})
	bad := func(s string) (int, error) {
		n, err := parse(s)
		if n == 4321 {
			return 0, errors.New("4321")
		}
		return n, err
	}
	_, e1 = src.TryMap(bad)
	_, e2 = par.TryMap(src, bad)
	check("TryMap error", e1.Error(), e2.Error())
	withCtx := func(_ context.Context, s string) (int, error) { return parse(s) }
	r1, e1 = src.TryMapContext(withCtx)
	r2, e2 = par.TryMapContext(src, withCtx)
	check("TryMapContext", [2]any{r1, e1}, [2]any{r2, e2})
	parseIn := func(b *strings.Builder, s string) (int, error) { upper(b, s); return parse(s) }
	r1, e1 = src.TryMapInit(newBuf, parseIn)
	r2, e2 = par.TryMapInit(src, newBuf, parseIn)
	check("TryMapInit", [2]any{r1, e1}, [2]any{r2, e2})
	failIn := func(b *strings.Builder, s string) error { _, err := bad(s); return err }
	check("TryForEachInit", src.TryForEachInit(newBuf, failIn).Error(), par.TryForEachInit(src, newBuf, failIn).Error())
	r1, e1 = src.MapErr(bad)
	r2, e2 = par.MapErr(src, bad)
	check("MapErr", [2]any{r1, e1.Error()}, [2]any{r2, e2.Error()})

	// The keyed operations, on a chain.
	word := func(s string) string { return strings.Fields(s)[1] }
	nums := src.Map(atoi)
	check("GroupBy", src.GroupBy(word), par.GroupBy(src, word))
	kv := func(s string) (string, int) { return word(s), atoi(s) }
	check("GroupByKey", src.GroupByKey(kv), par.GroupByKey(src, kv))
	add := func(a, b int) int { return a + b }
	check("ReduceByKey", src.ReduceByKey(kv, add), par.ReduceByKey(src, kv, add))
	check("CountBy", src.FlatMap(strings.Fields).CountBy(strings.ToUpper), par.CountBy(par.FlatMap(src, strings.Fields), strings.ToUpper))
	check("CollectMap", src.CollectMap(kv), par.CollectMap(src, kv))
	check("CountBySorted", sortedEntries(src.FlatMap(strings.Fields).CountBySorted(strings.ToUpper)),
		sortedEntries(par.CountBySorted(par.FlatMap(src, strings.Fields), strings.ToUpper)))
	check("ReduceByKeySorted", sortedEntries(src.ReduceByKeySorted(kv, add)), sortedEntries(par.ReduceByKeySorted(src, kv, add)))
	check("Map.GroupBy", nums.GroupBy(func(n int) int { return n % 10 }), par.GroupBy(par.Map(src, atoi), func(n int) int { return n % 10 }))

	// Ints: ReduceBlocks with the range's settings; Map keeps a numeric
	// iterator, with Sum, also to another number type.
	block := func(lo, hi int) int {
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		return s
	}
	check("Ints.ReduceBlocks", par.Range(0, 100_000).WithBlockSize(100, 1000).ReduceBlocks(block, add),
		par.ReduceBlocks(par.Range(0, 100_000).WithBlockSize(100, 1000), block, add))
	sqrt := func(i int) float64 { return math.Sqrt(float64(i)) }
	check("Nums.Map to float64", par.Range(0, 10_000).Map(sqrt).Sum(), par.Sum(par.Map(par.Range(0, 10_000), sqrt)))
	check("Nums.Map, same type", par.Range(0, 10_000).Map(func(i int) int { return 2 * i }).Sum(), 2*par.Range(0, 10_000).Sum())
}

// TestChainOldFormsCompile: the code of older toolchains, written for the
// same-type Map methods, compiles and runs unchanged with Go 1.27: the
// result type is inferred from f. (A nil f needs its type written out.)
func TestChainOldFormsCompile(t *testing.T) {
	double := func(x int) int { return 2 * x }
	var it par.Iter[int] = par.Slice([]int{1, 2, 3}).Map(double)
	var ns par.Nums[int] = par.Numbers([]int{1, 2, 3}).Map(double)
	var fromRange par.Nums[int] = par.Range(0, 4).Map(double)
	if got := par.Range(0, 4).Map(double).Sum(); got != 12 {
		t.Errorf("Range(0, 4).Map(double).Sum() = %d, want 12", got)
	}
	if got := it.Collect(); !slices.Equal(got, []int{2, 4, 6}) {
		t.Errorf("Slice.Map(double) = %v", got)
	}
	if ns.Sum() != 12 || fromRange.Sum() != 12 {
		t.Errorf("Nums.Map sums: %d and %d, want 12", ns.Sum(), fromRange.Sum())
	}
}

// TestChainKeyedMethods: the keyed methods keep their functions' rules:
// groups in source order, the last value of a key wins, counts.
func TestChainKeyedMethods(t *testing.T) {
	xs := []int{5, 3, 8, 3, 1, 8, 8}
	byParity := par.Slice(xs).GroupBy(func(x int) bool { return x%2 == 0 })
	if !slices.Equal(byParity[false], []int{5, 3, 3, 1}) || !slices.Equal(byParity[true], []int{8, 8, 8}) {
		t.Errorf("GroupBy(even) = %v", byParity)
	}
	last := par.Range(0, len(xs)).CollectMap(func(i int) (int, int) { return xs[i], i })
	if want := map[int]int{5: 0, 3: 3, 8: 6, 1: 4}; !maps.Equal(last, want) {
		t.Errorf("CollectMap = %v, want %v (the last index of each value)", last, want)
	}
	counts := par.Slice(xs).CountBy(func(x int) int { return x })
	if want := map[int]int{5: 1, 3: 2, 8: 3, 1: 1}; !maps.Equal(counts, want) {
		t.Errorf("CountBy = %v, want %v", counts, want)
	}
	smallest := par.Slice(xs).ReduceByKey(func(x int) (bool, int) { return x > 4, x }, func(a, b int) int { return min(a, b) })
	if smallest[true] != 5 || smallest[false] != 1 {
		t.Errorf("ReduceByKey(min) = %v", smallest)
	}
}

// TestChainIntsReduceBlocks: the method Ints.ReduceBlocks is the function
// ReduceBlocks: the same result for an op that is not commutative, with the
// range's settings (Blocking included), the zero value over an empty range,
// and a result type of its own, inferred from body.
func TestChainIntsReduceBlocks(t *testing.T) {
	const n = 2000
	digits := func(lo, hi int) string {
		var b strings.Builder
		for i := lo; i < hi; i++ {
			b.WriteString(strconv.Itoa(i % 10))
		}
		return b.String()
	}
	concat := func(a, b string) string { return a + b }
	want := digits(0, n)
	for name, r := range map[string]par.Ints{
		"Range":           par.Range(0, n),
		"WithBlockSize":   par.Range(0, n).WithBlockSize(1, 7),
		"Blocking(3)":     par.Range(0, n).Blocking(3),
		"Unordered":       par.Range(0, n).Unordered(),
		"WithContext":     par.Range(0, n).WithContext(context.Background()),
		"Blocking, sized": par.Range(0, n).Blocking(2).WithBlockSize(50, 0),
	} {
		var calls atomic.Int64
		counted := func(lo, hi int) string { calls.Add(1); return digits(lo, hi) }
		if got := r.ReduceBlocks(counted, concat); got != want {
			t.Errorf("%s: Ints.ReduceBlocks gives %d digits out of order or missing", name, len(got))
		}
		if got := par.ReduceBlocks(r, digits, concat); got != want {
			t.Errorf("%s: the function ReduceBlocks differs", name)
		}
		if calls.Load() == 0 {
			t.Errorf("%s: Ints.ReduceBlocks called no body", name)
		}
	}
	var longest int = par.Range(5, 5).ReduceBlocks(func(lo, hi int) int { return hi - lo }, func(a, b int) int { return max(a, b) })
	if longest != 0 {
		t.Errorf("over an empty range Ints.ReduceBlocks = %d, want 0", longest)
	}
}

// sortedEntries reads s whole: its entries in order, and its error.
func sortedEntries[K cmp.Ordered, V any](s *par.Sorted[K, V]) []any {
	var out []any
	for k, v := range s.All() {
		out = append(out, k, v)
	}
	return append(out, s.Err())
}
