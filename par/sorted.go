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
// need not fit in memory: the operation that makes it (CountBySorted)
// holds at most its memory budget (WithMemory), and keeps what passes the
// budget in files on disk (WithTempDir), merged back as All reads them.
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

// Err returns the error that ended the last range over All: nil if it
// gave every entry or the loop broke out, the context's cause if the
// operation's context (WithContext) was done before it ended, or the
// error of a file it could not write or read, or of a cap on disk use
// that it would have passed (WithTempDir). An error ends the range before
// its first entry, except an error reading a file back, which ends it
// where it occurs.
func (s *Sorted[K, V]) Err() error { return s.err }

// WithMemory returns it with the operations that can spill to disk
// (CountBySorted) holding at most about bytes of memory in their
// accumulators: past that, they write what they hold to files (see
// WithTempDir) and go on. The bound counts each entry as its map holds it,
// from the sizes of its key and value, and for a string key its bytes too;
// what a key or value points to otherwise (a slice, a pointer's target) is
// not counted. Other operations ignore it.
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
// (CountBySorted) writing their files under dir, in a directory of the
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
func CountBySorted[T any, K cmp.Ordered](it Iterator[T], key func(T) K) *Sorted[K, int] {
	mustFunc(key, "CountBySorted")
	s := specOf(it)
	return &Sorted[K, int]{run: func(yield func(K, int) bool) error {
		return countSorted(s, key, yield)
	}}
}

// spillCounts is the state that the goroutines of a CountBySorted share.
type spillCounts[K cmp.Ordered] struct {
	budget   int64         // bytes; 0: no bound
	perEntry int64         // the bytes of an entry, in its map and in a sorted run
	keyBytes func(K) int64 // the bytes a key points to, nil if none are counted
	workers  int64         // the pool's workers: the fewest shares of the budget
	made     atomic.Int64  // counters made
	dir      *spill.Dir
	stop     context.CancelCauseFunc

	mu       sync.Mutex // guards what follows
	counters []*spillCounter[K]
	runs     []*spill.Run[K, int]
	err      error
}

// spillCounter is the accumulator of one goroutine of a CountBySorted.
type spillCounter[K cmp.Ordered] struct {
	m      map[K]int
	extra  int64                 // the bytes m's keys point to
	sorted []spill.Entry[K, int] // kept for the next run
	c      *spillCounts[K]
}

// entryBytes estimates what an entry of a map[K]V costs, from its key and
// value: a Go map's slot, with its control byte, at a load between 7/16
// and 7/8 (2.4 times the slot, measured between 1,000 and 3M entries),
// plus the entry in the slice that sorts it.
func entryBytes[K, V any]() int64 {
	kv := int64(unsafe.Sizeof(*new(K)) + unsafe.Sizeof(*new(V)))
	return (kv+1)*12/5 + kv
}

// stringBytes returns the function that counts the bytes of a string key,
// nil if K is not string.
func stringBytes[K any]() func(K) int64 {
	if _, ok := any(*new(K)).(string); !ok {
		return nil
	}
	return func(k K) int64 { return int64(len(*any(&k).(*string))) }
}

