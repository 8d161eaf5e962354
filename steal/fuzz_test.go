package steal

import (
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxFuzzOps bounds the operations decoded from one fuzz input, so that one
// input cannot run for long.
const maxFuzzOps = 4096

// A fuzzOp is one scripted step: actor 0 is the owner (or the first producer),
// actors 1 and 2 are thieves (or consumers); n is how many times to do it.
type fuzzOp struct {
	actor int
	kind  byte // 'u' push, 'o' pop, 's' steal
	n     int
}

// decodeDequeOps turns fuzz bytes into a script. For each byte c:
//
//	c&3 == 0 or 1: the owner pushes (c>>2)%16+1 items
//	c&3 == 2:      the owner pops (c>>2)%8+1 times
//	c&3 == 3:      thief 1+(c>>2)&1 steals (c>>3)%8+1 times
func decodeDequeOps(data []byte) []fuzzOp {
	if len(data) > maxFuzzOps {
		data = data[:maxFuzzOps]
	}
	ops := make([]fuzzOp, len(data))
	for i, c := range data {
		switch c & 3 {
		case 0, 1:
			ops[i] = fuzzOp{0, 'u', int(c>>2)%16 + 1}
		case 2:
			ops[i] = fuzzOp{0, 'o', int(c>>2)%8 + 1}
		case 3:
			ops[i] = fuzzOp{1 + int(c>>2)&1, 's', int(c>>3)%8 + 1}
		}
	}
	return ops
}

// FuzzDeque runs the decoded script twice: first interleaved on one goroutine
// and checked step by step against a slice, then with the owner and two
// thieves each running their part concurrently, checked for exactly-once
// delivery, LIFO pops and FIFO steals.
func FuzzDeque(f *testing.F) {
	f.Add([]byte{0x3c, 0x02, 0x03, 0x07, 0x0b})
	f.Add([]byte{0xfc, 0xfc, 0xfc, 0x1f, 0x1b, 0xfe, 0x3c, 0x17})
	f.Add([]byte{0x00, 0x03, 0x02, 0x00, 0x07, 0x02, 0x01, 0x0b, 0x06})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := decodeDequeOps(data)
		total := 0
		for _, op := range ops {
			if op.kind == 'u' {
				total += op.n
			}
		}

		// Sequential: every step is checked against the model.
		items := newItems(total)
		var d Deque[item]
		var model []*item
		next := 0
		for i, op := range ops {
			for range op.n {
				switch op.kind {
				case 'u':
					d.Push(&items[next])
					model = append(model, &items[next])
					next++
				case 'o':
					var want *item
					if len(model) > 0 {
						want = model[len(model)-1]
						model = model[:len(model)-1]
					}
					if x := d.Pop(); x != want {
						t.Fatalf("op %d: Pop = %v, want %v", i, x, want)
					}
				case 's':
					x, s := d.Steal()
					if len(model) == 0 {
						if x != nil || s != Empty {
							t.Fatalf("op %d: Steal = %v, %v, want nil, Empty", i, x, s)
						}
						continue
					}
					if x != model[0] || s != Success {
						t.Fatalf("op %d: Steal = %v, %v, want %v, Success", i, x, s, model[0])
					}
					model = model[1:]
				}
				if d.Len() != len(model) {
					t.Fatalf("op %d: Len = %d, want %d", i, d.Len(), len(model))
				}
			}
		}
		if h := heldSlots(&d); h > len(model)+int(d.top.Load()-d.cleared) {
			t.Fatalf("the ring holds %d items, more than the %d live and %d unswept ones",
				h, len(model), d.top.Load()-d.cleared)
		}

		// Concurrent: the owner runs its part here, each thief its own.
		items = newItems(total)
		var cd Deque[item]
		stolen := make([][]int, 3)
		var wg sync.WaitGroup
		for thief := 1; thief <= 2; thief++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, op := range ops {
					if op.actor != thief {
						continue
					}
					for range op.n {
						if x, s := cd.Steal(); s == Success {
							stolen[thief] = append(stolen[thief], x.id)
						}
					}
				}
			}()
		}
		var popped []int
		next = 0
		pop := func(prev int) int {
			x := cd.Pop()
			if x == nil {
				return -1
			}
			if x.id >= prev {
				t.Errorf("owner popped %d after %d with no push between: not LIFO", x.id, prev)
			}
			popped = append(popped, x.id)
			return x.id
		}
		for _, op := range ops {
			switch op.kind {
			case 'u':
				for range op.n {
					cd.Push(&items[next])
					next++
				}
			case 'o':
				prev := total
				for range op.n {
					if prev = pop(prev); prev < 0 {
						break
					}
				}
			}
		}
		wg.Wait()
		for prev := total; prev >= 0; {
			prev = pop(prev)
		}

		seen := make([]int, total)
		for _, ids := range append(stolen, popped) {
			for _, id := range ids {
				seen[id]++
			}
		}
		if diff := cmp.Diff(slices.Repeat([]int{1}, total), seen); diff != "" {
			t.Fatalf("items not taken exactly once (-want +got, times taken by index):\n%s", diff)
		}
		for thief, ids := range stolen {
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("thief %d stole %d after %d: not FIFO", thief, ids[i], ids[i-1])
				}
			}
		}
		if cd.Len() != 0 || heldSlots(&cd) != 0 {
			t.Fatalf("drained deque: Len %d, holds %d items", cd.Len(), heldSlots(&cd))
		}
	})
}

