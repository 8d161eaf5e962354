package benchmarks

import (
	"bytes"
	"cmp"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/gopar-dev/gopar/par"
)

// The toolkit workloads: the figures of issue 9, each a gopar operation
// against the code it replaces, side by side in one run. They are not in All
// (the FromSeq workload alone takes about 15 s a round); run them with
// `compare -w toolkit` or by id. None has a natural static fan-out, so the
// balanced probe checks the run's cores.

// Toolkit lists the toolkit workloads, T1 to T7.
var Toolkit = []*Workload{T1, T2, T3, T4, T5, T6, T7}

// T1 is a word count with a map per participant, merged at the end
// (Rayon's fold + reduce), over about 64 MiB of generated text.
var T1 = &Workload{
	ID:   "T1",
	Name: "fold-words",
	What: "word count of 64 MiB of text: a map per participant, merged",
	Impls: []Impl{
		{"seq", func() uint64 { return countsSum(countWords(text(), map[string]int{})) }},
		{"static", func() uint64 { return countsSum(staticWords(text())) }},
		{"gopar", func() uint64 { return countsSum(foldWords(text())) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.7}},
}

// countWords adds the words of lines to m.
func countWords(lines [][]byte, m map[string]int) map[string]int {
	for _, l := range lines {
		m = countLine(m, l)
	}
	return m
}

// countLine adds the words of line, separated by spaces, to m, as
// examples/wordfreq does, whose countLine says why not with bytes.Fields.
func countLine(m map[string]int, line []byte) map[string]int {
	for len(line) > 0 {
		w, rest, _ := bytes.Cut(line, space)
		if len(w) > 0 {
			m[string(w)]++
		}
		line = rest
	}
	return m
}

var space = []byte{' '}

// mergeWords adds b's counts to a, the smaller map into the larger.
func mergeWords(a, b map[string]int) map[string]int {
	if len(a) < len(b) {
		a, b = b, a
	}
	for w, n := range b {
		a[w] += n
	}
	return a
}

// mergeAllWords merges the word counts of a hand-written fan-out's
// goroutines, after its WaitGroup.
func mergeAllWords(maps []map[string]int) map[string]int {
	m := maps[0]
	for _, other := range maps[1:] {
		m = mergeWords(m, other)
	}
	return m
}

// staticWords is the hand-written fan-out: a map per goroutine over equal
// chunks of lines, merged after the WaitGroup.
func staticWords(lines [][]byte) map[string]int {
	p := runtime.GOMAXPROCS(0)
	maps := make([]map[string]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			maps[k] = countWords(lines[k*len(lines)/p:(k+1)*len(lines)/p], map[string]int{})
		}()
	}
	wg.Wait()
	return mergeAllWords(maps)
}

// foldWords is the same with par.Fold: a map per run of lines.
func foldWords(lines [][]byte) map[string]int {
	return par.Fold(par.Slice(lines),
		func() map[string]int { return map[string]int{} },
		countLine,
		mergeWords)
}

// countsSum is an order-independent checksum of a word count.
func countsSum(m map[string]int) uint64 {
	var s uint64
	for w, n := range m {
		var h uint64
		for _, c := range []byte(w) {
			h = h*31 + uint64(c)
		}
		s += mix(h) * uint64(n)
	}
	return s
}

// text returns the lines of 64 MiB of generated text, the same every run:
// words of a 20,000-word vocabulary, word k about 1/k as often as the first,
// as in a natural language. Made once, on first use.
var text = sync.OnceValue(func() [][]byte {
	const size = 64 << 20
	vocab, table := zipfWords()
	buf := make([]byte, 0, size+100)
	var lines [][]byte
	x := uint64(1)
	start := 0
	for len(buf) < size {
		x = mix(x)
		buf = append(buf, vocab[table[x%uint64(len(table))]]...)
		if len(buf)-start > 70 {
			lines = append(lines, buf[start:len(buf):len(buf)])
			buf = append(buf, '\n')
			start = len(buf)
		} else {
			buf = append(buf, ' ')
		}
	}
	return lines
})

// zipfWords returns the generated texts' 20,000-word vocabulary, and a
// table of word indexes in which word k stands about 4000/(k+1) times: a
// word drawn from the table at random comes about 1/k as often as the
// first, as in a natural language.
func zipfWords() (vocab []string, table []int32) {
	vocab = make([]string, 20_000)
	for k := range vocab {
		vocab[k] = wordFor(k)
	}
	for k := range vocab {
		for range max(1, 4000/(k+1)) {
			table = append(table, int32(k))
		}
	}
	return vocab, table
}

// wordFor returns a word of 2 to 9 letters for k, different for every k.
func wordFor(k int) string {
	const letters = "etaoinshrdlucmfwypvbgkjqxz"
	b := []byte{letters[k%26]}
	for k /= 26; k > 0; k /= 26 {
		b = append(b, letters[k%26])
	}
	return string(append(b, letters[len(b)%26]))
}

// sortN is the length of the sorted slices: 2^24 ints.
const sortN = 1 << 24

