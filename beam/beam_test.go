package beam

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestMain runs the tests with Beam initialised, as a Beam program's main
// would be: ptest.Main picks Prism, in this process, as the Beam runner.
func TestMain(m *testing.M) { ptest.Main(m) }

// The steps of the test pipelines, declared at package level as users must.
var (
	words     = FlatMap("test.words", strings.Fields)
	lower     = Map("test.lower", strings.ToLower)
	notStop   = Filter("test.notStop", func(w string) bool { return len(w) > 2 })
	wordLen   = Map("test.wordLen", func(w string) int { return len(w) })
	evenHalf  = FilterMap("test.evenHalf", func(n int) (int, bool) { return n / 2, n%2 == 0 })
	byMod     = ToKV("test.byMod", func(n int) (int, int) { return n % 7, n })
	maxOf     = Reduce("test.maxOf", func() int { return 0 }, func(a, b int) int { return max(a, b) })
	formatKV  = FromKV("test.formatKV", func(k, v int) string { return fmt.Sprintf("%d=%d", k, v) })
	statsFold = Fold("test.stats", newSummary, summary.add, summary.merge)
)

// summary is a Fold accumulator with several fields, all exported: Beam's
// row coder would drop unexported ones.
type summary struct {
	N        int
	Sum      int
	Min, Max int
	Longest  string
}

func newSummary() summary { return summary{} }

func (s summary) add(w string) summary {
	return s.merge(summary{N: 1, Sum: len(w), Min: len(w), Max: len(w), Longest: w})
}

// merge is associative and commutative, with summary{} neutral: ties
// between words of one length go to the smaller word, not the first seen.
func (s summary) merge(o summary) summary {
	if s.N == 0 {
		return o
	}
	if o.N == 0 {
		return s
	}
	longest := s.Longest
	if len(o.Longest) > len(longest) || len(o.Longest) == len(longest) && o.Longest < longest {
		longest = o.Longest
	}
	return summary{N: s.N + o.N, Sum: s.Sum + o.Sum, Min: min(s.Min, o.Min), Max: max(s.Max, o.Max), Longest: longest}
}

// text returns n lines of words drawn from a vocabulary of a few hundred
// words with a skewed (Zipf) frequency, the same lines for the same seed.
func text(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	vocab := make([]string, 300)
	for i := range vocab {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		if i%5 == 0 {
			w[0] -= 'a' - 'A' // some capitalised words, for the lower step
		}
		vocab[i] = string(w)
	}
	z := rand.NewZipf(r, 1.2, 1, uint64(len(vocab)-1))
	lines := make([]string, n)
	for i := range lines {
		ws := make([]string, r.IntN(12))
		for j := range ws {
			ws[j] = vocab[z.Uint64()]
		}
		lines[i] = strings.Join(ws, " ")
	}
	return lines
}

// runBoth builds the pipeline twice with build, runs it on gopar and on
// Beam (Prism, in this process), and returns both results.
func runBoth[R any](t *testing.T, build func(p *Pipeline) func() R) (gopar, beam R) {
	t.Helper()
	for _, r := range []Runner{Gopar, Beam} {
		p := NewPipeline()
		result := build(p)
		if err := p.Run(context.Background(), r); err != nil {
			t.Fatalf("on %v: %v", r, err)
		}
		if r == Gopar {
			gopar = result()
		} else {
			beam = result()
		}
	}
	return gopar, beam
}

// mismatch returns what differs between want and got, or "" if they are
// equal. Its own test shows it rejects a mismatch, so that agreement between
// the runners cannot be vacuous.
func mismatch[R any](want, got R) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	w, g := fmt.Sprint(want), fmt.Sprint(got)
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			// Show where they part, not pages of equal text.
			from := max(0, i-100)
			return fmt.Sprintf("they differ at byte %d:\nwant ...%.200s\n got ...%.200s", i, w[from:], g[from:])
		}
	}
	return fmt.Sprintf("want %.300s\n got %.300s", w, g)
}