// countSorted runs CountBySorted over s, giving yield its entries.
func countSorted[T any, K cmp.Ordered](s pipe.Spec[T], key func(T) K, yield func(K, int) bool) (err error) {
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
	c := &spillCounts[K]{
		budget:   memoryBudget(s.Config),
		perEntry: entryBytes[K, int](),
		keyBytes: stringBytes[K](),
		workers:  int64(pool.Workers()),
		dir:      spill.NewDir(b.TempDir, b.DiskCap),
		stop:     stop,
	}
	defer func() {
		if cerr := c.dir.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("gopar: CountBySorted: removing its files: %w", cerr)
		}
		if st := s.Stats; st != nil {
			st.Spilled, st.SpillRuns = c.dir.Written(), c.dir.Files()
		}
	}()
	if c.budget == 0 {
		// No bound: CountBy's map, whose memory does not grow with the
		// workers, sorted.
		m := count(s, countFold(key))
		if err := parent.Err(); err != nil {
			return context.Cause(parent)
		}
		sorted := sortedCounts(m, nil)
		return spill.Merge(c.dir, nil, [][]spill.Entry[K, int]{sorted}, nil, 2, yield)
	}
	s.Context, s.Unordered = ctx, true
	keyedFold(s, true,
		func() *spillCounter[K] {
			k := &spillCounter[K]{m: map[K]int{}, c: c}
			c.made.Add(1)
			c.mu.Lock()
			c.counters = append(c.counters, k)
			c.mu.Unlock()
			return k
		},
		func(k *spillCounter[K], xs []T) *spillCounter[K] {
			m := k.m
			if c.keyBytes == nil {
				for _, x := range xs {
					m[key(x)]++
				}
			} else {
				for _, x := range xs {
					y := key(x)
					n := len(m)
					m[y]++
					if len(m) > n {
						k.extra += c.keyBytes(y)
					}
				}
			}
			if len(m) >= spillMin && int64(len(m))*c.perEntry+k.extra > c.share() {
				k.spill()
			}
			return k
		},
		func(a, _ *spillCounter[K]) *spillCounter[K] { return a })
	if c.err != nil {
		return c.failure(b)
	}
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	var mems [][]spill.Entry[K, int]
	if len(c.runs) == 0 {
		// Everything fit: one map, sorted.
		var all map[K]int
		for _, k := range c.counters {
			all = mergeCounts(all, k.m)
			k.m = nil
		}
		mems = [][]spill.Entry[K, int]{sortedCounts(all, nil)}
	} else {
		for _, k := range c.counters {
			if len(k.m) > 0 {
				mems = append(mems, sortedCounts(k.m, k.sorted))
				k.m, k.sorted = nil, nil
			}
		}
	}
	fanIn := int(min(max(c.budget/(4<<16), 16), 256))
	if err := spill.Merge(c.dir, c.runs, mems, func(a, b int) int { return a + b }, fanIn, yield); err != nil {
		return fmt.Errorf("gopar: CountBySorted: reading its files back: %w", err)
	}
	return nil
}

// share returns the bytes one counter may hold.
func (c *spillCounts[K]) share() int64 {
	return c.budget / max(c.workers, c.made.Load())
}

// failure returns the error of the operation's first failed run, saying
// which setting to change.
func (c *spillCounts[K]) failure(b pipe.Budget) error {
	var ce *spill.CapError
	if errors.As(c.err, &ce) {
		return fmt.Errorf("gopar: CountBySorted: its files would pass the cap of %d bytes on disk "+
			"(WithTempDir(%q, %d)); raise the cap, or the memory budget of %d bytes (WithMemory): %w",
			ce.Cap, b.TempDir, b.DiskCap, c.budget, c.err)
	}
	return fmt.Errorf("gopar: CountBySorted: writing what passed the memory budget of %d bytes (WithMemory) "+
		"under %q (WithTempDir): %w", c.budget, c.dir.Parent(), c.err)
}

// spill writes the counter's counts to a run, sorted by key, and empties
// its map. A run that fails stops the operation.
func (k *spillCounter[K]) spill() {
	c := k.c
	k.sorted = sortedCounts(k.m, k.sorted[:0])
	r, err := spill.Write(c.dir, k.sorted)
	clear(k.sorted) // the keys may point to memory that the map let go
	k.sorted = k.sorted[:0]
	clear(k.m)
	k.extra = 0
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.err == nil {
			c.err = err
			c.stop(err)
		}
		return
	}
	c.runs = append(c.runs, r)
}

// sortedCounts appends the entries of m to buf in key order.
func sortedCounts[K cmp.Ordered](m map[K]int, buf []spill.Entry[K, int]) []spill.Entry[K, int] {
	buf = slices.Grow(buf, len(m))
	for k, n := range m {
		buf = append(buf, spill.Entry[K, int]{Key: k, Value: n})
	}
	slices.SortFunc(buf, func(a, b spill.Entry[K, int]) int { return cmp.Compare(a.Key, b.Key) })
	return buf
}
