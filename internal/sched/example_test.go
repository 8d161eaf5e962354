package sched_test

import (
	"fmt"

	"github.com/gopar-dev/gopar/internal/latch"
	"github.com/gopar-dev/gopar/internal/sched"
)

func ExampleLatch() {
	var ready latch.Latch
	var got string
	sched.Default().Do(func(w *sched.Worker) {
		sched.Offer(w, func(*sched.Worker) { got = "set"; ready.Set() })
		sched.Wait(w, &ready) // runs the offered job itself if no worker took it
	})
	fmt.Println(got, ready.IsSet())
	// Output: set true
}

// sumTree adds up xs, forking with JoinLazy: code that holds no *Worker.
func sumTree(p *sched.Pool, xs []int) int {
	if len(xs) <= 1024 {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	}
	var l, r int
	m := len(xs) / 2
	sched.JoinLazy(p, func() { l = sumTree(p, xs[:m]) }, func() { r = sumTree(p, xs[m:]) })
	return l + r
}

func ExampleJoinLazy() {
	xs := make([]int, 1<<20)
	for i := range xs {
		xs[i] = i
	}
	fmt.Println(sumTree(sched.Default(), xs))
	// Output: 549755289600
}

func ExampleHungry() {
	pool, err := sched.New(1)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	// Inside a task on the pool's only worker, nobody is idle: work offered
	// for stealing would only be taken back.
	done := make(chan bool)
	pool.Go(func(*sched.Worker) { done <- sched.Hungry(pool) })
	fmt.Println(<-done)
	// Output: false
}
