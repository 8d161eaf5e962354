package beam

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"

	abeam "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
	"github.com/gopar-dev/gopar/par"
)

// Integer is the set of element types that Sum and SumPerKey accept: the
// predeclared integer types, which Beam's stats.Sum knows by name. Floats are
// left out on purpose: gopar's float Sum is reproducible (a fixed tree of
// blocks), and no Beam runner's is, since its last bits depend on how the
// runner splits the input. Sum floats with Reduce, and expect the last
// bits to vary on both runners.
type Integer interface {
	int | int8 | int16 | int32 | int64 | uint | uint8 | uint16 | uint32 | uint64
}

// Ordered is the set of element types that Min and Max accept: the
// predeclared integer, float and string types.
type Ordered interface {
	Integer | float32 | float64 | string
}

func init() {
	// Functions of this package's own steps, found by name on a worker.
	register.Function2x1(minString)
	register.Function2x1(maxString)
	register.Function2x2(keyOne)
}

func minString(a, b string) string { return min(a, b) }
func maxString(a, b string) string { return max(a, b) }

// keyOne turns a pair into (key, 1), for CountPerKey.
func keyOne(k abeam.X, _ abeam.Y) (abeam.X, int) { return k, 1 }

// single is the one-element result of an operation on gopar.
func single[T any](v T) []T { return []T{v} }

// Sum returns a collection of one element: the sum of c's elements, 0 if
// there are none (where Beam's stats.Sum alone gives no element).
func Sum[T Integer](c Collection[T]) Collection[T] {
	in := c.node("Sum")
	return Collection[T]{in.pipeline.add(&node{
		name:   "Sum",
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return single(par.Sum(par.Slice(in[0].([]T)).WithContext(ctx)))
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope("Sum")
			return stats.Sum(s, withZero[T](s, in[0]))
		},
	})}
}

// withZero adds one zero element to col, so that a sum over it has one
// result even when col is empty.
func withZero[T any](s abeam.Scope, col abeam.PCollection) abeam.PCollection {
	var zero T
	return abeam.Flatten(s, col, abeam.CreateList(s, []T{zero}))
}

// Count returns a collection of one element: the number of c's elements.
func Count[T any](c Collection[T]) Collection[int] {
	in := c.node("Count")
	return Collection[int]{in.pipeline.add(&node{
		name:   "Count",
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return single(par.Slice(in[0].([]T)).WithContext(ctx).Count())
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope("Count")
			return stats.Sum(s, withZero[int](s, stats.CountElms(s, in[0])))
		},
	})}
}

// Min returns a collection of the smallest of c's elements, or of none if c
// is empty (Output.Value then reports false). A NaN follows Go's min on
// gopar (it wins) and Beam's stats.Min on Beam (it loses every
// comparison): keep NaNs out of the input if the two must agree.
func Min[T Ordered](c Collection[T]) Collection[T] {
	return extreme(c, "Min", par.Min[T], stats.Min, minString)
}

// Max is Min for the largest element.
func Max[T Ordered](c Collection[T]) Collection[T] {
	return extreme(c, "Max", par.Max[T], stats.Max, maxString)
}

func extreme[T Ordered](c Collection[T], name string,
	local func(par.Iterator[T]) (T, bool),
	numeric func(abeam.Scope, abeam.PCollection) abeam.PCollection,
	strings func(a, b string) string) Collection[T] {
	in := c.node(name)
	return Collection[T]{in.pipeline.add(&node{
		name:   name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			if v, ok := local(par.Slice(in[0].([]T)).WithContext(ctx)); ok {
				return single(v)
			}
			return []T{}
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope(name)
			if reflect.TypeFor[T]().Kind() == reflect.String {
				return abeam.Combine(s, strings, in[0])
			}
			return numeric(s, in[0])
		},
	})}
}

// A FoldStep is a named combine from elements of type T to an accumulator
// of type A, declared with Fold or Reduce.
type FoldStep[T, A any] struct {
	name    string
	init    func() A
	fold    func(A, T) A
	combine func(A, A) A
}

// Name returns the step's name.
func (st *FoldStep[T, A]) Name() string { return st.name }

