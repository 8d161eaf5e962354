package beam

import (
	"context"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkWordCount times the word count of TestWordCount over 100,000
// generated lines on gopar and as a Beam job on Prism in this process: an
// indication of what a distributed runner costs on one machine. The
// trust/ rows are the project's check that both cores were there: a static
// fan-out over GOMAXPROCS goroutines against a plain loop (trust the run if
// the ratio is 1.7x or more on two cores).
func BenchmarkWordCount(b *testing.B) {
	lines := text(100_000, 1)
	for _, r := range []Runner{Gopar, Beam} {
		b.Run(r.String(), func(b *testing.B) {
			for b.Loop() {
				p := NewPipeline()
				out := wordCount(p, lines)
				if err := p.Run(context.Background(), r); err != nil {
					b.Fatal(err)
				}
				if len(out.Values()) == 0 {
					b.Fatal("no words")
				}
			}
		})
	}
	const n = 1 << 26
	b.Run("trust/loop", func(b *testing.B) {
		for b.Loop() {
			sink = mix(0, n)
		}
	})
	b.Run("trust/static", func(b *testing.B) {
		for b.Loop() {
			p := runtime.GOMAXPROCS(0)
			parts := make([]uint64, p)
			var wg sync.WaitGroup
			for i := range p {
				wg.Add(1)
				go func() {
					defer wg.Done()
					parts[i] = mix(uint64(i)*n/uint64(p), uint64(i+1)*n/uint64(p))
				}()
			}
			wg.Wait()
			var s uint64
			for _, x := range parts {
				s += x
			}
			sink = s
		}
	})
}

var sink uint64

// mix sums a cheap hash of each integer in [lo, hi).
func mix(lo, hi uint64) uint64 {
	var s uint64
	for x := lo; x < hi; x++ {
		x := x * 0x9E3779B97F4A7C15
		s += x ^ x>>29
	}
	return s
}
