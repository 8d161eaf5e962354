package steal

import (
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopar-dev/gopar/internal/race"
)

// stressOps is the number of deque operations (pushes + pops + successful
// steals) the concurrent stress test performs: at least 10^7 without the race
// detector, so that rare interleavings (the owner and a thief racing for the
// last item right after a grow) get a fair chance to happen.
const stressOps = 10_000_000 / race.Scale

// injectorStressItems is the number of items pushed through the injector in
// its stress test.
const injectorStressItems = 1_000_000 / race.Scale

// item is what the tests put in queues: a distinct pointer per id.
type item struct{ id int }

func newItems(n int) []item {
	items := make([]item, n)
	for i := range items {
		items[i].id = i
	}
	return items
}

// heldSlots counts the non-nil slots of d's ring: the items the deque keeps
// reachable. Owner only (it reads the ring while no one writes it).
func heldSlots[T any](d *Deque[T]) int {
	r := d.buf.Load()
	if r == nil {
		return 0
	}
	n := 0
	for i := range r.slots {
		if r.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{Empty: "Empty", Success: "Success", Retry: "Retry", 7: "Status(7)"} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
}

func TestDequeZeroValue(t *testing.T) {
	var d Deque[item]
	if x := d.Pop(); x != nil {
		t.Fatalf("Pop on zero Deque = %v, want nil", x)
	}
	if x, s := d.Steal(); x != nil || s != Empty {
		t.Fatalf("Steal on zero Deque = %v, %v, want nil, Empty", x, s)
	}
	if n := d.Len(); n != 0 {
		t.Fatalf("Len on zero Deque = %d, want 0", n)
	}
	it := &item{id: 1}
	d.Push(it)
	if x := d.Pop(); x != it {
		t.Fatalf("Pop = %v, want %v", x, it)
	}
}

func TestDequePushNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Push(nil) did not panic")
		}
	}()
	var d Deque[item]
	d.Push(nil)
}

// TestDequeModel runs random sequences of Push, Pop and Steal on one goroutine
// against a slice, in phases that favour pushing (long runs force the ring to
// grow), popping or stealing (top overtakes old slots: wrap-around). It also
// checks that the deque holds no item it has handed out.
func TestDequeModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		items := newItems(20_000)
		var d Deque[item]
		var model []*item // model[0] is the top
		next := 0
		for step := 0; step < 50_000; {
			// A phase: its length and its mix of operations.
			phase := 1 + rng.IntN(2000)
			pPush, pPop := rng.IntN(101), rng.IntN(101)
			for ; phase > 0; phase, step = phase-1, step+1 {
				op := rng.IntN(101 + pPush + pPop)
				switch {
				case op < pPush && next < len(items):
					x := &items[next]
					next++
					d.Push(x)
					model = append(model, x)
					// Push sweeps the slots of stolen items.
					if h := heldSlots(&d); h != len(model) {
						t.Fatalf("seed %d step %d: after Push the ring holds %d items, want %d", seed, step, h, len(model))
					}
				case op < pPush+pPop:
					x := d.Pop()
					var want *item
					if len(model) > 0 {
						want = model[len(model)-1]
						model = model[:len(model)-1]
					}
					if x != want {
						t.Fatalf("seed %d step %d: Pop = %v, want %v", seed, step, x, want)
					}
					if x == nil && heldSlots(&d) != 0 {
						t.Fatalf("seed %d step %d: empty deque still holds %d items", seed, step, heldSlots(&d))
					}
				default:
					x, s := d.Steal()
					if len(model) == 0 {
						if x != nil || s != Empty {
							t.Fatalf("seed %d step %d: Steal = %v, %v, want nil, Empty", seed, step, x, s)
						}
						break
					}
					if x != model[0] || s != Success {
						t.Fatalf("seed %d step %d: Steal = %v, %v, want %v, Success", seed, step, x, s, model[0])
					}
					model = model[1:]
				}
				if n := d.Len(); n != len(model) {
					t.Fatalf("seed %d step %d: Len = %d, want %d", seed, step, n, len(model))
				}
			}
		}
	}
}