// Fold declares a combine: par.Fold on gopar, a CombineFn on Beam, whose
// CreateAccumulator is init, AddInput is fold and MergeAccumulators is
// combine. Apply it to a collection with Apply, or per key with
// CombinePerKey.
//
// init() must be neutral for combine, and combine must be associative, as
// gopar asks; on Beam it must also be commutative, since a runner merges
// accumulators in whatever order they arrive from its workers (gopar merges
// them in index order). fold(acc, x) may change and return acc. A
// accumulators travel between Beam workers, so A follows the same rules as
// an element type (no unexported fields).
func Fold[T, A any](name string, init func() A, fold func(A, T) A, combine func(A, A) A) *FoldStep[T, A] {
	mustCarry[T]("Fold " + name)
	mustCarry[A]("Fold " + name + " (accumulator)")
	st := &FoldStep[T, A]{name: name, init: init, fold: fold, combine: combine}
	declare("Fold", name, st, init, fold, combine)
	registerOnce(&foldFn[T, A]{}, func() { register.Combiner2[A, T](&foldFn[T, A]{}) })
	registerOnce(&mergeFn[A]{}, func() { register.Combiner1[A](&mergeFn[A]{}) })
	return st
}

// Reduce declares a combine of elements of one type: Fold with init
// identity and both fold and combine op, which must be associative and
// commutative, with identity() neutral. It is Iter.Reduce on gopar and
// beam.Combine on Beam.
func Reduce[T any](name string, identity func() T, op func(T, T) T) *FoldStep[T, T] {
	return Fold(name, identity, op, op)
}

// Apply returns a collection of one element: the fold of all of c's
// elements, init() if there are none.
func (st *FoldStep[T, A]) Apply(c Collection[T]) Collection[A] {
	in := c.node("Apply " + st.name)
	return Collection[A]{in.pipeline.add(&node{
		name:   st.name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return single(par.Fold(par.Slice(in[0].([]T)).WithContext(ctx), st.init, st.fold, st.combine))
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope(st.name)
			// A global combine of no elements gives no element; merging
			// its result with one init() gives init() then, and the same
			// result otherwise, since init() is neutral.
			acc := abeam.Combine(s, &foldFn[T, A]{Step: st.name}, in[0])
			return abeam.Combine(s, &mergeFn[A]{Step: st.name},
				abeam.Flatten(s, acc, abeam.CreateList(s, []A{st.init()})))
		},
	})}
}

// accumulator is the part of a FoldStep that mergeFn needs, without T.
type accumulator[A any] interface {
	initA() A
	combineA(a, b A) A
}

func (st *FoldStep[T, A]) initA() A          { return st.init() }
func (st *FoldStep[T, A]) combineA(a, b A) A { return st.combine(a, b) }

// foldFn is a FoldStep as a Beam CombineFn.
type foldFn[T, A any] struct{ Step string }

func (f *foldFn[T, A]) CreateAccumulator() A { return lookup[*FoldStep[T, A]](f.Step).init() }
func (f *foldFn[T, A]) AddInput(a A, x T) A  { return lookup[*FoldStep[T, A]](f.Step).fold(a, x) }
func (f *foldFn[T, A]) MergeAccumulators(a, b A) A {
	return lookup[*FoldStep[T, A]](f.Step).combine(a, b)
}

// mergeFn combines accumulators of a FoldStep.
type mergeFn[A any] struct{ Step string }

func (f *mergeFn[A]) CreateAccumulator() A { return lookup[accumulator[A]](f.Step).initA() }
func (f *mergeFn[A]) AddInput(a, x A) A    { return lookup[accumulator[A]](f.Step).combineA(a, x) }
func (f *mergeFn[A]) MergeAccumulators(a, b A) A {
	return lookup[accumulator[A]](f.Step).combineA(a, b)
}

// CountPerElement returns, for each distinct element of c, the number of
// times it occurs: a word count's last step. It is a par.Fold into a map
// on gopar, and stats.Count on Beam.
func CountPerElement[T comparable](c Collection[T]) Keyed[T, int] {
	mustKey[T]("CountPerElement")
	in := c.node("CountPerElement")
	return Keyed[T, int]{in.pipeline.add(&node{
		name:   "CountPerElement",
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return foldByKey(par.Slice(in[0].([]T)).WithContext(ctx),
				func(x T) T { return x }, func(T) int { return 1 },
				func() int { return 0 }, add[int], add[int])
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			return stats.Count(s.Scope("CountPerElement"), in[0])
		},
	})}
}

func add[T Integer](a, b T) T { return a + b }

// SumPerKey returns, for each key of c, the sum of its values: stats.SumPerKey
// on Beam.
func SumPerKey[K comparable, V Integer](c Keyed[K, V]) Keyed[K, V] {
	in := c.node("SumPerKey")
	return Keyed[K, V]{in.pipeline.add(&node{
		name:   "SumPerKey",
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return foldKVs(ctx, in[0].([]KV[K, V]), func() V { return 0 }, add[V], add[V])
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			return stats.SumPerKey(s.Scope("SumPerKey"), in[0])
		},
	})}
}