// asMap turns per-key results into a map, failing on a repeated key (each
// key must come out once on either runner).
func asMap[K comparable, V any](t *testing.T, kvs []KV[K, V]) map[K]V {
	t.Helper()
	m := make(map[K]V, len(kvs))
	for _, kv := range kvs {
		if _, dup := m[kv.Key]; dup {
			t.Fatalf("key %v comes out twice", kv.Key)
		}
		m[kv.Key] = kv.Value
	}
	return m
}

func wordCount(p *Pipeline, lines []string) *Output[KV[string, int]] {
	return CollectKV(CountPerElement(notStop.Apply(lower.Apply(words.Apply(Create(p, lines))))))
}

func TestWordCount(t *testing.T) {
	lines := text(6000, 42)
	// The answer written out as a plain loop, independent of both runners.
	want := map[string]int{}
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			if w = strings.ToLower(w); len(w) > 2 {
				want[w]++
			}
		}
	}
	gopar, beam := runBoth(t, func(p *Pipeline) func() map[string]int {
		out := wordCount(p, lines)
		return func() map[string]int { return asMap(t, out.Values()) }
	})
	if d := mismatch(want, gopar); d != "" {
		t.Errorf("gopar against a plain loop:\n%s", d)
	}
	if d := mismatch(gopar, beam); d != "" {
		t.Errorf("Beam against gopar:\n%s", d)
	}
	if len(want) < 100 {
		t.Fatalf("only %d distinct words: the test text is too uniform to test much", len(want))
	}
}

// TestMismatchRejects shows that the comparison the other tests rely on
// fails when one count is off by one, or one word is missing.
func TestMismatchRejects(t *testing.T) {
	lines := text(200, 7)
	gopar, beam := runBoth(t, func(p *Pipeline) func() map[string]int {
		out := wordCount(p, lines)
		return func() map[string]int { return asMap(t, out.Values()) }
	})
	if d := mismatch(gopar, beam); d != "" {
		t.Fatalf("the runners disagree before any change:\n%s", d)
	}
	wrong := maps.Clone(gopar)
	w := slices.Sorted(maps.Keys(wrong))[0]
	wrong[w]++
	if mismatch(wrong, beam) == "" {
		t.Errorf("a count off by one (%q) passed the comparison", w)
	}
	delete(wrong, w)
	if mismatch(wrong, beam) == "" {
		t.Errorf("a missing word (%q) passed the comparison", w)
	}
}

type aggregates struct {
	Sum, Count, Min, Max     int
	HasMin, HasMax           bool
	MinWord, MaxWord         string
	EvenHalves, Words        int
	PerKeySum, PerKeyCount   map[int]int
	PerKeyMax                map[int]int
	Formatted                []string
	Summary                  summary
	SummaryOfLengthsPerStart map[string]int
}

var firstLetter = ToKV("test.firstLetter", func(w string) (string, int) { return w[:1], len(w) })

func buildAggregates(p *Pipeline, lines []string) func() aggregates {
	ws := words.Apply(Create(p, lines))
	lens := wordLen.Apply(ws)
	sum, count := Collect(Sum(lens)), Collect(Count(ws))
	lo, hi := Collect(Min(lens)), Collect(Max(lens))
	loW, hiW := Collect(Min(ws)), Collect(Max(ws))
	halves := Collect(Sum(evenHalf.Apply(lens)))
	keyed := byMod.Apply(lens)
	perSum, perCount := CollectKV(SumPerKey(keyed)), CollectKV(CountPerKey(keyed))
	perMax := CombinePerKey(maxOf, keyed)
	formatted := Collect(formatKV.Apply(perMax))
	perMaxOut := CollectKV(perMax)
	sm := Collect(statsFold.Apply(ws))
	perStart := CollectKV(SumPerKey(firstLetter.Apply(ws)))
	return func() aggregates {
		var a aggregates
		a.Sum, _ = sum.Value()
		a.Count, _ = count.Value()
		a.Min, a.HasMin = lo.Value()
		a.Max, a.HasMax = hi.Value()
		a.MinWord, _ = loW.Value()
		a.MaxWord, _ = hiW.Value()
		a.EvenHalves, _ = halves.Value()
		a.PerKeySum = map[int]int{}
		for _, kv := range perSum.Values() {
			a.PerKeySum[kv.Key] = kv.Value
		}
		a.PerKeyCount = map[int]int{}
		for _, kv := range perCount.Values() {
			a.PerKeyCount[kv.Key] = kv.Value
		}
		a.PerKeyMax = map[int]int{}
		for _, kv := range perMaxOut.Values() {
			a.PerKeyMax[kv.Key] = kv.Value
		}
		a.Formatted = slices.Sorted(slices.Values(formatted.Values()))
		a.Summary, _ = sm.Value()
		a.SummaryOfLengthsPerStart = map[string]int{}
		for _, kv := range perStart.Values() {
			a.SummaryOfLengthsPerStart[kv.Key] = kv.Value
		}
		return a
	}
}

