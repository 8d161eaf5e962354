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
