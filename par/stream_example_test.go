package par_test

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// The ordered pipeline: lines read one by one, parsed in parallel, and
// handed to the loop in input order while later lines are still parsed.
func ExampleIter_Values() {
	input := strings.NewReader("3 apples\n1 pear\n12 plums\n")
	lines := func(yield func(string) bool) {
		sc := bufio.NewScanner(input)
		for sc.Scan() && yield(sc.Text()) {
		}
	}
	parse := func(line string) string {
		var n int
		var fruit string
		fmt.Sscan(line, &n, &fruit)
		return fmt.Sprintf("%s: %d", fruit, n)
	}
	for rec := range par.Map(par.FromSeq(lines), parse).Values() {
		fmt.Println(rec)
	}
	// Output:
	// apples: 3
	// pear: 1
	// plums: 12
}

// All gives each item with its position, as slices.All does; a break stops
// the work that was computing the items after it.
func ExampleIter_All() {
	squares := par.Map(par.Range(0, 1_000_000), func(i int) int { return i * i })
	for i, sq := range squares.All() {
		if sq > 50 {
			fmt.Println("first square over 50:", sq, "at", i)
			break
		}
	}
	// Output: first square over 50: 64 at 8
}

// WithBuffer bounds what is computed ahead of the loop: here at most 256
// buffers of 64 KiB each (16 MiB), whatever the input's length.
func ExampleIter_WithBuffer() {
	blocks := par.Map(par.Range(0, 2000), func(i int) []byte { return make([]byte, 64<<10) }).WithBuffer(256)
	total := 0
	for b := range blocks.Values() {
		total += len(b)
	}
	fmt.Println(total >> 10)
	// Output: 128000
}
