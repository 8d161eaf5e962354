// Package safe holds callbacks that do not race: callbackrace reports none.
package safe

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

type point struct{ x, y float64 }

type counter struct {
	mu sync.Mutex
	n  int
	m  map[string]int
}

func f(x int) int { return x * x }

// 1: ForEachIndex writes its own element.
func ownIndex(xs []int) []int {
	out := make([]int, len(xs))
	par.Slice(xs).ForEachIndex(func(i, x int) { out[i] = f(x) })
	return out
}

// 2: ForEachPtr updates its own element through the pointer.
func ownPtr(xs []int) {
	par.ForEachPtr(xs, func(i int, p *int) { *p = f(*p) })
}

// 3: ForEachPtr's index picks the call's own element of another slice.
func ownPtrIndex(xs []int, out []int) {
	par.ForEachPtr(xs, func(i int, p *int) { out[i] = *p })
}

// 4: ForEachPtr on structs: fields of the own element.
func ownPtrField(ps []point) {
	par.ForEachPtr(ps, func(i int, p *point) { p.x, p.y = p.y, p.x })
}

// 5: a range ForEach's item is an index.
func rangeIndex(n int) []int {
	out := make([]int, n)
	par.Range(0, n).ForEach(func(i int) { out[i] = f(i) })
	return out
}

// 6: with settings between Range and ForEach.
func rangeSettings(ctx context.Context, n int) []int {
	out := make([]int, n)
	par.Range(0, n).WithContext(ctx).Blocking(4).ForEach(func(i int) { out[i] = i })
	return out
}

// 7: an index moved by a constant.
func rangeShifted(lo, hi int) []int {
	out := make([]int, hi-lo)
	par.Range(lo, hi).ForEach(func(i int) { out[i-lo] = i })
	return out
}

// 8: a row per index, written element by element.
func rows(grid [][]int) {
	par.Range(0, len(grid)).ForEach(func(i int) {
		for j := range grid[i] {
			grid[i][j] = i * j
		}
	})
}

// 9: the own element's field.
func ownField(ps []point) {
	par.Slice(ps).ForEachIndex(func(i int, p point) { ps[i].x = p.y })
}

// 10: a block body writes [lo, hi).
func blocks(out []int) {
	par.Range(0, len(out)).Blocks(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = i
		}
	})
}

// 11: a block body over offsets.
func blockOffsets(out []int) {
	par.Range(0, len(out)).Blocks(func(lo, hi int) {
		for j := range hi - lo {
			out[lo+j] = j
		}
	})
}

// 12: ReduceBlocks: writes its block, returns a partial result.
func reduceBlocks(out []int) int {
	return par.ReduceBlocks(par.Range(0, len(out)), func(lo, hi int) int {
		s := 0
		for i := lo; i < hi; i++ {
			out[i] = i
			s += i
		}
		return s
	}, func(a, b int) int { return a + b })
}

// 13: a mutex around the write.
func mutex(xs []int) int {
	var mu sync.Mutex
	total := 0
	par.Slice(xs).ForEach(func(x int) {
		y := f(x)
		mu.Lock()
		total += y
		mu.Unlock()
	})
	return total
}

// 14: a deferred unlock.
func mutexDefer(xs []string) map[string]int {
	var mu sync.Mutex
	m := map[string]int{}
	par.Slice(xs).ForEach(func(s string) {
		mu.Lock()
		defer mu.Unlock()
		m[s]++
	})
	return m
}

// 15: an unlock-and-return in a branch leaves the lock held after it.
func mutexEarlyReturn(xs []string) map[string]int {
	var mu sync.Mutex
	m := map[string]int{}
	par.Slice(xs).ForEach(func(s string) {
		mu.Lock()
		if _, ok := m[s]; ok {
			mu.Unlock()
			return
		}
		m[s] = len(s)
		mu.Unlock()
	})
	return m
}

// 16: a mutex in a struct with the data.
func structMutex(xs []string, c *counter) {
	par.Slice(xs).ForEach(func(s string) {
		c.mu.Lock()
		c.n++
		c.m[s]++
		c.mu.Unlock()
	})
}

// 17: RWMutex taken for writing.
func rwWrite(xs []string) map[string]bool {
	var mu sync.RWMutex
	m := map[string]bool{}
	par.Slice(xs).ForEach(func(s string) {
		mu.RLock()
		seen := m[s]
		mu.RUnlock()
		if !seen {
			mu.Lock()
			m[s] = true
			mu.Unlock()
		}
	})
	return m
}

