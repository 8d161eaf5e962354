package par_test

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// A word count: each worker counts into a map of its own, and the maps are
// merged at the end.
func ExampleFold() {
	words := strings.Fields("the cat and the dog and the bird")
	counts := par.Fold(par.Slice(words),
		func() map[string]int { return map[string]int{} },
		func(m map[string]int, w string) map[string]int { m[w]++; return m },
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	fmt.Println(counts["the"], counts["and"], counts["cat"])
	// Output: 3 2 1
}

func ExampleMin() {
	lo, ok := par.Min(par.Slice([]float64{2.5, -1, 7}))
	fmt.Println(lo, ok)
	_, ok = par.Min(par.Slice([]float64{}))
	fmt.Println(ok)
	// Output:
	// -1 true
	// false
}

func ExampleMax() {
	hi, ok := par.Max(par.Map(par.Range(0, 10), func(i int) int { return (i * 7) % 10 }))
	fmt.Println(hi, ok)
	// Output: 9 true
}

// Ties go to the first item in index order, as in slices.MinFunc.
func ExampleMinFunc() {
	type city struct {
		name string
		pop  int
	}
	cities := []city{{"Lyon", 500}, {"Nice", 340}, {"Metz", 340}}
	c, _ := par.MinFunc(par.Slice(cities), func(a, b city) int { return cmp.Compare(a.pop, b.pop) })
	fmt.Println(c.name)
	// Output: Nice
}

func ExampleMaxFunc() {
	longest, _ := par.MaxFunc(par.Slice(strings.Fields("a bb ccc dd eee")), func(a, b string) int {
		return cmp.Compare(len(a), len(b))
	})
	fmt.Println(longest)
	// Output: ccc
}

// Results in source order, or the first error.
func ExampleTryMap() {
	nums, err := par.TryMap(par.Slice([]string{"1", "22", "333"}), strconv.Atoi)
	fmt.Println(nums, err)
	_, err = par.TryMap(par.Slice([]string{"1", "x", "3"}), strconv.Atoi)
	var numErr *strconv.NumError
	fmt.Println(errors.As(err, &numErr), numErr.Num)
	// Output:
	// [1 22 333] <nil>
	// true x
}

// Keep what parses, in order.
func ExampleFilterMap() {
	nums := par.FilterMap(par.Slice([]string{"4", "four", "2", "", "7"}), func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	}).Collect()
	fmt.Println(nums)
	// Output: [4 2 7]
}

// Calls that wait (here a fake fetch) run at most 4 at once, on goroutines
// of their own; results come back in source order.
func ExampleIter_Blocking() {
	fetch := func(id int) (string, error) { return "page " + strconv.Itoa(id), nil }
	pages, err := par.TryMap(par.Slice([]int{3, 1, 2}).Blocking(4), fetch)
	fmt.Println(pages, err)
	// Output: [page 3 page 1 page 2] <nil>
}
