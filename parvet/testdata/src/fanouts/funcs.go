package fanouts

import "sync"

func drain(jobs <-chan string, out *sync.Map, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		out.Store(j, work(j))
	}
}

// 52: the worker is a function of the package, given the channel and the
// group: the callback takes its body, and the function stays.
func workersFunc(jobs chan string, n int, out *sync.Map) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `fan-out: a pool of n worker goroutines draining a channel; gopar replaces it with par.FromChan\(jobs\)`
		wg.Add(1)
		go drain(jobs, out, &wg)
	}
	wg.Wait()
}

func drainDone(jobs <-chan string, out *sync.Map, wg *sync.WaitGroup) {
	for j := range jobs {
		out.Store(j, work(j))
	}
	wg.Done()
}

// 52b: the same, the Done last, and the channel filled by a producer loop
// over a slice.
func workersFuncProducer(words []string, out *sync.Map) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ { // want `fan-out: a pool of 3 worker goroutines draining a channel; gopar replaces it with par.FromChan\(jobs\)`
		wg.Add(1)
		go drainDone(jobs, out, &wg)
	}
	for _, w := range words {
		jobs <- w
	}
	close(jobs)
	wg.Wait()
}
