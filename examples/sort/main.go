// Command sort sorts sixteen million random integers with par.Sort and with
// slices.Sort, and records by a key with par.SortStableFunc and
// slices.SortStableFunc, prints the times side by side and checks that
// both give the same result.
//
//	go run ./examples/sort
//	go run ./examples/sort -n 1000000
//
// par.Sort and par.SortStableFunc are a sample sort: the elements are moved
// to buckets between splitters drawn from a sample, in one parallel pass,
// and the buckets are sorted by slices.Sort (or slices.SortStableFunc) in
// parallel. It needs one extra buffer as large as the input.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gopar-dev/gopar/par"
)

// record is an item sorted by key; id tells whether equal keys kept their
// order.
type record struct {
	key int32
	id  int32
}

func byKey(a, b record) int { return cmp.Compare(a.key, b.key) }

// timing is one comparison: the plain sort's time, gopar's, and whether
// they gave the same result.
type timing struct {
	name        string
	plain, par  time.Duration
	sameResults bool
}

// compareSort sorts two copies of input, with slices.Sort and par.Sort.
func compareSort(input []int) timing {
	plain, parallel := slices.Clone(input), slices.Clone(input)
	t := timing{name: "Sort"}
	t.plain = timed(func() { slices.Sort(plain) })
	t.par = timed(func() { par.Sort(parallel) })
	t.sameResults = slices.Equal(plain, parallel)
	return t
}

// compareStable sorts two copies of input by key, with
// slices.SortStableFunc and par.SortStableFunc. A stable sort has one
// right answer, so the two must agree on the ids too.
func compareStable(input []record) timing {
	plain, parallel := slices.Clone(input), slices.Clone(input)
	t := timing{name: "SortStableFunc"}
	t.plain = timed(func() { slices.SortStableFunc(plain, byKey) })
	t.par = timed(func() { par.SortStableFunc(parallel, byKey) })
	t.sameResults = slices.Equal(plain, parallel)
	return t
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// inputs returns n random ints, and n records with about n/16 distinct
// keys, so that many keys repeat.
func inputs(n int, seed uint64) ([]int, []record) {
	rng := rand.New(rand.NewPCG(seed, 1))
	ints := make([]int, n)
	for i := range ints {
		ints[i] = rng.Int()
	}
	recs := make([]record, n)
	for i := range recs {
		recs[i] = record{key: int32(rng.IntN(n/16 + 1)), id: int32(i)}
	}
	return ints, recs
}

func main() {
	n := flag.Int("n", 1<<24, "number of elements to sort")
	flag.Parse()

	ints, recs := inputs(*n, 1)
	fmt.Printf("sorting %d elements on %d workers\n", *n, par.DefaultPool().Workers())
	fmt.Printf("%-15s %12s %12s %8s  %s\n", "", "slices", "par", "speedup", "same result")
	for _, t := range []timing{compareSort(ints), compareStable(recs)} {
		fmt.Printf("%-15s %12v %12v %7.2fx  %v\n", t.name,
			t.plain.Round(time.Millisecond), t.par.Round(time.Millisecond),
			float64(t.plain)/float64(t.par), t.sameResults)
	}
}
