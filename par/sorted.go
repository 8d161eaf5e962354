package par

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	goiter "iter"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gopar-dev/gopar/internal/pipe"
	"github.com/gopar-dev/gopar/internal/spill"
	"github.com/gopar-dev/gopar/runtime"
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

// WithMemory returns it with the operations that can spill to disk
// (CountBySorted, ReduceByKeySorted, GroupBySorted, DistinctSorted)
// holding at most about bytes of memory in their accumulators: past that,
// they write what they hold to files (see WithTempDir) and go on. The
// bound counts each entry as its map holds it, from the sizes of its key
// and value, and for a string key its bytes too; what a key or value
// points to otherwise (a slice, a pointer's target) is counted by
// EntrySize where one is given.
//
// A budget below 4 MB also bounds the items that any operation holds
// ahead of its work: the ring over a FromSeq and the buffer of Values and
// All (see WithBuffer), at the size of their items, and at least one per
// worker.
//
// With no WithMemory, the bound is half of the Go runtime's soft memory
// limit (GOMEMLIMIT, debug.SetMemoryLimit) if one is set, and none
// otherwise. It panics if bytes < 1.
func (it Iter[T]) WithMemory(bytes int64) Iter[T] {
	if bytes < 1 {
		panic(fmt.Sprintf("gopar: WithMemory(%d): the budget must be at least 1 byte", bytes))
	}
	b := budgetOf(it.s.Config)
	b.Memory = bytes
	it.s.Budget = &b
	return it
}

// WithMemory returns it with the operations that spill holding at most
// about bytes of memory; see Iter.WithMemory.
func (it Nums[T]) WithMemory(bytes int64) Nums[T] { return Nums[T]{it.Iter.WithMemory(bytes)} }

// WithMemory returns r with the operations that spill holding at most
// about bytes of memory; see Iter.WithMemory.
func (r Ints) WithMemory(bytes int64) Ints { return Ints{r.Nums.WithMemory(bytes)} }

// WithTempDir returns it with the operations that spill to disk
// (CountBySorted, ReduceByKeySorted, GroupBySorted, DistinctSorted)
// writing their files under dir, in a directory of the
// operation's own, and holding at most maxBytes there (0: no cap). The
// default dir, "", is os.TempDir(). An operation that would pass the cap
// stops, and its error says so. It panics if maxBytes < 0.
func (it Iter[T]) WithTempDir(dir string, maxBytes int64) Iter[T] {
	if maxBytes < 0 {
		panic(fmt.Sprintf("gopar: WithTempDir(%q, %d): the cap on disk use must be 0 (none) or more", dir, maxBytes))
	}
	b := budgetOf(it.s.Config)
	b.TempDir, b.DiskCap = dir, maxBytes
	it.s.Budget = &b
	return it
}

// WithTempDir returns it with the operations that spill writing under dir,
// at most maxBytes; see Iter.WithTempDir.
func (it Nums[T]) WithTempDir(dir string, maxBytes int64) Nums[T] {
	return Nums[T]{it.Iter.WithTempDir(dir, maxBytes)}
}

// WithTempDir returns r with the operations that spill writing under dir,
// at most maxBytes; see Iter.WithTempDir.
func (r Ints) WithTempDir(dir string, maxBytes int64) Ints {
	return Ints{r.Nums.WithTempDir(dir, maxBytes)}
}

// budgetOf returns a copy of c's budget, to change.
func budgetOf(c pipe.Config) pipe.Budget {
	if c.Budget == nil {
		return pipe.Budget{}
	}
	return *c.Budget
}

// memoryBudget returns the bytes that an operation under c may hold before
// it spills, 0 for no bound.
func memoryBudget(c pipe.Config) int64 {
	if c.Budget != nil && c.Budget.Memory > 0 {
		return c.Budget.Memory
	}
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		return max(limit/2, 1)
	}
	return 0
}

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
		whole := func() goiter.Seq2[K, int] { return entriesSeq(sortedEntries(count(s, countFold(key)), nil)) }
		return reduceSorted(s, "CountBySorted", entries(keyBytes[K, int](), false, opts), fill, add, whole, yield)
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
		return reduceSorted(s, "ReduceByKeySorted", entries(keyBytes[K, V](), true, opts), fill, op, nil, yield)
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
		return reduceSorted(s, "GroupBySorted", entries(held, true, opts), fill, joinGroups[T], nil, yield)
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
		return reduceSorted(s, "DistinctSorted", entries(keyBytes[T, struct{}](), false, opts), fill, keepFirst, whole, yield)
	}}
}

func keepFirst(a, _ struct{}) struct{} { return a }

// A SortedOption sets how an operation that returns a Sorted prices its
// entries against the memory budget (EntrySize) or writes them to disk
// (EntryCodec). Options given later override earlier ones.
type SortedOption[K cmp.Ordered, V any] struct {
	size   func(K, V) int64
	format spill.Format[K, V]
}