func TestAggregates(t *testing.T) {
	lines := text(1000, 3)
	gopar, beam := runBoth(t, func(p *Pipeline) func() aggregates { return buildAggregates(p, lines) })

	// The answer from a plain loop.
	var want aggregates
	want.PerKeySum, want.PerKeyCount, want.PerKeyMax = map[int]int{}, map[int]int{}, map[int]int{}
	want.SummaryOfLengthsPerStart = map[string]int{}
	want.Min, want.MinWord = 1<<62, "\xff"
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			n := len(w)
			want.Sum += n
			want.Count++
			want.Min, want.Max = min(want.Min, n), max(want.Max, n)
			want.MinWord, want.MaxWord = min(want.MinWord, w), max(want.MaxWord, w)
			if n%2 == 0 {
				want.EvenHalves += n / 2
			}
			want.PerKeySum[n%7] += n
			want.PerKeyCount[n%7]++
			want.PerKeyMax[n%7] = max(want.PerKeyMax[n%7], n)
			want.Summary = want.Summary.add(w)
			want.SummaryOfLengthsPerStart[w[:1]] += n
		}
	}
	want.HasMin, want.HasMax = true, true
	for k, v := range want.PerKeyMax {
		want.Formatted = append(want.Formatted, fmt.Sprintf("%d=%d", k, v))
	}
	slices.Sort(want.Formatted)

	if d := mismatch(want, gopar); d != "" {
		t.Errorf("gopar against a plain loop:\n%s", d)
	}
	if d := mismatch(gopar, beam); d != "" {
		t.Errorf("Beam against gopar:\n%s", d)
	}
}

// TestEmpty: an empty input gives gopar's answers on Beam too: a sum and a
// count of 0, a Fold's init(), no Min or Max, no keys.
func TestEmpty(t *testing.T) {
	type result struct {
		Sum, Count, HalvesSum int
		HasSum, HasCount      bool
		HasMin, HasMax        bool
		Summary               summary
		HasSummary            bool
		Keys                  int
	}
	gopar, beam := runBoth(t, func(p *Pipeline) func() result {
		ws := words.Apply(Create(p, []string{}))
		lens := wordLen.Apply(ws)
		sum, count := Collect(Sum(lens)), Collect(Count(ws))
		halves := Collect(Sum(evenHalf.Apply(Create(p, []int{1, 3, 5})))) // empty after the step
		lo, hi := Collect(Min(lens)), Collect(Max(ws))
		sm := Collect(statsFold.Apply(ws))
		keys := CollectKV(CountPerElement(ws))
		return func() result {
			var r result
			r.Sum, r.HasSum = sum.Value()
			r.Count, r.HasCount = count.Value()
			r.HalvesSum, _ = halves.Value()
			_, r.HasMin = lo.Value()
			_, r.HasMax = hi.Value()
			r.Summary, r.HasSummary = sm.Value()
			r.Keys = len(keys.Values())
			return r
		}
	})
	want := result{HasSum: true, HasCount: true, HasSummary: true}
	if d := mismatch(want, gopar); d != "" {
		t.Errorf("gopar:\n%s", d)
	}
	if d := mismatch(gopar, beam); d != "" {
		t.Errorf("Beam against gopar:\n%s", d)
	}
}
