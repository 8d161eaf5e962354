package benchmarks

import (
	"runtime"
	"strings"
	"sync"

	"github.com/gopar-dev/gopar/par"
)

// Keyed lists the keyed workloads (K1 to K3): results gathered by key into
// a map or deduplicated, README.md, "Keyed results"; `-w keyed` runs them.
var Keyed = []*Workload{K1, K2, K3}

// The sizes of the keyed workloads' inputs. The package's tests set them
// smaller before the inputs are made (keyed_test.go), so that
// TestChecksums stays fast; cmd/compare builds the full ones.
var (
	k1Size = 100_000_000 // bytes of text
	k2N    = 5_000_000   // records
	k3N    = 10_000_000  // ints
)

// K1: a word count of a 100 MB text, given as a slice of lines, into a
// map[string]int. Every implementation splits a line with strings.Fields
// (the form par.FlatMap takes) and counts the words, which are substrings
// of the text: no word is copied.

// k1Lines returns K1's text as its lines, the same every run: lines of 2 to
// 24 words of the toolkit's 20,000-word vocabulary, word k about 1/k as
// often as the first. Made once, on first use.
var k1Lines = sync.OnceValue(func() []string {
	vocab, table := zipfWords()
	var b strings.Builder
	b.Grow(k1Size + 256)
	var ends []int
	x := uint64(41)
	for b.Len() < k1Size {
		x = mix(x)
		words := 2 + int(x%23)
		for w := range words {
			x = mix(x)
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[table[x%uint64(len(table))]])
		}
		ends = append(ends, b.Len())
		b.WriteByte('\n')
	}
	text := b.String()
	lines := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		lines[i] = text[start:end]
		start = end + 1
	}
	return lines
})

// countFieldsInto adds the words of lines to m.
func countFieldsInto(m map[string]int, lines []string) map[string]int {
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			m[w]++
		}
	}
	return m
}

// countFieldsBy is countFieldsInto with each word's key through a func
// value, as CountBy calls it.
func countFieldsBy(m map[string]int, lines []string, key func(string) string) map[string]int {
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			m[key(w)]++
		}
	}
	return m
}

// wordKey is the key function of the floors: a variable, so that the
// compiler calls it through a func value, as gopar must.
var wordKey = word

// staticCounts is K1's hand-written fan-out: P goroutines over equal
// chunks of lines, a map each, merged the smaller into the larger once the
// WaitGroup is done; count counts a chunk into a map.
func staticCounts(lines []string, count func(map[string]int, []string) map[string]int) map[string]int {
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[string]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() {
			maps[k] = count(map[string]int{}, lines[k*len(lines)/p:(k+1)*len(lines)/p])
		})
	}
	wg.Wait()
	return mergeAllWords(maps)
}

var K1 = &Workload{
	ID:       "K1",
	Name:     "word-count",
	What:     "word count of a 100 MB text, as a slice of lines, into a map[string]int",
	Balanced: true,
	Impls: []Impl{
		{"seq", func() uint64 { return countsSum(countFieldsInto(map[string]int{}, k1Lines())) }},
		{"static", func() uint64 { return countsSum(staticCounts(k1Lines(), countFieldsInto)) }},
		// The floor of a form that calls a key function per word: the
		// hand-written fan-out calling it through a func value.
		{"floor", func() uint64 {
			return countsSum(staticCounts(k1Lines(), func(m map[string]int, ls []string) map[string]int {
				return countFieldsBy(m, ls, wordKey)
			}))
		}},
		{"gopar", func() uint64 {
			return countsSum(par.CountBy(par.FlatMap(par.Slice(k1Lines()), strings.Fields), func(w string) string { return w }))
		}},
	},
	Targets: []Target{
		{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.6},
		{Impl: "gopar", Against: "static", Limit: 1.05},
		{Impl: "gopar", Against: "floor", Limit: 1.05},
	},
}

// K2: 5M records of 400 stations grouped into per-station min, mean and
// max, as in the One Billion Row Challenge: temperatures in tenths of a
// degree, so that every implementation's sums are exact and the checksums
// agree.

type k2Record struct {
	station string
	temp    int64 // tenths of a degree
}

type k2Stats struct {
	min, max, sum int64
	n             int64
}

func k2Of(t int64) k2Stats { return k2Stats{t, t, t, 1} }

func k2Merge(a, b k2Stats) k2Stats {
	return k2Stats{min(a.min, b.min), max(a.max, b.max), a.sum + b.sum, a.n + b.n}
}

// k2Records returns K2's records, the same every run. Made once, on first
// use.
var k2Records = sync.OnceValue(func() []k2Record {
	names := make([]string, 400)
	for k := range names {
		names[k] = "st-" + wordFor(k*47+3)
	}
	recs := make([]k2Record, k2N)
	for i := range recs {
		x := mix(uint64(i))
		recs[i] = k2Record{names[x%400], int64(x>>32%1000) - 300}
	}
	return recs
})

