package par_test

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gopar-dev/gopar/par"
)

// BenchmarkScratch is issue 24's per-worker state task: every item needs a
// 64 KiB scratch buffer, of which it fills and reads back 8 KiB (an item of
// a few microseconds). MapInit against what a user writes without it: a
// buffer allocated per item, a sync.Pool per item, ReduceBlocks or Fold
// with a buffer per block or per fold, and the hand-rolled static fan-out
// with a buffer per goroutine (also the run's trust check against seq).
// Each form that makes buffers reports how many it made per run
// (buffers/op): MapInit's init calls, Fold's inits, ReduceBlocks' blocks.
func BenchmarkScratch(b *testing.B) {
	const (
		items = 1 << 12
		words = 8 << 10 // 64 KiB
		used  = 1 << 10 // 8 KiB of it per item
	)
	item := func(buf []uint64, i int) uint64 {
		buf = buf[:used]
		for k := range buf {
			buf[k] = mix(uint64(i*used + k))
		}
		var s uint64
		for k := len(buf) - 1; k >= 0; k-- {
			s = s*31 + buf[k]
		}
		return s
	}
	var made atomic.Int64
	newBuf := func() []uint64 { made.Add(1); return make([]uint64, words) }
	report := func(b *testing.B) { b.ReportMetric(float64(made.Load())/float64(b.N), "buffers/op") }
	var want uint64
	b.Run("seq", func(b *testing.B) {
		made.Store(0)
		for range b.N {
			buf := newBuf()
			var s uint64
			for i := range items {
				s += item(buf, i)
			}
			want = s
		}
		report(b)
	})
	check := func(b *testing.B, got uint64) {
		if got != want {
			b.Fatalf("checksum %d, want %d", got, want)
		}
	}
	b.Run("static", func(b *testing.B) {
		made.Store(0)
		p := goruntime.GOMAXPROCS(0)
		for range b.N {
			sums := make([]uint64, p)
			var wg sync.WaitGroup
			for w := range p {
				wg.Add(1)
				go func() {
					defer wg.Done()
					buf := newBuf()
					for i := w * items / p; i < (w+1)*items/p; i++ {
						sums[w] += item(buf, i)
					}
				}()
			}
			wg.Wait()
			var s uint64
			for _, x := range sums {
				s += x
			}
			check(b, s)
		}
		report(b)
	})
	b.Run("alloc-per-item", func(b *testing.B) {
		made.Store(0)
		for range b.N {
			check(b, par.Sum(par.Map(par.Range(0, items), func(i int) uint64 { return item(newBuf(), i) })))
		}
		report(b)
	})
	b.Run("syncpool-per-item", func(b *testing.B) {
		made.Store(0)
		pool := sync.Pool{New: func() any { buf := newBuf(); return &buf }}
		for range b.N {
			check(b, par.Sum(par.Map(par.Range(0, items), func(i int) uint64 {
				buf := pool.Get().(*[]uint64)
				defer pool.Put(buf)
				return item(*buf, i)
			})))
		}
		report(b)
	})
	b.Run("reduceblocks", func(b *testing.B) {
		made.Store(0)
		for range b.N {
			check(b, par.ReduceBlocks(par.Range(0, items), func(lo, hi int) uint64 {
				buf := newBuf()
				var s uint64
				for i := lo; i < hi; i++ {
					s += item(buf, i)
				}
				return s
			}, func(a, b uint64) uint64 { return a + b }))
		}
		report(b)
	})
	type acc struct {
		buf []uint64
		sum uint64
	}
	b.Run("fold", func(b *testing.B) {
		made.Store(0)
		for range b.N {
			check(b, par.Fold(par.Range(0, items),
				func() acc { return acc{buf: newBuf()} },
				func(a acc, i int) acc { a.sum += item(a.buf, i); return a },
				func(a, b acc) acc { a.sum += b.sum; return a }).sum)
		}
		report(b)
	})
	b.Run("mapinit", func(b *testing.B) {
		made.Store(0)
		for range b.N {
			check(b, par.Sum(par.MapInit(par.Range(0, items), newBuf, item)))
		}
		report(b)
	})
}
