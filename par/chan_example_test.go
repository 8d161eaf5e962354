package par_test

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// A producer goroutine feeds a channel; the workers of a hand-written
// fan-out become FromChan. The producer watches ctx, which the deferred
// cancel ends when the operation has returned, however it ended.
func ExampleFromChan() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	words := make(chan string, 16)
	go func() {
		defer close(words)
		for _, w := range strings.Fields("the quick brown fox jumps over the lazy dog") {
			select {
			case words <- w:
			case <-ctx.Done():
				return
			}
		}
	}()
	lengths := par.Map(par.FromChan(words).WithContext(ctx), func(w string) int { return len(w) })
	fmt.Println(lengths.Collect()) // in the order received
	// Output: [3 5 5 3 5 4 3 4 3]
}

// The entries of a map, as pairs.
func ExampleFromSeq2() {
	stock := map[string]int{"apples": 3, "pears": 0, "plums": 12}
	out := par.FromSeq2(maps.All(stock)).Filter(func(p par.Pair[string, int]) bool { return p.Value == 0 })
	for _, p := range out.Collect() {
		fmt.Println(p.Key, "sold out")
	}
	// Output: pears sold out
}
