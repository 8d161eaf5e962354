// Package racy holds callbacks that race: callbackrace reports each.
package racy

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"math/rand"
	"strings"
	"sync"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

type stats struct {
	n     int
	sum   float64
	names []string
	seen  map[string]bool
}

var hits int

func f(x int) int { return x * x }

// 1: the sum of the issue.
func sum(xs []int) int {
	total := 0
	par.Slice(xs).ForEach(func(x int) {
		total += f(x) // want `data race: total is updated by concurrent calls of the ForEach callback; compute it with par.Sum or Reduce`
	})
	return total
}

// 2: the append of the issue.
func appendAll(xs []int) []int {
	var out []int
	par.Slice(xs).ForEach(func(x int) {
		out = append(out, f(x)) // want `data race: out is appended to by concurrent calls of the ForEach callback; collect the items with Collect`
	})
	return out
}

// 3
func count(xs []int) int {
	n := 0
	par.Slice(xs).ForEach(func(x int) {
		if x > 0 {
			n++ // want `n is updated by concurrent calls of the ForEach callback; count with Filter`
		}
	})
	return n
}

// 4
func found(xs []int) bool {
	ok := false
	par.Slice(xs).ForEach(func(x int) {
		if x == 42 {
			ok = true // want `ok is written by concurrent calls of the ForEach callback; use Any, Every or Find`
		}
	})
	return ok
}

// 5
func firstErr(xs []int) error {
	var err error
	par.Slice(xs).ForEach(func(x int) {
		if x < 0 {
			err = errors.New("negative") // want `err is written .* return the error from TryForEach`
		}
	})
	return err
}

// 6
func mapWrite(xs []string) map[string]int {
	m := map[string]int{}
	par.Slice(xs).ForEach(func(s string) {
		m[s] = len(s) // want `map m is written by concurrent calls of the ForEach callback; build a map per run with par.Fold`
	})
	return m
}

// 7
func mapInc(xs []string) map[string]int {
	m := map[string]int{}
	par.Slice(xs).ForEach(func(s string) {
		m[s]++ // want `map m is written`
	})
	return m
}

// 8
func mapDelete(xs []string, m map[string]int) {
	par.Slice(xs).ForEach(func(s string) {
		delete(m, s) // want `map m is written`
	})
}

// 9
func fieldWrite(xs []int, st *stats) {
	par.Slice(xs).ForEach(func(x int) {
		st.n += x // want `st.n is written by concurrent calls of the ForEach callback; guard it with a sync.Mutex`
	})
}

// 10
func structValueField(xs []float64) stats {
	var st stats
	par.Slice(xs).ForEach(func(x float64) {
		st.sum += x // want `st.sum is written`
	})
	return st
}

// 11
func fieldAppend(xs []string, st *stats) {
	par.Slice(xs).ForEach(func(s string) {
		st.names = append(st.names, s) // want `st.names is appended to`
	})
}

// 12
func fieldMap(xs []string, st *stats) {
	par.Slice(xs).ForEach(func(s string) {
		st.seen[s] = true // want `map st.seen is written`
	})
}

// 13
func pointerWrite(xs []int, p *int) {
	par.Slice(xs).ForEach(func(x int) {
		*p += x // want `\*p is written`
	})
}

// 14
func global(xs []int) {
	par.Slice(xs).ForEach(func(x int) {
		hits++ // want `hits is updated`
	})
}

// 15
func histogram(xs []int) [10]int {
	var counts [10]int
	par.Slice(xs).ForEach(func(x int) {
		counts[x%10]++ // want `counts\[x%10\] is updated, and two calls may pick the same element`
	})
	return counts
}

// 16
func histogramOfRange(data []int) []int {
	counts := make([]int, 10)
	par.Range(0, len(data)).ForEach(func(i int) {
		counts[data[i]%10] += 1 // want `counts\[data\[i\]%10\] is updated, and two calls may pick`
	})
	return counts
}

// 17
func sameElement(xs []int, out []int) {
	par.Slice(xs).ForEach(func(x int) {
		out[0] = x // want `out\[0\], the same element in every call, is written`
	})
}

// 18
func sameElementCaptured(xs []int, out []int, k int) {
	par.Slice(xs).ForEach(func(x int) {
		out[k] = x // want `out\[k\], the same element in every call`
	})
}

// 19
func lastWins(xs []int) int {
	last := 0
	par.Slice(xs).ForEach(func(x int) {
		last = x // want `last is written .* compute it with Reduce, Find, par.Min or par.Max`
	})
	return last
}

