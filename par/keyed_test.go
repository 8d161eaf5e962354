package par_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// The keyed operations against sequential models: the loops their godoc
// shows, run over the same items.

func groupModel(xs []int, key func(int) int) map[int][]int {
	m := map[int][]int{}
	for _, x := range xs {
		m[key(x)] = append(m[key(x)], x)
	}
	return m
}

func countModel(xs []int, key func(int) int) map[int]int {
	m := map[int]int{}
	for _, x := range xs {
		m[key(x)]++
	}
	return m
}

// affine is ReduceByKey's value in the tests: the map x -> a*x + b of
// 64-bit numbers, and the number of items composed into it. Composition is
// associative and not commutative, so values combined out of source order
// show.
type affine struct {
	a, b uint64
	n    int
}

func affineOf(x int) affine { return affine{2*uint64(x) + 1, uint64(x)*40503 + 17, 1} }

// compose is f, then g.
func compose(f, g affine) affine { return affine{g.a * f.a, g.a*f.b + g.b, f.n + g.n} }

func affineKV(key func(int) int) func(int) (int, affine) {
	return func(x int) (int, affine) { return key(x), affineOf(x) }
}

// composeModel is ReduceByKey's model with compose.
func composeModel(xs []int, key func(int) int) map[int]affine {
	m := map[int]affine{}
	for _, x := range xs {
		if acc, ok := m[key(x)]; ok {
			m[key(x)] = compose(acc, affineOf(x))
		} else {
			m[key(x)] = affineOf(x)
		}
	}
	return m
}

// lastModel is CollectMap's model: the last value of a key wins.
func lastModel(xs []int, key func(int) int) map[int]int {
	m := map[int]int{}
	for _, x := range xs {
		m[key(x)] = x
	}
	return m
}

func distinctModel(xs []int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// keyedDigest sums up groups in one line, their order within each group
// included.
func keyedDigest(m map[int][]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		h := uint64(0)
		for _, x := range m[k] {
			h = mix(h ^ uint64(x))
		}
		fmt.Fprintf(&b, "%d:%d:%x ", k, len(m[k]), h)
	}
	return b.String()
}

// keyedSources build an iterator over exactly the items xs, in order, on
// pool p, through each kind of source and adapter: a slice, a mapped range,
// a sequence, a FlatMap of chunks, a Filter that drops items between them.
var keyedSources = []struct {
	name string
	make func(p *runtime.Pool, xs []int) par.Iter[int]
}{
	{"Slice", func(p *runtime.Pool, xs []int) par.Iter[int] { return par.Slice(xs).WithPool(p) }},
	{"Range.Map", func(p *runtime.Pool, xs []int) par.Iter[int] {
		return par.Map(par.Range(0, len(xs)).WithPool(p), func(i int) int { return xs[i] })
	}},
	{"FromSeq", func(p *runtime.Pool, xs []int) par.Iter[int] { return par.FromSeq(slices.Values(xs)).WithPool(p) }},
	{"FlatMap", func(p *runtime.Pool, xs []int) par.Iter[int] {
		return par.FlatMap(par.Chunks(xs, 3).WithPool(p), func(c []int) []int { return c })
	}},
	{"Filter", func(p *runtime.Pool, xs []int) par.Iter[int] {
		ys := make([]int, 0, 2*len(xs))
		for _, x := range xs {
			ys = append(ys, x, -1)
		}
		return par.Slice(ys).WithPool(p).Filter(func(y int) bool { return y != -1 })
	}},
}

// keyedItems returns n items drawn from [0, universe), and a key of
// modulus mod: universe 1 gives one item, a universe of 2^40 items that
// are all distinct (almost surely), a mod of 2^62 a key per item.
func keyedItems(n int, universe, mod uint64) ([]int, func(int) int) {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = int(mixInt(i) % universe)
	}
	return xs, func(x int) int { return int(uint64(x) % mod) }
}

// keyedShapes are the key sets the tests run: one key, few keys with
// duplicate items, many keys, and every item distinct with its own key.
var keyedShapes = []struct {
	name          string
	universe, mod uint64
}{
	{"one key", 1, 1},
	{"7 items, 10 keys", 7, 10},
	{"1000 items, 10 keys", 1000, 10},
	{"1000 items, a key each", 1000, 1 << 62},
	{"all distinct", 1 << 40, 1 << 62},
}

