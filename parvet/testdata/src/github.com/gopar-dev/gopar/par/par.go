// Package par is a sequential stub of gopar's par package with its exported
// API, so that the analyzers' tests type-check, and run, without gopar.
package par

import (
	"cmp"
	"context"
	"errors"
	goiter "iter"
	"slices"
)

// Number is the set of element types that Sum accepts.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Pool stands for gopar's worker pool.
type Pool struct{}

// Timeline stands for an operation's recorded schedule.
type Timeline struct{}

// Iterator is implemented by Iter, Nums and Ints.
type Iterator[T any] interface{ items() ([]T, []int) }

// Iter is a parallel iterator over items of type T.
type Iter[T any] struct {
	xs  []T
	pos []int
}

func (it Iter[T]) items() ([]T, []int) { return it.xs, it.pos }

// Nums is an Iter over numbers.
type Nums[T Number] struct{ Iter[T] }

// Ints is the iterator that Range returns.
type Ints struct{ Nums[int] }

// Group starts tasks inside a Scope.
type Group struct{}

// TryGroup starts the tasks of a TryScope.
type TryGroup struct{ ctx context.Context }

// ItemError is one failure of ForEachErr or MapErr.
type ItemError struct {
	Index int
	Err   error
}

func (e *ItemError) Error() string { return e.Err.Error() }

func from[T any](xs []T) Iter[T] {
	pos := make([]int, len(xs))
	for i := range pos {
		pos[i] = i
	}
	return Iter[T]{xs, pos}
}

func Range(lo, hi int) Ints {
	var xs []int
	for i := lo; i < hi; i++ {
		xs = append(xs, i)
	}
	return Ints{Nums[int]{from(xs)}}
}
func Slice[T any](xs []T) Iter[T]              { return from(xs) }
func Numbers[T Number](xs []T) Nums[T]         { return Nums[T]{from(xs)} }
func FromSeq[T any](seq goiter.Seq[T]) Iter[T] { return from(slices.Collect(seq)) }
func FromChan[T any](ch <-chan T) Iter[T] {
	var xs []T
	for x := range ch {
		xs = append(xs, x)
	}
	return from(xs)
}
func Chunks[T any](xs []T, size int) Iter[[]T]                { return from(slices.Collect(slices.Chunk(xs, size))) }
func LinesString(s string) Iter[string]                       { return from([]string{s}) }
func Lines(data []byte) Iter[[]byte]                          { return from([][]byte{data}) }
func DefaultPool() *Pool                                      { return &Pool{} }
func NewPool(workers int) (*Pool, error)                      { return &Pool{}, nil }
func (r Ints) Blocks(body func(lo, hi int))                   { body(r.xs[0], r.xs[len(r.xs)-1]+1) }
func (r Ints) WithContext(ctx context.Context) Ints           { return r }
func (r Ints) WithPool(pool *Pool) Ints                       { return r }
func (r Ints) WithBlockSize(min, max int) Ints                { return r }
func (r Ints) WithProgress(report func(done, total int)) Ints { return r }
func (r Ints) Unordered() Ints                                { return r }
func (r Ints) Blocking(limit int) Ints                        { return r }

func ReduceBlocks[T any](r Ints, body func(lo, hi int) T, op func(a, b T) T) T {
	return body(r.xs[0], r.xs[len(r.xs)-1]+1)
}

