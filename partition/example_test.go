package partition_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gopar-dev/gopar/partition"
)

// A Loop run by four goroutines: each enters, runs blocks of at most 16
// items until Next says nothing is left for it, and leaves. The one whose
// Leave returns true knows that every item has run.
func ExampleLoop() {
	xs := make([]int, 1000)
	l := partition.NewLoop(0, len(xs), 4)
	var sum atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p partition.Participant
			if !l.Enter(&p) {
				return // every partition already claimed
			}
			for {
				lo, hi, ok := p.Next(16)
				if !ok {
					break
				}
				for i := lo; i < hi; i++ {
					xs[i] = i
					sum.Add(int64(i))
				}
			}
			if p.Leave() {
				fmt.Println("last participant out; done:", l.Done())
			}
		}()
	}
	wg.Wait()
	fmt.Println(sum.Load())
	// Output:
	// last participant out; done: true
	// 499500
}

// A thief steals the top quarter of a range while its owner takes from the
// bottom.
func ExampleRange() {
	r := partition.NewRange(0, 100)
	lo, hi, ok := r.Take(10)
	fmt.Println(lo, hi, ok)
	slo, shi, s := r.Steal()
	fmt.Println(slo, shi, s)
	stolen := partition.NewRange(slo, shi) // the thief owns the loot
	fmt.Println(stolen.Len())
	// Output:
	// 0 10 true
	// 75 100 Success
	// 25
}
