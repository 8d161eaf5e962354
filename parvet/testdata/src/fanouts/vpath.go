package fanouts

import (
	"sync"

	"example.com/lib/v2"
)

// 90: the goroutine's parameter has a type of a package whose import path
// ends in a major version: the rewrite names it lib, as the file does.
func wgVersioned(entries []lib.Entry, out *sync.Map) {
	var wg sync.WaitGroup
	for i, e := range entries { // want `fan-out: a goroutine per item with a sync.WaitGroup; gopar replaces it with par.Slice\(entries\)`
		wg.Add(1)
		go func(i int, e lib.Entry) {
			defer wg.Done()
			out.Store(i, work(e.Name))
		}(i, e)
	}
	wg.Wait()
}
