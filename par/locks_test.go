package par_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/long"
	"github.com/gopar-dev/gopar/internal/race"
	"github.com/gopar-dev/gopar/par"
	"github.com/gopar-dev/gopar/runtime"
)

// The waiting rule (runtime/frame.go; par's package doc, "# Nesting and
// locks"): a program that does not deadlock when every gopar operation runs
// sequentially on its caller does not deadlock with gopar. Each case below holds a mutex across
// a waiting form while other tasks of the pool take the same mutex; each
// is sequentially deadlock-free, and each deadlocked on the rule before it
// (a waiting goroutine then ran any task of the pool, one that could block
// on the mutex held further down its own stack).
//
// The default pool is sized once per process, and par.Join, par.JoinFunc
// and the sorts run on it: TestLockAcrossWaits runs the cases in a child
// process per worker count.

// lockCases are the waiting forms, each holding mu across its wait. Each
// returns a checksum that the sequential program gives too.
var lockCases = []struct {
	name string
	run  func(mu *sync.Mutex) uint64
}{
	// par.JoinFunc and par.Join, recursively, under the mutex.
	{"join", func(mu *sync.Mutex) uint64 {
		mu.Lock()
		defer mu.Unlock()
		return tree(6, nil)
	}},
	// The reproduction: the items of a loop lock the mutex, then
	// recurse with par.JoinFunc and par.Join under it.
	{"outer items", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		par.Range(0, 32).ForEach(func(i int) {
			mu.Lock()
			defer mu.Unlock()
			sum.Add(tree(3, nil))
		})
		return sum.Load()
	}},
	// A loop under the mutex.
	{"loop", func(mu *sync.Mutex) uint64 {
		mu.Lock()
		defer mu.Unlock()
		return par.Sum(par.Map(par.Range(0, 1<<11), burnItem))
	}},
	// A sort under the mutex.
	{"sort", func(mu *sync.Mutex) uint64 {
		xs := make([]uint64, 1<<14)
		for k := range xs {
			xs[k] = mixInt(k)
		}
		mu.Lock()
		defer mu.Unlock()
		par.SortFunc(xs, func(a, b uint64) int { return cmp.Compare(a>>8, b>>8) })
		if !slices.IsSortedFunc(xs, func(a, b uint64) int { return cmp.Compare(a>>8, b>>8) }) {
			panic("par.SortFunc left the slice unsorted")
		}
		return xs[0] >> 8
	}},
	// A Scope under the mutex.
	{"scope", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		mu.Lock()
		defer mu.Unlock()
		runtime.Default().Scope(func(s runtime.Scope) {
			for k := range 8 {
				s.Spawn(func(runtime.Scope) { sum.Add(tree(4, nil) + uint64(k)) })
			}
		})
		return sum.Load()
	}},
	// runtime.JoinFunc and Worker.Join, with the worker passed down, under
	// the mutex.
	{"worker forms", func(mu *sync.Mutex) uint64 {
		var sum uint64
		mu.Lock()
		defer mu.Unlock()
		runtime.Default().Do(func(w *runtime.Worker) { sum = workerTree(w, 6) })
		return sum
	}},
	// A loop over a sequence under the mutex: the seq is pulled on a
	// goroutine of its own while the caller waits for the batches.
	{"seq", func(mu *sync.Mutex) uint64 {
		mu.Lock()
		defer mu.Unlock()
		return par.Sum(par.Map(par.FromSeq(func(yield func(int) bool) {
			for i := range 1 << 11 {
				if !yield(i) {
					return
				}
			}
		}), burnItem))
	}},
	// An ordered fold over a sequence under the mutex, with items that
	// recurse: its participants wait for the feeder and for each other's
	// runs to combine.
	{"seq fold", func(mu *sync.Mutex) uint64 {
		mu.Lock()
		defer mu.Unlock()
		return par.Fold(par.FromSeq(countTo(1<<10)), func() uint64 { return 0 },
			func(a uint64, i int) uint64 { return a + burnItem(i) + tree(2, nil) },
			func(a, b uint64) uint64 { return a + b })
	}},
	// A walk under the mutex, to a Try form.
	{"walk", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		mu.Lock()
		defer mu.Unlock()
		if err := par.FromWalk(walkTo(1 << 10)).TryForEach(func(i int) error { sum.Add(burnItem(i)); return nil }); err != nil {
			panic(err)
		}
		return sum.Load()
	}},
	// Blocking over a sequence: items that lock the mutex and recurse
	// under it, while the others wait for the feeder.
	{"seq blocking", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		par.FromSeq(countTo(16)).Blocking(4).ForEach(func(i int) {
			mu.Lock()
			defer mu.Unlock()
			sum.Add(tree(4, nil) + uint64(i))
		})
		return sum.Load()
	}},
	// TryScope under the mutex: tasks that recurse with par.Join.
	{"try scope", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		mu.Lock()
		defer mu.Unlock()
		par.TryScope(context.Background(), 4, func(ctx context.Context, g *par.TryGroup) error {
			for k := range 8 {
				g.Go(func(context.Context, *par.TryGroup) error { sum.Add(tree(4, nil) + uint64(k)); return nil })
			}
			return nil
		})
		return sum.Load()
	}},
	// Blocking mode: items that lock the mutex and recurse under it.
	{"blocking", func(mu *sync.Mutex) uint64 {
		var sum atomic.Uint64
		par.Range(0, 8).Blocking(4).ForEach(func(i int) {
			mu.Lock()
			defer mu.Unlock()
			sum.Add(tree(5, nil))
		})
		return sum.Load()
	}},
}

