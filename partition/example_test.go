package partition_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// A Timeline draws itself: here one of two lanes, where the worker stole
// the top of the caller's range. Package par records one for an operation
// with Iter.WithTimeline.
func ExampleTimeline_WriteSVG() {
	tl := partition.Timeline{
		Elapsed: 100 * time.Microsecond,
		Lanes: []partition.Lane{
			{Name: "caller", Blocks: []partition.Block{{Lo: 0, Hi: 60, Start: 0, End: 90 * time.Microsecond}}},
			{Name: "worker 1", Blocks: []partition.Block{{Lo: 60, Hi: 100, Start: 5 * time.Microsecond, End: 95 * time.Microsecond}}},
		},
		Steals: []partition.Steal{{Thief: 1, Victim: 0, Lo: 60, Hi: 100, At: 5 * time.Microsecond}},
	}
	var svg strings.Builder
	if err := tl.WriteSVG(&svg); err != nil {
		fmt.Println(err)
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<svg"), strings.Contains(svg.String(), "worker 1 stole [60, 100) from caller"))
	// Output: true true
}
