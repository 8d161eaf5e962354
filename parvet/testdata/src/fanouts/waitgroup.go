// Package fanouts holds hand-rolled fan-outs that fanout reports, with
// golden files for their suggested fixes.
package fanouts

import (
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func work(s string) int { return len(s) }

// 1: a goroutine per item, defer wg.Done().
func wgDeferDone(words []string) {
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(words\).ForEach on the pool`
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	wg.Wait()
}

// 2: the item passed as an argument.
func wgArgs(words []string) {
	var wg sync.WaitGroup
	for _, w := range words { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			work(strings.ToUpper(s))
		}(w)
	}
	wg.Wait()
}

// 3: results written by index.
func wgIndexValue(words []string) []int {
	out := make([]int, len(words))
	var wg sync.WaitGroup
	for i, w := range words { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(w)
		}()
	}
	wg.Wait()
	return out
}

// 4: the index only.
func wgIndexOnly(words []string, out []int) {
	var wg sync.WaitGroup
	for i := range words { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = work(words[i])
		}(i)
	}
	wg.Wait()
}

// 5: a counted loop.
func wgCounted(n int, out []int) {
	wg := sync.WaitGroup{}
	for i := 0; i < n; i++ { // want `par.Range\(0, n\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = i * i
		}()
	}
	wg.Wait()
}

// 6: a range over an integer.
func wgRangeInt(n int, out []int) {
	var wg sync.WaitGroup
	for i := range n { // want `par.Range\(0, n\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = 2 * i
		}()
	}
	wg.Wait()
}

// 7: one Add for all the items.
func wgAddBefore(words []string, out []int) {
	var wg sync.WaitGroup
	wg.Add(len(words))
	for i, w := range words { // want `fan-out: a goroutine per item`
		go func() {
			defer wg.Done()
			out[i] = work(w)
		}()
	}
	wg.Wait()
}

// 8: Done as the last statement.
func wgDoneLast(words []string, out []int) {
	var wg sync.WaitGroup
	for i := range words { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() {
			out[i] = work(words[i])
			wg.Done()
		}()
	}
	wg.Wait()
}

// 9: the old copy of the loop variable.
func wgCopy(words []string, out []int) {
	var wg sync.WaitGroup
	for i, w := range words { // want `fan-out: a goroutine per item`
		i, w := i, w
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(w)
		}()
	}
	wg.Wait()
}

// 10: WaitGroup.Go.
func wgGo(words []string, out []int) {
	var wg sync.WaitGroup
	for i, w := range words { // want `fan-out: a goroutine per item`
		wg.Go(func() {
			out[i] = work(w)
		})
	}
	wg.Wait()
}

// 11: WaitGroup.Go over a count.
func wgGoCount(n int, out []int) {
	var wg sync.WaitGroup
	for i := range n { // want `par.Range\(0, n\).ForEach`
		wg.Go(func() { out[i] = i })
	}
	wg.Wait()
}

// 12: work that reads files: Blocking comes first.
func wgIO(paths []string, sizes []int) {
	var wg sync.WaitGroup
	for i, p := range paths { // want `fan-out: a goroutine per item`
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := os.ReadFile(p)
			if err != nil {
				return
			}
			sizes[i] = len(b)
		}()
	}
	wg.Wait()
}

func pause() { time.Sleep(time.Millisecond) }

type store struct{ dir string }

func (s store) size(name string) int {
	b, _ := os.ReadFile(s.dir + "/" + name)
	return len(b)
}

// 34: work that sleeps in a function of this package: Blocking comes first.
func wgSleepHelper(n int) {
	var wg sync.WaitGroup
	for range n { // want `par.Range\(0, n\).ForEach on the pool`
		wg.Add(1)
		go func() {
			defer wg.Done()
			pause()
		}()
	}
	wg.Wait()
}

// 35: work that reads files in a method of this package: Blocking comes
// first.
func wgReadMethod(s store, names []string, sizes []int) {
	var wg sync.WaitGroup
	for i, name := range names { // want `fan-out: a goroutine per item`
		wg.Go(func() {
			sizes[i] = s.size(name)
		})
	}
	wg.Wait()
}

