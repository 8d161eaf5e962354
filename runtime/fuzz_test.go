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

// FuzzBoard plays a sequence of board operations against a reference: owners
// publishing (Promote) and taking back (Reclaim, or Wait after a take), the
// heartbeat's ticks, and workers' takes (takeRipe, then runTaken), over six
// funcs published by one goroutine, which has two slots (Promote), on a
// pool whose workers are busy and whose heartbeat is off (the fuzz ticks
// for it). Each byte is one operation: the low two bits say which, the
// rest which func. Checked after every step: every slot's word (kind,
// marks, generation), and a func in each slot in use; a publication succeeds
// only in a free slot of the publisher's, under the slot's next generation;
// an entry carries the marks of the ticks since it was published (a func
// published again starts unmarked); a take gets the first ripe entry and
// only after a tick saw one; Reclaim fails exactly when the entry was
// taken; Pending holds exactly until the publication is ended; and every
// func runs exactly once per call.
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
		checkBoardOps(t, p, ops)
	})
}

// TestBoardStateMachine is the sequential model test of the board's slots:
// every sequence of up to five operations of FuzzBoard's (publish, tick,
// take, end, over three funcs) played against its reference, on one pool.
func TestBoardStateMachine(t *testing.T) {
	p := newPool(t, 2)
	busyWorkers(t, p)
	alphabet := []byte{0, 4, 8, 1, 2, 3, 7, 11}
	n := 0
	var walk func(ops []byte)
	walk = func(ops []byte) {
		checkBoardOps(t, p, ops)
		n++
		if len(ops) == 5 {
			return
		}
		for _, op := range alphabet {
			walk(append(ops, op))
		}
	}
	walk(nil)
	t.Logf("%d sequences", n)
}

// nextSlots returns the slots that the calling goroutine's next Promote on
// b tries, first and second (publisherID).
func nextSlots(b *board) (int, int) {
	id := b.seq.Load() + 1
	if haveCurG {
		id = uint64(curG())
	}
	return b.slotsFor(b.hashOf(id))
}

