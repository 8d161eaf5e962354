package par_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

func ExampleIter_Any() {
	words := []string{"alpha", "beta", "gamma", "delta"}
	fmt.Println(par.Slice(words).Any(func(w string) bool { return strings.HasPrefix(w, "g") }))
	fmt.Println(par.Slice(words).Any(func(w string) bool { return strings.HasPrefix(w, "z") }))
	// Output:
	// true
	// false
}

func ExampleIter_Every() {
	isEven := func(i int) bool { return i%2 == 0 }
	fmt.Println(par.Range(0, 1000).Map(func(i int) int { return 2 * i }).Every(isEven))
	fmt.Println(par.Range(0, 1000).Every(isEven))
	fmt.Println(par.Range(0, 0).Every(isEven)) // true for no items
	// Output:
	// true
	// false
	// true
}

func ExampleIter_Find() {
	// Any multiple of 7 above 500 will do: which one is not specified.
	v, ok := par.Range(0, 1000).Find(func(i int) bool { return i > 500 && i%7 == 0 })
	fmt.Println(ok, v > 500 && v%7 == 0)
	_, ok = par.Range(0, 1000).Find(func(i int) bool { return i < 0 })
	fmt.Println(ok)
	// Output:
	// true true
	// false
}

func ExampleIter_FindFirst() {
	// The lowest index whose square exceeds 10,000, found in parallel.
	v, ok := par.Range(0, 1_000_000).FindFirst(func(i int) bool { return i*i > 10_000 })
	fmt.Println(v, ok)
	// Output: 101 true
}

func ExampleIter_TryForEach() {
	errOdd := errors.New("odd length")
	err := par.Slice([]string{"ab", "cd", "efg", "hi"}).TryForEach(func(s string) error {
		if len(s)%2 != 0 {
			return fmt.Errorf("%q: %w", s, errOdd)
		}
		return nil
	})
	fmt.Println(err, errors.Is(err, errOdd))
	// Output: "efg": odd length true
}
