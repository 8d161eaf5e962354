package par_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
)

// The index adapters (adapters.go) against a sequential model: each source
// form (known positions, filtered, FlatMap, stream), each count, and every
// terminal operation over the result.

// adapterSource builds, afresh each time (a channel is drained by one
// operation), an iterator over the items xs in order, in one of the forms
// the adapters treat apart.
type adapterSource struct {
	name  string
	build func(xs []int) par.Iter[int]
}

var adapterSources = []adapterSource{
	{"Slice", func(xs []int) par.Iter[int] { return par.Slice(xs) }},
	{"Range", func(xs []int) par.Iter[int] {
		// xs is lo, lo+1, ...: the range itself, as an Iter.
		if len(xs) == 0 {
			return par.Range(0, 0).Iter
		}
		return par.Range(xs[0], xs[0]+len(xs)).Iter
	}},
	{"Map", func(xs []int) par.Iter[int] { return par.Map(par.Range(0, len(xs)), func(i int) int { return xs[i] }) }},
	{"Filter", func(xs []int) par.Iter[int] {
		// Each item of xs between two that the Filter drops.
		all := make([]int, 0, 2*len(xs)+1)
		for _, x := range xs {
			all = append(all, -1, x)
		}
		return par.Slice(append(all, -1)).Filter(func(x int) bool { return x >= 0 })
	}},
	{"FlatMap", func(xs []int) par.Iter[int] {
		// Pairs of items, and a last one alone.
		return par.FlatMap(par.Range(0, (len(xs)+1)/2), func(k int) []int { return xs[2*k : min(2*k+2, len(xs))] })
	}},
	{"FromSeq", func(xs []int) par.Iter[int] { return par.FromSeq(slices.Values(xs)) }},
	{"FromChan", func(xs []int) par.Iter[int] {
		ch := make(chan int, len(xs))
		for _, x := range xs {
			ch <- x
		}
		close(ch)
		return par.FromChan(ch)
	}},
	{"FromSeq.Filter", func(xs []int) par.Iter[int] {
		return par.FromSeq(slices.Values(xs)).Filter(func(x int) bool { return x >= 0 })
	}},
}

// adapterBig is the long input of the tests, shorter under the race
// detector and outside the long runs (GOPAR_TEST_LONG=1).
var adapterBig = long.Pick(3000, 1000) / race.Scale

// adapterItems returns lo, lo+1, ..., lo+n-1.
func adapterItems(lo, n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = lo + i
	}
	return xs
}

// checkTerminals runs every terminal operation over the iterator that
// build makes and compares each result with want, the items in order.
func checkTerminals(t *testing.T, name string, build func() par.Iter[int], want []int) {
	t.Helper()
	sum, minV, maxV := 0, math.MaxInt, math.MinInt
	var concat strings.Builder
	for _, x := range want {
		sum += x
		minV, maxV = min(minV, x), max(maxV, x)
		concat.WriteString(strconv.Itoa(x) + ",")
	}
	fail := func(op string, got, exp any) {
		t.Helper()
		t.Errorf("%s: %s gave %v, want %v", name, op, got, exp)
	}
	if got := build().Collect(); !slices.Equal(got, want) {
		fail("Collect", got, want)
	}
	if got := slices.Collect(build().Values()); !slices.Equal(got, want) {
		fail("Values", got, want)
	}
	if got := build().Count(); got != len(want) {
		fail("Count", got, len(want))
	}
	if got := par.Sum(build()); got != sum {
		fail("Sum", got, sum)
	}
	// Reduce and Fold with an order-sensitive op: concatenation.
	str := par.Map(build(), func(x int) string { return strconv.Itoa(x) + "," })
	if got := str.Reduce(func() string { return "" }, func(a, b string) string { return a + b }); got != concat.String() {
		fail("Reduce", got, concat.String())
	}
	folded := par.Fold(build(), func() []int { return nil }, func(a []int, x int) []int { return append(a, x) },
		func(a, b []int) []int { return append(a, b...) })
	if !slices.Equal(folded, want) {
		fail("Fold", folded, want)
	}
	var n, s atomic.Int64
	build().ForEach(func(x int) { n.Add(1); s.Add(int64(x)) })
	if n.Load() != int64(len(want)) || s.Load() != int64(sum) {
		fail("ForEach (count, sum)", [2]int64{n.Load(), s.Load()}, [2]int{len(want), sum})
	}
	if len(want) > 0 {
		mid := want[len(want)/2]
		if got, ok := build().FindFirst(func(x int) bool { return x >= mid }); !ok || got != mid {
			fail("FindFirst", got, mid)
		}
		if got, ok := par.Min(build()); !ok || got != minV {
			fail("Min", got, minV)
		}
		if got, ok := par.Max(build()); !ok || got != maxV {
			fail("Max", got, maxV)
		}
	} else if _, ok := build().FindFirst(func(int) bool { return true }); ok {
		fail("FindFirst", "a match", "none")
	}
	double := func(x int) (int, error) { return 2 * x, nil }
	doubled := make([]int, len(want))
	for i, x := range want {
		doubled[i] = 2 * x
	}
	if got, err := par.TryMap(build(), double); err != nil || !slices.Equal(got, doubled) {
		fail("TryMap", fmt.Sprint(got, err), doubled)
	}
	if got := build().Blocking(3).Collect(); !slices.Equal(got, want) {
		fail("Blocking(3).Collect", got, want)
	}
	unordered := par.Fold(build().Unordered(), func() int { return 0 }, func(a, x int) int { return a + x }, func(a, b int) int { return a + b })
	if unordered != sum {
		fail("Unordered Fold", unordered, sum)
	}
	if err := build().WithContext(context.Background()).TryForEach(func(int) error { return nil }); err != nil {
		fail("TryForEach with a context", err, nil)
	}
	if got := slices.Collect(build().WithBuffer(2).Values()); !slices.Equal(got, want) {
		fail("WithBuffer(2).Values", got, want)
	}
}