// EntrySize returns the option that prices an entry at the size of its
// key and value plus what size returns: the bytes they point to, such as
// a slice's array or the fields of a struct value that are strings. It
// replaces the default, which counts the bytes of a string key (and, for
// GroupBySorted, the group's items). For an operation whose values
// change (ReduceByKeySorted, GroupBySorted), size is called again on
// each change. A nil size panics.
//
//	par.ReduceByKeySorted(it, kv, op, par.EntrySize(func(user string, v Visit) int64 {
//		return int64(len(user) + len(v.Agent))
//	}))
func EntrySize[K cmp.Ordered, V any](size func(k K, v V) int64) SortedOption[K, V] {
	mustFunc(size, "EntrySize")
	return SortedOption[K, V]{size: size}
}

// EntryCodec returns the option that writes each entry that spills as the
// bytes that enc appends to buf, and reads it back with dec, which gets
// exactly those bytes (and may keep none of them: the buffer is reused).
// Without it, integers, floats and strings have compact codecs of their
// own, and any other type of key or value goes through encoding/gob. An
// error from dec ends the range over All, and Err returns it. A nil enc
// or dec panics.
//
//	par.EntryCodec(
//		func(buf []byte, k string, v Point) []byte { ... },
//		func(data []byte) (string, Point, error) { ... })
func EntryCodec[K cmp.Ordered, V any](enc func(buf []byte, k K, v V) []byte, dec func(data []byte) (K, V, error)) SortedOption[K, V] {
	mustFunc(enc, "EntryCodec (enc)")
	mustFunc(dec, "EntryCodec (dec)")
	return SortedOption[K, V]{format: spill.Bytes(enc, dec)}
}

// pricing is how an operation prices and writes its entries: the options
// in effect (size nil: no bytes counted past the entry's own), and whether
// the user's size function is to be called again on each change of a
// value.
type pricing[K cmp.Ordered, V any] struct {
	SortedOption[K, V]
	grows bool
}

// entries returns the pricing of an operation from its default size
// function (nil if none), whether its values change, and the options.
func entries[K cmp.Ordered, V any](size func(K, V) int64, changes bool, opts []SortedOption[K, V]) pricing[K, V] {
	user := false
	p := pricing[K, V]{SortedOption: SortedOption[K, V]{size: size}}
	for _, o := range opts {
		if o.size != nil {
			p.size, user = o.size, true
		}
		if !o.format.Default() {
			p.format = o.format
		}
	}
	p.grows = changes && user
	return p
}

// spillSet is the state that the goroutines of an operation that spills
// share.
type spillSet[K cmp.Ordered, V any] struct {
	name     string // the operation's, for its errors
	budget   int64  // bytes; 0: no bound
	perEntry int64  // the bytes of an entry, in its map and in a sorted run
	pricing[K, V]
	workers int64        // the pool's workers: the fewest shares of the budget
	made    atomic.Int64 // maps made
	dir     *spill.Dir
	stop    context.CancelCauseFunc

	mu   sync.Mutex // guards what follows
	maps []*spillMap[K, V]
	runs []*spill.Run[K, V]
	err  error
}

// spillMap is the accumulator of one goroutine of an operation that
// spills.
type spillMap[K cmp.Ordered, V any] struct {
	m      map[K]V
	extra  int64               // the bytes m's entries point to (pricing.size)
	sorted []spill.Entry[K, V] // kept for the next run
	set    *spillSet[K, V]
}

// entryBytes estimates what an entry of a map[K]V costs, from its key and
// value: a Go map's slot, with its control byte, at a load between 7/16
// and 7/8 (2.4 times the slot, measured between 1,000 and 3M entries),
// plus the entry in the slice that sorts it.
func entryBytes[K, V any]() int64 {
	kv := int64(unsafe.Sizeof(*new(K)) + unsafe.Sizeof(*new(V)))
	return (kv+1)*12/5 + kv
}

// keyBytes returns the size function that counts the bytes of a string
// key, nil if K is not string.
func keyBytes[K, V any]() func(K, V) int64 {
	if _, ok := any(*new(K)).(string); !ok {
		return nil
	}
	return func(k K, _ V) int64 { return int64(len(*any(&k).(*string))) }
}

