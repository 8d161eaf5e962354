package par_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

func ExampleGroupBy() {
	words := []string{"apple", "avocado", "banana", "blueberry", "cherry", "apricot"}
	byLetter := par.GroupBy(par.Slice(words), func(w string) byte { return w[0] })
	for _, c := range []byte("abc") {
		fmt.Printf("%c: %v\n", c, byLetter[c]) // each group in source order
	}
	// Output:
	// a: [apple avocado apricot]
	// b: [banana blueberry]
	// c: [cherry]
}

func ExampleGroupByKey() {
	type order struct {
		customer string
		item     string
	}
	orders := []order{{"ann", "tea"}, {"bob", "jam"}, {"ann", "bread"}, {"bob", "tea"}, {"ann", "milk"}}
	items := par.GroupByKey(par.Slice(orders), func(o order) (string, string) { return o.customer, o.item })
	fmt.Println(items)
	// Output:
	// map[ann:[tea bread milk] bob:[jam tea]]
}

func ExampleReduceByKey() {
	type reading struct {
		station string
		temp    float64
	}
	type stats struct {
		min, max, sum float64
		n             int
	}
	readings := []reading{{"oslo", 3}, {"rome", 18}, {"oslo", -2}, {"rome", 22}, {"oslo", 5}}
	per := par.ReduceByKey(par.Slice(readings),
		func(r reading) (string, stats) { return r.station, stats{r.temp, r.temp, r.temp, 1} },
		func(a, b stats) stats { return stats{min(a.min, b.min), max(a.max, b.max), a.sum + b.sum, a.n + b.n} })
	for _, st := range []string{"oslo", "rome"} {
		s := per[st]
		fmt.Printf("%s: min %g, mean %g, max %g\n", st, s.min, s.sum/float64(s.n), s.max)
	}
	// Output:
	// oslo: min -2, mean 2, max 5
	// rome: min 18, mean 20, max 22
}

func ExampleCountBy() {
	lines := []string{"the cat sat", "on the mat", "the end"}
	counts := par.CountBy(par.FlatMap(par.Slice(lines), strings.Fields), func(w string) string { return w })
	fmt.Println(counts)
	// Output:
	// map[cat:1 end:1 mat:1 on:1 sat:1 the:3]
}

func ExampleCollectMap() {
	type user struct {
		id   int
		name string
	}
	users := []user{{1, "ann"}, {2, "bob"}, {1, "ann b."}} // id 1 twice: the last wins
	byID := par.CollectMap(par.Slice(users), func(u user) (int, string) { return u.id, u.name })
	fmt.Println(byID)
	// Output:
	// map[1:ann b. 2:bob]
}

func ExampleDistinct() {
	visits := []string{"home", "docs", "home", "blog", "docs", "about"}
	fmt.Println(par.Distinct(par.Slice(visits))) // in order of first occurrence
	// Output:
	// [home docs blog about]
}

func ExampleCountBySorted() {
	words := strings.Fields("the cat and the dog and the bird")
	// 64 MB holds these counts; a count past its budget writes what it
	// holds to files under os.TempDir() and merges them back as All reads.
	counts := par.CountBySorted(par.Slice(words).WithMemory(64<<20), func(w string) string { return w })
	for w, n := range counts.All() {
		fmt.Println(w, n)
	}
	if err := counts.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// and 2
	// bird 1
	// cat 1
	// dog 1
	// the 3
}

func ExampleReduceByKeySorted() {
	type visit struct {
		page  string
		bytes int
	}
	log := []visit{{"/b", 300}, {"/a", 100}, {"/b", 200}, {"/c", 50}, {"/a", 25}}
	// The bytes served per page, in page order, within 256 MB of memory.
	served := par.ReduceByKeySorted(par.Slice(log).WithMemory(256<<20),
		func(v visit) (string, int) { return v.page, v.bytes },
		func(a, b int) int { return a + b })
	for page, bytes := range served.All() {
		fmt.Println(page, bytes)
	}
	if err := served.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// /a 125
	// /b 500
	// /c 50
}

func ExampleGroupBySorted() {
	words := []string{"pear", "fig", "apple", "kiwi", "plum", "date"}
	// The words by length, shortest first, within 64 MB of memory; a
	// group's words come in no particular order, so sort them.
	byLen := par.GroupBySorted(par.Slice(words).WithMemory(64<<20), func(w string) int { return len(w) })
	for n, ws := range byLen.All() {
		slices.Sort(ws)
		fmt.Println(n, ws)
	}
	if err := byLen.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 3 [fig]
	// 4 [date kiwi pear plum]
	// 5 [apple]
}

func ExampleDistinctSorted() {
	lines := []string{"b a", "c a", "b b"}
	// The distinct words, in order, within 64 MB of memory.
	words := par.DistinctSorted(par.FlatMap(par.Slice(lines).WithMemory(64<<20), strings.Fields))
	for w := range words.Keys() {
		fmt.Println(w)
	}
	if err := words.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// a
	// b
	// c
}

func ExampleEntryCodec() {
	type point struct{ x, y int32 } // unexported fields: encoding/gob cannot write them
	pts := []point{{1, 2}, {3, 4}, {1, 2}, {5, 6}, {3, 4}, {1, 2}}
	// A point for each x, in order of x. Past the budget, the points go to
	// disk through a codec of their own: gob cannot write their fields.
	counts := par.ReduceByKeySorted(par.Slice(pts).WithMemory(1),
		func(p point) (int32, point) { return p.x, p },
		func(a, _ point) point { return a },
		par.EntryCodec(
			func(buf []byte, k int32, p point) []byte {
				return binary.AppendVarint(binary.AppendVarint(buf, int64(k)), int64(p.y))
			},
			func(data []byte) (int32, point, error) {
				k, n := binary.Varint(data)
				y, m := binary.Varint(data[n:])
				if n <= 0 || m <= 0 {
					return 0, point{}, fmt.Errorf("a bad entry: %x", data)
				}
				return int32(k), point{int32(k), int32(y)}, nil
			}))
	for x, p := range counts.All() {
		fmt.Println(x, p.y)
	}
	if err := counts.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 2
	// 3 4
	// 5 6
}
