package par

// reduced is a run's accumulator of ReduceByKey. While it holds few keys,
// each key's value is vals[at[k]], so that an item costs one map lookup (a
// map[K]V costs a lookup and an assignment: K2, 400 keys, runs 1.5x slower
// so). Past reducedKeys keys (keyshare_size.go) it moves into m, a
// map[K]V: over millions of keys a lookup goes to memory either way, and m
// is the result as it stands, where at and vals would be copied into a map
// at the end, the result held twice meanwhile.
type reduced[K comparable, V any] struct {
	at   map[K]int
	vals []V
	m    map[K]V // non-nil once the accumulator holds its keys here
}

// foldReduced folds the pairs that kv gives for xs, which come after the
// items already folded into r, into r.
func foldReduced[T any, K comparable, V any](r *reduced[K, V], xs []T, kv func(T) (K, V), op func(V, V) V) *reduced[K, V] {
	if m := r.m; m != nil {
		for _, x := range xs {
			k, v := kv(x)
			if w, ok := m[k]; ok {
				v = op(w, v)
			}
			m[k] = v
		}
		return r
	}
	at, vals := r.at, r.vals
	for _, x := range xs {
		k, v := kv(x)
		if i, ok := at[k]; ok {
			vals[i] = op(vals[i], v)
		} else {
			at[k] = len(vals)
			vals = append(vals, v)
		}
	}
	r.vals = vals
	if len(vals) > reducedKeys {
		r.m = r.result()
		r.at, r.vals = nil, nil
	}
	return r
}

// join joins b, the run after r's, into r, or r into b where b holds more
// keys, keeping op's operands in index order, and returns the one that
// holds both.
func (r *reduced[K, V]) join(b *reduced[K, V], op func(V, V) V) *reduced[K, V] {
	if r.m == nil && b.m == nil {
		if len(b.at) > len(r.at) {
			return b.absorb(r, func(big, small V) V { return op(small, big) })
		}
		return r.absorb(b, op)
	}
	r.m = joinMaps(r.result(), b.result(), op)
	r.at, r.vals = nil, nil
	return r
}

// absorb merges src's keys into r, the larger side, with merge(r's value,
// src's value) for a key in both; merge keeps op's left operand first.
func (r *reduced[K, V]) absorb(src *reduced[K, V], merge func(mine, theirs V) V) *reduced[K, V] {
	for k, j := range src.at {
		if i, ok := r.at[k]; ok {
			r.vals[i] = merge(r.vals[i], src.vals[j])
		} else {
			r.at[k] = len(r.vals)
			r.vals = append(r.vals, src.vals[j])
		}
	}
	return r
}

// result returns r's keys and values as a map.
func (r *reduced[K, V]) result() map[K]V {
	if r.m != nil {
		return r.m
	}
	m := make(map[K]V, len(r.at))
	for k, i := range r.at {
		m[k] = r.vals[i]
	}
	return m
}