// reduceSorted runs the operation name over s, giving yield its entries:
// p prices and writes them, fill adds a slice of items to a goroutine's
// map, op combines two values of a key. With no budget, whole, if not
// nil, gives the result in key order, each key once (from CountBy's one
// map, or Distinct's shards); otherwise the goroutines' maps are merged.
func reduceSorted[T any, K cmp.Ordered, V any](s pipe.Spec[T], name string, p pricing[K, V], fill func(a *spillMap[K, V], xs []T), op func(V, V) V, whole func() goiter.Seq2[K, V], yield func(K, V) bool) (err error) {
	parent := s.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := context.WithCancelCause(parent)
	defer stop(nil)
	pool := s.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	b := budgetOf(s.Config)
	set := &spillSet[K, V]{
		name:     name,
		budget:   memoryBudget(s.Config),
		perEntry: entryBytes[K, V](),
		pricing:  p,
		workers:  int64(pool.Workers()),
		dir:      spill.NewDir(b.TempDir, b.DiskCap),
		stop:     stop,
	}
	defer func() {
		if cerr := set.dir.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("gopar: %s: removing its files: %w", name, cerr)
		}
		if st := s.Stats; st != nil {
			st.Spilled, st.SpillRuns = set.dir.Written(), set.dir.Files()
		}
	}()
	if set.budget == 0 && whole != nil {
		all := whole()
		if err := parent.Err(); err != nil {
			return context.Cause(parent)
		}
		all(yield)
		return nil
	}
	s.Context, s.Unordered = ctx, true
	keyedFold(s, true,
		func() *spillMap[K, V] {
			a := &spillMap[K, V]{m: map[K]V{}, set: set}
			set.made.Add(1)
			set.mu.Lock()
			set.maps = append(set.maps, a)
			set.mu.Unlock()
			return a
		},
		func(a *spillMap[K, V], xs []T) *spillMap[K, V] {
			fill(a, xs)
			if set.budget > 0 && len(a.m) >= spillMin && int64(len(a.m))*set.perEntry+a.extra > set.share() {
				a.spill()
			}
			return a
		},
		func(a, _ *spillMap[K, V]) *spillMap[K, V] { return a })
	if set.err != nil {
		return set.failure(b)
	}
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	var mems [][]spill.Entry[K, V]
	if len(set.runs) == 0 {
		// Everything fit: one map, sorted.
		var all map[K]V
		for _, a := range set.maps {
			all = mergeMaps(all, a.m, op)
			a.m = nil
		}
		mems = [][]spill.Entry[K, V]{sortedEntries(all, nil)}
	} else {
		for _, a := range set.maps {
			if len(a.m) > 0 {
				mems = append(mems, sortedEntries(a.m, a.sorted))
				a.m, a.sorted = nil, nil
			}
		}
	}
	fanIn := int(min(max(set.budget/(4<<16), 16), 256))
	if err := spill.Merge(set.dir, set.runs, mems, op, fanIn, yield); err != nil {
		return fmt.Errorf("gopar: %s: reading its files back: %w", name, err)
	}
	return nil
}

// share returns the bytes one goroutine's map may hold.
func (set *spillSet[K, V]) share() int64 {
	return set.budget / max(set.workers, set.made.Load())
}

// failure returns the error of the operation's first failed run, saying
// which setting to change.
func (set *spillSet[K, V]) failure(b pipe.Budget) error {
	var ce *spill.CapError
	if errors.As(set.err, &ce) {
		return fmt.Errorf("gopar: %s: its files would pass the cap of %d bytes on disk "+
			"(WithTempDir(%q, %d)); raise the cap, or the memory budget of %d bytes (WithMemory): %w",
			set.name, ce.Cap, b.TempDir, b.DiskCap, set.budget, set.err)
	}
	return fmt.Errorf("gopar: %s: writing what passed the memory budget of %d bytes (WithMemory) "+
		"under %q (WithTempDir): %w", set.name, set.budget, set.dir.Parent(), set.err)
}

// spill writes the map's entries to a run, sorted by key, and empties the
// map. A run that fails stops the operation.
func (a *spillMap[K, V]) spill() {
	set := a.set
	a.sorted = sortedEntries(a.m, a.sorted[:0])
	r, err := spill.Write(set.dir, set.format, a.sorted)
	clear(a.sorted) // the entries may point to memory that the map let go
	a.sorted = a.sorted[:0]
	clear(a.m)
	a.extra = 0
	set.mu.Lock()
	defer set.mu.Unlock()
	if err != nil {
		if set.err == nil {
			set.err = err
			set.stop(err)
		}
		return
	}
	set.runs = append(set.runs, r)
}

// sortedEntries appends the entries of m to buf in key order.
func sortedEntries[K cmp.Ordered, V any](m map[K]V, buf []spill.Entry[K, V]) []spill.Entry[K, V] {
	buf = slices.Grow(buf, len(m))
	for k, v := range m {
		buf = append(buf, spill.Entry[K, V]{Key: k, Value: v})
	}
	slices.SortFunc(buf, func(a, b spill.Entry[K, V]) int { return cmp.Compare(a.Key, b.Key) })
	return buf
}

// entriesSeq returns the entries of es as a sequence.
func entriesSeq[K cmp.Ordered, V any](es []spill.Entry[K, V]) goiter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for _, e := range es {
			if !yield(e.Key, e.Value) {
				return
			}
		}
	}
}

// mergeMaps combines the entries of the smaller map into the larger with
// op, and returns the larger.
func mergeMaps[K comparable, V any](a, b map[K]V, op func(V, V) V) map[K]V {
	if len(b) > len(a) {
		a, b = b, a
	}
	for k, v := range b {
		if old, ok := a[k]; ok {
			a[k] = op(old, v)
		} else {
			a[k] = v
		}
	}
	return a
}
