// Command quicksort sorts ten million integers with a parallel quicksort
// built on fork-join, and compares it with slices.Sort.
//
//	go run ./examples/quicksort
//
// It shows the recursive side of gopar: runtime.Pool.Do enters the pool
// once, and the recursion passes its *runtime.Worker down so that every
// Join pushes to and pops from that worker's own deque, with no lock. Below
// a cutoff the recursion sorts sequentially: a fork costs tens of
// nanoseconds, which a few thousand elements of work repay many times over.
package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gopar-dev/gopar/runtime"
)

// cutoff is the size below which a part is sorted sequentially.
const cutoff = 1 << 12

// quicksort sorts xs, forking the two sides of each partition.
func quicksort(w *runtime.Worker, xs []int) {
	if len(xs) <= cutoff {
		slices.Sort(xs)
		return
	}
	p := partition(xs)
	w.Join(
		func(w *runtime.Worker) { quicksort(w, xs[:p]) },
		func(w *runtime.Worker) { quicksort(w, xs[p+1:]) },
	)
}

// partition puts a median-of-three pivot in its final place and returns
// that place: smaller elements before it, the others after.
func partition(xs []int) int {
	last := len(xs) - 1
	mid := last / 2
	// Median of three, moved to the end.
	if xs[mid] < xs[0] {
		xs[mid], xs[0] = xs[0], xs[mid]
	}
	if xs[last] < xs[0] {
		xs[last], xs[0] = xs[0], xs[last]
	}
	if xs[mid] < xs[last] {
		xs[mid], xs[last] = xs[last], xs[mid]
	}
	pivot, store := xs[last], 0
	for i := range last {
		if xs[i] < pivot {
			xs[i], xs[store] = xs[store], xs[i]
			store++
		}
	}
	xs[store], xs[last] = xs[last], xs[store]
	return store
}

func main() {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	input := make([]int, n)
	for i := range input {
		input[i] = rng.IntN(n)
	}

	seq := slices.Clone(input)
	start := time.Now()
	slices.Sort(seq)
	tSeq := time.Since(start)

	par := slices.Clone(input)
	pool := runtime.Default()
	start = time.Now()
	pool.Do(func(w *runtime.Worker) { quicksort(w, par) })
	tPar := time.Since(start)

	fmt.Printf("sorting %d integers on %d workers\n", n, pool.Workers())
	fmt.Printf("slices.Sort:        %v\n", tSeq.Round(time.Millisecond))
	fmt.Printf("parallel quicksort: %v (%.2fx)\n", tPar.Round(time.Millisecond), float64(tSeq)/float64(tPar))
	fmt.Printf("same result: %v\n", slices.Equal(seq, par))
	s := pool.Stats()
	fmt.Printf("pool: %d jobs stolen and run, %d parks\n", s.Steals, s.Parks)
}