// 18: sync/atomic functions.
func atomicAdd(xs []int) int64 {
	var total int64
	par.Slice(xs).ForEach(func(x int) { atomic.AddInt64(&total, int64(x)) })
	return total
}

// 19: sync/atomic types.
func atomicType(xs []int) (int64, bool) {
	var total atomic.Int64
	var found atomic.Bool
	par.Slice(xs).ForEach(func(x int) {
		total.Add(int64(x))
		if x == 42 {
			found.Store(true)
		}
	})
	return total.Load(), found.Load()
}

// 20: a channel.
func channel(xs []int) []int {
	ch := make(chan int, len(xs))
	par.Slice(xs).ForEach(func(x int) { ch <- f(x) })
	close(ch)
	var out []int
	for y := range ch {
		out = append(out, y)
	}
	return out
}

// 21: sync.Map, safe for concurrent use.
func syncMap(xs []string) *sync.Map {
	var m sync.Map
	par.Slice(xs).ForEach(func(s string) { m.Store(s, len(s)) })
	return &m
}

// 22: locals of the callback.
func locals(xs []string) int {
	return par.Sum(par.Map(par.Slice(xs), func(s string) int {
		n := 0
		var buf []byte
		for _, r := range s {
			n++
			buf = append(buf, byte(r))
		}
		m := map[byte]int{}
		for _, b := range buf {
			m[b]++
		}
		return n + len(m)
	}))
}

// 23: parameters are the call's own.
func params(ps []point) []point {
	return par.Map(par.Slice(ps), func(p point) point {
		p.x *= 2
		p.y++
		return p
	}).Collect()
}

