package par

import (
	"fmt"
	"math"
	"runtime/debug"

	"github.com/gopar-dev/gopar/internal/pipe"
)

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
