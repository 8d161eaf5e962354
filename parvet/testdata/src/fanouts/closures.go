package fanouts

import (
	"strings"
	"sync"
)

// 50: the worker is a closure with a name: the callback takes its body,
// and the declaration goes.
func workersNamed(jobs chan string, out *sync.Map) {
	var wg sync.WaitGroup
	worker := func() {
		defer wg.Done()
		for j := range jobs {
			out.Store(j, work(j))
		}
	}
	for i := 0; i < 4; i++ { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(jobs\)`
		wg.Add(1)
		go worker()
	}
	wg.Wait()
}

// 51: the same, started with wg.Go.
func workersNamedGo(jobs chan string, out *sync.Map) {
	var wg sync.WaitGroup
	worker := func() {
		for j := range jobs {
			out.Store(j, work(j))
		}
	}
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(4\).ForEach`
		wg.Go(worker)
	}
	wg.Wait()
}

// 76: the worker is a closure with a parameter, started per item: the
// callback's parameter is the item.
func wgNamedParam(words []string, out *sync.Map) {
	var wg sync.WaitGroup
	store := func(w string) {
		defer wg.Done()
		out.Store(w, work(w))
	}
	for _, w := range words { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(words\)`
		wg.Add(1)
		go store(w)
	}
	wg.Wait()
}

// 50b: the named closure calls a function of another package: the name
// after the dot resolves through the package, not through the scope.
func workersNamedQualified(jobs chan string, out *sync.Map) {
	var wg sync.WaitGroup
	worker := func() {
		for j := range jobs {
			out.Store(j, strings.TrimSpace(j))
		}
	}
	for range 4 { // want `fan-out: a pool of 4 worker goroutines draining a channel; gopar replaces it with par.FromChan\(jobs\).Blocking\(4\).ForEach`
		wg.Go(worker)
	}
	wg.Wait()
}
