package sched

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
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

// FuzzBoard plays a sequence of board operations against a reference: owners
// publishing (Promote) and taking back (Reclaim, or Wait after a take), the
// heartbeat's ticks, and workers' takes (takeRipe, then runTaken), over six
// funcs that share board slots, on a pool whose workers are busy and whose
// heartbeat is off (the fuzz ticks for it). Each byte is one operation: the
// low two bits say which, the rest which func. Checked after every step: a
// publication succeeds only in a free slot, an entry carries the marks of
// the ticks since it was published (a func published again starts
// unmarked), a take gets the first ripe entry and only after a tick saw one,
// Reclaim fails exactly when the entry was taken, and every func runs
// exactly once per call.
func FuzzBoard(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 3})                          // publish, ripen, take, wait
	f.Add([]byte{0, 1, 3, 0, 1, 2, 1, 2, 3})              // a marked entry taken back, published again
	f.Add([]byte{0, 4, 8, 1, 1, 2, 2, 2, 3, 7, 11, 1, 2}) // three funcs, two takes
	f.Add([]byte{0, 1, 1, 3, 0, 2, 1, 2, 3})              // ripe, taken back, published again: no take before two ticks
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 256 {
			ops = ops[:256]
		}
		p := newPool(t, 2)
		busyWorkers(t, p)
		b := &p.board
		// The fuzz is the heartbeat: no timer may tick meanwhile (a
		// poke arms it only from asleep).
		b.state.Store(hbClosed)
		const nf = 6
		var runs [nf]int
		var fs [nf]func()
		for k := range fs {
			fs[k] = func() { runs[k]++ }
		}
		var (
			prs    [nf]Promotion
			calls  [nf]int // Promote calls: each must run its func once
			slotOf [nf]int
			owner  = map[int]int{} // slot -> func holding it (published or taken)
			marks  = map[int]uintptr{}
			taken  = map[int]bool{}
			ripeN  int
		)
		for k := range fs {
			slotOf[k] = int((uintptr(unsafe.Pointer(b.slotFor(funcPtr(fs[k])))) - uintptr(unsafe.Pointer(&b.slots[0]))) / unsafe.Sizeof(b.slots[0]))
		}
		check := func(step int) {
			t.Helper()
			for i := range b.slots {
				var want word
				if k, ok := owner[i]; ok {
					want = takenWord
					if !taken[i] {
						want = marked(wordOf(funcPtr(fs[k])), marks[i])
					}
				}
				if got := b.slots[i].entry.Load(); got != want {
					t.Fatalf("step %d: slot %d holds %p, want %p", step, i, got, want)
				}
			}
		}
		takeBack := func(step, k int) {
			s := slotOf[k]
			ok := prs[k].Reclaim()
			if ok == taken[s] {
				t.Fatalf("step %d: Reclaim of func %d returned %v, taken %v", step, k, ok, taken[s])
			}
			if ok {
				fs[k]()
			} else if pn := prs[k].Wait(); pn != nil {
				t.Fatalf("step %d: Wait: %v", step, pn)
			}
			delete(owner, s)
			delete(marks, s)
			delete(taken, s)
			prs[k] = Promotion{}
		}
		for step, op := range ops {
			k := int(op>>2) % nf
			switch op & 3 {
			case 0: // publish k
				if prs[k].Published() {
					break
				}
				calls[k]++
				_, inUse := owner[slotOf[k]]
				prs[k] = Promote(p, fs[k])
				if prs[k].Published() == inUse {
					t.Fatalf("step %d: func %d published %v, its slot in use %v", step, k, prs[k].Published(), inUse)
				}
				if !prs[k].Published() {
					fs[k]()
					break
				}
				owner[slotOf[k]] = k
				marks[slotOf[k]] = 0
			case 1: // a tick
				tickNow(p)
				ripeN = 0
				for s := range owner {
					if taken[s] {
						continue
					}
					switch marks[s] {
					case 0:
						marks[s] = seenMark
					default:
						marks[s] = seenMark | ripeMark
						ripeN++
					}
				}
			case 2: // a worker's take
				want := -1
				if ripeN > 0 {
					for i := range b.slots {
						if _, ok := owner[i]; ok && !taken[i] && marks[i] == seenMark|ripeMark {
							want = i
							break
						}
					}
				}
				s, e := b.takeRipe()
				got := -1
				if s != nil {
					got = int((uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(&b.slots[0]))) / unsafe.Sizeof(b.slots[0]))
				}
				if got != want {
					t.Fatalf("step %d: takeRipe took slot %d, want %d", step, got, want)
				}
				if s != nil {
					taken[got] = true
					p.runTaken(s, funcAt(e))
				}
			case 3: // the owner of k takes it back, or waits
				if prs[k].Published() {
					takeBack(step, k)
				}
			}
			check(step)
		}
		for k := range prs {
			if prs[k].Published() {
				takeBack(len(ops), k)
			}
		}
		check(len(ops))
		for k := range fs {
			if runs[k] != calls[k] {
				t.Fatalf("func %d ran %d times in %d calls", k, runs[k], calls[k])
			}
		}
		b.state.Store(hbAsleep)
	})
}
