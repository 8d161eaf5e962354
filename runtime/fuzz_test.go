package runtime

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// fuzzPools are shared by the fuzz executions, one per worker count:
// starting and stopping a pool per input would dominate the run.
var fuzzPools sync.Map // int -> *Pool

func fuzzPool(workers int) *Pool {
	if p, ok := fuzzPools.Load(workers); ok {
		return p.(*Pool)
	}
	p, err := New(workers)
	if err != nil {
		panic(err)
	}
	if old, loaded := fuzzPools.LoadOrStore(workers, p); loaded {
		p.Close()
		return old.(*Pool)
	}
	return p
}

// fuzzTree is the state of one FuzzJoinFunc input: a random binary tree
// over [0, leaves), forked with JoinFunc, Join or a plain call at each node
// as the seed says, whose leaves count their runs.
type fuzzTree struct {
	seed    uint64
	panicAt int
	counts  []atomic.Int32
}

type fuzzSpan struct{ lo, hi int }

// node splits s at a seeded point and forks the two halves in a seeded way.
func (t *fuzzTree) node(w *Worker, s fuzzSpan) int {
	if s.hi-s.lo == 1 {
		t.counts[s.lo].Add(1)
		if s.lo == t.panicAt {
			panic(fmt.Sprintf("leaf %d", s.lo))
		}
		return s.lo
	}
	h := splitmix(t.seed ^ uint64(s.lo)<<32 ^ uint64(s.hi))
	mid := s.lo + 1 + int(h%uint64(s.hi-s.lo-1))
	left, right := fuzzSpan{s.lo, mid}, fuzzSpan{mid, s.hi}
	switch h >> 62 {
	case 0, 1:
		a, b := JoinFunc(w, t.node, left, right)
		return a + b
	case 2:
		var a, b int
		w.Join(func(w *Worker) { a = t.node(w, left) }, func(w *Worker) { b = t.node(w, right) })
		return a + b
	default:
		// A different JoinFunc type on the same worker.
		a, b := JoinFunc(w, t.node64, left, right)
		return int(a + b)
	}
}

func (t *fuzzTree) node64(w *Worker, s fuzzSpan) int64 { return int64(t.node(w, s)) }

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// FuzzJoinFunc runs random fork trees, mixing JoinFunc of two types with
// Join, on pools of 1 to 4 workers, optionally with one leaf panicking:
// every leaf must run exactly once, the sum must be right, and a panic must
// come back as a *Panic with the leaf's value.
func FuzzJoinFunc(f *testing.F) {
	f.Add(uint64(1), uint8(2), uint16(1000), int16(-1))
	f.Add(uint64(7), uint8(1), uint16(1), int16(0))
	f.Add(uint64(42), uint8(4), uint16(4096), int16(4095))
	f.Add(uint64(3), uint8(3), uint16(300), int16(17))
	f.Fuzz(func(t *testing.T, seed uint64, workers uint8, leaves uint16, panicAt int16) {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
		p := fuzzPool(1 + int(workers%4))
		n := 1 + int(leaves%4096)
		tr := &fuzzTree{seed: seed, panicAt: int(panicAt), counts: make([]atomic.Int32, n)}
		var got int
		pv := func() (r any) {
			defer func() { r = recover() }()
			p.Do(func(w *Worker) { got = tr.node(w, fuzzSpan{0, n}) })
			return nil
		}()
		if diff := onceDiff(tr.counts); diff != "" {
			t.Fatalf("leaves not run exactly once (-want +got, runs by index):\n%s", diff)
		}
		if tr.panicAt >= 0 && tr.panicAt < n {
			want := fmt.Sprintf("leaf %d", tr.panicAt)
			if n == 1 {
				// No fork: Do lets the panic through unchanged.
				if pv != want {
					t.Fatalf("recovered %v, want %q", pv, want)
				}
				return
			}
			if pe, ok := pv.(*Panic); !ok || pe.Value != want {
				t.Fatalf("recovered %v, want a *Panic of %q", pv, want)
			}
			return
		}
		if pv != nil {
			t.Fatalf("unexpected panic %v", pv)
		}
		if want := n * (n - 1) / 2; got != want {
			t.Fatalf("sum of leaves %d, want %d", got, want)
		}
	})
}