// k2Loop is the plain loop: a map of pointers, updated in place, one map
// lookup per record.
func k2Loop(recs []k2Record) map[string]*k2Stats {
	m := map[string]*k2Stats{}
	for _, r := range recs {
		s := m[r.station]
		if s == nil {
			s = &k2Stats{min: r.temp, max: r.temp}
			m[r.station] = s
		}
		s.min = min(s.min, r.temp)
		s.max = max(s.max, r.temp)
		s.sum += r.temp
		s.n++
	}
	return m
}

// k2Static is the hand-written fan-out: the loop over P equal chunks, a map
// each, merged once the WaitGroup is done.
func k2Static(recs []k2Record) map[string]*k2Stats {
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[string]*k2Stats, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() { maps[k] = k2Loop(recs[k*len(recs)/p : (k+1)*len(recs)/p]) })
	}
	wg.Wait()
	return k2MergeMaps(maps, k2Merge)
}

// k2MergeMaps merges the workers' maps into the first, with op for a
// station in more than one.
func k2MergeMaps(maps []map[string]*k2Stats, op func(a, b k2Stats) k2Stats) map[string]*k2Stats {
	m := maps[0]
	for _, other := range maps[1:] {
		for st, s := range other {
			if t := m[st]; t != nil {
				*t = op(*t, *s)
			} else {
				m[st] = s
			}
		}
	}
	return m
}

// k2StaticFn is k2Static with the pair and the merge called through func
// values, as par.ReduceByKey calls them: the floor for an API that takes
// them as funcs. It is kept out of line so that the compiler cannot see
// which functions kv and op are and inline them.
//
//go:noinline
func k2StaticFn(recs []k2Record, kv func(k2Record) (string, k2Stats), op func(a, b k2Stats) k2Stats) map[string]k2Stats {
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[string]*k2Stats, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Go(func() {
			m := map[string]*k2Stats{}
			for _, r := range recs[k*len(recs)/p : (k+1)*len(recs)/p] {
				st, v := kv(r)
				if s := m[st]; s != nil {
					*s = op(*s, v)
				} else {
					first := v
					m[st] = &first
				}
			}
			maps[k] = m
		})
	}
	wg.Wait()
	return k2Values(k2MergeMaps(maps, op))
}

func k2Pair(r k2Record) (string, k2Stats) { return r.station, k2Of(r.temp) }

// k2Sum is K2's checksum: per station, its min, max and mean, whatever the
// order of the stations.
func k2Sum(m map[string]k2Stats) uint64 {
	var sum uint64
	for st, s := range m {
		h := uint64(len(st))
		for _, c := range []byte(st) {
			h = h*31 + uint64(c)
		}
		mean := float64(s.sum) / float64(s.n)
		sum += mix(h ^ uint64(s.min)<<40 ^ uint64(s.max)<<20 ^ uint64(int64(mean*1000)))
	}
	return sum
}

func k2Values(m map[string]*k2Stats) map[string]k2Stats {
	out := make(map[string]k2Stats, len(m))
	for st, s := range m {
		out[st] = *s
	}
	return out
}

var K2 = &Workload{
	ID:       "K2",
	Name:     "group-stats",
	What:     "5M records grouped by 400 keys into per-key min, mean and max",
	Balanced: true,
	Impls: []Impl{
		{"seq", func() uint64 { return k2Sum(k2Values(k2Loop(k2Records()))) }},
		{"static", func() uint64 { return k2Sum(k2Values(k2Static(k2Records()))) }},
		{"static-fn", func() uint64 { return k2Sum(k2StaticFn(k2Records(), k2Pair, k2Merge)) }},
		{"gopar", func() uint64 { return k2Sum(par.ReduceByKey(par.Slice(k2Records()), k2Pair, k2Merge)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.6}},
}

// K3: 10M ints deduplicated, keeping the order of first occurrence: values
// drawn from [0, 2^21), so that about 2M of them are distinct.

var k3Ints = sync.OnceValue(func() []int {
	xs := make([]int, k3N)
	for i := range xs {
		xs[i] = int(mix(uint64(i)) % (1 << 21))
	}
	return xs
})

// k3Loop is the plain loop: a set, and the items not yet in it appended in
// order. The map is not presized: the number of distinct items is not
// known before the loop.
func k3Loop(xs []int) []int {
	seen := map[int]struct{}{}
	var out []int
	for _, x := range xs {
		if _, ok := seen[x]; !ok {
			seen[x] = struct{}{}
			out = append(out, x)
		}
	}
	return out
}

// k3Sum is K3's checksum, which the order of the items changes.
func k3Sum(xs []int) uint64 {
	h := uint64(len(xs))
	for _, x := range xs {
		h = mix(h ^ uint64(x))
	}
	return h
}

var K3 = &Workload{
	ID:   "K3",
	Name: "distinct",
	What: "10M ints deduplicated, in order of first occurrence",
	Impls: []Impl{
		{"seq", func() uint64 { return k3Sum(k3Loop(k3Ints())) }},
		{"gopar", func() uint64 { return k3Sum(par.Distinct(par.Slice(k3Ints()))) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.5}},
}