// decodeInjectorOps turns fuzz bytes into a script. For each byte c:
//
//	c&1 == 0: producer (c>>1)&1 pushes (c>>2)%8+1 items
//	c&1 == 1: consumer (c>>1)&1 steals (c>>2)%8+1 times
//
// Producers are actors 0 and 1, consumers actors 1 and 2 (kinds tell apart).
func decodeInjectorOps(data []byte) []fuzzOp {
	if len(data) > maxFuzzOps {
		data = data[:maxFuzzOps]
	}
	ops := make([]fuzzOp, len(data))
	for i, c := range data {
		if c&1 == 0 {
			ops[i] = fuzzOp{int(c>>1) & 1, 'u', int(c>>2)%8 + 1}
		} else {
			ops[i] = fuzzOp{1 + int(c>>1)&1, 's', int(c>>2)%8 + 1}
		}
	}
	return ops
}

// FuzzInjector runs the decoded script interleaved on one goroutine against a
// slice, then with two producers and two consumers running concurrently,
// checked for exactly-once delivery and per-producer FIFO order.
func FuzzInjector(f *testing.F) {
	f.Add([]byte{0x1c, 0x01, 0x03, 0x1e, 0x1d, 0x1f, 0x05})
	f.Add([]byte{0xfc, 0xfe, 0x01, 0xfd, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := decodeInjectorOps(data)
		var total [2]int
		for _, op := range ops {
			if op.kind == 'u' {
				total[op.actor] += op.n
			}
		}

		// Sequential.
		var q Injector[pitem]
		var model []*pitem
		var next [2]int
		for i, op := range ops {
			for range op.n {
				if op.kind == 'u' {
					x := &pitem{op.actor, next[op.actor]}
					next[op.actor]++
					q.Push(x)
					model = append(model, x)
				} else {
					x, s := q.Steal()
					if len(model) == 0 {
						if x != nil || s != Empty {
							t.Fatalf("op %d: Steal = %v, %v, want nil, Empty", i, x, s)
						}
						continue
					}
					if x != model[0] || s != Success {
						t.Fatalf("op %d: Steal = %v, %v, want %v, Success", i, x, s, model[0])
					}
					model = model[1:]
				}
				if q.Len() != len(model) || q.IsEmpty() != (len(model) == 0) {
					t.Fatalf("op %d: Len %d, IsEmpty %v, want %d items", i, q.Len(), q.IsEmpty(), len(model))
				}
			}
		}

		// Concurrent: two producers and two consumers, each with its part.
		var cq Injector[pitem]
		got := make([][]*pitem, 3) // got[2]: drained at the end
		var wg sync.WaitGroup
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				seq := 0
				for _, op := range ops {
					if op.kind == 'u' && op.actor == p {
						for range op.n {
							cq.Push(&pitem{p, seq})
							seq++
						}
					}
				}
			}()
		}
		for c := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, op := range ops {
					if op.kind == 's' && op.actor == c+1 {
						for range op.n {
							if x, s := cq.Steal(); s == Success {
								got[c] = append(got[c], x)
							}
						}
					}
				}
			}()
		}
		wg.Wait()
		for {
			x, s := cq.Steal()
			if s == Empty {
				break
			}
			if s == Success {
				got[2] = append(got[2], x)
			}
		}

		seen := [2][]int{make([]int, total[0]), make([]int, total[1])}
		for c, xs := range got {
			last := [2]int{-1, -1}
			for _, x := range xs {
				seen[x.producer][x.seq]++
				if x.seq <= last[x.producer] {
					t.Fatalf("consumer %d got item %d of producer %d after item %d: not FIFO",
						c, x.seq, x.producer, last[x.producer])
				}
				last[x.producer] = x.seq
			}
		}
		for p := range seen {
			if diff := cmp.Diff(slices.Repeat([]int{1}, len(seen[p])), seen[p]); diff != "" {
				t.Fatalf("items of producer %d not taken exactly once (-want +got, times taken by index):\n%s", p, diff)
			}
		}
	})
}
