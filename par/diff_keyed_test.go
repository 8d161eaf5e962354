package par_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gopar-dev/gopar/par"
)

// The differential test's models of the keyed operations (par/keyed.go,
// par/distinct.go). Each result is read into a canonical map, key to a list
// of ints, and compared with the same map built by the sequential loop over
// the model's items: a prefix of them under cancellation.

// keyOf is the keyed operations' key: one key (mod 1), a few, or about one
// per item (mod 2^40), from the item's source position and payload.
func (c *diffCase) keyOf(v int) int {
	d := v - c.lo
	return int(diffMix(d&diffMask, d>>diffShift, c.salt+1) % uint64(c.mod))
}

// runKeyed runs the keyed terminal operation, stage s being its callback.
func (c *diffCase) runKeyed(p diffPipe, r *diffRun, s int) {
	it := p.iterator()
	key := func(v int) int {
		defer c.leave()
		c.enter(s, v)
		return c.keyOf(v)
	}
	r.keyed = map[int][]int{}
	switch c.term.name {
	case "GroupBy":
		maps.Copy(r.keyed, par.GroupBy(it, key))
	case "GroupByKey":
		maps.Copy(r.keyed, par.GroupByKey(it, func(v int) (int, int) { return key(v), 2*v + 1 }))
	case "ReduceByKey":
		// A count and an affine map: the count tells the prefix, the
		// composition (not commutative) the order.
		m := par.ReduceByKey(it, func(v int) (int, [2]int) { return key(v), [2]int{1, diffAffine(v)} },
			func(a, b [2]int) [2]int { return [2]int{a[0] + b[0], diffCompose(a[1], b[1])} })
		for k, v := range m {
			r.keyed[k] = v[:]
		}
	case "CountBy":
		for k, n := range par.CountBy(it, key) {
			r.keyed[k] = []int{n}
		}
	case "CollectMap":
		for k, v := range par.CollectMap(it, func(v int) (int, int) { return key(v), v }) {
			r.keyed[k] = []int{v}
		}
	case "Counts":
		// Counted by item, then added up by key: CountBy's result.
		for v, n := range par.Counts(it) {
			if r.keyed[c.keyOf(v)] == nil {
				r.keyed[c.keyOf(v)] = []int{0}
			}
			r.keyed[c.keyOf(v)][0] += n
		}
	case "CountBySorted":
		defer c.noSpillFiles()
		diffReadSorted(c, r, par.CountBySorted(it, key), func(n int) []int { return []int{n} })
	case "ReduceByKeySorted":
		// A count and a sum: op is commutative, as the operation requires.
		defer c.noSpillFiles()
		sorted := par.ReduceByKeySorted(it, func(v int) (int, [2]int) { return key(v), [2]int{1, v} },
			func(a, b [2]int) [2]int { return [2]int{a[0] + b[0], a[1] + b[1]} })
		diffReadSorted(c, r, sorted, func(v [2]int) []int { return v[:] })
	case "GroupBySorted":
		defer c.noSpillFiles()
		diffReadSorted(c, r, par.GroupBySorted(it, key), func(g []int) []int { return g })
	case "DistinctSorted":
		// The distinct items, by key: Keys's items must come in order.
		defer c.noSpillFiles()
		d := par.DistinctSorted(it)
		first, last := true, 0
		for v := range d.Keys() {
			if !first && v <= last {
				c.failf("DistinctSorted gave %d after %d", v, last)
			}
			first, last = false, v
			r.keyed[c.keyOf(v)] = append(r.keyed[c.keyOf(v)], v)
		}
		if err := d.Err(); err != nil && !c.cancelled() {
			c.failf("DistinctSorted: %v, with no done context", err)
		} else if err != nil && len(r.keyed) > 0 {
			c.failf("DistinctSorted gave %d keys, then the error %v", len(r.keyed), err)
		}
	case "Distinct":
		r.keyed = nil
		r.list = par.Distinct(it)
	}
}

// diffReadSorted reads s into r.keyed, each value as list gives it: the keys
// must come in increasing order, and an error only under a done context,
// with no entry before it.
func diffReadSorted[V any](c *diffCase, r *diffRun, s *par.Sorted[int, V], list func(V) []int) {
	first, last := true, 0
	for k, v := range s.All() {
		if !first && k <= last {
			c.failf("%s gave key %d after %d", c.term.name, k, last)
		}
		first, last = false, k
		r.keyed[k] = list(v)
	}
	if err := s.Err(); err != nil && !c.cancelled() {
		c.failf("%s: %v, with no done context", c.term.name, err)
	} else if err != nil && len(r.keyed) > 0 {
		c.failf("%s gave %d keys, then the error %v", c.term.name, len(r.keyed), err)
	}
}

// diffSpillDir is where the cases' WithTempDir puts CountBySorted's files
// (TestDifferential's temporary directory; "" elsewhere: os.TempDir()).
var diffSpillDir string

// noSpillFiles fails the case if diffSpillDir holds anything once the
// operation has ended, however it ended.
func (c *diffCase) noSpillFiles() {
	if diffSpillDir == "" {
		return
	}
	if left, err := os.ReadDir(diffSpillDir); err != nil || len(left) > 0 {
		c.failf("CountBySorted left %d files in its directory (%v)", len(left), err)
		for _, e := range left {
			_ = os.RemoveAll(filepath.Join(diffSpillDir, e.Name()))
		}
	}
}