// checkBoardOps plays ops (FuzzBoard's) on p, whose workers are busy, and
// leaves its board as it found it: every slot free.
func checkBoardOps(t *testing.T, p *Pool, ops []byte) {
	t.Helper()
	b := &p.board
	// The test is the heartbeat: no timer may tick meanwhile (a poke arms
	// it only from asleep).
	b.state.Store(hbClosed)
	defer b.state.Store(hbAsleep)
	const nf = 6
	var runs [nf]int
	var fs [nf]func()
	for k := range fs {
		fs[k] = func() { runs[k]++ }
	}
	var (
		prs    [nf]promotion
		calls  [nf]int // Promote calls: each must run its func once
		slotOf [nf]int
		owner  = map[int]int{} // slot -> func holding it (published or taken)
		marks  = map[int]uint64{}
		taken  = map[int]bool{}
		gens   = map[int]uint64{}
		ripeN  int
	)
	for i := range b.slots {
		gens[i] = genOf(b.slots[i].state.Load())
	}
	check := func(step int) {
		t.Helper()
		for i := range b.slots {
			want := gens[i] | kindFree
			if _, ok := owner[i]; ok {
				want = gens[i] | kindTaken
				if !taken[i] {
					want = gens[i] | kindPub | marks[i]
				}
			}
			s := &b.slots[i]
			if got := s.state.Load(); got != want {
				t.Fatalf("ops %v, step %d: slot %d's word is %#x, want %#x", ops, step, i, got, want)
			}
			if _, ok := owner[i]; ok && s.fn == nil {
				t.Fatalf("ops %v, step %d: slot %d holds no func", ops, step, i)
			}
		}
		for k := range prs {
			if _, ok := owner[slotOf[k]]; prs[k].Pending() != (prs[k].Published() && ok && owner[slotOf[k]] == k) {
				t.Fatalf("ops %v, step %d: func %d Pending %v", ops, step, k, prs[k].Pending())
			}
		}
	}
	takeBack := func(step, k int) {
		s := slotOf[k]
		ok := prs[k].Reclaim()
		if ok == taken[s] {
			t.Fatalf("ops %v, step %d: Reclaim of func %d returned %v, taken %v", ops, step, k, ok, taken[s])
		}
		if ok {
			fs[k]()
		} else if pn := prs[k].Wait(); pn != nil {
			t.Fatalf("ops %v, step %d: Wait: %v", ops, step, pn)
		}
		delete(owner, s)
		delete(marks, s)
		delete(taken, s)
		prs[k] = promotion{}
	}
	for step, op := range ops {
		k := int(op>>2) % nf
		switch op & 3 {
		case 0: // publish k
			if prs[k].Published() {
				break
			}
			calls[k]++
			want := -1
			i, j := nextSlots(b)
			if _, inUse := owner[i]; !inUse {
				want = i
			} else if _, inUse := owner[j]; !inUse {
				want = j
			}
			prs[k] = promote(p, fs[k])
			if prs[k].Published() != (want >= 0) {
				t.Fatalf("ops %v, step %d: func %d published %v, a slot free %v", ops, step, k, prs[k].Published(), want >= 0)
			}
			if !prs[k].Published() {
				fs[k]()
				break
			}
			if prs[k].s != &b.slots[want] {
				t.Fatalf("ops %v, step %d: func %d published in the wrong slot", ops, step, k)
			}
			slotOf[k] = want
			owner[want] = k
			marks[want] = 0
			gens[want] += genOne
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
			s, f := b.takeRipe()
			got := -1
			for i := range b.slots {
				if s == &b.slots[i] {
					got = i
				}
			}
			if got != want {
				t.Fatalf("ops %v, step %d: takeRipe took slot %d, want %d", ops, step, got, want)
			}
			if s != nil {
				taken[got] = true
				p.runTaken(s, f)
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
			t.Fatalf("ops %v: func %d ran %d times in %d calls", ops, k, runs[k], calls[k])
		}
	}
	b.ripeN.Store(0)
}

// FuzzScope runs random trees of Scope tasks on pools of 1 to 4 workers.
// A task spawns its children four ways: from its own frame (the children
// are the scope's: Worker.newTask), from inside the b of a Join, from the
// body of a nested Scope (both forks of the frame running), and from a
// goroutine of its own (a foreign spawn). Every task handed out must run
// exactly once before Scope returns.
func FuzzScope(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint16(300))
	f.Add(uint64(7), uint8(0), uint16(999))
	f.Add(uint64(42), uint8(3), uint16(1000))
	f.Add(uint64(5), uint8(2), uint16(2))
	f.Fuzz(func(t *testing.T, seed uint64, workers uint8, tasks uint16) {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
		p := fuzzPool(1 + int(workers%4))
		n := 1 + int(tasks%1000)
		counts := make([]atomic.Int32, n)
		var next atomic.Int32
		next.Store(1) // task 0 is the first
		var run func(s Scope, id int)
		run = func(s Scope, id int) {
			counts[id].Add(1)
			r := seed ^ uint64(id)*0x9E3779B97F4A7C15
			for j := range 1 + int(r%3) {
				c := int(next.Add(1)) - 1
				if c >= n {
					return
				}
				child := func(s Scope) { run(s, c) }
				switch (r >> (2 + 2*j)) % 4 {
				case 0:
					s.Spawn(child)
				case 1:
					s.Worker().Join(func(*Worker) {}, func(*Worker) { s.Spawn(child) })
				case 2:
					s.Worker().Scope(func(Scope) { s.Spawn(child) })
				case 3:
					done := make(chan struct{})
					go func() {
						defer close(done)
						s.Spawn(child)
					}()
					<-done
				}
			}
		}
		p.Scope(func(s Scope) { s.Spawn(func(s Scope) { run(s, 0) }) })
		handed := min(int(next.Load()), n)
		if diff := onceDiff(counts[:handed]); diff != "" {
			t.Fatalf("tasks not run exactly once (-want +got, runs by index):\n%s", diff)
		}
		for i := handed; i < n; i++ {
			if c := counts[i].Load(); c != 0 {
				t.Fatalf("task %d, never handed out, ran %d times", i, c)
			}
		}
	})
}
