package par_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// Parsing lines with a scratch buffer per run and a running total, stopping
// at the first malformed line: the accumulator holds both, so no mutex or
// registry of per-goroutine states is needed. The error is the one of the
// lowest-index malformed line among those parsed, and no partial total
// comes back with it.
func ExampleTryFold() {
	type acc struct {
		scratch []byte // reused by every line of the run
		total   int
	}
	parse := func(a acc, line string) (acc, error) {
		a.scratch = append(a.scratch[:0], strings.TrimSpace(line)...)
		n, err := strconv.Atoi(string(a.scratch))
		if err != nil {
			return a, fmt.Errorf("line %q: %w", line, err)
		}
		a.total += n
		return a, nil
	}
	sum := func(lines []string) (int, error) {
		a, err := par.TryFold(par.Slice(lines),
			func() acc { return acc{scratch: make([]byte, 0, 64)} },
			parse,
			func(a, b acc) acc { a.total += b.total; return a })
		return a.total, err
	}
	fmt.Println(sum([]string{"1", " 2", "3 ", "4"}))
	fmt.Println(sum([]string{"1", "two", "3"}))
	// Output:
	// 10 <nil>
	// 0 line "two": strconv.Atoi: parsing "two": invalid syntax
}

// A reduction whose operation can fail: a sum that refuses to pass a
// budget. The partial sums that op sees depend on how the items were split,
// but the result, or that it failed, does not.
func ExampleIter_TryReduce() {
	errOver := errors.New("over budget")
	add := func(a, b int) (int, error) {
		if a+b > 100 {
			return 0, errOver
		}
		return a + b, nil
	}
	zero := func() int { return 0 }
	fmt.Println(par.Slice([]int{10, 20, 30}).TryReduce(zero, add))
	fmt.Println(par.Range(0, 1000).TryReduce(zero, add))
	// Output:
	// 60 <nil>
	// 0 over budget
}

// A budget that each run's total keeps, but two runs together may pass:
// merge checks it where the runs are joined, so the sum fails however the
// items were split.
func ExampleTryFoldMerge() {
	errOver := errors.New("over budget")
	const budget = 549_999
	check := func(total int) (int, error) {
		if total > budget {
			return 0, errOver
		}
		return total, nil
	}
	sum := func(n int) (int, error) {
		return par.TryFoldMerge(par.Range(0, n), func() int { return 0 },
			func(total, i int) (int, error) { return check(total + i%11) },
			func(a, b int) (int, error) { return check(a + b) })
	}
	fmt.Println(sum(1000))
	fmt.Println(sum(110_000)) // 550,000 in all
	// Output:
	// 4995 <nil>
	// 0 over budget
}