// T2 sorts 2^24 random ints. Every run sorts a fresh copy of the same input,
// so both implementations pay the copy (about 1-2% of a run).
var T2 = &Workload{
	ID:   "T2",
	Name: "sort",
	What: "sort a copy of 2^24 random ints",
	Impls: []Impl{
		{"seq", func() uint64 { return sorted(slices.Sort[[]int]) }},
		{"gopar", func() uint64 { return sorted(par.Sort[[]int]) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.7}},
}

// T3 is T2 with a comparison function.
var T3 = &Workload{
	ID:   "T3",
	Name: "sortfunc",
	What: "sort a copy of 2^24 random ints with a cmp func",
	Impls: []Impl{
		{"seq", func() uint64 { return sorted(func(xs []int) { slices.SortFunc(xs, cmp.Compare[int]) }) }},
		{"gopar", func() uint64 { return sorted(func(xs []int) { par.SortFunc(xs, cmp.Compare[int]) }) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.7}},
}

// unsorted is the input of T2 and T3, made once.
var unsorted = sync.OnceValue(func() []int {
	xs := make([]int, sortN)
	for i := range xs {
		xs[i] = int(mix(uint64(i)) >> 1)
	}
	return xs
})

// scratch is the slice T2 and T3 sort: one buffer, not one per run.
var scratch = sync.OnceValue(func() []int { return make([]int, sortN) })

// sorted sorts a copy of the input with sort and returns an order-dependent
// checksum of the result.
func sorted(sort func([]int)) uint64 {
	xs := scratch()
	copy(xs, unsorted())
	sort(xs)
	var s uint64
	for i, x := range xs {
		s += uint64(x) * uint64(i+1)
	}
	return s
}

// T4 runs 2^20 items of about 10 us from an iter.Seq: par.FromSeq against
// ranging over the sequence. About 10 s a run for seq: the size issue 9 asks.
var T4 = &Workload{
	ID:   "T4",
	Name: "fromseq-10us",
	What: "2^20 items of about 10 us each from an iter.Seq",
	Impls: []Impl{
		{"seq", func() uint64 { return seqSum(counting(1<<20), work10us) }},
		{"gopar", func() uint64 { return par.Sum(par.Map(par.FromSeq(counting(1<<20)), work10us)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.7}},
}

// T5 is T4 with 2^22 items of about 50 ns: FromSeq must cost no more than the
// plain range over the sequence.
var T5 = &Workload{
	ID:   "T5",
	Name: "fromseq-50ns",
	What: "2^22 items of about 50 ns each from an iter.Seq",
	Impls: []Impl{
		{"seq", func() uint64 { return seqSum(counting(1<<22), work50ns) }},
		{"gopar", func() uint64 { return par.Sum(par.Map(par.FromSeq(counting(1<<22)), work50ns)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.0}},
}

// counting is a generator of 0, 1, ..., n-1, as a user's iter.Seq would be.
func counting(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// seqSum is the plain loop over a sequence.
func seqSum(seq iter.Seq[int], f func(int) uint64) uint64 {
	var s uint64
	for v := range seq {
		s += f(v)
	}
	return s
}

// rounds runs mix r times from i: about 2.5 ns a round on the development
// VMs, so 4,000 rounds are about 10 us and 20 about 50 ns.
func rounds(i, r int) uint64 {
	h := uint64(i)
	for range r {
		h = mix(h)
	}
	return h
}

func work10us(i int) uint64 { return rounds(i, 4000) }
func work50ns(i int) uint64 { return rounds(i, 20) }

// trymapN is the number of items T6 maps.
const trymapN = 1_000_000

// T6 maps 10^6 cheap items into a slice with par.TryMap, whose callback can
// fail, against par.Map + Collect, which cannot.
var T6 = &Workload{
	ID:   "T6",
	Name: "trymap",
	What: "mix(i) for i in [0, 10^6) into a slice",
	Impls: []Impl{
		{"seq", func() uint64 {
			out := make([]uint64, trymapN)
			for i := range out {
				out[i] = mixInt(i)
			}
			return weighted(out)
		}},
		{"gopar-map", func() uint64 { return weighted(par.Map(par.Range(0, trymapN), mixInt).Collect()) }},
		{"gopar-trymap", func() uint64 {
			out, err := par.TryMap(par.Range(0, trymapN), func(i int) (uint64, error) { return mixInt(i), nil })
			if err != nil {
				panic(err)
			}
			return weighted(out)
		}},
	},
	Targets: []Target{{Impl: "gopar-trymap", Against: "gopar-map", Limit: 1.2}},
}

// weighted is an order-dependent checksum of a slice.
func weighted(xs []uint64) uint64 {
	var s uint64
	for i, x := range xs {
		s += x * uint64(i+1)
	}
	return s
}

// T7 sums 2^26 float64s: the reproducible Sum (the same bits for any worker
// count and schedule) against the plain parallel sum, whose blocks fall where
// the scheduler hands them out. The sums differ in their last bits, so the
// checksum is the sum rounded to an integer: the exact sum is
// 33,520,818.816, far from a rounding boundary, and the rounding errors are
// many orders of magnitude below 0.1.
var T7 = &Workload{
	ID:   "T7",
	Name: "float-sum",
	What: "sum of 2^26 float64s",
	Impls: []Impl{
		{"seq", func() uint64 {
			var s float64
			for _, x := range floats() {
				s += x
			}
			return uint64(math.Round(s))
		}},
		{"gopar-plain", func() uint64 {
			xs := floats()
			return uint64(math.Round(par.ReduceBlocks(par.Range(0, len(xs)), func(lo, hi int) float64 {
				var s float64
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			}, func(a, b float64) float64 { return a + b })))
		}},
		{"gopar-reproducible", func() uint64 { return uint64(math.Round(par.Numbers(floats()).Sum())) }},
	},
	Targets: []Target{{Impl: "gopar-reproducible", Against: "gopar-plain", Limit: 1.10}},
}

// floats is T7's input: (i mod 1000) / 1000, made once.
var floats = sync.OnceValue(func() []float64 {
	xs := make([]float64, 1<<26)
	for i := range xs {
		xs[i] = float64(i%1000) * 0.001
	}
	return xs
})
