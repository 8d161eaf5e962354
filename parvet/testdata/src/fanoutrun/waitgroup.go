package main

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

func square(x int) int { return x * x }

// squares writes each result at its item's index.
func squares(xs []int) []int {
	out := make([]int, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(xs\).ForEach on the pool`
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = square(x)
		}()
	}
	wg.Wait()
	return out
}

// total adds every square into an atomic.
func total(xs []int) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup`
		wg.Go(func() {
			sum.Add(int64(square(x)))
		})
	}
	wg.Wait()
	return sum.Load()
}

// upper passes the item as the goroutine's argument and keeps a count under a
// mutex.
func upper(words []string) (map[string]string, int) {
	out := make(map[string]string, len(words))
	letters := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range words { // want `par.Slice\(words\).ForEach on the pool`
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			u := strings.ToUpper(s)
			mu.Lock()
			out[s] = u
			letters += len(u)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	return out, letters
}

// cubes is a counted loop with one Add for every item.
func cubes(n int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ { // want `par.Range\(0, n\).ForEach on the pool`
		go func() {
			defer wg.Done()
			out[i] = i * i * i
		}()
	}
	wg.Wait()
	return out
}

// runWaitGroup fans out over a slice and over a count with a
// sync.WaitGroup: results written by index, summed after the wait, and a
// total kept in an atomic. Its output does not depend on timing.
// sumCounted sums the squares of xs, a goroutine per item sending its
// square, joined by one receive per item.
func sumCounted(xs []int) int {
	squares := make(chan int)
	for _, x := range xs { // want `a goroutine per item joined by counting receives from squares; gopar replaces it`
		go func() {
			sq := x * x
			squares <- sq
		}()
	}
	sum := 0
	for range xs {
		sum += <-squares
	}
	return sum
}

func runWaitGroup() {
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i - 300
	}
	sq := squares(xs)
	sum := 0
	for _, v := range sq {
		sum += v
	}
	fmt.Println("squares:", len(sq), sq[:4], sq[len(sq)-1], sum)
	fmt.Println("total:", total(xs))
	fmt.Println("sum of squares, counted:", sumCounted(xs))
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	up, letters := upper(words)
	fmt.Println("upper:", len(up), up["quick"], up["dog"], letters)
	c := cubes(50)
	fmt.Println("cubes:", len(c), c[0], c[1], c[49])
	fmt.Println("sum of squares, by a closer:", sumByCloser(xs))
}

// sumByCloser sends each square on a channel that a goroutine of its own
// closes once the senders are done, while the caller sums what comes.
func sumByCloser(xs []int) int {
	results := make(chan int)
	var wg sync.WaitGroup
	for _, x := range xs { // want `fan-out: a goroutine per item with a sync.WaitGroup`
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- square(x)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	sum := 0
	for r := range results {
		sum += r
	}
	return sum
}
