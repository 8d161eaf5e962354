package steal

import (
	"bytes"
	"math/rand/v2"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInjectorZeroValue(t *testing.T) {
	var q Injector[item]
	if !q.IsEmpty() || q.Len() != 0 {
		t.Fatalf("zero Injector: IsEmpty %v, Len %d", q.IsEmpty(), q.Len())
	}
	if x, s := q.Steal(); x != nil || s != Empty {
		t.Fatalf("Steal on zero Injector = %v, %v, want nil, Empty", x, s)
	}
	it := &item{id: 1}
	q.Push(it)
	if q.IsEmpty() || q.Len() != 1 {
		t.Fatalf("after Push: IsEmpty %v, Len %d", q.IsEmpty(), q.Len())
	}
	if x, s := q.Steal(); x != it || s != Success {
		t.Fatalf("Steal = %v, %v, want %v, Success", x, s, it)
	}
}

func TestInjectorPushNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Push(nil) did not panic")
		}
	}()
	var q Injector[item]
	q.Push(nil)
}

// TestInjectorModel runs random sequences of Push and Steal on one goroutine
// against a slice, and checks that the dummy head node does not keep the last
// item taken alive.
func TestInjectorModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 0x1a1))
		items := newItems(20_000)
		var q Injector[item]
		var model []*item
		next := 0
		for step := 0; step < 40_000; {
			phase := 1 + rng.IntN(2000)
			pPush := rng.IntN(101)
			for ; phase > 0; phase, step = phase-1, step+1 {
				if rng.IntN(101) < pPush && next < len(items) {
					x := &items[next]
					next++
					q.Push(x)
					model = append(model, x)
				} else {
					x, s := q.Steal()
					if len(model) == 0 {
						if x != nil || s != Empty {
							t.Fatalf("seed %d step %d: Steal = %v, %v, want nil, Empty", seed, step, x, s)
						}
					} else {
						if x != model[0] || s != Success {
							t.Fatalf("seed %d step %d: Steal = %v, %v, want %v, Success", seed, step, x, s, model[0])
						}
						model = model[1:]
					}
					if h := q.head.Load(); h != nil && h.val != nil {
						t.Fatalf("seed %d step %d: the dummy node still holds %v", seed, step, h.val)
					}
				}
				if n := q.Len(); n != len(model) {
					t.Fatalf("seed %d step %d: Len = %d, want %d", seed, step, n, len(model))
				}
				if e := q.IsEmpty(); e != (len(model) == 0) {
					t.Fatalf("seed %d step %d: IsEmpty = %v with %d items", seed, step, e, len(model))
				}
			}
		}
	}
}

// pitem is an injector stress-test item: which producer pushed it, and its
// sequence number within that producer's pushes.
type pitem struct{ producer, seq int }

// TestInjectorStress has several producers and consumers and checks that
// every item comes out exactly once and that each consumer sees each
// producer's items in the order they were pushed.
func TestInjectorStress(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(8))
	const producers, consumers = 4, 4
	perProducer := injectorStressItems / producers
	if testing.Short() {
		perProducer /= 10
	}
	total := int64(perProducer * producers)

	var q Injector[pitem]
	var producing atomic.Int64 // producers still pushing
	producing.Store(producers)
	var retries atomic.Int64
	got := make([][]*pitem, consumers)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer producing.Add(-1)
			items := make([]pitem, perProducer)
			for i := range items {
				items[i] = pitem{p, i}
				q.Push(&items[i])
			}
		}()
	}
	for c := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*pitem
			var nretry int64
			last := [producers]int{-1, -1, -1, -1}
			for {
				// Once every producer is done, Empty means there is no more.
				finished := producing.Load() == 0
				x, s := q.Steal()
				if s == Empty && finished {
					break
				}
				switch s {
				case Success:
					if x.seq <= last[x.producer] {
						t.Errorf("consumer %d got item %d of producer %d after item %d: not FIFO",
							c, x.seq, x.producer, last[x.producer])
					}
					last[x.producer] = x.seq
					mine = append(mine, x)
				case Retry:
					nretry++
				}
			}
			got[c] = mine
			retries.Add(nretry)
		}()
	}
	wg.Wait()

	if !q.IsEmpty() || q.Len() != 0 {
		t.Errorf("drained injector: IsEmpty %v, Len %d", q.IsEmpty(), q.Len())
	}
	seen := make([][]uint8, producers)
	for p := range seen {
		seen[p] = make([]uint8, perProducer)
	}
	n := 0
	for _, xs := range got {
		n += len(xs)
		for _, x := range xs {
			seen[x.producer][x.seq]++
		}
	}
	for p := range seen {
		if diff := cmp.Diff(bytes.Repeat([]byte{1}, len(seen[p])), seen[p]); diff != "" {
			t.Fatalf("items of producer %d not taken exactly once (-want +got, times taken by index):\n%s", p, diff)
		}
	}
	if int64(n) != total {
		t.Fatalf("took %d items, want %d", n, total)
	}
	t.Logf("%d items through %d producers and %d consumers, %d lost races", total, producers, consumers, retries.Load())
}
