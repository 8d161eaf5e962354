package par

import (
	"cmp"
	goiter "iter"
	"slices"
	"unsafe"
)

// Sorted is a keyed result read in key order, one entry at a time, that
// need not fit in memory: the operation that makes it (CountBySorted,
// ReduceByKeySorted, GroupBySorted, DistinctSorted) holds at most its
// memory budget (WithMemory), and keeps what passes the budget in files on
// disk (WithTempDir), merged back as All reads them.
//
// The operation runs when All is ranged over, and again on each range. Its
// files are removed when the range ends, however it ends: after the last
// entry, at a break, or by a panic or runtime.Goexit in the loop body or
// in the operation's functions. After a range, Err says whether it read
// every entry. Like a bufio.Scanner, a Sorted is read by one goroutine at
// a time.
type Sorted[K cmp.Ordered, V any] struct {
	run func(yield func(K, V) bool) error
	err error
}

// All returns the entries in key order (cmp.Compare's order; a float NaN,
// never equal to another, is an entry of its own, before the other keys).
// Each range over it runs the operation, and sets what Err returns.
func (s *Sorted[K, V]) All() goiter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		s.err = nil
		s.err = s.run(yield)
	}
}

// Keys returns the keys of All, in key order: for DistinctSorted, the
// distinct items. Each range over it runs the operation, and sets what
// Err returns.
func (s *Sorted[K, V]) Keys() goiter.Seq[K] {
	return func(yield func(K) bool) {
		for k := range s.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// Err returns the error that ended the last range over All: nil if it
// gave every entry or the loop broke out, the context's cause if the
// operation's context (WithContext) was done before it ended, or the
// error of a file it could not write or read, or of a cap on disk use
// that it would have passed (WithTempDir). An error ends the range before
// its first entry, except an error reading a file back, which ends it
// where it occurs.
func (s *Sorted[K, V]) Err() error { return s.err }

// CountBySorted returns the counts of CountBy, read in key order, within
// the memory budget of the iterator (WithMemory): a count whose keys do
// not fit in memory, such as the distinct values of a column of a file
// larger than memory, still gives each key once with its count.
//
//	counts := par.CountBySorted(par.Slice(rows).WithMemory(64<<20), func(r Row) string { return r.User })
//	for user, n := range counts.All() {
//		fmt.Println(user, n)
//	}
//	if err := counts.Err(); err != nil {
//		return err
//	}
//
// Each goroutine of the operation counts into a map of its own, as
// CountBy does. When the maps would pass the budget, a goroutine whose
// map passes its share sorts its counts by key, writes them to a file of
// the operation's directory (see WithTempDir), and starts again with an
// empty map; All then merges the files and the maps in key order, adding
// the counts of a key. Keys that fit in the budget are never written: then
// it costs CountBy and a sort of the result. The operation holds the
// budget, and, while All merges, a read buffer of 64 KB per file.
//
// The counts do not depend on order, and the operation runs as with
// Unordered. A done context (WithContext) ends it with no entry, and Err
// returns the context's cause. A panic in key is re-raised as a *Panic,
// and the files are removed. A nil key panics at once.
func CountBySorted[T any, K cmp.Ordered](it Iterator[T], key func(T) K, opts ...SortedOption[K, int]) *Sorted[K, int] {
	mustFunc(key, "CountBySorted")
	s := specOf(it)
	fill := func(a *spillMap[K, int], xs []T) {
		m, size := a.m, a.set.size
		if size == nil {
			for _, x := range xs {
				m[key(x)]++
			}
			return
		}
		for _, x := range xs {
			k := key(x)
			n := len(m)
			m[k]++
			if len(m) > n {
				a.extra += size(k, 1)
			}
		}
	}
	return &Sorted[K, int]{run: func(yield func(K, int) bool) error {
		whole := func() goiter.Seq2[K, int] { return entriesSeq(sortedEntries(count(s, key), nil)) }
		return reduceSorted(s, sortedOp[T, K, int]{
			name: "CountBySorted", pricing: entries(keyBytes[K, int](), false, opts),
			fill: fill, op: add, whole: whole,
		}, yield)
	}}
}

func add(a, b int) int { return a + b }

// ReduceByKeySorted returns, for each key of the pairs that kv gives for
// the items of it, the values of that key combined with op, read in key
// order, within the memory budget of the iterator (WithMemory): the
// ReduceByKey of a result that does not fit in memory, such as per-user
// totals over a log larger than memory.
//
//	type total struct{ bytes, requests int64 }
//	per := par.ReduceByKeySorted(par.Slice(recs).WithMemory(256<<20),
//		func(r Rec) (string, total) { return r.User, total{r.Bytes, 1} },
//		func(a, b total) total { return total{a.bytes + b.bytes, a.requests + b.requests} })
//	for user, t := range per.All() { ... }
//
// It spills and merges as CountBySorted does, combining with op the values
// of a key from the runs; an entry is priced at the size of K and V (and
// a string key's bytes): what a value points to (a slice, a map) is not
// counted, and values that grow with their key's items do not fit this
// bound. The runs' values are written by encoding/gob unless V is a basic
// type, so V's fields must be exported for gob to keep them.
//
// The operation runs as with Unordered, so op must be associative and
// commutative: the values of a key are combined in no particular order.
// A done context (WithContext) ends it with no entry, and Err returns the
// context's cause. A panic in kv or op is re-raised as a *Panic (a panic in
// op while All merges, as op's own), and the files are removed. A nil
// function panics at once.
func ReduceByKeySorted[T any, K cmp.Ordered, V any](it Iterator[T], kv func(T) (K, V), op func(V, V) V, opts ...SortedOption[K, V]) *Sorted[K, V] {
	mustFunc(kv, "ReduceByKeySorted (kv)")
	mustFunc(op, "ReduceByKeySorted (op)")
	s := specOf(it)
	fill := func(a *spillMap[K, V], xs []T) {
		m, size, grows := a.m, a.set.size, a.set.grows
		for _, x := range xs {
			k, v := kv(x)
			if old, ok := m[k]; ok {
				v = op(old, v)
				m[k] = v
				if grows {
					a.extra += size(k, v) - size(k, old)
				}
				continue
			}
			m[k] = v
			if size != nil {
				a.extra += size(k, v)
			}
		}
	}
	return &Sorted[K, V]{run: func(yield func(K, V) bool) error {
		return reduceSorted(s, sortedOp[T, K, V]{
			name: "ReduceByKeySorted", pricing: entries(keyBytes[K, V](), true, opts),
			fill: fill, op: op,
		}, yield)
	}}
}

// GroupBySorted returns the items of it grouped by key, read in key
// order, within the memory budget of the iterator (WithMemory): the
// GroupBy of a result that does not fit in memory, such as the requests of
// each user over a log larger than memory.
//
//	byUser := par.GroupBySorted(par.Slice(events).WithMemory(256<<20), func(e Event) string { return e.User })
//	for user, evs := range byUser.All() { ... }
//
// It spills and merges as CountBySorted does, joining the groups of a key
// from the runs. A group is priced at its items (the capacity of its
// slice times the size of T) and its string key's bytes; what an item
// points to is not counted (see EntrySize). A key's whole group is in
// memory while All gives it, so one group must fit. The runs' groups are
// written by encoding/gob unless EntryCodec says otherwise, so T's fields
// must be exported for gob to keep them.
//
// The operation runs as with Unordered: the items of a group come in no
// particular order. A done context (WithContext) ends it with no entry,
// and Err returns the context's cause. A panic in key is re-raised as a
// *Panic, and the files are removed. A nil key panics at once.
func GroupBySorted[T any, K cmp.Ordered](it Iterator[T], key func(T) K, opts ...SortedOption[K, []T]) *Sorted[K, []T] {
	mustFunc(key, "GroupBySorted")
	s := specOf(it)
	kb, item := keyBytes[K, []T](), int64(unsafe.Sizeof(*new(T)))
	held := func(k K, g []T) int64 {
		n := int64(cap(g)) * item
		if kb != nil {
			n += kb(k, g)
		}
		return n
	}
	fill := func(a *spillMap[K, []T], xs []T) {
		m, size, grows := a.m, a.set.size, a.set.grows
		for _, x := range xs {
			k := key(x)
			old, ok := m[k]
			g := append(old, x)
			m[k] = g
			switch {
			case !ok:
				a.extra += size(k, g)
			case grows || cap(g) != cap(old):
				a.extra += size(k, g) - size(k, old)
			}
		}
	}
	return &Sorted[K, []T]{run: func(yield func(K, []T) bool) error {
		return reduceSorted(s, sortedOp[T, K, []T]{
			name: "GroupBySorted", pricing: entries(held, true, opts),
			fill: fill, op: joinGroups[T],
		}, yield)
	}}
}

// joinGroups joins two groups of a key.
func joinGroups[T any](a, b []T) []T { return append(a, b...) }

// DistinctSorted returns the distinct items of it, read in order by
// Keys (cmp.Compare's order), within the memory budget of the iterator
// (WithMemory): the Distinct of more values than memory holds. Each
// value is the empty struct.
//
//	users := par.DistinctSorted(par.FlatMap(par.Slice(files).WithMemory(256<<20), readUsers))
//	for u := range users.Keys() { ... }
//
// It spills and merges as CountBySorted does, and has its rules; with no
// budget it is Distinct, whose shards hold each item once, sorted.
func DistinctSorted[T cmp.Ordered](it Iterator[T], opts ...SortedOption[T, struct{}]) *Sorted[T, struct{}] {
	s := specOf(it)
	fill := func(a *spillMap[T, struct{}], xs []T) {
		m, size := a.m, a.set.size
		if size == nil {
			for _, x := range xs {
				m[x] = struct{}{}
			}
			return
		}
		for _, x := range xs {
			if _, ok := m[x]; !ok {
				m[x] = struct{}{}
				a.extra += size(x, struct{}{})
			}
		}
	}
	whole := func() goiter.Seq2[T, struct{}] {
		xs := Distinct[T](Iter[T]{s: s})
		slices.Sort(xs)
		return func(yield func(T, struct{}) bool) {
			for _, x := range xs {
				if !yield(x, struct{}{}) {
					return
				}
			}
		}
	}
	return &Sorted[T, struct{}]{run: func(yield func(T, struct{}) bool) error {
		return reduceSorted(s, sortedOp[T, T, struct{}]{
			name: "DistinctSorted", pricing: entries(keyBytes[T, struct{}](), false, opts),
			fill: fill, op: keepFirst, whole: whole,
		}, yield)
	}}
}

func keepFirst(a, _ struct{}) struct{} { return a }
