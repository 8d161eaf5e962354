package par_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// Take keeps the first items: over a channel it receives no value past
// them, and the rest stay for the next reader.
func ExampleIter_Take() {
	jobs := make(chan string, 8)
	for _, j := range []string{"a", "b", "c", "d", "e"} {
		jobs <- j
	}
	close(jobs)
	first := par.Map(par.FromChan(jobs).Take(3), strings.ToUpper).Collect()
	fmt.Println(first, len(jobs), "left")
	// Output: [A B C] 2 left
}

// Skip drops the first items: here a header line. Over a Range it is a
// shorter range, which keeps the block API.
func ExampleIter_Skip() {
	lines := []string{"name,qty", "pear,3", "plum,12"}
	rows := par.Slice(lines).Skip(1).Collect()
	fmt.Println(rows)
	fmt.Println(par.Range(0, 10).Skip(7).Sum())
	// Output:
	// [pear,3 plum,12]
	// 24
}

// Enumerate numbers the items as Collect places them, after a Filter too,
// and the pipeline goes on in parallel.
func ExampleEnumerate() {
	words := []string{"apple", "kiwi", "banana", "fig", "cherry"}
	long := par.Slice(words).Filter(func(w string) bool { return len(w) > 4 })
	lines := par.Map(par.Enumerate(long), func(p par.Pair[int, string]) string {
		return fmt.Sprintf("%d. %s", p.Key+1, p.Value)
	}).Collect()
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// 1. apple
	// 2. banana
	// 3. cherry
}

// Zip pairs the items at the same positions, as many pairs as the shorter
// side has items.
func ExampleZip() {
	names := []string{"ada", "alan", "grace"}
	years := []int{1815, 1912, 1906, 2000}
	for _, p := range par.Zip(par.Slice(names), par.Slice(years)).Collect() {
		fmt.Println(p.Key, p.Value)
	}
	// Output:
	// ada 1815
	// alan 1912
	// grace 1906
}

// ZipWith is Zip and Map in one step: here the distance between two
// vectors.
func ExampleZipWith() {
	xs := []float64{1, 2, 3}
	ys := []float64{4, 6, 3}
	sq := par.ZipWith(par.Slice(xs), par.Slice(ys), func(x, y float64) float64 { return (x - y) * (x - y) })
	fmt.Println(math.Sqrt(par.Sum(sq)))
	// Output: 5
}

// Chain runs two inputs as one: a's items, then b's, in that order.
func ExampleChain() {
	local := []string{"a.txt", "b.txt"}
	remote := []string{"c.txt"}
	all := par.Chain(par.Slice(local), par.Slice(remote)).Collect()
	fmt.Println(all)
	fmt.Println(par.Range(0, 3).Chain(par.Range(10, 12)).Sum())
	// Output:
	// [a.txt b.txt c.txt]
	// 24
}

// The method form of Chain.
func ExampleIter_Chain() {
	odd := func(x int) bool { return x%2 == 1 }
	fmt.Println(par.Range(0, 6).Filter(odd).Chain(par.Slice([]int{100})).Collect())
	// Output: [1 3 5 100]
}
