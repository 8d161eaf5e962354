package pipe

import (
	"reflect"
	"sync"
	"testing"
)

// counter is a small accumulator: four of them fit in a cache line.
type counter struct{ n, m int64 }

// TestApart: the values Apart hands out share no cache line, where init
// alone puts them side by side; a value that is not a map or a pointer to
// a small object is left to init.
func TestApart(t *testing.T) {
	lines := func(mk func() *counter, n int) (shared int, made []*counter) {
		seen := map[uintptr]bool{}
		for range n {
			c := mk()
			made = append(made, c) // kept alive: the allocator must not reuse it
			p := reflect.ValueOf(c).Pointer()
			first, last := p/cacheLine, (p+reflect.TypeFor[counter]().Size()-1)/cacheLine
			for l := first; l <= last; l++ {
				if seen[l] {
					shared++
				}
				seen[l] = true
			}
		}
		return shared, made
	}
	var inits int
	init := func() *counter { inits++; return new(counter) }
	if shared, _ := lines(init, 16); shared == 0 {
		t.Skip("the allocator put no two of 16 counters on one line: nothing to keep apart")
	}
	inits = 0
	a := NewApart(init)
	if shared, _ := lines(a.Make, 16); shared > 0 {
		t.Errorf("Apart: %d of 16 counters share a line with an earlier one", shared)
	} else if spares := len(a.Spares()); inits != 16+spares || inits > apartTries(16)*16 {
		t.Errorf("Apart: init ran %d times for 16 counters and %d spares, want 16 + spares, at most %d",
			inits, spares, apartTries(16)*16)
	}

	// Values and large objects: init's value, no spares.
	ints, n := func() int { return 1 }, 0
	if a := NewApart(ints); a.Make() != 1 || a.size != 0 {
		t.Errorf("Apart(func() int) keeps ints apart")
	}
	big := NewApart(func() *[1024]int64 { n++; return new([1024]int64) })
	for range 4 {
		big.Make()
	}
	if n != 4 || big.size != 0 || len(big.Spares()) != 0 {
		t.Errorf("Apart(func() *[1024]int64): %d made for 4, size %d", n, big.size)
	}
	// Maps: two made one after the other are checked too.
	var maps []map[int]int
	mk := NewApart(func() map[int]int { return map[int]int{} })
	for range 8 {
		maps = append(maps, mk.Make())
	}
	for i, a := range maps {
		for _, b := range maps[i+1:] {
			pa, pb := reflect.ValueOf(a).Pointer(), reflect.ValueOf(b).Pointer()
			if pa/cacheLine == pb/cacheLine || (pa+mapHeader-1)/cacheLine == pb/cacheLine || (pb+mapHeader-1)/cacheLine == pa/cacheLine {
				t.Errorf("Apart: maps at %#x and %#x may share a line", pa, pb)
			}
		}
	}
}

// BenchmarkApart is why Apart exists: two goroutines each add to a small
// accumulator of their own. Plain, the second is one that init made on the
// same line as the first, as the allocator does one time in a few, and
// each core takes the line from the other at every add; Apart's never
// shares it.
func BenchmarkApart(b *testing.B) {
	init := func() *counter { return new(counter) }
	neighbours := func() [2]*counter {
		prev := init()
		for {
			c := init()
			if addr(c)/cacheLine == addr(prev)/cacheLine {
				return [2]*counter{prev, c}
			}
			prev = c
		}
	}
	apart := func() [2]*counter {
		a := NewApart(init)
		return [2]*counter{a.Make(), a.Make()}
	}
	for _, c := range []struct {
		name string
		accs func() [2]*counter
	}{{"plain", neighbours}, {"apart", apart}} {
		b.Run(c.name, func(b *testing.B) {
			accs := c.accs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, acc := range accs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range b.N {
						acc.add(int64(i))
					}
				}()
			}
			wg.Wait()
		})
	}
}

// add adds x to c in memory, as a fold's call through a func value does.
//
//go:noinline
func (c *counter) add(x int64) { c.n += x }