// checkKeyed runs every keyed operation over it (the items xs) and compares
// each result with its model.
func checkKeyed(t *testing.T, what string, it par.Iter[int], xs []int, key func(int) int) {
	t.Helper()
	if got, want := par.GroupBy(it, key), groupModel(xs, key); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: GroupBy differs from the loop's (%d groups, want %d)", what, len(got), len(want))
	}
	neg := func(x int) (int, int) { return key(x), -x }
	gotKV, wantKV := par.GroupByKey(it, neg), map[int][]int{}
	for _, x := range xs {
		wantKV[key(x)] = append(wantKV[key(x)], -x)
	}
	if !reflect.DeepEqual(gotKV, wantKV) {
		t.Errorf("%s: GroupByKey differs from the loop's (%d groups, want %d)", what, len(gotKV), len(wantKV))
	}
	if got, want := par.CountBy(it, key), countModel(xs, key); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: CountBy differs from the loop's (%d keys, want %d)", what, len(got), len(want))
	}
	if got, want := par.ReduceByKey(it, affineKV(key), compose), composeModel(xs, key); !maps.Equal(got, want) {
		t.Errorf("%s: ReduceByKey with composition differs from the loop's (%d keys, want %d)", what, len(got), len(want))
	}
	if got, want := par.CollectMap(it, func(x int) (int, int) { return key(x), x }), lastModel(xs, key); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: CollectMap differs from the loop's, whose last value wins (%d keys, want %d)", what, len(got), len(want))
	}
	want := distinctModel(xs)
	if got := par.Distinct(it); !slices.Equal(got, want) || got == nil {
		t.Errorf("%s: Distinct gave %d items, want the %d of the loop in order of first occurrence", what, len(got), len(want))
	}
	for _, shards := range []int{0, 1, 8, 256} {
		if got := par.DistinctOn(it, shards); !slices.Equal(got, want) || got == nil {
			t.Errorf("%s: Distinct on %d shards gave %d items, want the %d of the loop in order of first occurrence", what, shards, len(got), len(want))
		}
	}
}

// TestKeyedModel: every keyed operation gives its loop's result, order
// within groups and the last-value rule included, over every kind of
// source, on 1, 2, 3 and 8 workers (2 and 8 for the larger inputs), for
// no items, one, and many, with one key, few, many, and all distinct.
func TestKeyedModel(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100, 3000, long.Pick(20_000, 6000) / race.Scale} {
		for _, shape := range keyedShapes {
			xs, key := keyedItems(n, shape.universe, shape.mod)
			for _, p := range scanPools() {
				if n >= 3000 && p.Workers()%2 == 1 {
					continue
				}
				for _, src := range keyedSources {
					what := fmt.Sprintf("%s of %d items, %s, %d workers", src.name, n, shape.name, p.Workers())
					checkKeyed(t, what, src.make(p, xs), xs, key)
				}
			}
		}
	}
}

// TestKeyedEmpty: no items give an empty map or slice, never nil.
func TestKeyedEmpty(t *testing.T) {
	id := func(x int) int { return x }
	kv := func(x int) (int, int) { return x, x }
	for _, it := range []par.Iter[int]{par.Slice([]int(nil)), par.FromSeq(slices.Values([]int{})), par.Slice([]int{1, 2}).Filter(func(int) bool { return false })} {
		if m := par.GroupBy(it, id); m == nil || len(m) != 0 {
			t.Errorf("GroupBy of no items = %#v, want an empty map", m)
		}
		if m := par.GroupByKey(it, kv); m == nil || len(m) != 0 {
			t.Errorf("GroupByKey of no items = %#v, want an empty map", m)
		}
		if m := par.CountBy(it, id); m == nil || len(m) != 0 {
			t.Errorf("CountBy of no items = %#v, want an empty map", m)
		}
		if m := par.ReduceByKey(it, kv, func(a, b int) int { return a + b }); m == nil || len(m) != 0 {
			t.Errorf("ReduceByKey of no items = %#v, want an empty map", m)
		}
		if m := par.CollectMap(it, kv); m == nil || len(m) != 0 {
			t.Errorf("CollectMap of no items = %#v, want an empty map", m)
		}
		if s := par.Distinct(it); s == nil || len(s) != 0 {
			t.Errorf("Distinct of no items = %#v, want an empty slice", s)
		}
	}
}