// 20
func maxByHand(xs []int) int {
	best := 0
	par.Slice(xs).ForEach(func(x int) {
		if x > best {
			best = x // want `best is written`
		}
	})
	return best
}

// 21
func inMap(xs []int) []int {
	par.Map(par.Slice(xs), func(x int) int {
		hits++ // want `hits is updated by concurrent calls of the Map callback`
		return x
	}).Collect()
	return nil
}

// 22
func inFilter(xs []int) int {
	dropped := 0
	par.Slice(xs).Filter(func(x int) bool {
		if x < 0 {
			dropped++ // want `dropped is updated by concurrent calls of the Filter callback`
			return false
		}
		return true
	}).Count()
	return dropped
}

// 23
func inReduceOp(xs []int) int {
	calls := 0
	return par.Slice(xs).Reduce(func() int { return 0 }, func(a, b int) int {
		calls++ // want `calls is updated by concurrent calls of the Reduce callback`
		return a + b
	})
}

// 24
func inFoldInit(xs []int) int {
	inits := 0
	return par.Fold(par.Slice(xs), func() int {
		inits++ // want `inits is updated by concurrent calls of the Fold callback`
		return 0
	}, func(a, x int) int { return a + x }, func(a, b int) int { return a + b })
}

// 25
func inTryForEach(xs []int) error {
	n := 0
	return par.Slice(xs).TryForEach(func(x int) error {
		n += x // want `n is updated by concurrent calls of the TryForEach callback`
		return nil
	})
}

// 26
func inTryMap(xs []int) ([]int, error) {
	var errs []error
	return par.TryMap(par.Slice(xs), func(x int) (int, error) {
		errs = append(errs, nil) // want `errs is appended to`
		return x, nil
	})
}

// 27
func inForEachIndexNotOwned(xs []int, out []int) {
	par.Slice(xs).ForEachIndex(func(i, x int) {
		out[len(out)-1] = x // want `the same element in every call`
	})
}

// 28
func inForEachPtr(xs []int) int {
	total := 0
	par.ForEachPtr(xs, func(i int, p *int) {
		total += *p // want `total is updated by concurrent calls of the ForEachPtr callback`
	})
	return total
}

// 29
func inBlocks(n int) int {
	total := 0
	par.Range(0, n).Blocks(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			total += i // want `total is updated by concurrent calls of the Blocks callback`
		}
	})
	return total
}

// 30
func inReduceBlocks(n int) int {
	calls := 0
	return par.ReduceBlocks(par.Range(0, n), func(lo, hi int) int {
		calls++ // want `calls is updated by concurrent calls of the ReduceBlocks callback`
		return hi - lo
	}, func(a, b int) int { return a + b })
}

// 31
func inSortFunc(xs []int) int {
	compares := 0
	par.SortFunc(xs, func(a, b int) int {
		compares++ // want `compares is updated by concurrent calls of the SortFunc callback`
		return a - b
	})
	return compares
}

// 32: Join's functions share a variable.
func joinShared() int {
	n := 0
	par.Join(func() {
		n++ // want `n is updated in one function of Join and used in another`
	}, func() {
		n++ // want `n is updated in one function of Join and used in another`
	})
	return n
}

// 33
func joinAllShared(xs []int) []int {
	var out []int
	par.JoinAll(
		func() { out = append(out, 1) }, // want `out is appended to in one function of JoinAll`
		func() { out = append(out, 2) }, // want `out is appended to in one function of JoinAll`
	)
	return out
}

// 34: tasks started in a loop.
func scopeLoop(dirs []string) int {
	files := 0
	par.Scope(func(g *par.Group) {
		for _, d := range dirs {
			g.Go(func(g *par.Group) {
				files += len(d) // want `files is updated by tasks started in a loop with Go`
			})
		}
	})
	return files
}

// 35
func tryScopeLoop(ctx context.Context, dirs []string) []string {
	var seen []string
	_ = par.TryScope(ctx, 4, func(ctx context.Context, g *par.TryGroup) error {
		for _, d := range dirs {
			g.Go(func(ctx context.Context, g *par.TryGroup) error {
				seen = append(seen, d) // want `seen is appended to by tasks started in a loop with Go`
				return nil
			})
		}
		return nil
	})
	return seen
}

// 36: a read lock does not make a write safe.
func readLocked(xs []string) map[string]int {
	var mu sync.RWMutex
	m := map[string]int{}
	par.Slice(xs).ForEach(func(s string) {
		mu.RLock()
		m[s] = 1 // want `map m is written while only a read lock \(RLock\) is held`
		mu.RUnlock()
	})
	return m
}

