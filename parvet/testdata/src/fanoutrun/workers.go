package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

func vowels(s string) int {
	n := 0
	for _, r := range s {
		if strings.ContainsRune("aeiou", r) {
			n++
		}
	}
	return n
}

// count runs four workers over the jobs and keeps each job's count.
func count(jobs []string) map[string]int {
	counts := make(map[string]int)
	var mu sync.Mutex
	ch := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining a channel`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				v := vowels(j)
				mu.Lock()
				counts[j] = v
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	return counts
}

// lengthsByWorkers fills the channel first and runs n workers started with wg.Go.
func lengthsByWorkers(jobs []string, n int) *sync.Map {
	var out sync.Map
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var wg sync.WaitGroup
	for range n { // want `fan-out: a pool of n worker goroutines draining a channel`
		wg.Go(func() {
			for j := range ch {
				out.Store(j, len(j))
			}
		})
	}
	wg.Wait()
	return &out
}

// sumByWorkers runs three workers fed by a producer goroutine, which send
// their results on a channel that the caller reads once they are done.
func sumByWorkers(jobs []string) int {
	ch, results := make(chan string), make(chan int, len(jobs))
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ { // want `fan-out: a pool of 3 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(3\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				results <- vowels(j) * len(j)
			}
		}()
	}
	go func() {
		defer close(ch)
		for _, j := range jobs {
			ch <- j
		}
	}()
	wg.Wait()
	close(results)
	total := 0
	for r := range results {
		total += r
	}
	return total
}

// longestByCounted runs four workers over the jobs, fed by a producer loop
// after they start, and receives one result per job: the most vowels.
func longestByCounted(jobs []string) int {
	in := make(chan string)
	out := make(chan int, len(jobs))
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining in, joined by counting receives from out`
		go func() {
			for j := range in {
				out <- vowels(j)
			}
		}()
	}
	for _, j := range jobs {
		in <- j
	}
	close(in)
	most := 0
	for range jobs {
		most = max(most, <-out)
	}
	return most
}

// lettersByNamed starts a named closure per job, which adds the job's
// letters to a total under a lock.
func lettersByNamed(jobs []string) int {
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	add := func(j string) {
		defer wg.Done()
		n := len(j)
		mu.Lock()
		total += n
		mu.Unlock()
	}
	for _, j := range jobs { // want `fan-out: a goroutine per item with a sync.WaitGroup`
		wg.Add(1)
		go add(j)
	}
	wg.Wait()
	return total
}

// addLetters is a worker of lettersByFunc: it drains jobs, adding each
// job's letters to *total under mu.
func addLetters(jobs <-chan string, mu *sync.Mutex, total *int, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		mu.Lock()
		*total += len(j)
		mu.Unlock()
	}
}

// lettersByFunc drains a channel that a producer loop fills with a pool of
// workers that run a function of the package.
func lettersByFunc(words []string) int {
	jobs := make(chan string)
	mu, total := new(sync.Mutex), new(int)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ { // want `fan-out: a pool of 3 worker goroutines draining a channel`
		wg.Add(1)
		go addLetters(jobs, mu, total, &wg)
	}
	for _, w := range words {
		jobs <- w
	}
	close(jobs)
	wg.Wait()
	return *total
}

// lettersByCounter has a pool of workers take the words' indexes from an
// atomic counter, each keeping its word's length at the word's index.
func lettersByCounter(words []string) int {
	lens := make([]int, len(words))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ { // want `fan-out: a pool of 3 worker goroutines taking indexes from the counter next`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(words) {
					return
				}
				lens[i] = len(words[i])
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range lens {
		total += n
	}
	return total
}

// lettersOfNew counts the letters of the jobs not already done, in workers
// fed by a producer that skips the done ones.
func lettersOfNew(jobs []string, done map[string]bool) int {
	var total atomic.Int64
	ch := make(chan string)
	var wg sync.WaitGroup
	for range 3 { // want `fan-out: a pool of 3 worker goroutines draining a channel`
		wg.Go(func() {
			for j := range ch {
				total.Add(int64(len(j)))
			}
		})
	}
	for _, j := range jobs {
		if done[j] {
			continue
		}
		ch <- j
	}
	close(ch)
	wg.Wait()
	return int(total.Load())
}

// runWorkers drains a channel with a fixed pool of worker goroutines fed
// by a producer, keeping each result under its job's key. Its output does
// not depend on timing.
func runWorkers() {
	jobs := strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen")
	counts := count(jobs)
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s=%d ", k, counts[k])
	}
	fmt.Println()
	ls := lengthsByWorkers(jobs, 3)
	total := 0
	ls.Range(func(k, v any) bool {
		total += v.(int)
		return true
	})
	fmt.Println("letters:", total)
	fmt.Println("vowels times letters:", sumByWorkers(jobs))
	fmt.Println("most vowels:", longestByCounted(jobs))
	fmt.Println("letters by a named closure:", lettersByNamed(jobs))
	fmt.Println("letters by a function:", lettersByFunc(jobs))
	fmt.Println("letters by a counter:", lettersByCounter(jobs))
	fmt.Println("letters of the new jobs:", lettersOfNew(jobs, map[string]bool{"one": true, "six": true}))
	sent, letters := lettersBesideProducer(jobs)
	fmt.Println("sent beside the workers:", sent, "letters:", letters)
}

// lettersBesideProducer feeds the workers from the caller, which numbers
// and counts what it sends as it goes: the caller's work between the
// workers and the Wait stays beside them.
func lettersBesideProducer(jobs []string) (int, int64) {
	var letters atomic.Int64
	ch := make(chan string)
	var wg sync.WaitGroup
	for range 3 { // want `fan-out: a pool of 3 worker goroutines draining a channel`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				letters.Add(int64(len(j)))
			}
		}()
	}
	sent := 0
	for i, j := range jobs {
		if i%2 == 0 {
			sent++
			ch <- fmt.Sprint(sent, j)
		}
	}
	close(ch)
	wg.Wait()
	return sent, letters.Load()
}
