package par_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// A builder per goroutine, reused for every item it runs, instead of one per
// item.
func ExampleMapInit() {
	words := []string{"go", "par", "map", "init"}
	shout := par.MapInit(par.Slice(words),
		func() *strings.Builder { return new(strings.Builder) },
		func(b *strings.Builder, w string) string {
			b.Reset()
			b.WriteString(strings.ToUpper(w))
			b.WriteString("!")
			return b.String()
		})
	fmt.Println(shout.Collect())
	// Output: [GO! PAR! MAP! INIT!]
}

// A random generator per goroutine: *rand.Rand is not safe for concurrent
// use, and one per item would cost its seeding every time.
func ExampleForEachInit() {
	hits := make([]bool, 100_000)
	par.ForEachInit(par.Range(0, len(hits)),
		func() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) },
		func(r *rand.Rand, i int) {
			x, y := r.Float64(), r.Float64()
			hits[i] = x*x+y*y <= 1
		})
	in := par.Slice(hits).Filter(func(h bool) bool { return h }).Count()
	pi := 4 * float64(in) / float64(len(hits))
	fmt.Println(pi > 3 && pi < 3.3)
	// Output: true
}
