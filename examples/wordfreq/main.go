// Command wordfreq counts the words of a generated text (over 50 MB, the
// same every run) three times: with a plain loop, with the hand-written
// fan-out that par.Fold replaces (a goroutine and a map per core over equal
// slices of the lines, merged after a WaitGroup), and with par.Fold, where
// every participant counts into a map of its own and the maps are merged at
// the end. It prints the most frequent words, the three times and the
// speedups. The fan-out's speedup is the run's check: on a machine whose
// cores are busy with other work, neither parallel version can reach its
// speedup, and the example says so.
//
//	go run ./examples/wordfreq [-mb 64]
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"log"
	"maps"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gopar-dev/gopar/par"
)

func main() {
	mb := flag.Int("mb", 64, "size of the generated text in MiB")
	flag.Parse()
	lines := text(*mb << 20)

	// Alternated, twice each: the second round is shown.
	var seq, fanOut, parallel map[string]int
	var tSeq, tFanOut, tPar time.Duration
	timed := func(count func([][]byte) map[string]int) (map[string]int, time.Duration) {
		start := time.Now()
		m := count(lines)
		return m, time.Since(start)
	}
	for range 2 {
		seq, tSeq = timed(countLoop)
		fanOut, tFanOut = timed(countFanOut)
		parallel, tPar = timed(countFold)
	}
	if !maps.Equal(seq, parallel) || !maps.Equal(seq, fanOut) {
		log.Fatal("the counts disagree")
	}
	fmt.Printf("%d MiB of text, %d lines, %d distinct words\n", *mb, len(lines), len(seq))
	for _, w := range top(seq, 5) {
		fmt.Printf("  %-8s %d\n", w, seq[w])
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Printf("plain loop %v, hand-written fan-out %v (%.2fx), par.Fold %v (%.2fx)\n",
		ms(tSeq), ms(tFanOut), tSeq.Seconds()/tFanOut.Seconds(), ms(tPar), tSeq.Seconds()/tPar.Seconds())
	if cores := goruntime.GOMAXPROCS(0); cores > 1 && tSeq.Seconds()/tFanOut.Seconds() < 0.85*float64(cores) {
		fmt.Printf("(the fan-out got under 85%% of %d cores: the machine was busy, so neither speedup shows what the code can do)\n", cores)
	}
}

// countLoop counts the words with a plain loop.
func countLoop(lines [][]byte) map[string]int {
	m := map[string]int{}
	for _, l := range lines {
		m = countLine(m, l)
	}
	return m
}

// countFanOut counts the words as one would by hand: a goroutine per core,
// each with a map of its own over an equal slice of the lines, merged after
// the WaitGroup.
func countFanOut(lines [][]byte) map[string]int {
	p := goruntime.GOMAXPROCS(0)
	counts := make([]map[string]int, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[k] = countLoop(lines[k*len(lines)/p : (k+1)*len(lines)/p])
		}()
	}
	wg.Wait()
	m := counts[0]
	for _, other := range counts[1:] {
		m = merge(m, other)
	}
	return m
}

// countFold counts the words with par.Fold: a map per run of lines, merged
// in the end.
func countFold(lines [][]byte) map[string]int {
	return par.Fold(par.Slice(lines),
		func() map[string]int { return map[string]int{} },
		countLine,
		merge)
}

// merge adds b's counts to a, the smaller map into the larger.
func merge(a, b map[string]int) map[string]int {
	if len(a) < len(b) {
		a, b = b, a
	}
	for w, n := range b {
		a[w] += n
	}
	return a
}

// countLine adds the words of one line, separated by spaces, to m.
//
// bytes.Cut hands out the words as sub-slices of the line. bytes.Fields
// would allocate a slice of them per line, whose pointers the garbage
// collector must scan: with it, allocation and collection took over a
// quarter of the CPU time, a plain loop got the collector's help on the
// idle core for free, and no parallel version reached 1.7x over it (par.Fold
// ran at the hand-written fan-out's speed either way: docs/benchmarks.md).
// m[string(w)]++ still allocates each word as a string (the compiler copies
// no bytes only for a lookup), a small object with no pointers to scan.
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

// text generates about size bytes of lines of words, the same every time:
// words from a vocabulary of 20,000, drawn with frequencies that fall off
// like a natural language's (word k about 1/k as often as the first).
func text(size int) [][]byte {
	vocab := make([]string, 20_000)
	for k := range vocab {
		vocab[k] = word(k)
	}
	// A table of word indexes with Zipf-like multiplicities to draw from.
	var table []int32
	for k := range vocab {
		for range max(1, 4000/(k+1)) {
			table = append(table, int32(k))
		}
	}
	buf := make([]byte, 0, size+100)
	var lines [][]byte
	x := uint64(0x9E3779B97F4A7C15)
	start := 0
	for len(buf) < size {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
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
}

// word returns a pronounceable word for k.
func word(k int) string {
	const cons, vow = "bcdfghjklmnprstvz", "aeiou"
	var b strings.Builder
	for {
		b.WriteByte(cons[k%len(cons)])
		k /= len(cons)
		b.WriteByte(vow[k%len(vow)])
		k /= len(vow)
		if k == 0 {
			return b.String()
		}
	}
}

// top returns the n most frequent words, ties in alphabetical order.
func top(m map[string]int, n int) []string {
	ws := slices.Collect(maps.Keys(m))
	slices.SortFunc(ws, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	return ws[:min(n, len(ws))]
}
