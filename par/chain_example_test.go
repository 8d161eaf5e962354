//go:build go1.27

package par_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// Every step chains with Go 1.27 or newer: Map to another type, Filter,
// then a type-changing terminal step, here a count by key. (With an older
// Go, write the type-changing steps as functions: par.Map(it, f).)
func Example_chain() {
	lines := []string{"3 apples", "x pears", "12 plums", "7 apples", "2 plums"}
	type entry struct {
		n    int
		name string
	}
	parse := func(l string) (entry, bool) {
		num, name, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(num)
		return entry{n, name}, err == nil
	}
	totals := par.Slice(lines).
		FilterMap(parse).
		Filter(func(e entry) bool { return e.n > 2 }).
		ReduceByKey(func(e entry) (string, int) { return e.name, e.n }, func(a, b int) int { return a + b })
	fmt.Println(totals)
	// Output:
	// map[apples:10 plums:12]
}