// TestKeyedUnordered: with Unordered the results hold the same items, in
// some order: the same groups as multisets (of items and of values), the
// same counts, sums (a commutative op), one of a key's values for
// CollectMap, and the same distinct items.
func TestKeyedUnordered(t *testing.T) {
	n := 50_000 / race.Scale
	xs, key := keyedItems(n, 3000, 100)
	for _, p := range scanPools() {
		for _, src := range keyedSources {
			what := fmt.Sprintf("%s.Unordered() on %d workers", src.name, p.Workers())
			it := src.make(p, xs).Unordered()
			groups, want := par.GroupBy(it, key), groupModel(xs, key)
			for k, g := range groups {
				slices.Sort(g)
				w := slices.Clone(want[k])
				slices.Sort(w)
				if !slices.Equal(g, w) {
					t.Errorf("%s: GroupBy's group %d holds other items than the loop's", what, k)
					break
				}
			}
			if len(groups) != len(want) {
				t.Errorf("%s: GroupBy gave %d groups, want %d", what, len(groups), len(want))
			}
			if got := par.CountBy(it, key); !maps.Equal(got, countModel(xs, key)) {
				t.Errorf("%s: CountBy differs from the loop's", what)
			}
			sums := par.ReduceByKey(it, func(x int) (int, int) { return key(x), x }, func(a, b int) int { return a + b })
			for k, g := range want {
				s := 0
				for _, x := range g {
					s += x
				}
				if sums[k] != s {
					t.Errorf("%s: ReduceByKey's sum of key %d is %d, want %d", what, k, sums[k], s)
					break
				}
			}
			cm := par.CollectMap(it, func(x int) (int, int) { return key(x), x })
			for k, v := range cm {
				if !slices.Contains(want[k], v) {
					t.Errorf("%s: CollectMap gave key %d the value %d, which no item of that key has", what, k, v)
					break
				}
			}
			if len(cm) != len(want) {
				t.Errorf("%s: CollectMap gave %d keys, want %d", what, len(cm), len(want))
			}
			negs := par.GroupByKey(it, func(x int) (int, int) { return key(x), -x })
			for k, g := range want {
				ng := slices.Clone(negs[k])
				for i := range ng {
					ng[i] = -ng[i]
				}
				slices.Sort(ng)
				w := slices.Clone(g)
				slices.Sort(w)
				if !slices.Equal(ng, w) {
					t.Errorf("%s: GroupByKey's group %d holds other values than the loop's", what, k)
					break
				}
			}
			got, wantD := par.Distinct(it), distinctModel(xs)
			slices.Sort(got)
			slices.Sort(wantD)
			if !slices.Equal(got, wantD) {
				t.Errorf("%s: Distinct gave %d items, want the loop's %d in any order", what, len(got), len(wantD))
			}
		}
	}
}

// TestKeyedExactlyOnce: each keyed operation calls its function once per
// item, and never again, on every pool size, with and without Unordered.
func TestKeyedExactlyOnce(t *testing.T) {
	n := 100_000 / race.Scale
	for _, p := range scanPools() {
		for _, unordered := range []bool{false, true} {
			for _, op := range keyedOps {
				calls := make([]atomic.Int32, n)
				it := par.Range(0, n).WithPool(p).Iter
				if unordered {
					it = it.Unordered()
				}
				op.run(it, func(i int) int { calls[i].Add(1); return i % 97 })
				for i := range calls {
					if c := calls[i].Load(); c != 1 {
						t.Fatalf("%s on %d workers (unordered %v): item %d ran %d times", op.name, p.Workers(), unordered, i, c)
					}
				}
			}
		}
	}
}

// keyedOps run each keyed operation over it with a key function f, which
// Distinct calls in a Map before it.
var keyedOps = []struct {
	name string
	run  func(it par.Iter[int], f func(int) int)
}{
	{"GroupBy", func(it par.Iter[int], f func(int) int) { par.GroupBy(it, f) }},
	{"GroupByKey", func(it par.Iter[int], f func(int) int) {
		par.GroupByKey(it, func(x int) (int, int) { return f(x), x })
	}},
	{"ReduceByKey", func(it par.Iter[int], f func(int) int) {
		par.ReduceByKey(it, func(x int) (int, int) { return f(x), x }, func(a, b int) int { return a + b })
	}},
	{"CountBy", func(it par.Iter[int], f func(int) int) { par.CountBy(it, f) }},
	{"CollectMap", func(it par.Iter[int], f func(int) int) {
		par.CollectMap(it, func(x int) (int, int) { return f(x), x })
	}},
	{"Distinct", func(it par.Iter[int], f func(int) int) { par.Distinct(par.Map(it, f)) }},
}

