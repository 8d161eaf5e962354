package fanouts

import (
	"context"
	"sync"
)

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
// result may depend on the order of the calls: no Filter, which would call
// it on other goroutines, but the producer stays on the caller, beside the
// par call, which runs in a goroutine of its own in the loop's place.
func workersSkipCall(jobs []string, out *sync.Map) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(4\).ForEach`
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
// the condition's value depends on when it is read, so no Filter; the
// producer stays beside the par call, as in 101b.
func workersSkipSeen(jobs []string, seen map[string]bool, mu *sync.Mutex) {
	ch := make(chan string, len(jobs))
	var wg sync.WaitGroup
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(4\).ForEach`
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

// 124: the producer on the caller counts what it sends, and the workers
// report to a channel named done: the par call runs in a goroutine of its
// own, and the channel that says it has returned takes another name.
func workersProducerDone(jobs []string, done chan<- int) int {
	ch := make(chan string)
	var wg sync.WaitGroup
	for range 2 { // want `fan-out: a pool of 2 worker goroutines draining a channel; gopar replaces it with par.FromChan\(ch\).Blocking\(2\).ForEach`
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				done <- work(j)
			}
		}()
	}
	sent := 0
	for _, x := range jobs {
		if tally(x) > 0 {
			ch <- x
			sent++
		}
	}
	close(ch)
	wg.Wait()
	return sent
}

// 124b: the producer adds to the WaitGroup for goroutines of its own: the
// Wait joins them too, and there is no fix.
func workersProducerAdds(jobs []string, out *sync.Map) {
	ch := make(chan string)
	var wg sync.WaitGroup
	for range 2 { // want "fan-out: a pool of 2 worker goroutines draining a channel; .*no fix: "
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				out.Store(j, work(j))
			}
		}()
	}
	for _, x := range jobs { // want "fan-out: a goroutine per item with a sync.WaitGroup; .*no fix: the loop does more than start the goroutines"
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Store(x, 0)
		}()
		ch <- x
	}
	close(ch)
	wg.Wait()
}

// 124c: the WaitGroup counts every worker with one Add before the loop,
// and the caller batches what it sends: a fix beside the caller's work.
func workersAddBefore(jobs []string, concurrency int, out *sync.Map) {
	workc := make(chan []string)
	var wg sync.WaitGroup
	wg.Add(concurrency)
	for i := 0; i < concurrency; i++ { // want `fan-out: a pool of concurrency worker goroutines draining a channel; gopar replaces it with par.FromChan\(workc\).Blocking\(concurrency\).ForEach`
		go func() {
			for batch := range workc {
				for _, j := range batch {
					out.Store(j, work(j))
				}
			}
			wg.Done()
		}()
	}
	var batch []string
	for _, j := range jobs {
		batch = append(batch, j)
		if len(batch) == 2 {
			workc <- batch
			batch = nil
		}
	}
	if len(batch) > 0 {
		workc <- batch
	}
	close(workc)
	wg.Wait()
}

// 124d: the same Add before the loop, and an Add(1) per worker in it: the
// Wait waits for twice as many Dones, and there is no fix.
func workersAddTwice(jobs []string, out *sync.Map) {
	workc := make(chan string)
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ { // want "fan-out: a pool of 2 worker goroutines draining a channel; .*no fix: the group is used before the workers other than to declare it"
		wg.Add(1)
		go func() {
			for j := range workc {
				out.Store(j, work(j))
			}
			wg.Done()
		}()
	}
	for _, j := range jobs {
		if tally(j) > 0 {
			workc <- j
		}
	}
	close(workc)
	wg.Wait()
}

// 126: workers started by a count from 1 (for w := 1; w <= n; w++) that
// does not reach the worker, joined by counted receives.
func workersFromOne(jobs []string, n int) error {
	ch := make(chan string, len(jobs))
	results := make(chan error, len(jobs))
	for w := 1; w <= n; w++ { // want `fan-out: a pool of n worker goroutines draining ch, joined by counting receives from results; gopar replaces it`
		go func() {
			for j := range ch {
				results <- check(context.Background(), j)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var failed error
	for i := 0; i < len(jobs); i++ {
		if err := <-results; err != nil {
			failed = err
		}
	}
	return failed
}

// 126b: the same workers report each item before they send its result:
// the report moves into Map's callback.
func workersFromOneReport(jobs []string, n int, log func(string)) error {
	ch := make(chan string, len(jobs))
	results := make(chan error, len(jobs))
	for w := 1; w <= n; w++ { // want `fan-out: a pool of n worker goroutines draining ch, joined by counting receives from results; gopar replaces it`
		go func() {
			for j := range ch {
				log("checking " + j)
				results <- check(context.Background(), j)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var failed error
	for range jobs {
		if err := <-results; err != nil {
			failed = err
		}
	}
	return failed
}
