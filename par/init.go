package par

import "github.com/gopar-dev/gopar/internal/pipe"

// MapInit returns an iterator over f(s, x) for every item x of it, where s
// is a value made by init that the calls of f share one goroutine at a
// time: a scratch buffer, a *rand.Rand, a compressor, anything that is
// costly to make per item and unsafe to share between goroutines.
//
//	sums := par.MapInit(par.Slice(files),
//		func() *bytes.Buffer { return new(bytes.Buffer) },
//		func(buf *bytes.Buffer, name string) string { buf.Reset(); ...; return digest(buf) })
//
// init is called when a goroutine starts a run of items and no value made
// earlier is idle: at most once per goroutine running the pipeline at once
// (the caller and the pool's workers, or Blocking's limit), never per
// item, block or steal, and the values are reused by later runs and later
// operations on the result. Use a pointer type for a value that f changes in place. A
// value is used by one goroutine at a time, but by several in turn, and
// f finds it as the previous call left it (reset it in f if that matters).
// A value whose call of f panicked is not reused. The values are freed
// with the iterator.
func MapInit[T, S, U any](it Iterator[T], init func() S, f func(S, T) U) Iter[U] {
	mustFunc(init, "MapInit (init)")
	mustFunc(f, "MapInit")
	return Iter[U]{pipe.MapInitSpec(specOf(it), init, f)}
}

// ForEachInit calls f(s, x) for every item x of it, in parallel, where s is
// a value made by init that the calls share one goroutine at a time; it
// returns when all calls have returned. init is called at most once per
// goroutine running the loop at once, never per item: see MapInit.
//
// It replaces the fan-out where each worker goroutine makes its own buffer
// or generator before its loop.
func ForEachInit[T, S any](it Iterator[T], init func() S, f func(S, T)) {
	mustFunc(init, "ForEachInit (init)")
	mustFunc(f, "ForEachInit")
	MapInit(it, init, func(s S, v T) struct{} {
		f(s, v)
		return struct{}{}
	}).ForEach(func(struct{}) {})
}
