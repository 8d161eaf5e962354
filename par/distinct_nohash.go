//go:build !go1.24

package par

// comparableHasher returns nil: before Go 1.24 the standard library has no
// hash for every comparable type, and Distinct merges a set per run.
func comparableHasher[T comparable]() func(T) uint64 { return nil }