// TestKeyedCancelled: a context done during the operation leaves the result
// over a prefix of the source, as if the input ended there, never one with
// holes: a Range whose Map cancels at item cut, and a sequence that
// cancels at pull cut.
func TestKeyedCancelled(t *testing.T) {
	n := 200_000 / race.Scale
	xs, key := keyedItems(n, 5000, 64)
	for _, p := range scanPools() {
		for _, cut := range []int{0, 1, n / 3, n - 1} {
			for _, src := range []string{"Range", "FromSeq"} {
				what := fmt.Sprintf("%s on %d workers, cancelled at item %d", src, p.Workers(), cut)
				mk := func() par.Iter[int] {
					ctx, cancel := context.WithCancel(context.Background())
					t.Cleanup(cancel)
					if src == "FromSeq" {
						return par.FromSeq(func(yield func(int) bool) {
							for i, x := range xs {
								if i == cut {
									cancel()
								}
								if !yield(x) {
									return
								}
							}
						}).WithPool(p).WithContext(ctx)
					}
					return par.Map(par.Range(0, n).WithPool(p).WithContext(ctx), func(i int) int {
						if i == cut {
							cancel()
						}
						return xs[i]
					})
				}
				checkKeyedPrefix(t, what, mk, xs, key)
			}
		}
	}
}

// checkKeyedPrefix runs every keyed operation on a fresh iterator of mk,
// which a context cuts short, and checks that each result is its model's
// over xs[:k] for some k.
func checkKeyedPrefix(t *testing.T, what string, mk func() par.Iter[int], xs []int, key func(int) int) {
	t.Helper()
	groups := par.GroupBy(mk(), key)
	k := 0
	for _, g := range groups {
		k += len(g)
	}
	if !reflect.DeepEqual(groups, groupModel(xs[:k], key)) {
		t.Errorf("%s: GroupBy holds %d items, not the groups of the first %d", what, k, k)
	}
	counts := par.CountBy(mk(), key)
	k = 0
	for _, c := range counts {
		k += c
	}
	if !maps.Equal(counts, countModel(xs[:k], key)) {
		t.Errorf("%s: CountBy counts %d items, not the counts of the first %d", what, k, k)
	}
	composed := par.ReduceByKey(mk(), affineKV(key), compose)
	k = 0
	for _, f := range composed {
		k += f.n
	}
	if !maps.Equal(composed, composeModel(xs[:k], key)) {
		t.Errorf("%s: ReduceByKey combines %d items, not those of the first %d", what, k, k)
	}
	// CollectMap: walk the prefixes, keeping how many keys have the value
	// that the result gives them.
	last := par.CollectMap(mk(), func(x int) (int, int) { return key(x), x })
	m, same, ok := map[int]int{}, 0, len(last) == 0
	for _, x := range xs {
		if ok {
			break
		}
		k := key(x)
		if old, had := m[k]; had && old == last[k] {
			same--
		}
		m[k] = x
		if v, in := last[k]; in && v == x {
			same++
		}
		ok = same == len(last) && len(m) == len(last)
	}
	if !ok {
		t.Errorf("%s: CollectMap's %d pairs are not those of a prefix", what, len(last))
	}
	d := par.Distinct(mk())
	if full := distinctModel(xs); len(d) > len(full) || !slices.Equal(d, full[:len(d)]) {
		t.Errorf("%s: Distinct gave %d items, not the first ones of the loop's %d", what, len(d), len(full))
	}
}

// TestKeyedDoneBefore: a context done before the start gives the empty
// prefix: empty results, and no call of any function.
func TestKeyedDoneBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, op := range keyedOps {
		var calls atomic.Int32
		op.run(par.Range(0, 10_000).WithContext(ctx).Iter, func(i int) int { calls.Add(1); return i })
		if c := calls.Load(); c != 0 {
			t.Errorf("%s under a done context called its function %d times", op.name, c)
		}
	}
	if m := par.CountBy(par.Range(0, 10_000).WithContext(ctx), func(i int) int { return i }); len(m) != 0 || m == nil {
		t.Errorf("CountBy under a done context = %d keys, want an empty map", len(m))
	}
	if d := par.Distinct(par.Range(0, 10_000).WithContext(ctx)); len(d) != 0 || d == nil {
		t.Errorf("Distinct under a done context = %d items, want an empty slice", len(d))
	}
}

type keyedBoom struct{ at int }

