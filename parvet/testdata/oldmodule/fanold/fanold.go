// Package fanold is in a module whose go line (1.18) has no max builtin:
// adding gopar raises that line to gopar's, so the Blocking form, with max,
// is offered all the same.
package fanold

import (
	"os"
	"sync"
)

// 37: file reads over a count, in a Go 1.18 module: Blocking comes first.
func sizes(paths []string, n int, out []int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `par.Range\(0, n\).ForEach on the pool`
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b, err := os.ReadFile(paths[i])
			if err != nil {
				return
			}
			out[i] = len(b)
		}(i)
	}
	wg.Wait()
}
