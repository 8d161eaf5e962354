package benchmarks

import (
	"bufio"
	"bytes"
	"runtime"
	"sync"

	"github.com/gopar-dev/gopar/par"
)

func init() { Streams = append(Streams, S4) }

// S4 counts the words of every line of a 200 MB []byte of text: the lines
// of a large input in memory, which bufio.Scanner splits on one goroutine
// and par.Lines splits in parallel, each participant finding the lines of
// its own pieces.
var S4 = &Workload{
	ID:   "S4",
	Name: "lines",
	What: "words of every line of 200 MB of text in a []byte",
	// Balanced: equal byte ranges hold about equal numbers of lines, so
	// static's speedup tells whether the run had every core.
	Balanced: true,
	Impls: []Impl{
		{"seq", func() uint64 { return scanLineWords(linesInput()) }},
		{"static", func() uint64 { return staticLineWords(linesInput()) }},
		{"gopar", func() uint64 { return par.Sum(par.Map(par.Lines(linesInput()), lineSum)) }},
	},
	Targets: []Target{{Impl: "gopar", Against: "seq", Speedup: true, Limit: 1.8}},
}

// linesSize is the length of S4's text. The package's tests set it smaller
// before the text is made (lines_test.go), so that TestChecksums stays
// fast.
var linesSize = 200 << 20

// linesInput returns S4's text, the same every run: lines of 2 to 24 words
// of a 20,000-word vocabulary, word k about 1/k as often as the first, as
// in the text of T1. Made once, on first use.
var linesInput = sync.OnceValue(func() []byte {
	vocab, table := zipfWords()
	buf := make([]byte, 0, linesSize+256)
	x := uint64(38)
	for len(buf) < linesSize {
		x = mix(x)
		words := 2 + int(x%23)
		for w := range words {
			x = mix(x)
			if w > 0 {
				buf = append(buf, ' ')
			}
			buf = append(buf, vocab[table[x%uint64(len(table))]]...)
		}
		buf = append(buf, '\n')
	}
	return buf
})

// countFields returns the number of words of line, separated by runs of
// spaces: the per-line work of S4, the same in every implementation.
func countFields(line []byte) int {
	n := 0
	inWord := false
	for _, c := range line {
		if c == ' ' {
			inWord = false
		} else if !inWord {
			inWord = true
			n++
		}
	}
	return n
}

// lineSum is the checksum of one line: its word count and length, mixed,
// so that a line split in the wrong place changes the sum.
func lineSum(line []byte) uint64 {
	return mix(uint64(countFields(line))<<32 | uint64(len(line)))
}

var newline = []byte{'\n'}

// scanLineWords is the plain loop: a bufio.Scanner over the text.
func scanLineWords(data []byte) uint64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	var s uint64
	for sc.Scan() {
		s += lineSum(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		panic(err)
	}
	return s
}

// staticLineWords is the hand-written fan-out: GOMAXPROCS byte ranges of
// equal length, each moved to start just after a newline, a goroutine
// each, with the lines of each range found with bytes.IndexByte.
func staticLineWords(data []byte) uint64 {
	p := runtime.GOMAXPROCS(0)
	// bounds[k] is where range k starts: the first line start at or after
	// k*len/p.
	bounds := make([]int, p+1)
	for k := 1; k < p; k++ {
		b := max(k*len(data)/p, bounds[k-1])
		if b > 0 {
			if j := bytes.IndexByte(data[b-1:], '\n'); j >= 0 {
				b += j
			} else {
				b = len(data)
			}
		}
		bounds[k] = b
	}
	bounds[p] = len(data)
	partial := make([]uint64, p)
	var wg sync.WaitGroup
	for k := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			rest := data[bounds[k]:bounds[k+1]]
			for len(rest) > 0 {
				line, after, _ := bytes.Cut(rest, newline)
				s += lineSum(line)
				rest = after
			}
			partial[k] = s
		}()
	}
	wg.Wait()
	return sum(partial)
}
