package par

import "github.com/gopar-dev/gopar/internal/pipe"

// The sharings of the keyed operations (keyshare.go): what one item adds to
// a map, and how two values of a key join, per operation.

// counting is the sharing of CountBy and Counts: a count per key, one per
// item.
func counting[K comparable]() sharing[K, int, struct{}] {
	return sharing[K, int, struct{}]{
		put:  func(m map[K]int, k K, _ struct{}) { m[k]++ },
		join: func(a, b int) int { return a + b },
	}
}

// shareUnordered is a keyed operation under Unordered, whose items join
// its maps in no particular order: shareKeyed, with the fold that splits
// each item into its key and unit.
func shareUnordered[T any, K comparable, V, U any](s pipe.Spec[T], how sharing[K, V, U], split func(T) (K, U)) map[K]V {
	return shareKeyed(s, false, how, foldShared(how, split))
}

// grouping is the sharing of GroupBy and GroupByKey: a group per key.
func grouping[K comparable, V any]() sharing[K, []V, V] {
	return sharing[K, []V, V]{
		put:  func(m map[K][]V, k K, v V) { m[k] = append(m[k], v) },
		join: appendGroup[V],
	}
}

// reducing is the sharing of ReduceByKey: op's reduction per key.
func reducing[K comparable, V any](op func(V, V) V) sharing[K, V, V] {
	return sharing[K, V, V]{
		put: func(m map[K]V, k K, v V) {
			if w, ok := m[k]; ok {
				v = op(w, v)
			}
			m[k] = v
		},
		join: op,
	}
}

// collecting is the sharing of CollectMap: a value per key, any one.
func collecting[K comparable, V any]() sharing[K, V, V] {
	return sharing[K, V, V]{
		put:  func(m map[K]V, k K, v V) { m[k] = v },
		join: later[V],
	}
}

// appendGroup joins two groups of a key, a's items before b's.
func appendGroup[V any](a, b []V) []V { return append(a, b...) }

// later joins two values of a key as CollectMap does: the later one wins.
func later[V any](_, b V) V { return b }
