//go:build go1.24

package par

import "hash/maphash"

// comparableHasher returns a hash of T's values that is consistent with ==,
// with a seed of its own.
func comparableHasher[T comparable]() func(T) uint64 {
	seed := maphash.MakeSeed()
	return func(x T) uint64 { return maphash.Comparable(seed, x) }
}