// TestDequeStress has one owner pushing and popping and several thieves
// stealing, and checks that every item is taken exactly once, that the owner's
// pops come out LIFO and that each thief's steals come out FIFO. The owner
// switches to a fresh deque every few thousand items so that growing under
// contention happens again and again.
func TestDequeStress(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	const thieves = 4
	nItems := stressOps / 2 // each item is pushed once and taken once
	if testing.Short() {
		nItems /= 20
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	items := newItems(nItems)

	var cur atomic.Pointer[Deque[item]]
	cur.Store(new(Deque[item]))
	var done atomic.Bool
	var retries atomic.Int64
	stolen := make([][]int32, thieves)
	var wg sync.WaitGroup
	for k := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []int32
			var nretry int64
			last := map[*Deque[item]]int{} // FIFO check, per deque
			for {
				finished := done.Load()
				d := cur.Load()
				x, s := d.Steal()
				switch s {
				case Success:
					if x == nil {
						t.Errorf("thief %d: Steal returned Success with nil", k)
						return
					}
					if prev, ok := last[d]; ok && x.id <= prev {
						t.Errorf("thief %d stole %d after %d from the same deque: not FIFO", k, x.id, prev)
					}
					last[d] = x.id
					mine = append(mine, int32(x.id))
				case Retry:
					nretry++
				case Empty:
					if finished {
						stolen[k] = mine
						retries.Add(nretry)
						return
					}
				}
			}
		}()
	}

	// The owner.
	popped := make([]int32, 0, nItems)
	d := cur.Load()
	next, sinceSwitch, maxBurst := 0, 0, 8
	for next < nItems {
		if sinceSwitch > 20_000 {
			// Drain the old deque (thieves may still steal from it) and
			// start a fresh one, with a fresh small ring.
			for x := d.Pop(); x != nil; x = d.Pop() {
				popped = append(popped, int32(x.id))
			}
			d = new(Deque[item])
			cur.Store(d)
			sinceSwitch = 0
			maxBurst = []int{2, 8, 64, 300}[rng.IntN(4)]
		}
		k := 1 + rng.IntN(maxBurst)
		for i := 0; i < k && next < nItems; i++ {
			d.Push(&items[next])
			next++
			sinceSwitch++
		}
		prev := nItems
		for j := rng.IntN(k + 2); j > 0; j-- {
			x := d.Pop()
			if x == nil {
				break
			}
			if x.id >= prev {
				t.Fatalf("owner popped %d after %d with no push between: not LIFO", x.id, prev)
			}
			prev = x.id
			popped = append(popped, int32(x.id))
		}
	}
	done.Store(true)
	for x := d.Pop(); x != nil; x = d.Pop() {
		popped = append(popped, int32(x.id))
	}
	wg.Wait()
	if d.Len() != 0 || heldSlots(d) != 0 {
		t.Errorf("drained deque: Len %d, holds %d items", d.Len(), heldSlots(d))
	}

	seen := make([]uint8, nItems)
	nstolen := 0
	for _, ids := range append(stolen, popped) {
		for _, id := range ids {
			seen[id]++
		}
	}
	for _, ids := range stolen {
		nstolen += len(ids)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("item %d taken %d times, want exactly once", id, n)
		}
	}
	ops := nItems + len(popped) + nstolen
	t.Logf("%d ops: %d pushes, %d pops, %d steals (%d thieves, %d lost races)",
		ops, nItems, len(popped), nstolen, thieves, retries.Load())
	if !testing.Short() && ops < stressOps {
		t.Errorf("performed %d ops, want at least %d", ops, stressOps)
	}
}

// TestStealIfPopIf: the conditional forms take the end item only when it is
// accepted, and leave the deque untouched otherwise.
func TestStealIfPopIf(t *testing.T) {
	var d Deque[int]
	xs := []int{1, 2, 3}
	for i := range xs {
		d.Push(&xs[i])
	}
	none := func(*int) bool { return false }
	all := func(*int) bool { return true }
	if x, s := d.StealIf(none); x != nil || s != Empty || d.Len() != 3 {
		t.Fatalf("StealIf(refuse) = %v, %v with %d left; want nil, Empty, 3", x, s, d.Len())
	}
	if x := d.PopIf(none); x != nil || d.Len() != 3 {
		t.Fatalf("PopIf(refuse) = %v with %d left; want nil, 3", x, d.Len())
	}
	if x, s := d.StealIf(all); s != Success || *x != 1 {
		t.Fatalf("StealIf(accept) = %v, %v; want 1, Success", x, s)
	}
	if x := d.PopIf(func(x *int) bool { return *x == 3 }); x == nil || *x != 3 {
		t.Fatalf("PopIf(accept 3) = %v; want 3", x)
	}
	if x := d.PopIf(all); x == nil || *x != 2 {
		t.Fatalf("PopIf(accept) = %v; want 2", x)
	}
	if x := d.PopIf(all); x != nil {
		t.Fatalf("PopIf on an empty deque = %v; want nil", *x)
	}
	if x, s := d.StealIf(all); x != nil || s != Empty {
		t.Fatalf("StealIf on an empty deque = %v, %v; want nil, Empty", x, s)
	}
}
