package fanouts

import "sync"

// 23: workers started first, then fed.
func workersAfter(jobs []string, out []int) {
	ch := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining a channel`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				out[len(j)%len(out)] = work(j)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// 24: the channel filled first.
func workersBefore(jobs []string, n int, counts *sync.Map) {
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var wg sync.WaitGroup
	for range n { // want `fan-out: a pool of n worker goroutines`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				counts.Store(j, work(j))
			}
		}()
	}
	wg.Wait()
}

// 24b: the count is named for the workers, and the report does not say it twice.
func workersCountNamed(jobs []string, workers int, counts *sync.Map) {
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var wg sync.WaitGroup
	for range workers { // want `fan-out: a pool of worker goroutines \(as many as workers\) draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(workers\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				counts.Store(j, work(j))
			}
		}()
	}
	wg.Wait()
}

// 25: workers started with wg.Go.
func workersGo(jobs []string, counts *sync.Map) {
	ch := make(chan string)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ { // want `fan-out: a pool of 8 worker goroutines`
		wg.Go(func() {
			for j := range ch {
				counts.Store(j, work(j))
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// 31: workers that send results, fed by a producer goroutine: par.FromChan
// over the channel, the producer left in place.
func workersResults(jobs []string) []int {
	ch, results := make(chan string), make(chan int, len(jobs))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(4\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				results <- work(j)
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			ch <- j
		}
		close(ch)
	}()
	wg.Wait()
	close(results)
	var out []int
	for r := range results {
		out = append(out, r)
	}
	return out
}

// 62: workers drain jobs, which a producer loop fills after they start;
// the caller then counts their results: a range over Map's Values.
func workersCounted(xs []string) int {
	jobs := make(chan string)
	results := make(chan int, len(xs))
	for w := 0; w < 4; w++ { // want `fan-out: a pool of 4 worker goroutines draining jobs, joined by counting receives from results; gopar replaces it with a range over par.Map\(par.Slice\(items\), f\).Values\(\) in the receiving loop`
		go func() {
			for j := range jobs {
				results <- work(j)
			}
		}()
	}
	for _, x := range xs {
		jobs <- x
	}
	close(jobs)
	total := 0
	for range xs {
		total += <-results
	}
	return total
}

// 62b: the same, the receives counted by len, the results kept.
func workersCountedLen(xs []string) []int {
	jobs := make(chan string, len(xs))
	out := make(chan int)
	for range 8 { // want `fan-out: a pool of 8 worker goroutines draining jobs, joined by counting receives from out`
		go func() {
			for j := range jobs {
				out <- len(j) + work(j)
			}
		}()
	}
	for _, x := range xs {
		jobs <- x
	}
	close(jobs)
	var got []int
	for range len(xs) {
		got = append(got, <-out)
	}
	return got
}

// 100: the worker skips an item with continue, which ends the callback's
// call for that item: the rewrite writes return.
func workersContinue(jobs []string, out *sync.Map) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel`
		wg.Go(func() {
			for j := range ch {
				if j == "" {
					continue
				}
				for _, r := range j {
					if r == ' ' {
						continue // the inner loop's: it stays
					}
				}
				switch len(j) {
				case 1:
					break // the switch's: it stays
				}
				out.Store(j, work(j))
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// 101: the producer skips the items already done with continue: a Filter
// before the workers' callback, over the producer's variable.
func workersSkipDone(jobs []string, done map[string]bool, out *sync.Map) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel`
		wg.Go(func() {
			for j := range ch {
				out.Store(j, work(j))
			}
		})
	}
	for _, x := range jobs {
		if done[x] {
			continue
		}
		if x == "" || len(x) > 80 {
			continue
		}
		ch <- x
	}
	close(ch)
	wg.Wait()
}

// 101b: the producer's condition calls a function that writes, whose
// result may depend on the order of the calls: no fix.
func workersSkipCall(jobs []string, out *sync.Map) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel.*no fix: the producer skips items by a condition that calls something`
		wg.Go(func() {
			for j := range ch {
				out.Store(j, work(j))
			}
		})
	}
	for _, x := range jobs {
		if tally(x) == 0 {
			continue
		}
		ch <- x
	}
	close(ch)
	wg.Wait()
}

// 101c: the workers write the map that the producer's condition reads:
// the condition's value depends on when it is read, so no fix (the
// producer works with what the goroutines use).
func workersSkipSeen(jobs []string, seen map[string]bool, mu *sync.Mutex) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel.*no fix: the caller works between the loop and the Wait with variables the goroutines use`
		wg.Go(func() {
			for j := range ch {
				mu.Lock()
				seen[j] = true
				mu.Unlock()
			}
		})
	}
	for _, x := range jobs {
		if seen[x] {
			continue
		}
		ch <- x
	}
	close(ch)
	wg.Wait()
}

// 122: workers drain a channel of tokens that the caller fills and closes
// first, with no variable (for range ch): a FromChan whose callback takes
// the token as _.
func workersTokens(runs int, run func() int, mu *sync.Mutex, total *int) {
	var wg sync.WaitGroup
	ch := make(chan struct{}, runs)
	for range runs {
		ch <- struct{}{}
	}
	close(ch)
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(4\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ch {
				n := run()
				mu.Lock()
				*total += n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