func (it Iter[T]) Map(f func(T) T) Iter[T] { return Map(it, f) }
func (it Iter[T]) Filter(pred func(T) bool) Iter[T] {
	var out Iter[T]
	for i, x := range it.xs {
		if pred(x) {
			out.xs, out.pos = append(out.xs, x), append(out.pos, it.pos[i])
		}
	}
	return out
}
func (it Iter[T]) WithContext(ctx context.Context) Iter[T]           { return it }
func (it Iter[T]) WithPool(pool *Pool) Iter[T]                       { return it }
func (it Iter[T]) WithBlockSize(min, max int) Iter[T]                { return it }
func (it Iter[T]) WithBuffer(n int) Iter[T]                          { return it }
func (it Iter[T]) WithProgress(report func(done, total int)) Iter[T] { return it }
func (it Iter[T]) WithTimeline(t *Timeline) Iter[T]                  { return it }
func (it Iter[T]) Unordered() Iter[T]                                { return it }
func (it Iter[T]) Blocking(limit int) Iter[T] {
	if limit < 1 {
		panic("par: Blocking limit < 1")
	}
	return it
}
func (it Iter[T]) Len() int { return len(it.xs) }
func (it Iter[T]) ForEach(f func(T)) {
	for _, x := range it.xs {
		f(x)
	}
}
func (it Iter[T]) ForEachIndex(f func(i int, x T)) {
	for i, x := range it.xs {
		f(it.pos[i], x)
	}
}
func (it Iter[T]) ForEachErr(f func(T) error) error {
	var errs []error
	for i, x := range it.xs {
		if err := f(x); err != nil {
			errs = append(errs, &ItemError{it.pos[i], err})
		}
	}
	return errors.Join(errs...)
}
func (it Iter[T]) TryForEach(f func(T) error) error {
	for _, x := range it.xs {
		if err := f(x); err != nil {
			return err
		}
	}
	return nil
}
func (it Iter[T]) TryForEachContext(f func(ctx context.Context, v T) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, x := range it.xs {
		if err := f(ctx, x); err != nil {
			return err
		}
	}
	return nil
}
func (it Iter[T]) Reduce(identity func() T, op func(T, T) T) T {
	acc := identity()
	for _, x := range it.xs {
		acc = op(acc, x)
	}
	return acc
}
func (it Iter[T]) Count() int   { return len(it.xs) }
func (it Iter[T]) Collect() []T { return append([]T{}, it.xs...) }
func (it Iter[T]) Partition(pred func(T) bool) (matched, rest []T) {
	for _, x := range it.xs {
		if pred(x) {
			matched = append(matched, x)
		} else {
			rest = append(rest, x)
		}
	}
	return matched, rest
}
func (it Iter[T]) Any(pred func(T) bool) bool { return slices.ContainsFunc(it.xs, pred) }
func (it Iter[T]) Every(pred func(T) bool) bool {
	return !slices.ContainsFunc(it.xs, func(x T) bool { return !pred(x) })
}
func (it Iter[T]) Find(pred func(T) bool) (T, bool) { return it.FindFirst(pred) }
func (it Iter[T]) FindFirst(pred func(T) bool) (T, bool) {
	for _, x := range it.xs {
		if pred(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}
func (it Iter[T]) Values() goiter.Seq[T] { return slices.Values(it.xs) }

func (it Nums[T]) Map(f func(T) T) Nums[T]                           { return Nums[T]{it.Iter.Map(f)} }
func (it Nums[T]) Filter(pred func(T) bool) Nums[T]                  { return Nums[T]{it.Iter.Filter(pred)} }
func (it Nums[T]) WithContext(ctx context.Context) Nums[T]           { return it }
func (it Nums[T]) WithPool(pool *Pool) Nums[T]                       { return it }
func (it Nums[T]) Blocking(limit int) Nums[T]                        { return it }
func (it Nums[T]) WithProgress(report func(done, total int)) Nums[T] { return it }
func (it Nums[T]) Unordered() Nums[T]                                { return it }
func (it Nums[T]) Sum() T                                            { return Sum[T](it) }

func Sum[T Number](it Iterator[T]) T {
	xs, _ := it.items()
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}
func Map[T, U any](it Iterator[T], f func(T) U) Iter[U] {
	xs, pos := it.items()
	out := Iter[U]{pos: pos}
	for _, x := range xs {
		out.xs = append(out.xs, f(x))
	}
	return out
}
func FilterMap[T, U any](it Iterator[T], f func(T) (U, bool)) Iter[U] {
	xs, pos := it.items()
	var out Iter[U]
	for i, x := range xs {
		if y, ok := f(x); ok {
			out.xs, out.pos = append(out.xs, y), append(out.pos, pos[i])
		}
	}
	return out
}
func FlatMap[T, U any](it Iterator[T], f func(T) []U) Iter[U] {
	xs, pos := it.items()
	var out Iter[U]
	for i, x := range xs {
		for _, y := range f(x) {
			out.xs, out.pos = append(out.xs, y), append(out.pos, pos[i])
		}
	}
	return out
}
func MapInit[T, S, U any](it Iterator[T], init func() S, f func(S, T) U) Iter[U] {
	s := init()
	return Map(it, func(x T) U { return f(s, x) })
}
func Fold[T, A any](it Iterator[T], init func() A, fold func(A, T) A, combine func(A, A) A) A {
	xs, _ := it.items()
	acc := init()
	for _, x := range xs {
		acc = fold(acc, x)
	}
	return combine(init(), acc)
}
func ForEachInit[T, S any](it Iterator[T], init func() S, f func(S, T)) {
	s := init()
	xs, _ := it.items()
	for _, x := range xs {
		f(s, x)
	}
}
func TryForEachInit[T, S any](it Iterator[T], init func() S, f func(S, T) error) error {
	s := init()
	return from(func() []T { xs, _ := it.items(); return xs }()).TryForEach(func(x T) error { return f(s, x) })
}
func ForEachPtr[T any](xs []T, f func(i int, p *T)) {
	for i := range xs {
		f(i, &xs[i])
	}
}
func TryMap[T, U any](it Iterator[T], f func(T) (U, error)) ([]U, error) {
	xs, _ := it.items()
	out := []U{}
	for _, x := range xs {
		y, err := f(x)
		if err != nil {
			return nil, err
		}
		out = append(out, y)
	}
	return out, nil
}
func TryMapContext[T, U any](it Iterator[T], f func(ctx context.Context, v T) (U, error)) ([]U, error) {
	return TryMap(it, func(x T) (U, error) { return f(context.Background(), x) })
}
func TryMapInit[T, S, U any](it Iterator[T], init func() S, f func(S, T) (U, error)) ([]U, error) {
	s := init()
	return TryMap(it, func(x T) (U, error) { return f(s, x) })
}
func MapErr[T, U any](it Iterator[T], f func(T) (U, error)) ([]U, error) {
	xs, _ := it.items()
	out := []U{}
	var errs []error
	for i, x := range xs {
		y, err := f(x)
		if err != nil {
			errs = append(errs, &ItemError{i, err})
		}
		out = append(out, y)
	}
	return out, errors.Join(errs...)
}
func Min[T cmp.Ordered](it Iterator[T]) (T, bool) { return MinFunc(it, cmp.Compare[T]) }
func Max[T cmp.Ordered](it Iterator[T]) (T, bool) { return MaxFunc(it, cmp.Compare[T]) }
func MinFunc[T any](it Iterator[T], cmp func(a, b T) int) (T, bool) {
	xs, _ := it.items()
	if len(xs) == 0 {
		var zero T
		return zero, false
	}
	return slices.MinFunc(xs, cmp), true
}
func MaxFunc[T any](it Iterator[T], cmp func(a, b T) int) (T, bool) {
	xs, _ := it.items()
	if len(xs) == 0 {
		var zero T
		return zero, false
	}
	return slices.MaxFunc(xs, cmp), true
}
func ScanInclusive[T any](dst, src []T, identity T, op func(T, T) T) T { return identity }
func ScanExclusive[T any](dst, src []T, identity T, op func(T, T) T) T { return identity }
func Sort[S ~[]E, E cmp.Ordered](xs S)                                 { slices.Sort(xs) }
func SortFunc[S ~[]E, E any](xs S, cmp func(a, b E) int)               { slices.SortFunc(xs, cmp) }
func SortStableFunc[S ~[]E, E any](xs S, cmp func(a, b E) int)         { slices.SortStableFunc(xs, cmp) }

func Join(a, b func()) { a(); b() }
func JoinAll(fns ...func()) {
	for _, f := range fns {
		f()
	}
}
func JoinFunc[A, R any](f func(A) R, a, b A) (ra, rb R) { return f(a), f(b) }
func Scope(body func(g *Group))                         { body(&Group{}) }
func (g *Group) Go(task func(g *Group))                 { task(g) }
func TryScope(ctx context.Context, limit int, body func(ctx context.Context, g *TryGroup) error) error {
	return body(ctx, &TryGroup{ctx})
}
func (g *TryGroup) Go(task func(ctx context.Context, g *TryGroup) error) { _ = task(g.ctx, g) }