// adapterCounts returns the counts to test for n items: none, one, one
// short, all, one more, half, and far more.
func adapterCounts(n int) []int {
	ks := []int{0, 1, n / 2, max(n-1, 0), n, n + 1, math.MaxInt}
	slices.Sort(ks)
	return slices.Compact(ks)
}

func TestAdapterTakeSkip(t *testing.T) {
	for _, n := range []int{0, 1, 5, adapterBig} {
		xs := adapterItems(100, n)
		for _, src := range adapterSources {
			for _, k := range adapterCounts(n) {
				head, tail := xs[:min(k, n)], xs[min(k, n):]
				name := fmt.Sprintf("%s(n=%d).Take(%d)", src.name, n, k)
				checkTerminals(t, name, func() par.Iter[int] { return src.build(xs).Take(k) }, head)
				name = fmt.Sprintf("%s(n=%d).Skip(%d)", src.name, n, k)
				checkTerminals(t, name, func() par.Iter[int] { return src.build(xs).Skip(k) }, tail)
			}
			// Take and Skip compose: a window of the items.
			lo, hi := n/3, 2*n/3+1
			want := xs[min(lo, n):min(hi, n)]
			checkTerminals(t, fmt.Sprintf("%s(n=%d).Skip(%d).Take(%d)", src.name, n, lo, hi-lo),
				func() par.Iter[int] { return src.build(xs).Skip(lo).Take(hi - lo) }, want)
			checkTerminals(t, fmt.Sprintf("%s(n=%d).Take(%d).Skip(%d)", src.name, n, hi, lo),
				func() par.Iter[int] { return src.build(xs).Take(hi).Skip(lo) }, want)
		}
	}
}

// TestAdapterIntsKeepsRange: Take and Skip of a range are ranges, with
// the block API and the settings; of a Nums, Nums.
func TestAdapterIntsKeepsRange(t *testing.T) {
	var r par.Ints = par.Range(10, 20).WithBlockSize(1, 2).Skip(3).Take(4)
	var got []int
	r.WithPool(newPool(t, 1)).Blocks(func(lo, hi int) {
		if hi-lo > 2 {
			t.Errorf("Blocks gave [%d, %d), longer than the bound 2 set before Skip and Take", lo, hi)
		}
		for i := lo; i < hi; i++ {
			got = append(got, i)
		}
	})
	slices.Sort(got)
	if !slices.Equal(got, []int{13, 14, 15, 16}) || r.Len() != 4 {
		t.Errorf("Range(10, 20).Skip(3).Take(4) covers %v (Len %d), want 13..16", got, r.Len())
	}
	if got := par.Range(math.MinInt, math.MaxInt).Skip(math.MaxInt).Take(3).Collect(); !slices.Equal(got, []int{-1, 0, 1}) {
		t.Errorf("Range(MinInt, MaxInt).Skip(MaxInt).Take(3) = %v, want [-1 0 1]", got)
	}
	if got := par.Range(5, 3).Take(2).Len(); got != 0 {
		t.Errorf("Range(5, 3).Take(2).Len() = %d, want 0", got)
	}
	var ns par.Nums[float64] = par.Numbers([]float64{1, 2, 4, 8}).Skip(1).Take(2)
	if ns.Sum() != 6 {
		t.Errorf("Numbers(1, 2, 4, 8).Skip(1).Take(2).Sum() = %v, want 6", ns.Sum())
	}
	var chained par.Nums[int] = par.Range(0, 3).Chain(par.Range(10, 12))
	if chained.Sum() != 24 || chained.Len() != 5 {
		t.Errorf("Range(0, 3).Chain(Range(10, 12)): Sum %d, Len %d; want 24 and 5", chained.Sum(), chained.Len())
	}
}

