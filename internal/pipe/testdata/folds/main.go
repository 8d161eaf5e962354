// Command folds runs loops that fold into several accumulator types, on
// each driver, for TestDriversCompiledOnce, which reads its symbols.
package main

import (
	"fmt"
	"slices"

	"github.com/gopar-dev/gopar/internal/pipe"
)

type pair struct{ a, b int }

func main() {
	cfgs := []pipe.Config{{}, {Blocking: 2}, pipe.Slice([]int{1, 2, 3}).Config, pipe.FromSeq(slices.Values([]int{1, 2})).Config}
	for _, cfg := range cfgs {
		n := pipe.Run(cfg, 0, 100, pipe.Reducer[int]{
			Fold:    func(acc, lo, hi int) int { return acc + hi - lo },
			Combine: func(l, r int) int { return l + r },
		})
		s := pipe.Run(cfg, 0, 100, pipe.Reducer[string]{
			Fold:    func(acc string, lo, hi int) string { return acc + "." },
			Combine: func(l, r string) string { return l + r },
		})
		xs := pipe.Run(cfg, 0, 100, pipe.Reducer[[]int]{
			Fold:    func(acc []int, lo, hi int) []int { return append(acc, lo) },
			Combine: func(l, r []int) []int { return append(l, r...) },
		})
		p := pipe.Run(cfg, 0, 100, pipe.Reducer[pair]{
			Fold:    func(acc pair, lo, hi int) pair { return pair{acc.a + lo, acc.b + hi} },
			Combine: func(l, r pair) pair { return pair{l.a + r.a, l.b + r.b} },
		})
		m := pipe.Run(cfg, 0, 100, pipe.Reducer[map[int]int]{
			Identity: func() map[int]int { return map[int]int{} },
			Fold: func(acc map[int]int, lo, hi int) map[int]int {
				acc[lo] = hi
				return acc
			},
			Combine: func(l, r map[int]int) map[int]int {
				for k, v := range r {
					l[k] = v
				}
				return l
			},
		})
		fmt.Println(n, len(s), len(xs), p, len(m))
	}
}
