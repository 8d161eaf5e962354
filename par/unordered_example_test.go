package par_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// A word count over a stream of lines: merging counts is commutative, so
// the Fold may be Unordered and keep a map per goroutine for the whole
// stream, as a hand-written fan-out keeps one per worker.
func ExampleIter_Unordered() {
	lines := []string{"the quick brown fox", "jumps over the lazy dog", "the end"}
	counts := par.Fold(par.FromSeq(slices.Values(lines)).Unordered(),
		func() map[string]int { return map[string]int{} },
		func(m map[string]int, line string) map[string]int {
			for _, w := range strings.Fields(line) {
				m[w]++
			}
			return m
		},
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	for _, w := range slices.Sorted(maps.Keys(counts)) {
		if counts[w] > 1 {
			fmt.Println(w, counts[w])
		}
	}
	// Output: the 3
}