// CountPerKey returns, for each key of c, the number of its values.
func CountPerKey[K comparable, V any](c Keyed[K, V]) Keyed[K, int] {
	in := c.node("CountPerKey")
	return Keyed[K, int]{in.pipeline.add(&node{
		name:   "CountPerKey",
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return foldKVs(ctx, in[0].([]KV[K, V]), func() int { return 0 },
				func(n int, _ V) int { return n + 1 }, add[int])
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			s = s.Scope("CountPerKey")
			return stats.SumPerKey(s, abeam.ParDo(s, keyOne, in[0]))
		},
	})}
}

// CombinePerKey returns, for each key of c, the fold of its values with
// st: beam.CombinePerKey on Beam. A key's values are never empty, so init()
// is only a starting point here.
func CombinePerKey[K comparable, V, A any](st *FoldStep[V, A], c Keyed[K, V]) Keyed[K, A] {
	in := c.node("CombinePerKey " + st.name)
	return Keyed[K, A]{in.pipeline.add(&node{
		name:   st.name,
		inputs: []*node{in},
		local: func(ctx context.Context, in []any) any {
			return foldKVs(ctx, in[0].([]KV[K, V]), st.init, st.fold, st.combine)
		},
		beam: func(s abeam.Scope, in []abeam.PCollection) abeam.PCollection {
			return abeam.CombinePerKey(s.Scope(st.name), &foldFn[V, A]{Step: st.name}, in[0])
		},
	})}
}

func foldKVs[K comparable, V, A any](ctx context.Context, kvs []KV[K, V], init func() A, fold func(A, V) A, combine func(A, A) A) []KV[K, A] {
	return foldByKey(par.Slice(kvs).WithContext(ctx),
		func(kv KV[K, V]) K { return kv.Key }, func(kv KV[K, V]) V { return kv.Value },
		init, fold, combine)
}

// foldByKey is the per-key combine on gopar: each participant folds its
// items into a map of its own, and the maps are merged.
func foldByKey[T any, K comparable, V, A any](it par.Iter[T], key func(T) K, value func(T) V,
	init func() A, fold func(A, V) A, combine func(A, A) A) []KV[K, A] {
	m := par.Fold(it,
		func() map[K]A { return map[K]A{} },
		func(m map[K]A, x T) map[K]A {
			k := key(x)
			a, ok := m[k]
			if !ok {
				a = init()
			}
			m[k] = fold(a, value(x))
			return m
		},
		func(a, b map[K]A) map[K]A {
			if len(a) < len(b) {
				a, b = b, a // merge the smaller map into the larger
				for k, v := range b {
					if x, ok := a[k]; ok {
						a[k] = combine(v, x)
					} else {
						a[k] = v
					}
				}
				return a
			}
			for k, v := range b {
				if x, ok := a[k]; ok {
					a[k] = combine(x, v)
				} else {
					a[k] = v
				}
			}
			return a
		})
	out := make([]KV[K, A], 0, len(m))
	for k, a := range m {
		out = append(out, KV[K, A]{k, a})
	}
	return out
}

// CheckMerge checks, in a test, that st gives one answer whatever the order
// in which a Beam runner merges its accumulators. It splits xs into runs at
// random points, folds each run from init(), and merges the accumulators in
// shuffled order, rounds times; it returns an error naming the first order
// whose result differs (by reflect.DeepEqual) from folding xs in order.
// gopar merges in index order only, so a combine that passes gopar's tests
// can still fail here: one that keeps the first element it saw, or that
// concatenates.
func (st *FoldStep[T, A]) CheckMerge(xs []T, rounds int, seed uint64) error {
	want := st.init()
	for _, x := range xs {
		want = st.fold(want, x)
	}
	r := rand.New(rand.NewPCG(seed, 2))
	for round := range rounds {
		// Runs of random lengths, some empty, as bundles may be.
		var accs []A
		for lo := 0; lo <= len(xs); {
			hi := min(len(xs), lo+r.IntN(len(xs)/4+2))
			a := st.init()
			for _, x := range xs[lo:hi] {
				a = st.fold(a, x)
			}
			accs = append(accs, a)
			if hi == len(xs) {
				break
			}
			lo = hi
		}
		r.Shuffle(len(accs), func(i, j int) { accs[i], accs[j] = accs[j], accs[i] })
		// Merge pairs picked at random until one is left, as a tree of
		// workers might.
		for len(accs) > 1 {
			i := r.IntN(len(accs) - 1)
			accs[i] = st.combine(accs[i], accs[i+1])
			accs = append(accs[:i+1], accs[i+2:]...)
		}
		if got := accs[0]; !reflect.DeepEqual(got, want) {
			return fmt.Errorf("beam: Fold %q: merging in shuffled order (round %d) gave %v, folding in order gave %v: "+
				"combine must be commutative and associative, and init() neutral, to run on Beam", st.name, round, got, want)
		}
	}
	return nil
}
