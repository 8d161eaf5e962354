// Package racefix holds racy ForEach loops whose suggested fixes compute the
// value with the operation made for it.
package racefix

import "github.com/gopar-dev/gopar/par"

type cents int64

func f(x int) int { return x * x }

func sum(xs []int) int {
	total := 0
	par.Slice(xs).ForEach(func(x int) {
		total += f(x) // want `total is updated`
	})
	return total
}

func sumItems(n int) int {
	total := 0
	par.Range(0, n).ForEach(func(i int) {
		total += i // want `total is updated`
	})
	return total
}

func sumFiltered(xs []float64) float64 {
	var total float64
	par.Slice(xs).ForEach(func(x float64) {
		if x > 0 {
			total -= x * 2 // want `total is updated`
		}
	})
	return total
}

func count(xs []int) int {
	n := 0
	par.Slice(xs).ForEach(func(x int) {
		if x%2 == 0 {
			n++ // want `n is updated`
		}
	})
	return n
}

func countNamed(xs []int) cents {
	var c cents
	par.Slice(xs).ForEach(func(x int) {
		c++ // want `c is updated`
	})
	return c
}

func collect(xs []int) []string {
	var out []string
	par.Slice(xs).ForEach(func(x int) {
		out = append(out, string(rune('a'+x))) // want `out is appended to`
	})
	return out
}

func collectFiltered(words []string) []string {
	long := []string{"x"}
	par.Slice(words).ForEach(func(w string) {
		if len(w) > 3 {
			long = append(long, w) // want `long is appended to`
		}
	})
	return long
}

// Not fixed: the callback does two things.
func twoThings(xs []int) (int, int) {
	a, b := 0, 0
	par.Slice(xs).ForEach(func(x int) {
		a += x // want `a is updated`
		b++    // want `b is updated`
	})
	return a, b
}