func TestAdapterEnumerate(t *testing.T) {
	for _, n := range []int{0, 1, 5, adapterBig} {
		xs := adapterItems(100, n)
		for _, src := range adapterSources {
			// Key*1000 + Value: the position and the item in one int.
			want := make([]int, n)
			for i, x := range xs {
				want[i] = i*1000 + x
			}
			name := fmt.Sprintf("Enumerate(%s(n=%d))", src.name, n)
			checkTerminals(t, name, func() par.Iter[int] {
				return par.Map(par.Enumerate(src.build(xs)), func(p par.Pair[int, int]) int { return p.Key*1000 + p.Value })
			}, want)
			// After Skip, positions restart at 0; a Filter after
			// Enumerate keeps them.
			k := n / 3
			var odd []int
			for i, x := range xs[k:] {
				if x%2 == 1 {
					odd = append(odd, i*1000+x)
				}
			}
			checkTerminals(t, name+".Skip.Filter", func() par.Iter[int] {
				e := par.Enumerate(src.build(xs).Skip(k)).Filter(func(p par.Pair[int, int]) bool { return p.Value%2 == 1 })
				return par.Map(e, func(p par.Pair[int, int]) int { return p.Key*1000 + p.Value })
			}, odd)
		}
	}
	// Over a Filter, positions count the items kept (as All does).
	it := par.Range(0, 20).Filter(func(x int) bool { return x%3 == 0 })
	for i, p := range par.Enumerate(it).Collect() {
		if p.Key != i || p.Value != 3*i {
			t.Errorf("Enumerate after Filter: item %d is %v, want {%d %d}", i, p, i, 3*i)
		}
	}
	for pos, p := range par.Enumerate(it).All() {
		if pos != p.Key {
			t.Errorf("Enumerate(...).All(): position %d holds key %d", pos, p.Key)
		}
	}
}

func TestAdapterZip(t *testing.T) {
	for _, na := range []int{0, 1, 5, adapterBig} {
		for _, nb := range []int{0, 4, adapterBig, adapterBig + 1} {
			xs, ys := adapterItems(100, na), adapterItems(50_000, nb)
			var want []int
			for i := range min(na, nb) {
				want = append(want, xs[i]*100_000+ys[i])
			}
			for _, sa := range adapterSources {
				for _, sb := range []adapterSource{adapterSources[0], adapterSources[3], adapterSources[5], adapterSources[6]} {
					name := fmt.Sprintf("Zip(%s(n=%d), %s(n=%d))", sa.name, na, sb.name, nb)
					checkTerminals(t, name, func() par.Iter[int] {
						return par.Map(par.Zip(sa.build(xs), sb.build(ys)), func(p par.Pair[int, int]) int { return p.Key*100_000 + p.Value })
					}, want)
				}
			}
		}
	}
	// ZipWith is Zip and Map in one step; a Range much longer than the other
	// side numbers its items.
	names := []string{"a", "b", "c"}
	got := par.ZipWith(par.Slice(names), par.Range(math.MinInt, math.MaxInt), func(s string, i int) string { return s + strconv.Itoa(i-math.MinInt) }).Collect()
	if !slices.Equal(got, []string{"a0", "b1", "c2"}) {
		t.Errorf("ZipWith(names, Range(MinInt, MaxInt)) = %v", got)
	}
	if n := par.Zip(par.Range(0, 10), par.Slice(names)).Len(); n != 3 {
		t.Errorf("Zip of 10 and 3 items: Len %d, want 3", n)
	}
	// Both sides from one FromSeq: refused where the pipeline is built.
	src := par.FromSeq(slices.Values([]int{1, 2, 3}))
	msg := panicOf(func() { par.Zip(src, src.Filter(func(int) bool { return true })) })
	if !strings.Contains(msg, "same FromSeq") || !strings.Contains(msg, "Enumerate") {
		t.Errorf("Zip of one FromSeq with itself panicked with %q, want a message that names the cause and Enumerate", msg)
	}
	if msg := panicOf(func() { par.ZipWith[int, int, int](par.Range(0, 1), par.Range(0, 1), nil) }); !strings.Contains(msg, "nil function") {
		t.Errorf("ZipWith(nil) panicked with %q", msg)
	}
}