// TestKeyedPanicAndGoexit: a panic in the key function comes back to the
// caller as a *par.Panic holding its value; a runtime.Goexit ends the
// caller's goroutine; the pool stays whole after both.
func TestKeyedPanicAndGoexit(t *testing.T) {
	n := 20_000 / race.Scale
	for _, workers := range []int{1, 2, 8} {
		p := newPool(t, workers)
		for _, op := range keyedOps {
			for _, at := range []int{0, n / 2, n - 1} {
				e := endOf(t, func() {
					op.run(par.Range(0, n).WithPool(p).Iter, func(i int) int {
						if i == at {
							panic(keyedBoom{at})
						}
						return i % 31
					})
				})
				var pv *par.Panic
				if err, _ := e.Panicked.(error); !errors.As(err, &pv) || pv.Value != (keyedBoom{at}) {
					t.Errorf("%s on %d workers, panic at %d: %v, want a *par.Panic of keyedBoom{%d}", op.name, workers, at, e, at)
				}
				what := fmt.Sprintf("%s on %d workers, Goexit at item %d of %d", op.name, workers, at, n)
				checkGoexitAt(t, what, at, func(f func(int)) {
					op.run(par.Range(0, n).WithPool(p).Iter, func(i int) int { f(i); return i % 31 })
				})
			}
			checkWhole(t, p)
		}
	}
}

// TestKeyedNilFunc: a nil function panics at once, naming the operation.
func TestKeyedNilFunc(t *testing.T) {
	it := par.Range(0, 10).Iter
	for name, f := range map[string]func(){
		"GroupBy":     func() { par.GroupBy[int, int](it, nil) },
		"GroupByKey":  func() { par.GroupByKey[int, int, int](it, nil) },
		"ReduceByKey": func() { par.ReduceByKey(it, func(x int) (int, int) { return x, x }, nil) },
		"CountBy":     func() { par.CountBy[int, int](it, nil) },
		"CollectMap":  func() { par.CollectMap[int, int, int](it, nil) },
	} {
		e := endOf(t, f)
		if msg, _ := e.Panicked.(string); !strings.Contains(msg, name) {
			t.Errorf("%s with a nil function: %v, want a panic naming it", name, e)
		}
	}
}

// TestDistinctEquality: Distinct compares as == does: +0 and -0 are one
// item, each NaN an item of its own; an interface holding an uncomparable
// value panics as a map does, as a *par.Panic.
func TestDistinctEquality(t *testing.T) {
	negZero := math.Copysign(0, -1)
	xs := []float64{0, negZero, math.NaN(), 1, math.NaN(), 1}
	for _, shards := range []int{0, 1, 8} {
		got := par.DistinctOn(par.Slice(xs), shards)
		if len(got) != 4 || got[0] != 0 || !math.IsNaN(got[1]) || got[2] != 1 || !math.IsNaN(got[3]) {
			t.Errorf("%d shards: Distinct(%v) = %v, want [0 NaN 1 NaN]", shards, xs, got)
		}
	}
	bad := []any{1, "a", []int{1}}
	for _, shards := range []int{0, 1, 8} {
		e := endOf(t, func() { par.DistinctOn(par.Slice(bad), shards) })
		if e.Panicked == nil {
			t.Errorf("%d shards: Distinct of an interface holding a slice returned, want a panic", shards)
		}
	}
}

// FuzzKeyed: over items and keys drawn from the input, on 1, 2, 3 or 8
// workers and through each kind of source, every keyed operation gives its
// loop's result.
func FuzzKeyed(f *testing.F) {
	f.Add([]byte{1, 2, 3, 1, 2, 3}, uint8(2), uint8(0), uint8(0), uint16(1))
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(7), uint8(1), uint8(2), uint16(700))
	f.Add([]byte{0}, uint8(0), uint8(3), uint8(3), uint16(9000))
	f.Add([]byte{}, uint8(1), uint8(2), uint8(4), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, mod, pool, src uint8, n uint16) {
		if len(data) == 0 {
			data = []byte{0}
		}
		xs := make([]int, int(n)%20_000)
		for i := range xs {
			xs[i] = int(data[i%len(data)]) + 256*int(data[(i/len(data))%len(data)]%4)
		}
		m := int(mod) + 1
		key := func(x int) int { return x % m }
		p := scanPools()[int(pool)%len(scanPools())]
		s := keyedSources[int(src)%len(keyedSources)]
		checkKeyed(t, fmt.Sprintf("%s of %d items, key mod %d, %d workers", s.name, len(xs), m, p.Workers()), s.make(p, xs), xs, key)
	})
}