const batch = 16

// 36: a constant count: Blocking takes it as it is, with no max.
func wgConstCount(out []int) {
	var wg sync.WaitGroup
	for i := 0; i < batch; i++ { // want `par.Range\(0, batch\).ForEach on the pool`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = i + 1
		}()
	}
	wg.Wait()
}

// 37: numWorkers goroutines, each over a chunk of the items: the report
// points at the items, not the chunks.
func wgChunks(xs []int, numWorkers int) {
	var wg sync.WaitGroup
	chunk := (len(xs) + numWorkers - 1) / numWorkers
	for w := 0; w < numWorkers; w++ { // want `fan-out: a goroutine per chunk of items \(numWorkers chunks\) with a sync.WaitGroup; gopar replaces it with a loop over the items themselves, not their chunks: par.Range\(0, n\)`
		lo, hi := w*chunk, min((w+1)*chunk, len(xs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				xs[i] *= 2
			}
		}()
	}
	wg.Wait()
}

// 38: a goroutine per item whose body retries: its loop is not a chunk.
func wgRetry(out []int) {
	var wg sync.WaitGroup
	for i := range out { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(out\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := 0; try < 3; try++ {
				out[i] += try
			}
		}()
	}
	wg.Wait()
}

// 39: p goroutines, each over a slice of the items: a chunk too.
func wgSliceChunks(words []string, p int) []int {
	sums := make([]int, p)
	var wg sync.WaitGroup
	for k := range p { // want `fan-out: a goroutine per chunk of items \(p chunks\) with a sync.WaitGroup`
		wg.Go(func() {
			for _, w := range words[k*len(words)/p : (k+1)*len(words)/p] {
				sums[k] += work(w)
			}
		})
	}
	wg.Wait()
	return sums
}

// 40: each task starts a spinner of its own while it works: the spinner's
// endless loop is not the task's wait.
func wgSpinner(words []string, out []int) {
	var wg sync.WaitGroup
	for i, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(words\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := make(chan struct{})
			go func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
				}
			}()
			out[i] = work(w)
			close(stop)
		}()
	}
	wg.Wait()
}

// 29: over a map's keys.
func wgMap(m map[string]int) {
	var wg sync.WaitGroup
	for k := range m { // want `par.FromSeq\(maps.Keys\(m\)\)`
		wg.Add(1)
		go func() { defer wg.Done(); work(k) }()
	}
	wg.Wait()
}

// 41: over a map's values: the rewrite reads each by its key, which it
// names.
func wgMapValues(m map[string]int, out *sync.Map) {
	var wg sync.WaitGroup
	for _, v := range m { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.FromSeq\(maps.Keys\(m\)\)`
		wg.Add(1)
		go func() { defer wg.Done(); out.Store(v, v*2) }()
	}
	wg.Wait()
}

// 42: a goroutine per item received from a channel.
func wgChan(ch <-chan string, out *sync.Map) {
	var wg sync.WaitGroup
	for s := range ch { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.FromChan\(ch\).ForEach on the pool`
		wg.Add(1)
		go func() { defer wg.Done(); out.Store(s, work(s)) }()
	}
	wg.Wait()
}