// 37: the lock is released before the write.
func unlockedBefore(xs []int) int {
	var mu sync.Mutex
	total := 0
	par.Slice(xs).ForEach(func(x int) {
		mu.Lock()
		y := f(x)
		mu.Unlock()
		total += y // want `total is updated`
	})
	return total
}

// 38
func builder(xs []string) string {
	var sb strings.Builder
	par.Slice(xs).ForEach(func(s string) {
		sb.WriteString(s) // want `sb \(a strings.Builder, not safe for concurrent use\) is changed by concurrent calls`
	})
	return sb.String()
}

// 39
func buffer(xs []string, buf *bytes.Buffer) {
	par.Slice(xs).ForEach(func(s string) {
		buf.WriteString(s) // want `buf \(a bytes.Buffer, not safe`
	})
}

// 40
func sharedRand(xs []float64, r *rand.Rand) {
	par.ForEachPtr(xs, func(i int, p *float64) {
		*p = r.Float64() // want `r \(a rand.Rand, not safe for concurrent use\) is changed`
	})
}

// 41
func sharedList(xs []int, l *list.List) {
	par.Slice(xs).ForEach(func(x int) {
		l.PushBack(x) // want `l \(a list.List, not safe`
	})
}

// 42: nested: the inner loop's callback shares the outer one's variable.
func nested(rows [][]int) []int {
	sums := make([]int, len(rows))
	par.Slice(rows).ForEachIndex(func(i int, row []int) {
		s := 0
		par.Slice(row).ForEach(func(x int) {
			s += x // want `s is updated by concurrent calls of the ForEach callback`
		})
		sums[i] = s
	})
	return sums
}

// 43: a callback bound to a variable first.
func boundFirst(xs []int) int {
	total := 0
	add := func(x int) { total += x } // want `total is updated by concurrent calls of the ForEach callback`
	par.Slice(xs).ForEach(add)
	return total
}

// 44: a write inside a closure called by the callback.
func viaClosure(xs []int) int {
	total := 0
	par.Slice(xs).ForEach(func(x int) {
		func() {
			total += x // want `total is updated by concurrent calls of the ForEach callback`
		}()
	})
	return total
}

// 45: Blocking mode runs callbacks on goroutines of their own: as racy.
func blocking(urls []string) int {
	bytes := 0
	par.Slice(urls).Blocking(8).ForEach(func(u string) {
		bytes += len(u) // want `bytes is updated`
	})
	return bytes
}

// 46: runtime's forms.
func runtimeJoinFunc(w *runtime.Worker) int {
	calls := 0
	a, b := runtime.JoinFunc(w, func(w *runtime.Worker, n int) int {
		calls++ // want `calls is updated by concurrent calls of the JoinFunc callback`
		return n
	}, 1, 2)
	return a + b + calls
}

// 47
func runtimeSpawnLoop(p *runtime.Pool, xs []int) int {
	total := 0
	p.Scope(func(s runtime.Scope) {
		for _, x := range xs {
			s.Spawn(func(s runtime.Scope) {
				total += x // want `total is updated by tasks started in a loop with Spawn`
			})
		}
	})
	return total
}

// 48
func runtimeJoin(p *runtime.Pool) int {
	n := 0
	p.Join(func(*runtime.Worker) { n = 1 }, func(*runtime.Worker) { n = 2 }) // want `n is written in one function of Join` `n is written in one function of Join`
	return n
}

// 49: ForEachInit's init runs once per goroutine, concurrently.
func inInit(xs []int) int {
	made := 0
	par.ForEachInit(par.Slice(xs), func() []int {
		made++ // want `made is updated by concurrent calls of the ForEachInit callback`
		return nil
	}, func(buf []int, x int) {})
	return made
}

// 50: after a FlatMap, ForEachIndex's index is shared by the items of one source item.
func flatMapIndex(xs []int, out []int) {
	par.FlatMap(par.Slice(xs), func(x int) []int { return []int{x, x} }).ForEachIndex(func(i, y int) {
		out[i] += y // want `out\[i\] is updated, and two calls may pick the same element`
	})
}

// 51: a package-qualified field through a captured pointer in a Find predicate.
func inFind(xs []int, st *stats) (int, bool) {
	return par.Slice(xs).Find(func(x int) bool {
		st.n++ // want `st.n is written by concurrent calls of the Find callback`
		return x > 3
	})
}
