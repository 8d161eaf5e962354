package steal_test

import (
	"fmt"
	"sync"

	"github.com/gopar-dev/gopar/steal"
)

type task struct{ name string }

// findTask returns the next task for the worker that owns local, or nil when
// every queue is empty.
func findTask[T any](local *steal.Deque[T], global *steal.Injector[T], victims []*steal.Deque[T]) *T {
	// Our own deque first: the most recently pushed task, LIFO.
	if t := local.Pop(); t != nil {
		return t
	}
	for {
		retry := false
		// Then work injected from outside the pool, FIFO.
		switch t, s := global.Steal(); s {
		case steal.Success:
			return t
		case steal.Retry:
			retry = true
		}
		// Then the oldest task of another worker. (A real pool starts at a
		// random victim, so that thieves do not all pile onto one.)
		for _, v := range victims {
			switch t, s := v.Steal(); s {
			case steal.Success:
				return t
			case steal.Retry:
				retry = true
			}
		}
		// Only when every queue said Empty is there nothing to do.
		if !retry {
			return nil
		}
	}
}

// A worker looks for a task in its own deque, then in the injector, then in
// another worker's deque.
func Example() {
	var mine, other steal.Deque[task]
	var global steal.Injector[task]

	mine.Push(&task{"mine 1"})
	mine.Push(&task{"mine 2"})
	global.Push(&task{"injected"})
	other.Push(&task{"other's oldest"})
	other.Push(&task{"other's newest"})

	for t := findTask(&mine, &global, []*steal.Deque[task]{&other}); t != nil; t = findTask(&mine, &global, []*steal.Deque[task]{&other}) {
		fmt.Println(t.name)
	}
	// Output:
	// mine 2
	// mine 1
	// injected
	// other's oldest
	// other's newest
}

func ExampleDeque() {
	var d steal.Deque[string] // the zero value is ready to use
	for _, s := range []string{"a", "b", "c"} {
		d.Push(&s)
	}
	// Thieves take the oldest item...
	x, status := d.Steal()
	fmt.Println(*x, status)
	// ...the owner the newest.
	fmt.Println(*d.Pop(), d.Len())
	// Output:
	// a Success
	// c 1
}

func ExampleDeque_Pop() {
	var d steal.Deque[int]
	for i := range 3 {
		d.Push(&i)
	}
	for x := d.Pop(); x != nil; x = d.Pop() {
		fmt.Print(*x, " ")
	}
	fmt.Println()
	// Output: 2 1 0
}

// Thieves on other goroutines share out the owner's items; each is taken once.
func ExampleDeque_Steal() {
	var d steal.Deque[int]
	const n = 1000
	for i := range n {
		d.Push(&i)
	}
	var wg sync.WaitGroup
	sums := make([]int, 4)
	for k := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				x, s := d.Steal()
				if s == steal.Empty {
					return // nothing left (the owner pushes no more)
				}
				if s == steal.Success {
					sums[k] += *x
				} // on Retry, just try again
			}
		}()
	}
	wg.Wait()
	fmt.Println(sums[0]+sums[1]+sums[2]+sums[3] == n*(n-1)/2)
	// Output: true
}

func ExampleInjector() {
	var q steal.Injector[string] // the zero value is ready to use
	var wg sync.WaitGroup
	for _, s := range []string{"job 1", "job 2", "job 3"} {
		wg.Add(1)
		go func() { // any goroutine may push
			defer wg.Done()
			q.Push(&s)
		}()
	}
	wg.Wait()
	fmt.Println(q.Len())
	for {
		x, s := q.Steal()
		if s == steal.Empty {
			break
		}
		if s == steal.Success {
			_ = *x // run the job
		}
	}
	fmt.Println(q.IsEmpty())
	// Output:
	// 3
	// true
}

func ExampleInjector_Steal() {
	var q steal.Injector[string]
	a, b := "first", "second"
	q.Push(&a)
	q.Push(&b)
	for {
		x, s := q.Steal()
		fmt.Println(s)
		if s == steal.Empty {
			break
		}
		fmt.Println(*x)
	}
	// Output:
	// Success
	// first
	// Success
	// second
	// Empty
}

func ExampleStatus() {
	var d steal.Deque[int]
	_, s := d.Steal()
	fmt.Println(s)
	// Output: Empty
}