func TestAdapterChain(t *testing.T) {
	for _, na := range []int{0, 1, adapterBig} {
		for _, nb := range []int{0, 5, adapterBig} {
			xs, ys := adapterItems(100, na), adapterItems(50_000, nb)
			want := slices.Concat(xs, ys)
			for i, sa := range adapterSources {
				for j, sb := range adapterSources {
					// Every pair in the long runs (GOPAR_TEST_LONG=1);
					// else each source before itself and before the next.
					if k := len(adapterSources); !long.Enabled() && (j-i+k)%k > 1 {
						continue
					}
					name := fmt.Sprintf("Chain(%s(n=%d), %s(n=%d))", sa.name, na, sb.name, nb)
					checkTerminals(t, name, func() par.Iter[int] { return sa.build(xs).Chain(sb.build(ys)) }, want)
				}
			}
		}
	}
	// Over known positions the chain is one range of them: Len, and
	// ForEachIndex's positions, a's then b's.
	c := par.Chain[int](par.Range(0, 4), par.Slice([]int{7, 8}))
	if c.Len() != 6 {
		t.Errorf("Chain(Range(0, 4), Slice(2)).Len() = %d, want 6", c.Len())
	}
	pos := make([]int, 6)
	c.ForEachIndex(func(i, x int) { pos[i] = x })
	if !slices.Equal(pos, []int{0, 1, 2, 3, 7, 8}) {
		t.Errorf("Chain's ForEachIndex put the items at %v", pos)
	}
	// Over a stream it is a stream: Len -1.
	if n := par.Chain[int](par.Range(0, 4), par.FromSeq(slices.Values([]int{1}))).Len(); n != -1 {
		t.Errorf("Chain with a FromSeq: Len %d, want -1", n)
	}
	msg := panicOf(func() { par.Chain[int](par.Range(math.MinInt, 0), par.Range(0, math.MaxInt).Chain(par.Range(0, 2))) })
	if !strings.Contains(msg, "more than an int can count") {
		t.Errorf("Chain of more than MaxInt positions panicked with %q", msg)
	}
}

func TestAdapterNegativeCount(t *testing.T) {
	for name, f := range map[string]func(){
		"Take": func() { par.Slice([]int{1}).Take(-1) },
		"Skip": func() { par.Range(0, 3).Skip(-2) },
	} {
		if msg := panicOf(f); !strings.Contains(msg, name+"(-") || !strings.Contains(msg, ">= 0") {
			t.Errorf("%s of a negative count panicked with %q", name, msg)
		}
	}
}

// panicOf returns what f panicked with, as a string ("" for no panic).
func panicOf(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// TestAdapterTakePulls: over a stream, Take pulls no item past those it
// needs, and over a channel leaves the rest in it; Take over an endless
// seq ends.
func TestAdapterTakePulls(t *testing.T) {
	const n = 100_000
	for _, k := range []int{0, 1, 7, 4000, n} {
		c := &counted{n: n}
		var calls atomic.Int64
		got := par.Map(par.FromSeq(c.seq).Take(k), func(x int) int { calls.Add(1); return x }).Collect()
		if !slices.Equal(got, adapterItems(0, k)) || c.produced.Load() != int64(k) || calls.Load() != int64(k) {
			t.Errorf("FromSeq.Take(%d): %d items, %d pulled, %d calls after Take; want %d of each", k, len(got), c.produced.Load(), calls.Load(), k)
		}
		// A Filter before Take: the seq is pulled up to the k-th item kept
		// (all of it if fewer are kept).
		c = &counted{n: n}
		got = par.FromSeq(c.seq).Filter(func(x int) bool { return x%3 == 0 }).Take(k).Collect()
		kept, pulled := min(k, (n+2)/3), n
		if k <= (n+2)/3 {
			pulled = max(3*(k-1)+1, 0)
		}
		if len(got) != kept || c.produced.Load() != int64(pulled) {
			t.Errorf("FromSeq.Filter.Take(%d): %d items, %d pulled; want %d and %d", k, len(got), c.produced.Load(), kept, pulled)
		}
		ch := make(chan int, n)
		for i := range n {
			ch <- i
		}
		close(ch)
		if got := par.FromChan(ch).Map(func(x int) int { return x }).Take(k).Count(); got != k || len(ch) != n-k {
			t.Errorf("FromChan.Map.Take(%d): %d items, %d values left in the channel; want %d and %d", k, got, len(ch), k, n-k)
		}
	}
	endless := func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	}
	if got := par.FromSeq(endless).Skip(5).Take(3).Collect(); !slices.Equal(got, []int{5, 6, 7}) {
		t.Errorf("FromSeq(endless).Skip(5).Take(3) = %v", got)
	}
}

