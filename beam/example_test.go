package beam_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gopar-dev/gopar/beam"
)

// Steps are package-level variables, so that a Beam worker, which runs the
// same binary, finds them by name.
var (
	exWords = beam.FlatMap("example.words", strings.Fields)
	exLong  = beam.Filter("example.long", func(w string) bool { return len(w) > 2 })
)

// A word count, run on gopar; beam.Beam instead of beam.Gopar (or
// beam.RunnerFromFlags() with -runner=prism) runs the same pipeline as a
// Beam job and prints the same lines.
func Example() {
	p := beam.NewPipeline()
	lines := beam.Create(p, []string{"the cat and the hat", "the end"})
	counts := beam.CollectKV(beam.CountPerElement(exLong.Apply(exWords.Apply(lines))))
	total := beam.Collect(beam.Count(exWords.Apply(lines)))
	if err := p.Run(context.Background(), beam.Gopar); err != nil {
		panic(err)
	}
	kvs := counts.Values() // in no order, on either runner
	slices.SortFunc(kvs, func(a, b beam.KV[string, int]) int {
		return cmp.Or(b.Value-a.Value, strings.Compare(a.Key, b.Key))
	})
	fmt.Println(kvs)
	fmt.Println(total.Value())
	// Output:
	// [{the 3} {and 1} {cat 1} {end 1} {hat 1}]
	// 7 true
}

// exLongest keeps the longest word, the smaller of two of one length: a
// commutative choice. Keeping the first word seen would pass on gopar,
// which merges in order, and fail CheckMerge.
var exLongest = beam.Reduce("example.longest", func() string { return "" }, func(a, b string) string {
	if len(b) > len(a) || len(b) == len(a) && b < a {
		return b
	}
	return a
})

func ExampleFoldStep_CheckMerge() {
	words := strings.Fields("a combine runs on Beam only if it gives one answer in any merge order")
	fmt.Println(exLongest.CheckMerge(words, 100, 1))
	// Output: <nil>
}
