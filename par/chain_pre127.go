//go:build !go1.27

package par

// The same-type Map methods, for toolchains before Go 1.27, whose methods
// cannot have type parameters of their own. From Go 1.27 on, chain.go
// declares Map with a result type of its own instead, and every other
// type-changing step as a method too.

// Map returns an iterator over f(x) for every item x of it, of the same
// type. To change the item type (the compiler says "cannot use func(...) U
// as func(T) T"), use the function par.Map: before Go 1.27, Go methods
// cannot add type parameters. (With Go 1.27 or newer, this method changes
// the type too.)
func (it Iter[T]) Map(f func(T) T) Iter[T] {
	mustFunc(f, "Map")
	return Iter[T]{it.s.Map(f)}
}

// Map returns an iterator over f(x) for every item x of it.
func (it Nums[T]) Map(f func(T) T) Nums[T] {
	return Nums[T]{it.Iter.Map(f)}
}
