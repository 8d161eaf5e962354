package par

import (
	"fmt"
	"testing"

	"github.com/gopar-dev/gopar/internal/pipe"
)

// specOfPlain is specOf without noescape: its last case calls the method
// on the interface, which lets every Iterator argument escape, on every
// path.
func specOfPlain[T any](it Iterator[T]) pipe.Spec[T] {
	switch v := any(it).(type) {
	case Iter[T]:
		return v.s
	case Ints:
		return *any(&v.s).(*pipe.Spec[T])
	}
	return it.spec()
}

// mapPlain and sumPlain are Map and Sum over specOfPlain.
func mapPlain[T, U any](it Iterator[T], f func(T) U) Iter[U] {
	return Iter[U]{pipe.MapSpec(specOfPlain(it), f)}
}

func sumPlain[T Number](it Iterator[T]) T { return pipe.Sum(specOfPlain(it)) }

var specSink int

// BenchmarkSpecOf measures what specOf's noescape saves (iter.go): the
// per-item sum of W0's shape over 100 and 1,000 cheap items, as
// par.Sum(par.Map(par.Range(0, n), f)) and as the same two calls over
// specOfPlain, which allocate a box for each Iterator argument.
func BenchmarkSpecOf(b *testing.B) {
	f := func(i int) int { return i*i + 1 }
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("noescape/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				specSink = Sum(Map(Range(0, n), f))
			}
		})
		b.Run(fmt.Sprintf("plain/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				specSink = sumPlain(mapPlain(Range(0, n), f))
			}
		})
	}
}
