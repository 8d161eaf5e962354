package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func collatz(n int) int {
	steps := 0
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

// stepsOf counts the Collatz steps of every number, at most four at once.
func stepsOf(ns []int) []int {
	out := make([]int, len(ns))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, n := range ns { // want `fan-out: a goroutine per item bounded by a semaphore; gopar replaces it with par.Slice\(ns\).Blocking\(4\).ForEach`
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = collatz(n)
		}()
	}
	wg.Wait()
	return out
}

// stepsBelow counts the steps of 1..n-1 by index, at most limit at once,
// releasing the semaphore as the last statement.
func stepsBelow(n, limit int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	sem := make(chan bool, limit)
	for i := range out { // want `a goroutine per item bounded by a semaphore; gopar replaces it with par.Slice\(out\).Blocking\(limit\).ForEach`
		sem <- true
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = collatz(i + 1)
			<-sem
		}(i)
	}
	wg.Wait()
	return out
}

// stepsRefill counts the steps of every number in an errgroup-free
// fan-out joined by refilling its semaphore, which it then closes.
func stepsRefill(ns []int) []int {
	out := make([]int, len(ns))
	sem := make(chan struct{}, 3)
	for i, n := range ns { // want `a goroutine per item bounded by a semaphore, joined by refilling it; gopar replaces it`
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			out[i] = collatz(n)
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
	close(sem)
	return out
}

// semLoads counts the steps of 1..n in errgroup-free tasks bounded by a
// semaphore channel and started with wg.Go.
func semLoads(n int) int {
	var total atomic.Int64
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ { // want `a goroutine per item with a sync.WaitGroup; gopar replaces it`
		if i%7 == 0 {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			total.Add(int64(collatz(i)))
		})
	}
	wg.Wait()
	return int(total.Load())
}

// runSemaphore fans out a goroutine per item bounded by a semaphore
// channel, with results written by index. What it prints does not
// depend on timing.
func runSemaphore() {
	ns := []int{27, 97, 871, 6171, 77031, 837799, 1, 2, 3}
	fmt.Println("steps:", stepsOf(ns))
	below := stepsBelow(300, 3)
	best, at := 0, 0
	for i, s := range below {
		if s > best {
			best, at = s, i+1
		}
	}
	fmt.Println("below 300:", len(below), below[:10], best, at)
	fmt.Println("refilled:", stepsRefill(ns))
	fmt.Println("steps of 1..200 but sevens:", semLoads(200))
}
