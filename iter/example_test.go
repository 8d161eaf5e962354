package iter_test

import (
	"fmt"
	"strings"

	"github.com/gopar-dev/gopar/iter"
)

// count returns the number of items of s for which pred is true: a
// terminal operation of one's own, run as par's are.
func count[T any](s iter.Spec[T], pred func(T) bool) int {
	return iter.Run(s.Config, s.Lo, s.Hi, iter.Reducer[int]{
		Fold: func(n, lo, hi int) int {
			s.Each(lo, hi, func(v T) {
				if pred(v) {
					n++
				}
			})
			return n
		},
		Combine: func(a, b int) int { return a + b },
	})
}

func Example() {
	words := iter.FlatMapSpec(iter.Slice([]string{"a bb ccc", "dddd ee"}), strings.Fields)
	long := func(w string) bool { return len(w) > 2 }
	fmt.Println(count(words, long))
	squares := iter.MapSpec(iter.Ints(0, 1000), func(i int) int { return i * i })
	fmt.Println(count(squares.Filter(func(v int) bool { return v%2 == 0 }), func(int) bool { return true }))
	fmt.Println(iter.Sum(iter.TakeSpec(squares, 4)))
	// Output:
	// 2
	// 500
	// 14
}
