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