// TestAdapterExactlyOnce: the steps after an adapter run once per item it
// keeps, those before it once per item they see; over known positions,
// never for the items that Take and Skip leave out.
func TestAdapterExactlyOnce(t *testing.T) {
	const n = 20_000
	before, after := make([]atomic.Int32, n), make([]atomic.Int32, n)
	reset := func() {
		for i := range n {
			before[i].Store(0)
			after[i].Store(0)
		}
	}
	first := func(x int) int { before[x].Add(1); return x }
	second := func(x int) { after[x].Add(1) }
	check := func(name string, lo, hi int, exactBefore bool) {
		t.Helper()
		for i := range n {
			b, a := before[i].Load(), after[i].Load()
			in := i >= lo && i < hi
			switch {
			case in && (a != 1 || b != 1):
				t.Errorf("%s: item %d ran %d times before the adapter and %d after, want 1 and 1", name, i, b, a)
				return
			case !in && (a != 0 || exactBefore && b != 0 || b > 1):
				t.Errorf("%s: item %d, left out, ran %d times before the adapter and %d after", name, i, b, a)
				return
			}
		}
	}
	for _, pool := range []*par.Pool{newPool(t, 1), newPool(t, 4), par.DefaultPool()} {
		reset()
		par.Map(par.Range(0, n).WithPool(pool), first).Skip(n / 4).Take(n / 2).ForEach(second)
		check("Range.Map.Skip.Take", n/4, n/4+n/2, true)
		reset()
		par.Map(par.FromSeq(slices.Values(adapterItems(0, n))).WithPool(pool), first).Skip(n / 4).Take(n / 2).ForEach(second)
		check("FromSeq.Map.Skip.Take", n/4, n/4+n/2, false)
		reset()
		par.ZipWith(par.Map(par.Range(0, n).WithPool(pool), first), par.Range(0, n/3), func(x, _ int) int { return x }).ForEach(second)
		check("ZipWith(Range.Map, Range(n/3))", 0, n/3, true)
		reset()
		par.Map(par.Enumerate(par.Map(par.Range(0, n).WithPool(pool), first).Filter(func(int) bool { return true })),
			func(p par.Pair[int, int]) int { return p.Value }).ForEach(second)
		check("Enumerate(Range.Map.Filter)", 0, n, true)
		reset()
		mapped := par.Map(par.Range(0, n).WithPool(pool), first)
		mapped.Take(n / 2).Chain(mapped.Skip(n / 2)).Blocking(5).ForEach(second)
		check("Take.Chain(Skip).Blocking", 0, n, true)
	}
}

// TestAdapterPanic: a panic in a callback before or after an adapter
// reaches the caller as a *par.Panic with its value; the pool goes on.
func TestAdapterPanic(t *testing.T) {
	type boom struct{ at int }
	pool := newPool(t, 3)
	explode := func(at int) func(int) int {
		return func(x int) int {
			if x == at {
				panic(boom{at})
			}
			return x
		}
	}
	const n = 5000
	for name, run := range map[string]func(){
		"before Take over a stream": func() {
			par.Map(par.FromSeq(slices.Values(adapterItems(0, n))).WithPool(pool), explode(77)).Take(n - 1).Collect()
		},
		"after Skip over a stream": func() {
			par.Map(adapterSources[6].build(adapterItems(0, n)).WithPool(pool).Skip(3), explode(n-1)).Count()
		},
		"before Enumerate after a Filter": func() {
			par.Enumerate(par.Map(par.Range(0, n).WithPool(pool), explode(4000)).Filter(func(int) bool { return true })).Collect()
		},
		"in ZipWith's function": func() {
			par.ZipWith(par.Range(0, n).WithPool(pool), par.FromSeq(slices.Values(adapterItems(0, n))), func(x, y int) int { return explode(10)(x) }).Count()
		},
		"on the second side of Chain": func() {
			par.Chain[int](par.Range(0, n).WithPool(pool), par.Map(par.FromSeq(slices.Values(adapterItems(0, n))), explode(n/2))).ForEach(func(int) {})
		},
	} {
		var p *par.Panic
		v := func() (v any) {
			defer func() { v = recover() }()
			run()
			return nil
		}()
		if p2, ok := v.(*par.Panic); ok {
			p = p2
		}
		if p == nil {
			t.Errorf("%s: the operation ended with %v, want a *par.Panic", name, v)
			continue
		}
		if _, ok := p.Value.(boom); !ok {
			t.Errorf("%s: the *par.Panic holds %v, want the callback's boom", name, p.Value)
		}
		if got := par.Range(0, 1000).WithPool(pool).Sum(); got != 499500 {
			t.Errorf("%s: the pool's Sum afterwards gave %d", name, got)
		}
	}
}