// 24: Fold's accumulator is the run's own.
func fold(words []string) map[string]int {
	return par.Fold(par.Slice(words),
		func() map[string]int { return map[string]int{} },
		func(m map[string]int, w string) map[string]int { m[w]++; return m },
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
}

// 25: ForEachInit's value is the goroutine's own.
func forEachInit(xs []string) {
	par.ForEachInit(par.Slice(xs), func() *strings.Builder { return new(strings.Builder) },
		func(sb *strings.Builder, s string) {
			sb.Reset()
			sb.WriteString(s)
		})
}

// 26: the operation's result, written after it returns.
func result(xs []int) int {
	total := 0
	total += par.Sum(par.Map(par.Slice(xs), f))
	return total
}

// 27: Join's functions write different variables.
func joinDistinct() (int, int) {
	var a, b int
	par.Join(func() { a = f(1) }, func() { b = f(2) })
	return a, b
}

// 28: JoinAll's functions write different variables.
func joinAllDistinct() (int, string, []int) {
	var n int
	var s string
	var xs []int
	par.JoinAll(
		func() { n = f(3) },
		func() { s = "done" },
		func() { xs = append(xs, 1) },
	)
	return n, s, xs
}

// 29: Scope's body runs once, on the caller.
func scopeBody(dirs []string) int {
	started := 0
	par.Scope(func(g *par.Group) {
		for _, d := range dirs {
			started++
			g.Go(func(g *par.Group) { _ = len(d) })
		}
	})
	return started
}

// 30: one task, started once.
func scopeOneTask() int {
	n := 0
	par.Scope(func(g *par.Group) {
		g.Go(func(g *par.Group) { n = 1 })
	})
	return n
}

// 31: a variable declared in the loop is the iteration's own.
func scopeLoopLocal(dirs []string) {
	par.Scope(func(g *par.Group) {
		for _, d := range dirs {
			size := 0
			g.Go(func(g *par.Group) { size = len(d); _ = size })
		}
	})
}

// 32: WithProgress's report is called one call at a time.
func progress(xs []int) int {
	last := 0
	par.Slice(xs).WithProgress(func(done, total int) { last = done }).ForEach(func(int) {})
	return last
}

// 33: FromSeq's sequence is pulled by one goroutine.
func fromSeq(xs []int) int {
	pulled := 0
	par.FromSeq(func(yield func(int) bool) {
		for _, x := range xs {
			pulled++
			if !yield(x) {
				return
			}
		}
	}).ForEach(func(int) {})
	return pulled
}

// 34: sync.Once.
func once(xs []int) string {
	var o sync.Once
	var cfg string
	par.Slice(xs).ForEach(func(x int) {
		o.Do(func() { cfg = "loaded" })
	})
	return cfg
}

// 35: Pool.Do runs its function on the caller.
func poolDo(p *runtime.Pool) int {
	n := 0
	p.Do(func(w *runtime.Worker) { n = 1 })
	return n
}

// 36: the runtime's Join with distinct variables.
func runtimeJoin(p *runtime.Pool) (int, int) {
	var a, b int
	p.Join(func(*runtime.Worker) { a = 1 }, func(*runtime.Worker) { b = 2 })
	return a, b
}

// 37: a scatter by a permutation: each call writes an element of its own.
func scatter(xs []int, perm []int, out []int) {
	par.Slice(xs).ForEachIndex(func(i, x int) { out[perm[i]] = x })
}

// 38: Chunks: each call has its own sub-slice.
func chunks(xs []int) {
	par.Chunks(xs, 64).ForEach(func(c []int) {
		for j := range c {
			c[j] *= 2
		}
	})
}

// 39: a local alias of the own element.
func ownAlias(ps []point) {
	par.Range(0, len(ps)).ForEach(func(i int) {
		p := &ps[i]
		p.x = 1
	})
}

// 40: an own index computed from the item.
func ownDerived(n int, out []int) {
	par.Range(0, n).ForEach(func(i int) {
		j := 2*i + 1
		out[j] = i
	})
}

// 41: Find, Any and Count instead of flags.
func queries(xs []int) (bool, int) {
	any := par.Slice(xs).Any(func(x int) bool { return x == 42 })
	n := par.Slice(xs).Filter(func(x int) bool { return x > 0 }).Count()
	return any, n
}

// 42: a nested loop's callback writes a variable of the outer call.
func nestedOwn(rows [][]int) []int {
	sums := make([]int, len(rows))
	par.Slice(rows).ForEachIndex(func(i int, row []int) {
		s := 0
		for _, x := range row {
			s += x
		}
		sums[i] = s
	})
	return sums
}

// 43: TryForEachContext over a Range writes its own slot.
func tryContext(ctx context.Context, n int) ([]int, error) {
	out := make([]int, n)
	err := par.Range(0, n).WithContext(ctx).TryForEachContext(func(ctx context.Context, i int) error {
		out[i] = i
		return ctx.Err()
	})
	return out, err
}

// 44: a read of captured data is fine.
func reads(xs []int, table map[int]int, scale float64) []float64 {
	return par.Map(par.Slice(xs), func(x int) float64 { return float64(table[x]) * scale }).Collect()
}

// 45: the lock taken by TryLock.
func tryLock(xs []int) int {
	var mu sync.Mutex
	n := 0
	par.Slice(xs).ForEach(func(x int) {
		if mu.TryLock() {
			n++
			mu.Unlock()
		}
	})
	return n
}

// 46: Blocking(1) runs one call at a time, in source order.
func blockingOne(n int) []int {
	var order []int
	par.Range(0, n).Blocking(1).ForEach(func(i int) { order = append(order, i) })
	return order
}

// 47: a write that only the call of index 0 makes.
func onlyFirst(ctx context.Context, n int) context.Context {
	var kept context.Context
	par.Range(0, n).ForEach(func(i int) {
		if i == 0 {
			kept = ctx
		}
	})
	return kept
}

// 48: tasks spawned in a loop write their iteration's element.
func spawnOwnElement(p *runtime.Pool, out []int) {
	p.Scope(func(s runtime.Scope) {
		for i := range out {
			s.Spawn(func(s runtime.Scope) {
				s.Spawn(func(runtime.Scope) { out[i] = i * i })
			})
		}
	})
}

// 49: the runtime's JoinFunc on a nil Worker calls f twice, in order.
func joinFuncNil() []int {
	var order []int
	runtime.JoinFunc(nil, func(w *runtime.Worker, x int) int { order = append(order, x); return x }, 1, 2)
	return order
}

// 50: a "was it called" probe.
func probe(it par.Ints) bool {
	called := false
	it.ForEach(func(int) { called = true })
	return called
}

// 51: Blocking(1) on a range runs one block body at a time.
func blockingOneBlocks(n int) int {
	total := 0
	par.Range(0, n).Blocking(1).Blocks(func(lo, hi int) { total += hi - lo })
	return total
}
