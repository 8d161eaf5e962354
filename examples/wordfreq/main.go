// Command wordfreq counts the words of a generated text (over 50 MB, the
// same every run) twice: with a plain loop, and with par.Fold, where every
// worker counts into a map of its own and the maps are merged at the end.
// It prints the most frequent words, both times and the speedup.
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
	"slices"
	"strings"
	"time"

	"github.com/gopar-dev/gopar/par"
)

func main() {
	mb := flag.Int("mb", 64, "size of the generated text in MiB")
	flag.Parse()
	lines := text(*mb << 20)

	// Alternated, twice each: the second round is shown.
	var seq, parallel map[string]int
	var tSeq, tPar time.Duration
	for range 2 {
		start := time.Now()
		seq = countLoop(lines)
		tSeq = time.Since(start)
		start = time.Now()
		parallel = countFold(lines)
		tPar = time.Since(start)
	}
	if !maps.Equal(seq, parallel) {
		log.Fatal("the two counts disagree")
	}
	fmt.Printf("%d MiB of text, %d lines, %d distinct words\n", *mb, len(lines), len(seq))
	for _, w := range top(seq, 5) {
		fmt.Printf("  %-8s %d\n", w, seq[w])
	}
	fmt.Printf("plain loop %v, par.Fold %v: %.2fx\n",
		tSeq.Round(time.Millisecond), tPar.Round(time.Millisecond), tSeq.Seconds()/tPar.Seconds())
}

// countLoop counts the words with a plain loop.
func countLoop(lines [][]byte) map[string]int {
	m := map[string]int{}
	for _, l := range lines {
		m = countLine(m, l)
	}
	return m
}

// countFold counts the words with par.Fold: a map per run of lines, merged
// in the end.
func countFold(lines [][]byte) map[string]int {
	return par.Fold(par.Slice(lines),
		func() map[string]int { return map[string]int{} },
		countLine,
		func(a, b map[string]int) map[string]int {
			if len(a) < len(b) {
				a, b = b, a // merge the smaller map into the larger
			}
			for w, n := range b {
				a[w] += n
			}
			return a
		})
}

// countLine adds the words of one line to m.
func countLine(m map[string]int, line []byte) map[string]int {
	for _, w := range bytes.Fields(line) {
		m[string(w)]++ // no allocation: the compiler looks up the bytes
	}
	return m
}

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