// TestAdapterCancel: a done context stops the steps before and after an
// adapter; a cut result is a prefix; a context done before the start runs
// nothing; a Try form returns the cause; an operation waiting on a channel
// through an adapter returns once its context is done.
func TestAdapterCancel(t *testing.T) {
	cause := errors.New("stop")
	done, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	var calls atomic.Int64
	count := func(x int) int { calls.Add(1); return x }
	for _, src := range adapterSources {
		xs := adapterItems(0, 500)
		its := map[string]par.Iter[int]{
			"Take":      par.Map(src.build(xs), count).Take(100),
			"Skip":      par.Map(src.build(xs), count).Skip(100),
			"Enumerate": par.Map(par.Enumerate(par.Map(src.build(xs), count)), func(p par.Pair[int, int]) int { return p.Value }),
			"Chain":     par.Map(src.build(xs), count).Chain(par.Range(0, 3)),
			"ZipWith":   par.ZipWith(par.Map(src.build(xs), count), par.Range(0, 300), func(x, _ int) int { return x }),
		}
		for name, it := range its {
			calls.Store(0)
			if got := it.WithContext(done).Collect(); len(got) != 0 || calls.Load() != 0 {
				t.Errorf("%s.%s under a done context: %d items, %d calls; want none", src.name, name, len(got), calls.Load())
			}
		}
		calls.Store(0)
		err := par.Map(src.build(xs), count).Take(100).WithContext(done).TryForEach(func(int) error { return nil })
		if err != cause || calls.Load() != 0 {
			t.Errorf("%s.Take.TryForEach under a done context: %v after %d calls; want the cause after none", src.name, err, calls.Load())
		}
	}
	// Cancelled halfway: the result is a prefix of the items.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	n := 200_000 / race.Scale
	got := par.Map(par.Enumerate(par.FromSeq(slices.Values(adapterItems(0, n))).Filter(func(int) bool { return true })),
		func(p par.Pair[int, int]) int {
			if p.Key == n/2 {
				stop()
			}
			return p.Value
		}).WithContext(ctx).Collect()
	if !slices.Equal(got, adapterItems(0, len(got))) || len(got) == n {
		t.Errorf("cancelled at item %d of %d: Collect gave %d items, not a strict prefix", n/2, n, len(got))
	}
	// Waiting on an open channel, before and after Take: the context ends
	// the wait.
	ch := make(chan int)
	defer close(ch)
	ctx2, stop2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop2()
	finished := make(chan error, 1)
	go func() {
		finished <- par.FromChan(ch).Take(5).Skip(1).WithContext(ctx2).TryForEach(func(int) error { return nil })
	}()
	select {
	case err := <-finished:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("FromChan(open, empty).Take.Skip.TryForEach returned %v, want the deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("FromChan(open, empty).Take.Skip.TryForEach did not return once its context was done")
	}
}

// TestAdapterOneOperationAtATime: a stream made by an adapter, like
// FromSeq's, refuses a second operation while one runs.
func TestAdapterOneOperationAtATime(t *testing.T) {
	it := par.Enumerate(par.Range(0, 100).Filter(func(int) bool { return true }))
	var msg atomic.Value
	it.ForEach(func(par.Pair[int, int]) {
		if m := panicOf(func() { it.Count() }); m != "" {
			msg.Store(m)
		}
	})
	if m, _ := msg.Load().(string); !strings.Contains(m, "one terminal operation at a time") {
		t.Errorf("a second operation inside the first panicked with %q", msg.Load())
	}
	if got := it.Count(); got != 100 {
		t.Errorf("after the first operation, Count gave %d, want 100", got)
	}
}
