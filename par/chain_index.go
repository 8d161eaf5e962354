//go:build go1.27

package par

// ZipWith is the function ZipWith as a method (Go 1.27 or newer): f(x, y)
// for the items x of it and y of b at the same positions, in order, as many
// as the shorter side has. It is the chained form of Zip and Enumerate,
// whose Pair items a method cannot return (see Enumerate):
//
//	dist := par.Slice(xs).ZipWith(par.Slice(ys), func(x, y float64) float64 { return math.Abs(x - y) })
//	numbered := par.Slice(names).ZipWith(par.Range(1, math.MaxInt), func(name string, i int) string {
//		return fmt.Sprintf("%d. %s", i, name)
//	})
func (it Iter[T]) ZipWith[U, V any](b Iterator[U], f func(T, U) V) Iter[V] { return ZipWith(it, b, f) }
