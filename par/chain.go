//go:build go1.27

package par

import (
	"cmp"
	"context"
	goiter "iter"
)

// Every step chains, from Go 1.27 on: Go 1.27 allows methods with type
// parameters of their own on concrete types, so each step that changes the
// item type, or takes a type of its own (a state, an accumulator, a key),
// is also a method here, the same operation as the function of the same
// name, whose godoc holds its rules:
//
//	counts := par.Slice(lines).
//		FlatMap(strings.Fields).
//		Filter(notStopWord).
//		CountBy(strings.ToLower)
//
// gopar's go.mod stays at go 1.24: this file builds with a Go 1.27
// toolchain or newer, and chain_pre127.go keeps the same-type Map methods
// for older ones, where the functions are the only form. Code written for
// those methods compiles here too: the type argument of Map is inferred.
// Distinct, Counts, Sum, Min and Max have no Iter method (their item
// types are constrained: comparable, numbers, ordered); Nums.Sum and
// Ints.Blocks are methods on every Go, and the function ReduceBlocks is
// also the method Ints.ReduceBlocks here.

// Map returns an iterator over f(x) for every item x of it; f may change the
// item type (Go 1.27 or newer; the function par.Map on any Go):
//
//	strs := par.Slice(ids).Map(strconv.Itoa).Collect()
func (it Iter[T]) Map[U any](f func(T) U) Iter[U] { return Map(it, f) }

// Map returns an iterator over f(x) for every item x of it, which stays a
// numeric iterator, with Sum (Go 1.27 or newer):
//
//	total := par.Range(0, n).Map(func(i int) float64 { return math.Sqrt(float64(i)) }).Sum()
//
// To map numbers to a type that is not a number, use it.Iter.Map or the
// function par.Map.
func (it Nums[T]) Map[U Number](f func(T) U) Nums[U] { return Nums[U]{Map(it.Iter, f)} }

// FilterMap is the function FilterMap as a method (Go 1.27 or newer): an
// iterator over f(x) for the items x for which f reports true.
func (it Iter[T]) FilterMap[U any](f func(T) (U, bool)) Iter[U] { return FilterMap(it, f) }

// FlatMap is the function FlatMap as a method (Go 1.27 or newer): an
// iterator over the items of f(x) for every item x, in order.
func (it Iter[T]) FlatMap[U any](f func(T) []U) Iter[U] { return FlatMap(it, f) }

// MapInit is the function MapInit as a method (Go 1.27 or newer): an
// iterator over f(s, x), s a value made by init per goroutine.
func (it Iter[T]) MapInit[S, U any](init func() S, f func(S, T) U) Iter[U] {
	return MapInit(it, init, f)
}

// ForEachInit is the function ForEachInit as a method (Go 1.27 or newer):
// ForEach with a value made by init per goroutine.
func (it Iter[T]) ForEachInit[S any](init func() S, f func(S, T)) { ForEachInit(it, init, f) }

// Fold is the function Fold as a method (Go 1.27 or newer): an accumulator
// per run of items, combined in index order.
func (it Iter[T]) Fold[A any](init func() A, fold func(A, T) A, combine func(A, A) A) A {
	return Fold(it, init, fold, combine)
}

// TryMap is the function TryMap as a method (Go 1.27 or newer): the results
// in source order, or the error of the lowest-index failing item.
func (it Iter[T]) TryMap[U any](f func(T) (U, error)) ([]U, error) { return TryMap(it, f) }

// TryMapContext is the function TryMapContext as a method (Go 1.27 or
// newer): TryMap for calls that take a context, cancelled at the first
// failure.
func (it Iter[T]) TryMapContext[U any](f func(ctx context.Context, v T) (U, error)) ([]U, error) {
	return TryMapContext(it, f)
}

// TryFold is the function TryFold as a method (Go 1.27 or newer): Fold
// with a fold that can fail, stopping at the first error.
func (it Iter[T]) TryFold[A any](init func() A, fold func(A, T) (A, error), combine func(A, A) A) (A, error) {
	return TryFold(it, init, fold, combine)
}