// keyedModel is the loop's canonical result over items.
func (c *diffCase) keyedModel(items []int) map[int][]int {
	m := map[int][]int{}
	for _, v := range items {
		k := c.keyOf(v)
		switch c.term.name {
		case "GroupBy", "GroupBySorted":
			m[k] = append(m[k], v)
		case "DistinctSorted":
			if !slices.Contains(m[k], v) {
				m[k] = append(m[k], v)
			}
		case "GroupByKey":
			m[k] = append(m[k], 2*v+1)
		case "ReduceByKey":
			if acc, ok := m[k]; ok {
				m[k] = []int{acc[0] + 1, diffCompose(acc[1], diffAffine(v))}
			} else {
				m[k] = []int{1, diffAffine(v)}
			}
		case "CountBy", "Counts", "CountBySorted":
			if acc, ok := m[k]; ok {
				m[k] = []int{acc[0] + 1}
			} else {
				m[k] = []int{1}
			}
		case "ReduceByKeySorted":
			if acc, ok := m[k]; ok {
				m[k] = []int{acc[0] + 1, acc[1] + v}
			} else {
				m[k] = []int{1, v}
			}
		case "CollectMap":
			m[k] = []int{v}
		}
	}
	return m
}

// checkKeyed: the result is the loop's over the model's items of a prefix
// source[:p] with p in [plo, phi]. The result itself says how many items it
// holds, and so which prefix it can be. With Unordered, the groups hold the
// same items in any order, ReduceByKey's counts and CountBy's are the
// loop's, and CollectMap keeps a value that some item of the key has;
// under a done context too little is fixed (the items that ran) to check.
func (c *diffCase) checkKeyed(tag string, r *diffRun, plo, phi int) {
	if c.term.name == "Distinct" {
		c.checkDistinct(tag, r.list, plo, phi)
		return
	}
	if r.keyed == nil {
		c.failf("%s: %s returned a nil map", tag, c.term.name)
		return
	}
	if c.unordered || strings.HasSuffix(c.term.name, "Sorted") { // they run as with Unordered
		if !c.cancelled() {
			c.checkKeyedUnordered(r.keyed)
		}
		return
	}
	n := 0 // the model's items that the result holds
	for _, vs := range r.keyed {
		switch c.term.name {
		case "GroupBy", "GroupByKey":
			n += len(vs)
		case "ReduceByKey", "CountBy", "Counts", "CountBySorted":
			n += vs[0]
		case "CollectMap":
			// The last item of some key is in the last source item of
			// the prefix.
			if i := (vs[0] - c.lo) & diffMask; i < c.n {
				n = max(n, c.start[i+1])
			}
		}
	}
	ok := false
	for p := plo; p <= phi; p++ {
		ok = ok || c.start[p] == n
	}
	if !ok {
		c.failf("%s: %s holds %d of the model's items, not those of a prefix source[:p] with p in [%d, %d] (%d to %d items)",
			tag, c.term.name, n, plo, phi, c.start[plo], c.start[phi])
		return
	}
	if want := c.keyedModel(c.flat[:n]); !maps.EqualFunc(r.keyed, want, slices.Equal) {
		c.failf("%s: %s gave %d keys, not the loop's %d over the first %d items (order within a key, or the last value, differs)",
			tag, c.term.name, len(r.keyed), len(want), n)
	}
}

func (c *diffCase) checkKeyedUnordered(got map[int][]int) {
	want := c.keyedModel(c.flat)
	if len(got) != len(want) {
		c.failf("Unordered: %s gave %d keys, the model %d", c.term.name, len(got), len(want))
		return
	}
	for k, w := range want {
		g := got[k]
		switch c.term.name {
		case "GroupBy", "GroupByKey", "GroupBySorted", "DistinctSorted":
			g, w = slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(w))
		case "ReduceByKey":
			g, w = g[:1], w[:1]
		case "CollectMap":
			if len(g) == 1 && slices.ContainsFunc(c.flat, func(v int) bool { return v == g[0] && c.keyOf(v) == k }) {
				continue
			}
		}
		if !slices.Equal(g, w) {
			c.failf("Unordered: %s gave key %d %v, the model %v", c.term.name, k, g, w)
			return
		}
	}
}

// checkDistinct: Distinct gives the model's distinct items in order of
// first occurrence, those of a prefix source[:p] with p in [plo, phi]; with
// Unordered, all of them in any order unless cancelled.
func (c *diffCase) checkDistinct(tag string, got []int, plo, phi int) {
	if got == nil {
		c.failf("%s: Distinct returned a nil slice", tag)
		return
	}
	seen := map[int]bool{}
	var full []int
	counts := make([]int, c.n+1) // distinct items of source[:p]
	for i := range c.n {
		for _, v := range c.flat[c.start[i]:c.start[i+1]] {
			if !seen[v] {
				seen[v] = true
				full = append(full, v)
			}
		}
		counts[i+1] = len(full)
	}
	if c.unordered {
		if !c.cancelled() && !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(full))) {
			c.failf("Unordered: Distinct gave %d items, not the model's %d in some order", len(got), len(full))
		}
		return
	}
	if len(got) > len(full) || !slices.Equal(got, full[:len(got)]) {
		c.failf("%s: Distinct gave %d items, not the first of the model's %d in order of first occurrence", tag, len(got), len(full))
		return
	}
	for p := plo; p <= phi; p++ {
		if counts[p] == len(got) {
			return
		}
	}
	c.failf("%s: Distinct gave %d items, not those of a prefix source[:p] with p in [%d, %d] (%d to %d items)",
		tag, len(got), plo, phi, counts[plo], counts[phi])
}
