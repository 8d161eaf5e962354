package par_test

import (
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// spin is work of about cost/2.5 ns: a chain of dependent mixes.
func spin(x uint64, rounds int) uint64 {
	for range rounds {
		x = mix(x)
	}
	return x
}

func gen(n int) func(yield func(uint64) bool) {
	return func(yield func(uint64) bool) {
		for i := range n {
			if !yield(uint64(i)) {
				return
			}
		}
	}
}

// BenchmarkFromSeq: FromSeq against a plain range-over-func loop, over a
// generator of costly items (about 10 us each) and of cheap ones (about
// 50 ns). -short runs a small fraction of the items, for -benchtime 1x.
func BenchmarkFromSeq(b *testing.B) {
	for _, c := range []struct {
		name      string
		n, rounds int
	}{
		{"10us", 1 << 20, 4000},
		{"50ns", 1 << 22, 20},
	} {
		n := c.n
		if testing.Short() {
			n >>= 8
		}
		b.Run(c.name+"/loop", func(b *testing.B) {
			for range b.N {
				var s uint64
				for v := range gen(n) {
					s += spin(v, c.rounds)
				}
				sink = s
			}
		})
		b.Run(c.name+"/FromSeq", func(b *testing.B) {
			for range b.N {
				sink = par.Sum(par.Map(par.FromSeq(gen(n)), func(v uint64) uint64 { return spin(v, c.rounds) }))
			}
		})
	}
}

// BenchmarkFromSeqSmall: a short seq, whose operation costs about what
// starting it costs: FromSeq against the plain loop over 100 cheap items.
func BenchmarkFromSeqSmall(b *testing.B) {
	b.Run("loop", func(b *testing.B) {
		for range b.N {
			var s uint64
			for v := range gen(100) {
				s += spin(v, 20)
			}
			sink = s
		}
	})
	b.Run("FromSeq", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			sink = par.Sum(par.Map(par.FromSeq(gen(100)), func(v uint64) uint64 { return spin(v, 20) }))
		}
	})
}