// TryFoldMerge is the function TryFoldMerge as a method (Go 1.27 or
// newer): TryFold with a combine that can fail.
func (it Iter[T]) TryFoldMerge[A any](init func() A, fold func(A, T) (A, error), merge func(A, A) (A, error)) (A, error) {
	return TryFoldMerge(it, init, fold, merge)
}

// TryMapInit is the function TryMapInit as a method (Go 1.27 or newer):
// TryMap with a value made by init per goroutine.
func (it Iter[T]) TryMapInit[S, U any](init func() S, f func(S, T) (U, error)) ([]U, error) {
	return TryMapInit(it, init, f)
}

// TryForEachInit is the function TryForEachInit as a method (Go 1.27 or
// newer): TryForEach with a value made by init per goroutine.
func (it Iter[T]) TryForEachInit[S any](init func() S, f func(S, T) error) error {
	return TryForEachInit(it, init, f)
}

// Results is the function Results as a method (Go 1.27 or newer): the
// results of f, each with its error, for a range loop.
func (it Iter[T]) Results[U any](f func(T) (U, error)) goiter.Seq2[U, error] { return Results(it, f) }

// MapErr is the function MapErr as a method (Go 1.27 or newer): every
// result in source order, and every failure.
func (it Iter[T]) MapErr[U any](f func(T) (U, error)) ([]U, error) { return MapErr(it, f) }

// GroupBy is the function GroupBy as a method (Go 1.27 or newer): the items
// grouped by key, each group in source order.
func (it Iter[T]) GroupBy[K comparable](key func(T) K) map[K][]T { return GroupBy(it, key) }

// GroupByKey is the function GroupByKey as a method (Go 1.27 or newer): the
// values of the pairs kv gives, grouped by key, in source order.
func (it Iter[T]) GroupByKey[K comparable, V any](kv func(T) (K, V)) map[K][]V {
	return GroupByKey(it, kv)
}

// ReduceByKey is the function ReduceByKey as a method (Go 1.27 or newer):
// the values of each key combined with op in source order.
func (it Iter[T]) ReduceByKey[K comparable, V any](kv func(T) (K, V), op func(V, V) V) map[K]V {
	return ReduceByKey(it, kv, op)
}

// CountBy is the function CountBy as a method (Go 1.27 or newer): the
// number of items of each key.
func (it Iter[T]) CountBy[K comparable](key func(T) K) map[K]int { return CountBy(it, key) }

// CountBySorted is the function CountBySorted as a method (Go 1.27 or
// newer): the number of items of each key, read in key order, within the
// iterator's memory budget.
func (it Iter[T]) CountBySorted[K cmp.Ordered](key func(T) K, opts ...SortedOption[K, int]) *Sorted[K, int] {
	return CountBySorted(it, key, opts...)
}

// ReduceByKeySorted is the function ReduceByKeySorted as a method (Go 1.27
// or newer): the values of each key combined with op, read in key order,
// within the iterator's memory budget.
func (it Iter[T]) ReduceByKeySorted[K cmp.Ordered, V any](kv func(T) (K, V), op func(V, V) V, opts ...SortedOption[K, V]) *Sorted[K, V] {
	return ReduceByKeySorted(it, kv, op, opts...)
}

// GroupBySorted is the function GroupBySorted as a method (Go 1.27 or
// newer): the items of each key, read in key order, within the iterator's
// memory budget.
func (it Iter[T]) GroupBySorted[K cmp.Ordered](key func(T) K, opts ...SortedOption[K, []T]) *Sorted[K, []T] {
	return GroupBySorted(it, key, opts...)
}

// CollectMap is the function CollectMap as a method (Go 1.27 or newer): the
// map of the pairs kv gives, the last value of a key winning.
func (it Iter[T]) CollectMap[K comparable, V any](kv func(T) (K, V)) map[K]V {
	return CollectMap(it, kv)
}

// ReduceBlocks is the function ReduceBlocks as a method (Go 1.27 or
// newer): body on disjoint sub-ranges of r, in parallel, with r's settings,
// and the results combined with op in index order.
//
//	longest := par.Range(0, len(words)).WithContext(ctx).ReduceBlocks(body, maxInt)
func (r Ints) ReduceBlocks[T any](body func(lo, hi int) T, op func(a, b T) T) T {
	return ReduceBlocks(r, body, op)
}