// others is the other caller: recursions whose leaves take mu, forking with
// par.JoinFunc and par.Join, until stop is closed. What they fork is what a
// wait under mu must not run.
func others(mu *sync.Mutex, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		tree(6, mu)
	}
}

// burn is a few microseconds of work: long enough for idle participants to
// take what is offered.
func burn(x uint64) uint64 {
	for range 200 {
		x = mixInt(int(x))
	}
	return x
}

func burnItem(i int) uint64 { return burn(uint64(i)) & 0xff }

// tree recurses depth levels, with par.JoinFunc at even levels and par.Join
// at odd ones. At the leaves it burns; with a mutex, one leaf in eight
// holds it meanwhile, so that the others keep the workers busy (and
// forking) rather than queued on the mutex.
func tree(depth int, mu *sync.Mutex) uint64 { return treeAt(node{depth, 1, mu}) }

type node struct {
	depth, id int
	mu        *sync.Mutex
}

func treeAt(n node) uint64 {
	if n.depth == 0 {
		if n.mu != nil && n.id%8 == 0 {
			n.mu.Lock()
			defer n.mu.Unlock()
		}
		return burn(1) & 1
	}
	l, r := node{n.depth - 1, 2 * n.id, n.mu}, node{n.depth - 1, 2*n.id + 1, n.mu}
	if n.depth%2 == 0 {
		x, y := par.JoinFunc(treeAt, l, r)
		return x + y
	}
	var x, y uint64
	par.Join(func() { x = treeAt(l) }, func() { y = treeAt(r) })
	return x + y
}

// workerTree is tree with runtime.JoinFunc and Worker.Join.
func workerTree(w *runtime.Worker, depth int) uint64 {
	if depth == 0 {
		return burn(4) & 1
	}
	if depth%2 == 0 {
		x, y := runtime.JoinFunc(w, workerTree, depth-1, depth-1)
		return x + y
	}
	var x, y uint64
	w.Join(func(w *runtime.Worker) { x = workerTree(w, depth-1) }, func(w *runtime.Worker) { y = workerTree(w, depth-1) })
	return x + y
}

// lockRounds is how often the child runs each case.
var lockRounds = max(10, long.Pick(200, 30)/race.Scale)

// lockLimit is how long one round of a case may take before the child
// reports a deadlock: each takes milliseconds, and under the race detector
// on two loaded cores well under a second.
const lockLimit = 20 * time.Second

func TestLockAcrossWaits(t *testing.T) {
	if os.Getenv("GOPAR_TEST_CHILD") == "locks" {
		lockChild(t)
		return
	}
	for _, workers := range []int{1, 2, 4, 8} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLockAcrossWaits$", "-test.v")
			cmd.Env = append(os.Environ(), "GOPAR_TEST_CHILD=locks", "GOPAR_WORKERS="+strconv.Itoa(workers), "GOTRACEBACK=all")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "PASS") {
				t.Fatalf("child with GOPAR_WORKERS=%d failed: %v\n%s", workers, err, out)
			}
		})
	}
}

// lockChild runs every case lockRounds times on the default pool, and
// panics (with every goroutine's stack, GOTRACEBACK=all) if a round does not
// finish within lockLimit: a deadlock.
func lockChild(t *testing.T) {
	only := os.Getenv("GOPAR_TEST_CASE") // one case, when checking each alone
	for _, c := range lockCases {
		if only != "" && c.name != only {
			continue
		}
		start := time.Now()
		var mu sync.Mutex
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); others(&mu, stop) }()
		var want uint64
		for round := range lockRounds {
			done := make(chan uint64, 1)
			go func() { done <- c.run(&mu) }()
			select {
			case got := <-done:
				if round == 0 {
					want = got
				} else if got != want {
					t.Fatalf("%s, round %d: checksum %d, want %d as in round 0", c.name, round, got, want)
				}
			case <-time.After(lockLimit):
				panic(fmt.Sprintf("%s, round %d, %d workers: not done after %v: deadlocked", c.name, round, runtime.Default().Workers(), lockLimit))
			}
		}
		close(stop)
		wg.Wait()
		t.Logf("%s: %d rounds in %v", c.name, lockRounds, time.Since(start))
	}
}