// 96c: the loop ranges over what a function returns, with no limit: the
// pool's form only, since Blocking's limit, the number of items, would call
// it again.
func wgRangeCall(load func() []string) {
	var wg sync.WaitGroup
	for _, w := range load() { // want `par.Slice\(load\(\)\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	wg.Wait()
}

// 99: a goroutine per chunk of an iterator (slices.Chunk): par.FromSeq
// pulls the iterator as the loop did.
func wgSeqChunks(words []string, out *sync.Map) {
	var wg sync.WaitGroup
	for chunk := range slices.Chunk(words, 8) { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.FromSeq\(slices.Chunk\(words, 8\)\).ForEach`
		wg.Go(func() {
			for _, w := range chunk {
				out.Store(w, work(w))
			}
		})
	}
	wg.Wait()
}

// 106: the goroutine takes, besides the item, values of the caller's that
// the loop does not change: the callback reads them where it is, as
// variables of its own where the goroutine names its parameter otherwise
// or assigns it.
func wgOuterArgs(groups map[string][]string, prefix string, out *sync.Map) {
	for name, tasks := range groups {
		var wg sync.WaitGroup
		for _, task := range tasks { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
			wg.Add(1)
			go func(name, p string, task string, limit int) {
				defer wg.Done()
				for len(p) > limit {
					p = p[:limit]
				}
				out.Store(name+"/"+task, p+task)
			}(name, prefix, task, len(tasks))
		}
		wg.Wait()
	}
}

// 106b: an argument that calls a function that writes, which the loop
// evaluates in order before each start: no fix.
func wgArgCall(tasks []string, out *sync.Map) {
	var wg sync.WaitGroup
	for _, task := range tasks { // want `fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the goroutine's argument tally\(task\) is not a loop variable`
		wg.Add(1)
		go func(t string, u int) {
			defer wg.Done()
			out.Store(t, u)
		}(task, tally(task))
	}
	wg.Wait()
}

// 108: the WaitGroup is declared in a var block beside what the tasks
// share: its line goes, the others stay.
func wgVarBlock(tasks []string) []string {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		targets []string
	)
	for _, task := range tasks { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			targets = append(targets, task)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return targets
}

// 106c: the goroutine's arguments read the map by the loop's key, which
// the goroutine itself does not name: the callback names it as they do.
func wgMapArgs(tasks map[string][]string, owners map[string]string, out *sync.Map) {
	var wg sync.WaitGroup
	for name, list := range tasks { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if len(list) == 0 {
			continue
		}
		wg.Add(1)
		go func(owner string, list []string) {
			defer wg.Done()
			out.Store(owner, len(list))
		}(owners[name], list)
	}
	wg.Wait()
}

// 109b: the same with a WaitGroup: the Wait's line goes.
func wgBetween(xs []string, out []int) int {
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = work(x)
		}()
	}
	n := len(xs)
	wg.Wait()
	return n
}

// 109c: the declaration reads what the goroutines write: it would read it
// after the work instead of beside it, so no fix.
func wgBetweenShared(xs []string) int {
	var wg sync.WaitGroup
	var total int
	var mu sync.Mutex
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the caller works between the loop and the Wait with variables the goroutines use"
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total += work(x)
			mu.Unlock()
		}()
	}
	seen := total
	wg.Wait()
	return seen
}

type asset struct {
	Name string
	Size int
}

// 112: the loop reads fields and dereferences before the goroutine starts
// (codespaceName := c.Name, a := *p): the declarations move into the
// callback.
func wgFields(assets []*asset, out *sync.Map) {
	var wg sync.WaitGroup
	for _, p := range assets { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		name := p.Name
		a := *p
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Store(name, a.Size)
		}()
	}
	wg.Wait()
}

// 112b: the goroutines write the field that the loop reads: no fix.
func wgFieldWritten(assets []*asset, out *sync.Map) {
	var wg sync.WaitGroup
	for _, p := range assets { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`size := p.Size`\\)"
		size := p.Size
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Size = size * 2
			out.Store(p.Name, size)
		}()
	}
	wg.Wait()
}

// 113: a counted loop reads its item by index (xs[i], in bounds for i <
// len(xs)) and a map's entry before the goroutine starts: the
// declarations move into the callback.
func wgIndexed(xs []string, owners map[string]string, out []string) {
	var wg sync.WaitGroup
	for i := 0; i < len(xs); i++ { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		x := xs[i]
		owner := owners[x]
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = owner + "/" + x
		}()
	}
	wg.Wait()
}

type node struct{ children [17]*node }

// 113b: a loop over the first 16 children of a 17-slot array (go-ethereum's
// hasher): children[i] is in bounds, and the skip moves.
func wgChildren(n *node, out []int) {
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if n.children[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = len(n.children[i].children)
		}()
	}
	wg.Wait()
}

// 113c: the goroutines write the map that the loop reads: no fix.
func wgMapWritten(xs []string, seen map[string]int, mu *sync.Mutex) {
	var wg sync.WaitGroup
	for _, x := range xs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines \\(`n := seen\\[x\\]`\\)"
		n := seen[x]
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			seen[x] = n + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
}
