package par

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	goiter "iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/internal/pipe"
	"github.com/gopar-dev/gopar/internal/spill"
	"github.com/gopar-dev/gopar/runtime"
)

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

// sortedOp is an operation that returns a Sorted: its name, for its
// errors; how it prices and writes its entries; fill, which adds a slice
// of items to a goroutine's map; op, which combines two values of a key;
// and whole, if not nil, which gives the result in key order, each key
// once, when there is no budget (from CountBy's one map, or Distinct's
// shards).
type sortedOp[T any, K cmp.Ordered, V any] struct {
	name    string
	pricing pricing[K, V]
	fill    func(a *spillMap[K, V], xs []T)
	op      func(V, V) V
	whole   func() goiter.Seq2[K, V]
}

// reduceSorted runs o over s, giving yield its entries: with no budget,
// those of o.whole if o has one; otherwise the goroutines' maps merged
// with the runs they wrote.
func reduceSorted[T any, K cmp.Ordered, V any](s pipe.Spec[T], o sortedOp[T, K, V], yield func(K, V) bool) (err error) {
	parent := s.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := context.WithCancelCause(parent)
	defer stop(nil)
	set := newSpillSet(s.Config, o.name, o.pricing, stop)
	defer func() {
		if cerr := set.dir.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("gopar: %s: removing its files: %w", o.name, cerr)
		}
		if st := s.Stats; st != nil {
			st.Spilled, st.SpillRuns = set.dir.Written(), set.dir.Files()
		}
	}()
	if set.budget == 0 && o.whole != nil {
		all := o.whole()
		if err := parent.Err(); err != nil {
			return context.Cause(parent)
		}
		all(yield)
		return nil
	}
	s.Context, s.Unordered = ctx, true
	keyedFold(s, true, set.newMap,
		func(a *spillMap[K, V], xs []T) *spillMap[K, V] {
			o.fill(a, xs)
			if a.full() {
				a.spill()
			}
			return a
		},
		func(a, _ *spillMap[K, V]) *spillMap[K, V] { return a })
	if set.err != nil {
		return set.failure(budgetOf(s.Config))
	}
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	fanIn := int(min(max(set.budget/(4<<16), 16), 256))
	if err := spill.Merge(set.dir, set.runs, set.sortedMaps(o.op), o.op, fanIn, yield); err != nil {
		return fmt.Errorf("gopar: %s: reading its files back: %w", o.name, err)
	}
	return nil
}

// newSpillSet returns the shared state of the operation name under c,
// which p prices and stop cancels.
func newSpillSet[K cmp.Ordered, V any](c pipe.Config, name string, p pricing[K, V], stop context.CancelCauseFunc) *spillSet[K, V] {
	pool := c.Pool
	if pool == nil {
		pool = runtime.Default()
	}
	b := budgetOf(c)
	return &spillSet[K, V]{
		name:     name,
		budget:   memoryBudget(c),
		perEntry: entryBytes[K, V](),
		pricing:  p,
		workers:  int64(pool.Workers()),
		dir:      spill.NewDir(b.TempDir, b.DiskCap),
		stop:     stop,
	}
}

// newMap returns an empty map for a goroutine of the operation, and keeps
// it for the merge.
func (set *spillSet[K, V]) newMap() *spillMap[K, V] {
	a := &spillMap[K, V]{m: map[K]V{}, set: set}
	set.made.Add(1)
	set.mu.Lock()
	set.maps = append(set.maps, a)
	set.mu.Unlock()
	return a
}

// full reports whether the map is to spill: it holds at least spillMin
// bytes and more than its share of the budget.
func (a *spillMap[K, V]) full() bool {
	set := a.set
	held := int64(len(a.m))*set.perEntry + a.extra
	return set.budget > 0 && held >= spillMin && held > set.share()
}

// sortedMaps returns the entries of the goroutines' maps, each map's in
// key order, and lets the maps go: if no run was written, the maps
// combined with op into one.
func (set *spillSet[K, V]) sortedMaps(op func(V, V) V) [][]spill.Entry[K, V] {
	if len(set.runs) == 0 {
		// Everything fit: one map, sorted.
		var all map[K]V
		for _, a := range set.maps {
			all = mergeMaps(all, a.m, op)
			a.m = nil
		}
		return [][]spill.Entry[K, V]{sortedEntries(all, nil)}
	}
	var mems [][]spill.Entry[K, V]
	for _, a := range set.maps {
		if len(a.m) > 0 {
			mems = append(mems, sortedEntries(a.m, a.sorted))
			a.m, a.sorted = nil, nil
		}
	}
	return mems
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
