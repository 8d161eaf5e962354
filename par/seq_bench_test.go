package par_test

import (
	"errors"
	goruntime "runtime"
	"sync"
	"sync/atomic"
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

// walkGen is gen as a walk: a producer that calls back and can fail.
func walkGen(n int) func(yield func(uint64) error) error {
	return func(yield func(uint64) error) error {
		for i := range n {
			if err := yield(uint64(i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// handWalk is the hand-written fan-out over a walk: a producer goroutine
// that sends the walk's items into a channel, GOMAXPROCS workers that
// range over it, each with a sum of its own, and the walk's error.
func handWalk(walk func(yield func(uint64) error) error, f func(uint64) uint64) (uint64, error) {
	ch := make(chan uint64, 256)
	done := make(chan struct{})
	var walkErr error
	go func() {
		defer close(ch)
		walkErr = walk(func(v uint64) error {
			select {
			case ch <- v:
				return nil
			case <-done:
				return errors.New("stopped")
			}
		})
	}()
	var total atomic.Uint64
	var wg sync.WaitGroup
	for range goruntime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			for v := range ch {
				s += f(v)
			}
			total.Add(s)
		}()
	}
	wg.Wait()
	close(done)
	return total.Load(), walkErr
}

// BenchmarkFromWalk: FromWalk against the hand-written producer goroutine,
// channel and workers over the same walk, and against FromSeq over the
// same items, with items of about 10 us and of about 50 ns. -short runs a
// small fraction of the items, for -benchtime 1x.
func BenchmarkFromWalk(b *testing.B) {
	for _, c := range []struct {
		name      string
		n, rounds int
	}{
		{"10us", 1 << 16, 4000},
		{"50ns", 1 << 20, 20},
	} {
		n := c.n
		if testing.Short() {
			n >>= 6
		}
		f := func(v uint64) uint64 { return spin(v, c.rounds) }
		b.Run(c.name+"/handwritten", func(b *testing.B) {
			for range b.N {
				s, err := handWalk(walkGen(n), f)
				if err != nil {
					b.Fatal(err)
				}
				sink = s
			}
		})
		b.Run(c.name+"/FromSeq", func(b *testing.B) {
			for range b.N {
				sink = par.Sum(par.Map(par.FromSeq(gen(n)), f))
			}
		})
		b.Run(c.name+"/FromWalk", func(b *testing.B) {
			for range b.N {
				sink = par.Sum(par.Map(par.FromWalk(walkGen(n)), f))
			}
		})
		b.Run(c.name+"/FromWalk.TryFold", func(b *testing.B) {
			for range b.N {
				s, err := par.TryFold(par.FromWalk(walkGen(n)), func() uint64 { return 0 },
					func(a, v uint64) (uint64, error) { return a + f(v), nil },
					func(a, b uint64) uint64 { return a + b })
				if err != nil {
					b.Fatal(err)
				}
				sink = s
			}
		})
	}
}
